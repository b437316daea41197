#!/usr/bin/python3
"""QDQ test models: small CNNs in ONNX's QDQ form (QuantizeLinear/DequantizeLinear around float
ops), as ONNX Runtime's and PyTorch's quantization tools export them, built with onnx.helper.

The float weights come from seeded PyTorch modules; each activation's scale and zero point from
the min/max of that module's float tensor over 64 calibration inputs, the way a PTQ observer
picks them; weights are int8 initializers behind a DequantizeLinear, biases int32 at scale
s_in·s_w. The ONNX Runtime outputs for the test inputs are computed by ort_reference.js
(onnxruntime-node), so the C++ test needs neither PyTorch nor ONNX Runtime.

  qdq_s8_per_channel (opset 13): int8 activations, per-channel int8 weights (Conv, depthwise
      Conv, Gemm transB=1), a float BatchNormalization between a quantized Conv and its Relu,
      QDQ between a Conv and its Relu, MaxPool, residual Add, GlobalAveragePool, Flatten; the
      depthwise weights as QAT exports them (float → QuantizeLinear → DequantizeLinear).
  qdq_u8_opset10 (opset 10): uint8 activations with zero points other than 128, per-tensor
      weights (int8, and uint8 with zero point 128), Sigmoid, a Mul by a float constant (no
      int8 kernel: stays float), AveragePool, Gemm transB=0; scales and zero points given
      through Constant and Cast nodes as PyTorch's export leaves them.
  qdq_matmul (opset 13): MatMul with weights quantized per column (axis 1), QDQ between it and
      its Relu, a MatMul with per-tensor weights; uint8 activations.
  torch_ptq_cnn (opset 13): PyTorch's own flow, torch.ao.quantization eager PTQ (fbgemm qconfig,
      conv-BN-ReLU fused by fuse_modules, calibrated on the same 64 inputs) and torch.onnx.export:
      Cast between each QuantizeLinear and DequantizeLinear, Constant/ConstantOfShape scales,
      zero points and biases.
  torch_qat_cnn (opset 13): PyTorch's eager QAT exported without convert: fake-quantized float
      weights (QuantizeLinear of an initializer), the fused conv-BN-ReLU as Conv → Div → Add →
      BatchNormalization → Relu.

Written to data/: <name>.onnx, <name>_input.npy [T, ...] float32, and (by ort_reference.js)
<name>_ort.npy [T, classes]; MANIFEST.json stamps the generator and versions.

Run: /usr/bin/python3 tests/golden/qdq/make_qdq_models.py && node tests/golden/qdq/ort_reference.js
(ort_reference.js needs onnxruntime-node: `npm install onnxruntime-node` in a folder on NODE_PATH).
"""
import datetime, hashlib, io, json, os

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

SEED = 36
TEST_INPUTS = 200
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def act_qparams(lo, hi, unsigned):
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = np.float32((hi - lo) / 255.0)
    if unsigned:
        return scale, int(np.clip(np.round(-lo / scale), 0, 255))
    return scale, int(np.clip(np.round(-128 - lo / scale), -128, 127))


class Builder:
    """Nodes and initializers of one QDQ graph."""

    def __init__(self, unsigned, constant_nodes=False):
        self.nodes, self.inits, self.unsigned, self.constant_nodes = [], [], unsigned, constant_nodes
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def qparam(self, name, scale, zp, zp_dtype):
        """Scale and zero point tensors: initializers, or Constant (+ Cast for the zero point)."""
        s, z = np.asarray(scale, np.float32), np.asarray(zp, zp_dtype)
        if not self.constant_nodes:
            return self.init(name + "_scale", s), self.init(name + "_zp", z)
        self.nodes.append(helper.make_node("Constant", [], [name + "_scale"], name=name + "_scale_const",
                                           value=numpy_helper.from_array(s)))
        self.nodes.append(helper.make_node("Constant", [], [name + "_zp32"], name=name + "_zp_const",
                                           value=numpy_helper.from_array(z.astype(np.int32))))
        to = TensorProto.UINT8 if zp_dtype == np.uint8 else TensorProto.INT8
        self.nodes.append(helper.make_node("Cast", [name + "_zp32"], [name + "_zp"], name=name + "_zp_cast", to=to))
        return name + "_scale", name + "_zp"

    def qdq(self, x, t):
        """x → QuantizeLinear → DequantizeLinear with the activation quantization of float values t."""
        scale, zp = act_qparams(t.min(), t.max(), self.unsigned)
        s, z = self.qparam(x + "_q", scale, zp, np.uint8 if self.unsigned else np.int8)
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [x + "_quant"], name=x + "_QuantizeLinear"))
        self.nodes.append(helper.make_node("DequantizeLinear", [x + "_quant", s, z], [x + "_dq"],
                                           name=x + "_DequantizeLinear"))
        self.scales = getattr(self, "scales", {})
        self.scales[x] = scale
        return x + "_dq"

    def weight(self, name, w, per_channel, axis=0, unsigned=False, fake_quant=False):
        """DequantizeLinear of an int8 (or uint8, zero point 128) initializer; per output channel
        along `axis` or per tensor. fake_quant: a float initializer → QuantizeLinear →
        DequantizeLinear instead, as a QAT model's fake quantization exports. Returns (output
        name, scales)."""
        w = w.astype(np.float64)
        moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
        amax = np.abs(moved).max(axis=1) if per_channel else np.full(w.shape[axis], np.abs(w).max())
        # q in [-115, 115], not max|w| / 127: the test can tell the model's scales from edgefold's own
        s = (np.maximum(amax, 1e-8) / 115.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / s.reshape(shape)), -127, 127)
        if unsigned:
            q, zp = (q + 128).astype(np.uint8), np.full(len(s), 128, np.uint8)
        else:
            q, zp = q.astype(np.int8), np.zeros(len(s), np.int8)
        scale, z = (s, zp) if per_channel else (s[0], zp[0])
        sn, zn = self.qparam(name, scale, z, zp.dtype)
        attrs = {"axis": axis} if per_channel else {}
        if fake_quant:
            self.init(name + "_float", w.astype(np.float32))
            self.nodes.append(helper.make_node("QuantizeLinear", [name + "_float", sn, zn], [name + "_int8"],
                                               name=name + "_Q", **attrs))
        else:
            self.init(name + "_int8", q)
        self.nodes.append(helper.make_node("DequantizeLinear", [name + "_int8", sn, zn], [name], name=name + "_DQ",
                                           **attrs))
        return name, s

    def bias(self, name, b, s_in, s_w):
        """int32 bias at scale s_in·s_w (per channel, or per tensor when s_w has one value)."""
        scale = (np.float32(s_in) * s_w).astype(np.float32)
        q = np.round(b.astype(np.float64) / scale).astype(np.int32)
        self.init(name + "_int32", q)
        per_channel = len(set(s_w.tolist())) > 1
        self.init(name + "_scale", scale if per_channel else np.float32(scale[0]))
        self.nodes.append(helper.make_node("DequantizeLinear", [name + "_int32", name + "_scale"], [name],
                                           name=name + "_DQ", **({"axis": 0} if per_channel else {})))
        return name

    def model(self, name, input_shape, output, classes, opset):
        graph = helper.make_graph(self.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                                  [helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, classes])], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_qdq_models.py")
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


def T(x):
    return x.detach().numpy()


def centered(fc, f):
    """fc with logits of zero mean and unit spread over the calibration features f, so that the
    arg max depends on the input (random weights otherwise favour one class everywhere)."""
    with torch.no_grad():
        fc.bias.copy_(-(f.mean(0) @ fc.weight.T))
        spread = fc(f).std(0, keepdim=True).T
        fc.weight.div_(spread), fc.bias.div_(spread[:, 0])
    return fc(f)


def per_channel_model(calib):
    torch.manual_seed(SEED)
    conv1, conv2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1, bias=False)
    bn2 = nn.BatchNorm2d(8).eval()
    with torch.no_grad():
        bn2.running_mean.uniform_(-0.2, 0.2), bn2.running_var.uniform_(0.5, 1.5)
        bn2.weight.uniform_(0.5, 1.5), bn2.bias.uniform_(-0.2, 0.2)
    dw, fc = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Linear(8, 10)
    x = torch.from_numpy(calib)
    t = {"x": x}
    t["r1"] = torch.relu(conv1(x))
    t["p1"] = nn.functional.max_pool2d(t["r1"], 2)
    t["r2"] = torch.relu(bn2(conv2(t["p1"])))
    t["a"] = t["r2"] + t["p1"]
    t["c3"] = dw(t["a"])
    t["r3"] = torch.relu(t["c3"])
    t["g"] = t["r3"].mean(dim=(2, 3), keepdim=True)
    t["f"] = t["g"].flatten(1)
    t["y"] = centered(fc, t["f"])
    t = {k: T(v) for k, v in t.items()}

    b = Builder(unsigned=False)
    n = b.nodes
    xq = b.qdq("x", t["x"])
    w1, s1 = b.weight("conv1.w", T(conv1.weight), True)
    n.append(helper.make_node("Conv", [xq, w1, b.bias("conv1.b", T(conv1.bias), b.scales["x"], s1)], ["c1"],
                              name="conv1", pads=[1, 1, 1, 1]))
    n.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
    r1 = b.qdq("r1", t["r1"])
    n.append(helper.make_node("MaxPool", [r1], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]))
    b.qdq("p1", t["r1"])   # a max pool keeps its input's quantization
    p1 = "p1_dq"
    w2, _ = b.weight("conv2.w", T(conv2.weight), True)
    n.append(helper.make_node("Conv", [p1, w2], ["c2"], name="conv2", pads=[1, 1, 1, 1]))
    n.append(helper.make_node("BatchNormalization", ["c2", b.init("bn2.scale", T(bn2.weight)), b.init("bn2.b", T(bn2.bias)),
                                                     b.init("bn2.mean", T(bn2.running_mean)),
                                                     b.init("bn2.var", T(bn2.running_var))], ["bn2"], name="bn2"))
    n.append(helper.make_node("Relu", ["bn2"], ["r2"], name="relu2"))
    r2 = b.qdq("r2", t["r2"])
    n.append(helper.make_node("Add", [r2, p1], ["a"], name="residual_add"))
    a = b.qdq("a", t["a"])
    w3, s3 = b.weight("dw.w", T(dw.weight), True, fake_quant=True)
    n.append(helper.make_node("Conv", [a, w3, b.bias("dw.b", T(dw.bias), b.scales["a"], s3)], ["c3"], name="depthwise",
                              pads=[1, 1, 1, 1], group=8))
    c3 = b.qdq("c3", t["c3"])
    n.append(helper.make_node("Relu", [c3], ["r3"], name="relu3"))
    r3 = b.qdq("r3", t["r3"])
    n.append(helper.make_node("GlobalAveragePool", [r3], ["g"], name="gap"))
    g = b.qdq("g", t["g"])
    n.append(helper.make_node("Flatten", [g], ["f"], name="flatten"))
    f = b.qdq("f", t["f"])
    w4, s4 = b.weight("fc.w", T(fc.weight), True)
    n.append(helper.make_node("Gemm", [f, w4, b.bias("fc.b", T(fc.bias), b.scales["f"], s4)], ["y"], name="fc", transB=1))
    b.qdq("y", t["y"])
    n[-1].output[0] = "logits"
    return b.model("qdq_s8_per_channel", [1, 3, 12, 12], "logits", 10, 13), b.scales["y"]


def opset10_model(calib):
    torch.manual_seed(SEED + 1)
    conv1, conv2, fc = nn.Conv2d(3, 6, 3), nn.Conv2d(6, 6, 1), nn.Linear(6 * 4 * 4, 5)
    gain = torch.linspace(0.5, 1.5, 6).reshape(1, 6, 1, 1)
    x = torch.from_numpy(calib)
    t = {"x": x}
    t["r1"] = torch.relu(conv1(x))
    t["c2"] = conv2(t["r1"])
    t["s"] = torch.sigmoid(t["c2"])
    t["m"] = t["s"] * gain
    t["p"] = nn.functional.avg_pool2d(t["m"], 2)
    t["f"] = t["p"].flatten(1)
    t["y"] = centered(fc, t["f"])
    t = {k: T(v) for k, v in t.items()}

    b = Builder(unsigned=True, constant_nodes=True)
    n = b.nodes
    xq = b.qdq("x", t["x"])
    w1, s1 = b.weight("conv1.w", T(conv1.weight), False)
    n.append(helper.make_node("Conv", [xq, w1, b.bias("conv1.b", T(conv1.bias), b.scales["x"], s1)], ["c1"], name="conv1"))
    n.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
    r1 = b.qdq("r1", t["r1"])
    w2, s2 = b.weight("conv2.w", T(conv2.weight), False, unsigned=True)
    n.append(helper.make_node("Conv", [r1, w2, b.bias("conv2.b", T(conv2.bias), b.scales["r1"], s2)], ["c2"], name="conv2"))
    c2 = b.qdq("c2", t["c2"])
    n.append(helper.make_node("Sigmoid", [c2], ["s"], name="sigmoid"))
    s = b.qdq("s", t["s"])
    n.append(helper.make_node("Mul", [s, b.init("gain", T(gain))], ["m"], name="channel_gain"))
    m = b.qdq("m", t["m"])
    n.append(helper.make_node("AveragePool", [m], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]))
    p = b.qdq("p", t["p"])
    n.append(helper.make_node("Flatten", [p], ["f"], name="flatten"))
    f = b.qdq("f", t["f"])
    w3, s3 = b.weight("fc.w", T(fc.weight).T.copy(), False, axis=1)
    n.append(helper.make_node("Gemm", [f, w3, b.bias("fc.b", T(fc.bias), b.scales["f"], s3)], ["y"], name="fc"))
    b.qdq("y", t["y"])
    n[-1].output[0] = "logits"
    return b.model("qdq_u8_opset10", [1, 3, 10, 10], "logits", 5, 10), b.scales["y"]


def matmul_model(calib):
    """MatMul with weights [K, N] quantized per column (axis 1), as ONNX Runtime quantizes a
    MatMul per channel, then Relu and a MatMul with per-tensor weights."""
    torch.manual_seed(SEED + 3)
    fc1, fc2 = nn.Linear(16, 24, bias=False), nn.Linear(24, 6, bias=False)
    x = torch.from_numpy(calib)
    t = {"x": x, "h": fc1(x)}
    t["r"] = torch.relu(t["h"])
    fc2 = nn.Linear(24, 6)
    centered(fc2, t["r"])   # for the weights' spread; a MatMul has no bias
    with torch.no_grad():
        fc2.bias.zero_()
    t["y"] = fc2(t["r"])
    t = {k: T(v) for k, v in t.items()}
    b = Builder(unsigned=True)
    n = b.nodes
    xq = b.qdq("x", t["x"])
    w1, _ = b.weight("mm1.w", T(fc1.weight).T.copy(), True, axis=1)
    n.append(helper.make_node("MatMul", [xq, w1], ["h"], name="mm1"))
    h = b.qdq("h", t["h"])
    n.append(helper.make_node("Relu", [h], ["r"], name="relu"))
    r = b.qdq("r", t["r"])
    w2, _ = b.weight("mm2.w", T(fc2.weight).T.copy(), False, axis=1)
    n.append(helper.make_node("MatMul", [r, w2], ["y"], name="mm2"))
    b.qdq("y", t["y"])
    n[-1].output[0] = "logits"
    return b.model("qdq_matmul", [1, 16], "logits", 6, 13), b.scales["y"]


class TorchNet(nn.Module):
    """conv-BN-ReLU → max pool → conv-ReLU → global average pool → Linear, between PyTorch's
    QuantStub and DeQuantStub."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2, self.relu2 = nn.Conv2d(8, 8, 3, padding=1), nn.ReLU()
        self.gap, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(8, 10)

    def features(self, x):
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        return self.gap(self.relu2(self.conv2(x))).flatten(1)

    def forward(self, x):
        return self.dequant(self.fc(self.features(self.quant(x))))


def torch_ptq_model(calib):
    """PyTorch's eager post-training quantization (fbgemm: per-channel int8 weights, uint8
    activations), exported by torch.onnx.export in its QDQ form. The global average runs over
    7 × 7 values: an odd count has no exact .5 mean, where edgefold's int8 average (half away
    from zero) and ONNX Runtime's (half to even) could round apart."""
    import torch.ao.quantization as tq
    torch.manual_seed(SEED + 2)
    net = TorchNet().eval()
    with torch.no_grad():
        net.bn1.running_mean.uniform_(-0.2, 0.2), net.bn1.running_var.uniform_(0.5, 1.5)
        x = torch.from_numpy(calib)
        centered(net.fc, net.features(x))
    net.qconfig = tq.get_default_qconfig("fbgemm")
    tq.fuse_modules(net, [["conv1", "bn1", "relu1"], ["conv2", "relu2"]], inplace=True)
    tq.prepare(net, inplace=True)
    with torch.no_grad():
        net(x)
    tq.convert(net, inplace=True)
    buf = io.BytesIO()
    torch.onnx.export(net, x[:1], buf, opset_version=13, input_names=["x"], output_names=["logits"])
    model = onnx.load_from_string(buf.getvalue())
    model.graph.name = "torch_ptq_cnn"
    return model, float(net.fc.scale)


def uniform_inputs(rng, shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def image_like_inputs(rng, shape):
    """A level per sample and channel plus noise: the pooled features differ between inputs by
    many quantization steps, as an image network's do (with uniform noise alone they differ by a
    few, and the centered classifier then turns one step of rounding into several of logits)."""
    level = rng.uniform(-1, 1, shape[:2] + (1,) * (len(shape) - 2))
    return (0.7 * level + 0.3 * rng.uniform(-1, 1, shape)).astype(np.float32)


class TorchQatNet(nn.Module):
    """conv-BN-ReLU → conv-ReLU → global average pool (15 × 15, odd) → Linear, for QAT."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()
        self.conv2, self.relu2 = nn.Conv2d(8, 8, 3, padding=1), nn.ReLU()
        self.gap, self.fc = nn.AdaptiveAvgPool2d(1), nn.Linear(8, 10)

    def features(self, x):
        return self.gap(self.relu2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))).flatten(1)

    def forward(self, x):
        return self.dequant(self.fc(self.features(self.quant(x))))


def torch_qat_model(calib):
    """PyTorch's eager QAT (fake quantization: per-channel int8 weights, uint8 activations;
    conv-BN-ReLU fused by fuse_modules_qat, which exports Conv → Div → Add → BatchNormalization),
    a few training-mode passes (BN statistics frozen) to set the observers, exported in eval mode
    without convert: weights are float initializers behind QuantizeLinear → DequantizeLinear."""
    import torch.ao.quantization as tq
    torch.manual_seed(SEED + 4)
    net = TorchQatNet().eval()
    x = torch.from_numpy(calib)
    with torch.no_grad():
        centered(net.fc, net.features(x))
    net.train()
    net.qconfig = tq.QConfig(
        activation=tq.FakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver, quant_min=0, quant_max=255),
        weight=tq.default_per_channel_weight_fake_quant)
    tq.fuse_modules_qat(net, [["conv1", "bn1", "relu1"], ["conv2", "relu2"]], inplace=True)
    tq.prepare_qat(net, inplace=True)
    net.apply(torch.nn.intrinsic.qat.freeze_bn_stats)   # BN keeps the statistics the logits were centred with
    with torch.no_grad():
        for _ in range(4):
            net(x)
    net.eval()
    net.apply(tq.disable_observer)
    buf = io.BytesIO()
    torch.onnx.export(net, x[:1], buf, opset_version=13, input_names=["x"], output_names=["logits"])
    model = onnx.load_from_string(buf.getvalue())
    model.graph.name = "torch_qat_cnn"
    return model, float(net.fc.activation_post_process.scale)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(SEED)
    manifest = {"generator": "tests/golden/qdq/make_qdq_models.py",
                "generator_sha256": hashlib.sha256(open(__file__, "rb").read()).hexdigest(),
                "torch": torch.__version__, "onnx": onnx.__version__, "numpy": np.__version__,
                "date": datetime.date.today().isoformat(), "models": {}}
    models = ((per_channel_model, (3, 12, 12), uniform_inputs), (opset10_model, (3, 10, 10), uniform_inputs),
              (torch_ptq_model, (3, 14, 14), image_like_inputs), (matmul_model, (16,), uniform_inputs),
              (torch_qat_model, (3, 15, 15), image_like_inputs))
    for make, shape, inputs in models:
        calib = inputs(rng, (64,) + shape)
        model, out_scale = make(calib)
        name = model.graph.name
        onnx.save(model, os.path.join(OUT, name + ".onnx"))
        test = inputs(rng, (TEST_INPUTS,) + shape)[:, None]
        np.save(os.path.join(OUT, name + "_input.npy"), test)
        manifest["models"][name] = {"output_scale": float(out_scale), "inputs": TEST_INPUTS}
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

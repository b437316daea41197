"""Small ONNX models written as protobuf bytes by hand, so the bad-input tests need neither the
onnx package nor torch (Debian's python3-onnx is optional). Field numbers: onnx/onnx.proto."""
import struct


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _int(field, n):
    return _key(field, 0) + _varint(n)


def _bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return _key(field, 2) + _varint(len(data)) + data


def _float(field, x):
    return _key(field, 5) + struct.pack("<f", x)


FLOAT = 1


def tensor(name, dims, values):
    """TensorProto: float32 with raw_data."""
    body = b"".join(_int(1, d) for d in dims) + _int(2, FLOAT) + _bytes(8, name)
    return body + _bytes(9, struct.pack(f"<{len(values)}f", *values))


def value_info(name, dims):
    """A float tensor's name and shape; a str dim is a dim_param (dynamic)."""
    shape = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    tensor_type = _int(1, FLOAT) + _bytes(2, shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def attr_ints(name, values):
    return _bytes(1, name) + b"".join(_int(8, v) for v in values) + _int(20, 7)


def attr_float(name, value):
    return _bytes(1, name) + _float(2, value) + _int(20, 1)


def node(op_type, inputs, outputs, name, attributes=()):
    body = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    body += _bytes(3, name) + _bytes(4, op_type)
    return body + b"".join(_bytes(5, a) for a in attributes)


def model(nodes, initializers, inputs, outputs, opset=13, name="test"):
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += b"".join(_bytes(11, v) for v in inputs) + b"".join(_bytes(12, v) for v in outputs)
    opset_id = _bytes(1, "") + _int(2, opset)
    return _int(1, 7) + _bytes(2, "edgefold-tests") + _bytes(7, graph) + _bytes(8, opset_id)


def conv_bn(variance_value=1.0, dynamic_batch=False):
    """x [1, 2, 4, 4] -> Conv 3x3 (pad 1) -> BatchNormalization -> Relu -> y; one BN variance
    is `variance_value` (NaN for the bad-input test); dynamic_batch: x's batch dim is "N"."""
    w = [((i * 7) % 11 - 5) / 10.0 for i in range(2 * 2 * 3 * 3)]
    inits = [tensor("w", [2, 2, 3, 3], w), tensor("b", [2], [0.1, -0.2]),
             tensor("gamma", [2], [1.5, 0.5]), tensor("beta", [2], [0.2, -0.1]),
             tensor("mean", [2], [0.3, -0.4]), tensor("var", [2], [variance_value, 2.0])]
    nodes = [node("Conv", ["x", "w", "b"], ["c"], "conv", [attr_ints("pads", [1, 1, 1, 1]),
                                                           attr_ints("kernel_shape", [3, 3])]),
             node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["n"], "bn",
                  [attr_float("epsilon", 1e-5)]),
             node("Relu", ["n"], ["y"], "relu")]
    batch = "N" if dynamic_batch else 1
    return model(nodes, inits, [value_info("x", [batch, 2, 4, 4])], [value_info("y", [batch, 2, 4, 4])])


def single_op(op_type, name="odd"):
    """x [1, 4] -> op_type -> y: for an op edgefold does not support."""
    return model([node(op_type, ["x"], ["y"], name)], [], [value_info("x", [1, 4])], [value_info("y", [1, 4])])

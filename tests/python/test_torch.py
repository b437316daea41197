"""A torch.nn.Module straight into ef.compile (skipped where torch is not installed)."""
import numpy as np
import pytest

import edgefold as ef

torch = pytest.importorskip("torch")


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16 * 8 * 8, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    net = SmallCnn()
    for bn in (net.bn1, net.bn2):   # statistics that are not the identity, so folding matters
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
    net.train()   # compile must export in eval mode whatever mode the caller left it in
    return net


def test_module_compiles_with_bn_folded(net):
    x = torch.randn(1, 3, 16, 16)
    m = ef.compile(net, example_inputs=x)
    assert net.training, "compile must restore the module's mode"
    assert m.compile_report["batchnorm_found"] == 2 and m.compile_report["batchnorm_kept"] == 0
    net.eval()
    with torch.no_grad():
        expected = net(x).numpy()
    net.train()
    np.testing.assert_allclose(m.run(x), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.run(x.numpy()), expected, rtol=1e-4, atol=1e-5)


def test_three_lines_to_a_c_header(net, tmp_path):
    calib = torch.randn(32, 3, 16, 16)
    q = ef.compile(net, example_inputs=calib[:1], quantize="int8", calibrate=calib)
    q.export_c(tmp_path / "net.h", name="net")
    assert "net_model[NET_MODEL_BYTES]" in (tmp_path / "net.h").read_text()


def test_module_needs_example_inputs(net):
    with pytest.raises(ValueError, match="example_inputs"):
        ef.compile(net)



def test_torch_to_c_example_runs(tmp_path):
    import os
    import pathlib
    import subprocess
    import sys
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "torch_to_c.py"
    out = subprocess.run([sys.executable, str(example), str(tmp_path)], capture_output=True, text=True,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "BatchNorm: 2 found, 2 folded backward" in out.stdout
    assert "net_model[NET_MODEL_BYTES]" in (tmp_path / "net_model.h").read_text()

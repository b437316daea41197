"""train=True, ef.Trainer: SGD steps, label-free streaming, and the adapted model."""
import numpy as np
import pytest

import edgefold as ef
from conftest import DIGITS


@pytest.fixture(scope="module")
def drift():
    return (np.load(DIGITS / "drift_adapt_x.npy"), np.load(DIGITS / "drift_adapt_y.npy"),
            np.load(DIGITS / "drift_eval_x.npy"), np.load(DIGITS / "drift_eval_y.npy"))


def test_steps_reduce_the_loss(digits_onnx, drift):
    x, y, _, _ = drift
    t = ef.compile(digits_onnx, train=True, batch=10, trainable="bn")
    assert t.trainable and "training: batch 10" in t.report
    tr = ef.Trainer(t, lr=0.01, momentum=0.9)
    assert tr.batch_size == 10 and tr.num_classes == 10
    history = tr.fit(x, y, epochs=3)
    assert len(history) == 3 and history[2][0] < history[0][0]
    loss, correct = tr.step(x[:10], y[:10])
    assert isinstance(loss, float) and 0 <= correct <= 10
    for bad in (10, -1, 2**32 + 3):   # the last would wrap to 3 as int32
        with pytest.raises(ValueError, match="outside"):
            tr.step(x[:10], np.full(10, bad, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        tr.step(x[:10], y[:10].astype(np.float32))
    with pytest.raises(ValueError, match=r"\[10, 1, 8, 8\]"):
        tr.step(x[:9], y[:9])


def test_adapted_model_runs_at_batch_one(digits_onnx, drift):
    x, y, ex, ey = drift
    t = ef.compile(digits_onnx, train=True, batch=10)
    tr = ef.Trainer(t, lr=0.01, momentum=0.9, stats="cumulative")
    deployed = tr.accuracy(ex, ey)
    tr.reset_statistics()
    tr.adapt(x)
    tr.set_options(stats="momentum")
    tr.fit(x, y, epochs=2)
    adapted = tr.model()
    assert isinstance(adapted, ef.Model)
    assert list(adapted.inputs[0][1])[0] == 1
    acc = np.mean(np.argmax(adapted.run(ex), 1) == ey)
    assert acc > deployed + 0.1
    assert acc == pytest.approx(tr.accuracy(ex, ey), abs=0.011)


def test_stream_step_adapts_without_labels(digits_onnx, drift):
    _, _, ex, _ = drift
    t = ef.compile(digits_onnx, train=True)
    tr = ef.Trainer(t)
    before = tr.parameters()
    for i in range(20):
        logits = tr.stream_step(ex[i:i + 1])
    assert logits.shape == (1, 10) and np.all(np.isfinite(logits))
    assert tr.stream_step(ex[20]).shape == (1, 10)   # one sample, no batch dim
    with pytest.raises(ValueError, match=r"stream_step: x must be float32 of shape \[1, 1, 8, 8\]"):
        tr.stream_step(ex[:2])
    assert 0.0 <= tr.last_stream["entropy"] <= 1.0
    assert tr.model().run(ex[:1]).shape == (1, 10)
    assert before.keys() == tr.parameters().keys()


def test_training_options_reach_the_compiler(digits_onnx):
    plain = ef.compile(digits_onnx, train=True, batch=8)
    recompute = ef.compile(digits_onnx, train=True, batch=8, recompute=True, saved_precision="fp16",
                           bn_stats="batch", trainable="bn+head")
    assert recompute.compile_report["training"]["trainable"] == "bn+head"
    assert recompute.compile_report["training"]["arena_bytes"] < plain.compile_report["training"]["arena_bytes"]
    wide = ef.compile(digits_onnx, train=True, trainable="bn+head", new_classes=2)
    assert ef.Trainer(wide, seed=3).num_classes == 12


def test_digits_adapt_example_prints_what_drift_demo_prints(digits_onnx, cli, tmp_path):
    """examples/python/digits_adapt.py against the C++ demo it mirrors: same lines, same figures."""
    import os
    import pathlib
    import subprocess
    import sys
    demo = pathlib.Path(cli).parent / "drift_demo"
    if not demo.exists():
        pytest.skip(f"{demo} not built")
    efb = tmp_path / "train.efb"
    subprocess.run([cli, "compile", digits_onnx, "--train", "--batch", "10", "-o", str(efb)], check=True,
                   capture_output=True)
    cpp = subprocess.run([str(demo), str(efb), str(DIGITS)], capture_output=True, text=True)
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "digits_adapt.py"
    py = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, env=dict(os.environ))
    assert py.returncode == cpp.returncode == 0, py.stderr
    cpp_lines = cpp.stdout.splitlines()
    assert py.stdout.splitlines()[:len(cpp_lines)] == cpp_lines
    assert "adapted model (tr.model(), batch 1)" in py.stdout


def test_stream_step_with_a_graph_smaller_than_the_batch(digits_onnx, drift):
    """A trainer compiled at batch 8 (the graph at batch 1, run scaled with batch statistics)
    streams one sample at a time exactly as one compiled at batch 1: the same statistics, the
    same logits, the same sample count; frozen statistics stream the graph's batch too."""
    x = drift[2]
    scaled = ef.Trainer(ef.compile(digits_onnx, train=True, batch=8, trainable="bn"))
    single = ef.Trainer(ef.compile(digits_onnx, train=True, batch=1, trainable="bn"))
    for i in range(40):
        a, b = scaled.stream_step(x[i:i + 1]), single.stream_step(x[i:i + 1])
        assert a.shape == (1, 10)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert scaled.last_stream["samples"] == single.last_stream["samples"]
    with pytest.raises(ValueError, match=r"\[1, 1, 8, 8\]"):
        scaled.stream_step(x[:2])
    two = ef.Trainer(ef.compile(digits_onnx, train=True, batch=4, infer_batch=2))
    assert two.stream_step(x[:2]).shape == (2, 10)
    frozen = ef.Trainer(ef.compile(digits_onnx, train=True, batch=4, infer_batch=2, bn_stats="frozen"))
    assert frozen.stream_step(x[:2]).shape == (2, 10)
    assert frozen.step(x[:4], drift[1][:4])[1] >= 0

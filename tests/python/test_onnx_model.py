"""An ONNX file through ef.compile: outputs against PyTorch's and bit for bit against the CLI's
`edgefold run`, save/load, the report, the memory plot, export_c and `python -m edgefold`."""
import os
import subprocess
import sys

import numpy as np
import pytest

import edgefold as ef
from conftest import DIGITS


def test_compile_path_runs_like_pytorch(digits_model, digits_x):
    reference = np.load(DIGITS / "digits_test_logits_pytorch.npy")
    for i in range(0, 450, 37):
        y = digits_model.run(digits_x[i:i + 1])
        assert y.shape == (1, 10) and y.dtype == np.float32
        np.testing.assert_allclose(y[0], reference[i], rtol=1e-4, atol=1e-4)


def test_bytes_and_model_proto_compile_like_the_path(digits_onnx, digits_model, digits_x):
    with open(digits_onnx, "rb") as f:
        data = f.read()
    expected = digits_model.run(digits_x[:5]).tobytes()
    assert ef.compile(data).run(digits_x[:5]).tobytes() == expected
    assert ef.compile(bytearray(data)).run(digits_x[:5]).tobytes() == expected
    try:
        from onnx import load as load_onnx
    except ImportError:   # Debian's python3-onnx is optional (libonnx-dev alone leaves a bare
        return            # namespace package named onnx)
    assert ef.compile(load_onnx(digits_onnx)).run(digits_x[:5]).tobytes() == expected


def test_outputs_bit_identical_to_cli_run(digits_model, digits_x, cli, tmp_path):
    efb, x_path, y_path = tmp_path / "m.efb", tmp_path / "x.npy", tmp_path / "y.npy"
    digits_model.save(efb)
    x = digits_x[:20]
    np.save(x_path, x)
    subprocess.run([cli, "run", str(efb), "-i", str(x_path), "-o", str(y_path)], check=True, capture_output=True)
    expected = np.load(y_path)
    got = digits_model.run(x)   # 20 slices of the batch-1 model, stacked, as the CLI does
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()
    assert digits_model.run(x, threads=2).tobytes() == expected.tobytes()


def test_save_load_round_trip(digits_model, digits_x, tmp_path):
    path = tmp_path / "digits.efb"
    digits_model.save(path)
    loaded = ef.load(path)
    assert loaded.to_bytes() == digits_model.to_bytes()
    assert ef.load(path.read_bytes()).run(digits_x[:1]).tobytes() == digits_model.run(digits_x[:1]).tobytes()
    assert loaded.arena_bytes == digits_model.arena_bytes > 0
    assert loaded.weights_bytes == digits_model.weights_bytes > 0
    assert "ops" in loaded.report and "arena" in loaded.report


def test_report_names_what_was_folded(digits_model):
    report = digits_model.report
    assert "BatchNorm: 4 found" in report
    assert f"arena: {digits_model.arena_bytes} bytes" in report
    assert digits_model.compile_report["batchnorm_kept"] == 0


def test_memory_plot_is_svg(digits_model):
    svg = digits_model.memory_plot()
    assert svg.lstrip().startswith("<") and "<svg" in svg and svg.rstrip().endswith("</svg>")
    assert digits_model._repr_svg_() == svg
    assert "BatchNorm" in digits_model._repr_html_()


def test_export_c_writes_the_cli_header(digits_model, cli, tmp_path):
    header = tmp_path / "kws.h"
    digits_model.export_c(header, name="kws")
    text = header.read_text()
    assert "kws_model[KWS_MODEL_BYTES]" in text and "#define KWS_ARENA_BYTES" in text
    efb, cli_header = tmp_path / "m.efb", tmp_path / "cli.h"
    digits_model.save(efb)
    subprocess.run([cli, "export-c", str(efb), "-o", str(cli_header), "--name", "kws"], check=True,
                   capture_output=True)
    assert cli_header.read_text() == text
    with pytest.raises(ValueError, match="C identifier"):
        digits_model.export_c(tmp_path / "bad.h", name="3d model")


def test_python_m_edgefold_is_the_cli(digits_onnx, tmp_path):
    efb = tmp_path / "m.efb"
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "edgefold", "compile", digits_onnx, "-o", str(efb)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "BatchNorm: 4 found" in out.stdout and efb.exists()
    bad = subprocess.run([sys.executable, "-m", "edgefold", "nonsense"], capture_output=True, text=True, env=env)
    assert bad.returncode != 0 and "unknown command" in bad.stderr


def test_progress_callback_is_called(digits_onnx):
    calls = []
    ef.compile(digits_onnx, progress=lambda done, total, info: calls.append((done, total)))
    assert calls == [(1, 1)]


def test_threads_run_in_parallel_with_their_own_models(digits_onnx, digits_x):
    import threading
    models = [ef.compile(digits_onnx) for _ in range(2)]
    expected = models[0].run(digits_x)
    results = [None, None]

    def work(i):
        for _ in range(20):
            results[i] = models[i].run(digits_x)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.tobytes() == expected.tobytes() for r in results)


def test_thousands_of_runs_do_not_leak(digits_model, digits_x):
    def rss_pages():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1])
    x = digits_x[:1]
    for _ in range(200):
        digits_model.run(x)
    before = rss_pages()
    for _ in range(5000):
        digits_model.run(x)
    grown_kib = (rss_pages() - before) * os.sysconf("SC_PAGE_SIZE") / 1024
    assert grown_kib < 512, f"RSS grew by {grown_kib:.0f} KiB over 5000 runs"


def test_run_releases_the_gil(digits_model, digits_x):
    """While one thread is inside a long run (many batch slices), Python code keeps running on
    another. With the GIL held, the spinning loop could only run before the run starts (one
    switch interval, 5 ms) and after it ends, and the wait between would not count."""
    import threading
    import time
    x = np.repeat(digits_x[:1], 20000, axis=0)
    started, finished = threading.Event(), threading.Event()
    run_seconds = []

    def work():
        started.set()
        begin = time.perf_counter()
        digits_model.run(x)
        run_seconds.append(time.perf_counter() - begin)
        finished.set()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    spinning, last = 0.0, time.perf_counter()   # time in steps of < 2 ms: the loop ran through it
    while not finished.is_set():
        now = time.perf_counter()
        spinning += now - last if now - last < 0.002 else 0.0
        last = now
    t.join()
    # Held, at most one switch interval (5 ms) of spinning; released, most of the run (shared
    # cores can take much of it away, so the bar is five switch intervals).
    assert run_seconds[0] > 0.1 and spinning > 0.025, (spinning, run_seconds[0])


@pytest.mark.parametrize("flags, options", [
    ([], {}),
    (["--train", "--batch", "10", "--recompute"], dict(train=True, batch=10, recompute=True)),
    (["--quantize", "int8", "--calibrate", "CALIB", "--io", "int8"], dict(quantize="int8", calibrate="CALIB", io="int8")),
    (["--no-fold", "--input-mean", "0.5", "--input-std", "0.25"], dict(no_fold=True, input_mean=0.5, input_std=0.25)),
])
def test_report_is_what_the_cli_prints(digits_onnx, digits_x, cli, tmp_path, flags, options):
    calib = tmp_path / "calib.npy"
    np.save(calib, digits_x[:100])
    flags = [str(calib) if f == "CALIB" else f for f in flags]
    options = {k: digits_x[:100] if v == "CALIB" else v for k, v in options.items()}
    out = subprocess.run([cli, "compile", digits_onnx, "-o", str(tmp_path / "m.efb")] + flags, check=True,
                         capture_output=True, text=True).stdout
    expected = "".join(line + "\n" for line in out.splitlines() if not line.startswith("compiled "))
    assert ef.compile(digits_onnx, **options).report == expected

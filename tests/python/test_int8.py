"""quantize="int8" with calibration data: float I/O close to the float model, int8 I/O as int8
arrays, and both bit for bit what `edgefold run` gives."""
import subprocess

import numpy as np
import pytest

import edgefold as ef


@pytest.fixture(scope="module")
def calibration(digits_x):
    return digits_x[:100]


def test_int8_agrees_with_float(digits_onnx, digits_model, digits_x, calibration):
    q = ef.compile(digits_onnx, quantize="int8", calibrate=calibration)
    assert "int8:" in q.report and "SQNR" in q.report
    assert q.weights_bytes < digits_model.weights_bytes
    x = digits_x[100:300]
    agree = np.mean(np.argmax(q.run(x), 1) == np.argmax(digits_model.run(x), 1))
    assert agree > 0.95


def test_int8_io_gives_int8_and_matches_cli(digits_onnx, digits_x, calibration, cli, tmp_path):
    q = ef.compile(digits_onnx, quantize="int8", calibrate=calibration, io="int8")
    name, shape, dtype, scale, zero_point = q.inputs[0]
    assert dtype == "int8" and scale > 0
    x = digits_x[:10]
    y = q.run(x)
    assert y.dtype == np.int8
    assert q.run(x, dequantize=True).dtype == np.float32
    efb, x_path, y_path = tmp_path / "q.efb", tmp_path / "x.npy", tmp_path / "y.npy"
    q.save(efb)
    np.save(x_path, x)
    subprocess.run([cli, "run", str(efb), "-i", str(x_path), "-o", str(y_path)], check=True, capture_output=True)
    assert np.load(y_path).tobytes() == y.tobytes()
    xq = np.clip(np.round(x / scale) + zero_point, -128, 127).astype(np.int8)
    assert q.run(xq).shape == y.shape


def test_int8_option_rules(digits_onnx, calibration):
    with pytest.raises(ValueError, match="calibrate"):
        ef.compile(digits_onnx, quantize="int8")
    with pytest.raises(ValueError, match="io='int8' needs quantize"):
        ef.compile(digits_onnx, io="int8")
    with pytest.raises(ValueError, match="quantize"):
        ef.compile(digits_onnx, quantize="int4", calibrate=calibration)


def test_seven_bit_weights_agree_with_float_and_are_checked(digits_onnx, digits_model, digits_x, calibration):
    q8 = ef.compile(digits_onnx, quantize="int8", calibrate=calibration)
    q7 = ef.compile(digits_onnx, quantize="int8", calibrate=calibration, quantize_weight_bits=7)
    x = digits_x[100:300]
    agree = np.mean(np.argmax(q7.run(x), 1) == np.argmax(digits_model.run(x), 1))
    assert agree > 0.95
    assert q7.run(x).tobytes() != q8.run(x).tobytes()  # other weights, not the same model
    with pytest.raises(ValueError, match="quantize_weight_bits"):
        ef.compile(digits_onnx, quantize="int8", calibrate=calibration, quantize_weight_bits=6)
    with pytest.raises(ValueError, match="quantize_weight_bits needs quantize"):
        ef.compile(digits_onnx, quantize_weight_bits=7)

"""Bad input raises (edgefold.Error, ValueError, TypeError) with a message that names what is
wrong; nothing crashes the interpreter."""
import math

import numpy as np
import pytest

import edgefold as ef
import onnx_builder


def test_error_is_an_exception():
    assert issubclass(ef.Error, Exception)


def test_corrupt_files(tmp_path, digits_model):
    junk = tmp_path / "junk.efb"
    junk.write_bytes(b"\x00garbage" * 50)
    with pytest.raises(ef.Error):
        ef.load(junk)
    with pytest.raises(ef.Error):
        ef.load(digits_model.to_bytes()[: len(digits_model.to_bytes()) // 2])
    with pytest.raises(ef.Error, match="missing.efb"):
        ef.load(tmp_path / "missing.efb")
    with pytest.raises(ef.Error, match="ONNX"):
        ef.compile(b"this is not protobuf \xff\xff\xff")
    bad_onnx = tmp_path / "bad.onnx"
    bad_onnx.write_bytes(b"\x0a\xff\xff\xff\xff")
    with pytest.raises(ef.Error, match="bad.onnx"):
        ef.compile(str(bad_onnx))
    with pytest.raises(ef.Error, match="nowhere.onnx"):
        ef.compile(str(tmp_path / "nowhere.onnx"))


def test_wrong_shape_names_the_input_and_the_expected_shape(digits_model):
    with pytest.raises(ValueError) as e:
        digits_model.run(np.zeros((1, 1, 8, 9), np.float32))
    assert "input 0" in str(e.value) and "[1, 1, 8, 8]" in str(e.value) and "[1, 1, 8, 9]" in str(e.value)
    with pytest.raises(ValueError, match="1 input"):
        digits_model.run(np.zeros((1, 1, 8, 8), np.float32), np.zeros((1, 1, 8, 8), np.float32))


def test_dtypes_converted_or_refused(digits_model, digits_x):
    x = digits_x[:1]
    expected = digits_model.run(x)
    assert digits_model.run(x.astype(np.float64)).tobytes() == expected.tobytes()
    fortran = np.asfortranarray(digits_x[:3])
    assert digits_model.run(fortran).tobytes() == digits_model.run(np.ascontiguousarray(fortran)).tobytes()
    with pytest.raises(ValueError, match="float32"):
        digits_model.run(np.zeros((1, 1, 8, 8), np.int64))


def test_unsupported_op_names_the_op():
    with pytest.raises(ef.Error, match="Unique"):
        ef.compile(onnx_builder.single_op("Unique"))


def test_nan_in_batchnorm_parameters_is_refused():
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(1, 2, 4, 4)
    good = ef.compile(onnx_builder.conv_bn(1.0))
    assert np.all(np.isfinite(good.run(x)))
    with pytest.raises(ef.Error, match="NaN"):
        ef.compile(onnx_builder.conv_bn(math.nan))


def test_dynamic_dims_take_the_example_shape():
    dynamic = onnx_builder.conv_bn(1.0, dynamic_batch=True)
    m = ef.compile(dynamic, example_inputs=np.zeros((3, 2, 4, 4), np.float32))
    assert list(m.inputs[0][1]) == [3, 2, 4, 4]
    for shape in ({"x": (2, 2, 4, 4)}, "x=2,2,4,4", ["x=2,2,4,4"], (2, 2, 4, 4)):
        m = ef.compile(dynamic, input_shape=shape)
        assert list(m.inputs[0][1]) == [2, 2, 4, 4]


def test_options_are_checked(digits_onnx):
    with pytest.raises(TypeError, match="fold_everything"):
        ef.compile(digits_onnx, fold_everything=True)
    with pytest.raises(ValueError, match="train=True"):
        ef.compile(digits_onnx, recompute=True)
    with pytest.raises(ValueError, match="trainable"):
        ef.compile(digits_onnx, train=True, trainable="everything")
    with pytest.raises(TypeError):
        ef.compile(12345)
    for threads in (0, 257):
        with pytest.raises(ValueError, match="threads"):
            ef.compile(digits_onnx, threads=threads)
    assert ef.compile(digits_onnx, threads=4) is not None


def test_trainer_needs_a_training_model(digits_model):
    with pytest.raises(ef.Error, match="train=True"):
        ef.Trainer(digits_model)

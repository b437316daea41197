"""ef.diff and Model.validate on the digits CNN: the per-layer table as data (and the layer it
names when one conv's weights change in the ONNX model), the validation report against the host
and expected outputs, a failing verdict, and errors that name the input or what to build. The
emulated targets run when their cross build is next to this build (build-m4, build-aarch64)."""
import pathlib

import numpy as np
import pytest

import edgefold as ef
from conftest import DIGITS, build_dir

PERTURBED = "/features/features.7/Conv"   # the third conv


def test_diff_float_model_matches(digits_onnx, digits_model, digits_x):
    rows = ef.diff(digits_onnx, digits_model, digits_x[:50])
    assert len(rows) == 8
    assert rows[0]["layer"] == "/features/features.0/Conv"
    assert set(rows[0]) == {"layer", "type", "tensor", "int8", "max_abs", "max_rel", "sqnr_db", "jump"}
    assert all(r["sqnr_db"] > 60 for r in rows)
    assert not any(r["jump"] for r in rows)


def test_diff_int8_model_rows_are_int8(digits_onnx, digits_x):
    q = ef.compile(digits_onnx, quantize="int8", calibrate=digits_x[:64])
    rows = ef.diff(digits_onnx, q.to_bytes(), digits_x[:50])
    assert any(r["int8"] for r in rows)
    assert not any(r["jump"] for r in rows)


def test_diff_names_the_perturbed_layer(digits_model, digits_x, tmp_path):
    # Debian's python3-onnx is optional: libonnx-dev alone leaves a bare namespace package named
    # onnx, so skip on the submodule (the CLI's diff test perturbs a layer without it).
    onnx = pytest.importorskip("onnx")
    numpy_helper = pytest.importorskip("onnx.numpy_helper")
    m = onnx.load(str(DIGITS / "digits_cnn.onnx"))
    weights = next(n.input[1] for n in m.graph.node if n.name == PERTURBED)
    for t in m.graph.initializer:
        if t.name == weights:
            w = numpy_helper.to_array(t).copy()
            w[0] *= 1.5
            t.CopyFrom(numpy_helper.from_array(w, t.name))
    rows = ef.diff(m, digits_model, digits_x[:50])
    jumps = [r["layer"] for r in rows if r["jump"]]
    assert jumps == [PERTURBED]


def test_validate_host_against_pytorch(digits_model, digits_x):
    expected = np.load(DIGITS / "digits_test_logits_pytorch.npy")
    r = digits_model.validate(digits_x, expected=expected, per_layer=True)
    assert r["pass"] is True
    assert r["target"] == "host" and r["runs"] == 450
    out = r["outputs"][0]
    assert out["top1_vs_host"] == 1 and out["top1_vs_expected"] == 1
    assert out["max_abs_vs_expected"] < 1e-3
    assert len(r["layers"]) == 8


def test_validate_fails_on_disagreeing_expected(digits_model, digits_x):
    expected = np.roll(np.load(DIGITS / "digits_test_logits_pytorch.npy"), 1, axis=0)
    r = digits_model.validate(digits_x, expected=expected)
    assert r["pass"] is False
    assert r["outputs"][0]["top1_vs_expected"] < 0.5


def test_validate_errors(digits_model, digits_x, tmp_path):
    with pytest.raises(ef.Error, match="input 0 'image'"):
        digits_model.validate(digits_x[:, :, :4])
    with pytest.raises(ValueError, match="target"):
        digits_model.validate(digits_x, target="riscv")
    with pytest.raises(ef.Error, match="is missing"):
        digits_model.validate(digits_x, target="m4", target_build=tmp_path)


@pytest.mark.parametrize("target", ["m4", "aarch64"])
def test_validate_on_emulated_target(digits_model, digits_x, target):
    program = build_dir().parent / f"build-{target}" / "bin" / (
        "edgefold_validate.elf" if target == "m4" else "edgefold_validate")
    if not program.exists():
        pytest.skip(f"{program} not built (scripts/cross-test.sh {target})")
    r = digits_model.validate(digits_x[:20], target=target, per_layer=True,
                              target_build=program.parents[1])
    assert r["pass"] is True and r["runs"] == 20
    assert r["outputs"][0]["top1_vs_host"] == 1
    assert len(r["layers"]) == 8
    if target == "m4":
        assert r["stack_bytes"] > 0

"""ef.diff and Model.validate: the `edgefold diff` table and `edgefold validate` report as Python
data, run by the native module on temporary files (docs/validate.md, docs/diff.md)."""
import json
import os
import pathlib
import tempfile

from . import _edgefold, _sources
from ._edgefold import Error

TARGETS = ("host", "aarch64", "armv7", "m4", "m7")


def _save_arrays(directory, stem, arrays):
    import numpy as np
    paths = []
    for i, x in enumerate(arrays):
        if hasattr(x, "detach"):   # torch.Tensor
            x = x.detach().cpu().numpy()
        path = os.path.join(directory, f"{stem}{i}.npy")
        np.save(path, np.ascontiguousarray(np.asarray(x, dtype=np.float32)))
        paths.append(path)
    return paths


def _default_target_build(target):
    """build-<target> next to the build this package comes from (<build>/python/edgefold)."""
    build = pathlib.Path(__file__).resolve().parents[2]
    return str(build.parent / f"build-{target}")


def diff(onnx, efb_or_model, x, jump_db=10.0):
    """Each layer of a compiled model against its ONNX model, as `edgefold diff` computes it.

    onnx: a .onnx path, ONNX bytes or an onnx.ModelProto. efb_or_model: a .efb path, .efb bytes or
    an edgefold.Model. x: an array (or a tuple of arrays, one per model input), the leading dim
    a multiple of the model's batch; one run per slice. Returns a list of dicts, one per compared
    layer in execution order: layer (the ONNX node name), type, tensor, int8, max_abs, max_rel,
    sqnr_db (inf when equal) and jump (True on the first layer whose error jumps by more than
    jump_db dB)."""
    from ._model import Model
    with tempfile.TemporaryDirectory(prefix="edgefold-diff-") as tmp:
        data, _ = _sources.onnx_bytes(onnx, None)
        onnx_path = os.path.join(tmp, "model.onnx")
        with open(onnx_path, "wb") as f:
            f.write(data)
        if isinstance(efb_or_model, Model):
            efb = efb_or_model.to_bytes()
        elif isinstance(efb_or_model, (bytes, bytearray, memoryview)):
            efb = bytes(efb_or_model)
        else:
            efb = None
            efb_path = os.fspath(efb_or_model)
        if efb is not None:
            efb_path = os.path.join(tmp, "model.efb")
            with open(efb_path, "wb") as f:
                f.write(efb)
        inputs = _save_arrays(tmp, "x", _sources.as_tuple(x))
        table = json.loads(_edgefold.diff_json(onnx_path, efb_path, inputs, float(jump_db)))
    rows = table["layers"]
    for i, row in enumerate(rows):
        row["jump"] = i == table["first_jump"]
    return rows


def validate(model, inputs, target="host", expected=None, per_layer=False, target_build=None,
             min_top1=0.99, max_abs=None, tolerance=None, min_within=0.99):
    """Model.validate: see there."""
    if target not in TARGETS:
        raise ValueError(f"validate: target must be one of {', '.join(TARGETS)}, got {target!r}")
    with tempfile.TemporaryDirectory(prefix="edgefold-validate-") as tmp:
        efb = os.path.join(tmp, "model.efb")
        with open(efb, "wb") as f:
            f.write(model.to_bytes())
        report = os.path.join(tmp, "report.json")
        args = ["validate", efb, "--target", target, "--json", report, "--quiet",
                "--min-top1", repr(float(min_top1)), "--min-within", repr(float(min_within))]
        for path in _save_arrays(tmp, "x", _sources.as_tuple(inputs)):
            args += ["--inputs", path]
        if expected is not None:
            for path in _save_arrays(tmp, "y", _sources.as_tuple(expected)):
                args += ["--expected", path]
        if per_layer:
            args.append("--per-layer")
        if target != "host":
            args += ["--target-build", os.fspath(target_build or _default_target_build(target))]
        if max_abs is not None:
            args += ["--max-abs", repr(float(max_abs))]
        if tolerance is not None:
            args += ["--tolerance", repr(float(tolerance))]
        rc = _edgefold.cli_main(args)
        if not os.path.exists(report):
            raise Error(f"validate: failed (exit status {rc}); see the message above")
        with open(report) as f:
            result = json.load(f)
    if "error" in result:
        raise Error(f"validate: {result['error']}")
    return result

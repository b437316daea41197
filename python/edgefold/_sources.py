"""What ef.compile accepts as a model, turned into ONNX bytes: a path to a .onnx file, the
bytes of one, an onnx.ModelProto, or a torch.nn.Module (exported here with torch.onnx.export)."""
import io
import os

from ._edgefold import Error


def _is_torch_module(model):
    torch = _torch_if_loaded()
    return torch is not None and isinstance(model, torch.nn.Module)


def _torch_if_loaded():
    import sys
    return sys.modules.get("torch")   # a torch.nn.Module means torch is imported already


def as_tuple(example_inputs):
    if example_inputs is None:
        return ()
    if isinstance(example_inputs, (tuple, list)):
        return tuple(example_inputs)
    return (example_inputs,)


def example_shapes(example_inputs):
    return [list(getattr(x, "shape", ())) for x in as_tuple(example_inputs)]


def export_torch(module, example_inputs):
    """ONNX bytes of `module` in eval mode, BatchNorm kept as its own node so that edgefold folds
    it and reports what it folded. The module is put in eval() and exported with
    TrainingMode.PRESERVE: TrainingMode.EVAL would run torch's eval peephole pass, which folds
    BatchNorm into the Conv before edgefold sees it; no constant folding for the same reason."""
    import torch
    inputs = tuple(x if isinstance(x, torch.Tensor) else torch.from_numpy(_float32(x)) for x in
                   as_tuple(example_inputs))
    if not inputs:
        raise ValueError("compile: a torch.nn.Module needs example_inputs (an array or tensor, or a tuple of them)")
    was_training = module.training
    module.eval()
    buffer = io.BytesIO()
    try:
        with torch.no_grad():
            torch.onnx.export(module, inputs, buffer, opset_version=13, do_constant_folding=False,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              input_names=[f"input{i}" if len(inputs) > 1 else "input" for i in range(len(inputs))])
    except Exception as e:   # torch raises many types; the user needs to know the export failed
        raise Error(f"torch.onnx.export of {type(module).__name__} failed: {e}") from e
    finally:
        module.train(was_training)
    return buffer.getvalue()


def _float32(x):
    import numpy as np
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32))


def onnx_bytes(model, example_inputs):
    """(ONNX bytes, a name for messages)."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            with open(path, "rb") as f:
                return f.read(), os.path.basename(path)
        except OSError as e:
            raise Error(f"{path}: cannot read the model: {e.strerror}") from e
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "<ONNX bytes>"
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):   # onnx.ModelProto
        return model.SerializeToString(), model.graph.name or "<onnx.ModelProto>"
    if _is_torch_module(model):
        return export_torch(model, example_inputs), type(model).__name__
    raise TypeError("compile: model must be a path to a .onnx file, ONNX bytes, an onnx.ModelProto or a "
                    f"torch.nn.Module, got {type(model).__name__}")

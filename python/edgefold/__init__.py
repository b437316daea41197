"""edgefold from Python: compile a PyTorch or ONNX model to a .efb, run it, train it on the
device's path, and write it as a C header for firmware.

    import edgefold as ef
    m = ef.compile(model, example_inputs=x)          # .onnx path, ONNX bytes, onnx.ModelProto
    y = m.run(x)                                     # or a torch.nn.Module
    m.export_c("model_data.h", name="net")
    ef.diff("model.onnx", m, x)                      # per-layer error against the ONNX model
    m.validate(x, target="m4")                       # the same bytes on a Cortex-M4 under QEMU

The package is a thin layer over the C++ compiler and runtime (the native module
edgefold._edgefold); docs/python.md is its reference.
"""
from ._edgefold import Error
from ._model import Model, compile, load
from ._trainer import Trainer
from ._validate import diff

__version__ = "0.1.0"
__all__ = ["Error", "Model", "Trainer", "compile", "diff", "load", "__version__"]

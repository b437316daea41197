"""edgefold.Model, ef.compile and ef.load."""
import html
import os
import tempfile

from . import _edgefold, _options, _report, _sources
from ._progress import progress_for


class Model:
    """A compiled model: its .efb bytes and a 64-byte aligned arena, both owned by it.

    run() takes one array per graph input (float32, or int8 for a model compiled with
    io="int8"; other float dtypes and non-contiguous arrays are converted once) and returns
    an array, or a tuple of arrays for several outputs.
    """

    def __init__(self, native, compile_report=None):
        self._native = native
        self.compile_report = compile_report   # dict of the compiler's figures (None when loaded)

    def run(self, *inputs, threads=1, dequantize=False):
        """Runs the model; threads > 1 splits each op (results are identical for any count).
        An input whose leading dim is k times the model's runs k times, outputs stacked.
        int8 outputs stay int8 unless dequantize=True. Releases the GIL while running."""
        return self._native.run(*inputs, threads=threads, dequantize=dequantize)

    __call__ = run

    def save(self, path):
        """Writes the .efb file (via a temporary file and a rename: never half a file)."""
        path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".edgefold-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self._native.bytes())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def to_bytes(self):
        return self._native.bytes()

    @property
    def arena_bytes(self):
        """Planned activation arena (the compiler's plan; `arena:` in the report)."""
        return self._native.arena_bytes

    @property
    def required_arena_bytes(self):
        """Bytes this host's Interpreter::Create needs: the plan plus the interpreter state."""
        return self._native.required_arena_bytes

    @property
    def weights_bytes(self):
        return self._native.weights_bytes

    @property
    def inputs(self):
        """[(name, shape, dtype, scale, zero_point)] per graph input."""
        return self._native.inputs

    @property
    def outputs(self):
        return self._native.outputs

    @property
    def ops(self):
        """[(name, type)] in execution order."""
        return self._native.ops

    @property
    def trainable(self):
        """True for a model compiled with train=True (ef.Trainer takes it)."""
        return self._native.trainable

    @property
    def report(self):
        """The folding / quantization / memory report as text (what `edgefold compile` prints)."""
        if self.compile_report is not None:
            return _report.format_report(self.compile_report)
        return _report.describe_loaded(self._native)

    def memory_plot(self, width=1000, height=600):
        """SVG text: every planned tensor as a bar at its arena offset over its lifetime."""
        return self._native.memory_plot_svg(width, height)

    def _repr_svg_(self):
        return self.memory_plot()

    def _repr_html_(self):
        return f"<pre>{html.escape(self.report)}</pre>{self.memory_plot()}"

    def export_c(self, path, name="model"):
        """Writes the C++ header `edgefold export-c --name NAME` writes (model array, arena
        sizes, NAME_REGISTER_OPS). Returns the path."""
        text = self._native.export_c_text(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def validate(self, inputs, target="host", expected=None, per_layer=False, target_build=None,
                 min_top1=0.99, max_abs=None, tolerance=None, min_within=0.99):
        """Runs this model on `target` ("host", or under QEMU "aarch64", "armv7", "m4", "m7": the
        generic validation program of the target's cross build, target_build or build-<target>
        next to this package's build) and compares with the host run, as `edgefold validate`.
        inputs (and expected, one array per output with every run's values): an array or a
        tuple of arrays. Returns the report: a dict with target, kernels, runs, arena_bytes,
        stack_bytes (Cortex-M; -1 elsewhere), outputs (per output max_abs_vs_host,
        top1_vs_host, max_abs_vs_expected, top1_vs_expected, within_...), layers (with
        per_layer=True: the diff table of the target against the host) and pass (the limits:
        min_top1, max_abs, tolerance with min_within). Raises edgefold.Error when it cannot run."""
        from . import _validate
        return _validate.validate(self, inputs, target=target, expected=expected,
                                  per_layer=per_layer, target_build=target_build,
                                  min_top1=min_top1, max_abs=max_abs, tolerance=tolerance,
                                  min_within=min_within)

    def __repr__(self):
        ins = ", ".join(f"{n}: {d}{list(s)}" for n, s, d, _, _ in self.inputs)
        return (f"<edgefold.Model {self._native.name}: {len(self.ops)} ops, inputs ({ins}), "
                f"arena {self.arena_bytes} B, weights {self.weights_bytes} B>")


def compile(model, example_inputs=None, progress=None, **options):
    """Compiles `model` (a .onnx path, ONNX bytes, an onnx.ModelProto or a torch.nn.Module) to a
    Model. Options are `edgefold compile`'s flags with underscores (docs/python.md); arrays
    (calibrate=, input_stats_from=) are numpy arrays or torch tensors. Raises edgefold.Error
    with the compiler's message, ValueError/TypeError for options the CLI would refuse."""
    native_options = _options.normalize(options)
    data, name = _sources.onnx_bytes(model, example_inputs)
    bar = progress_for(progress, 1, "compile")
    try:
        native, report = _edgefold.compile_onnx(data, name, native_options, _sources.example_shapes(example_inputs))
        bar.update(1)
    finally:
        bar.close()
    return Model(native, report)


def load(source):
    """A Model from a .efb path or .efb bytes; the runtime verifies it (edgefold.Error if not)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Model(_edgefold.load_bytes(bytes(source), "<efb bytes>"))
    return Model(_edgefold.load_file(os.fspath(source)))

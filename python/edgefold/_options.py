"""ef.compile's keyword options: the flags of `edgefold compile` with underscores
(--no-fold -> no_fold=True or fold=False, --input-shape -> input_shape=...), checked with the
CLI's rules and normalized into the dict the native compile reads (python/src/compile_options.h).
"""

# option -> (kind, CLI flag); kinds are checked and converted by _convert.
_OPTIONS = {
    "fold": ("bool", "--no-fold"), "no_fold": ("bool", "--no-fold"),
    "verify": ("bool", "--no-verify"), "no_verify": ("bool", "--no-verify"),
    "winograd": ("bool", "--no-winograd"), "no_winograd": ("bool", "--no-winograd"),
    "transposed_weights": ("bool", "--no-transposed-weights"),
    "no_transposed_weights": ("bool", "--no-transposed-weights"),
    "winograd_tile": ("int", "--winograd-tile"),
    "winograd_min_channels": ("int", "--winograd-min-channels"),
    "expansion_band_kb": ("int", "--expansion-band-kb"),
    "threads": ("int", "--threads"),
    "views": ("bool", "--no-views"), "no_views": ("bool", "--no-views"),
    "input_shape": ("shapes", "--input-shape"),
    "input_mean": ("floats", "--input-mean"), "input_std": ("floats", "--input-std"),
    "input_stats_from": ("array", "--input-stats-from"),
    "quantize": ("str", "--quantize"), "io": ("str", "--io"),
    "quantize_percentile": ("float", "--quantize-percentile"),
    "quantize_clip": ("str", "--quantize-clip"),
    "quantize_weight_bits": ("int", "--quantize-weight-bits"),
    "adaptable": ("bool", "--adaptable"),
    "calibrate": ("array", "--calibrate"),
    "calibrate_batch": ("int", "--calibrate-batch"),
    "calibrate_momentum": ("float", "--calibrate-momentum"),
    "train": ("bool", "--train"), "batch": ("int", "--batch"), "infer_batch": ("int", "--infer-batch"),
    "bn_stats": ("str", "--bn-stats"), "trainable": ("str", "--trainable"),
    "train_from": ("str", "--train-from"), "trainable_last": ("int", "--trainable-last"),
    "saved_precision": ("str", "--saved-precision"), "new_classes": ("int", "--new-classes"),
    "recompute": ("bool", "--recompute"), "refold_weights": ("bool", "--refold-weights"),
}
_TRAIN_ONLY = ("train_from", "trainable_last", "bn_stats", "infer_batch", "new_classes", "saved_precision",
               "recompute")


def option_names():
    return sorted(_OPTIONS)


def _fail(name, message):
    raise ValueError(f"compile option {name}={message}")


def _convert(name, kind, value):
    if kind == "bool":
        if not isinstance(value, (bool, int)) or value not in (0, 1):
            _fail(name, f"{value!r}: expected True or False")
        return bool(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
            _fail(name, f"{value!r}: expected an integer")
        return int(value)
    if kind == "float":
        try:
            return float(value)
        except (TypeError, ValueError):
            _fail(name, f"{value!r}: expected a number")
    if kind == "str":
        if not isinstance(value, str):
            _fail(name, f"{value!r}: expected a string")
        return value
    if kind == "floats":
        values = [value] if isinstance(value, (int, float)) else list(value)
        try:
            return [float(v) for v in values]
        except (TypeError, ValueError):
            _fail(name, f"{value!r}: expected a number or a list of numbers")
    if kind == "shapes":
        return _shapes(name, value)
    return value   # arrays: converted (float32) and checked by the native side


def _shapes(name, value):
    """{"input": (1, 3, 32, 32)} or "input=1,3,32,32" or a list of such strings; a plain
    sequence of ints, (1, 3, 32, 32), is the first graph input's shape (key "")."""
    if isinstance(value, dict):
        items = value.items()
    elif not isinstance(value, str) and all(isinstance(d, int) or hasattr(d, "__index__") for d in value):
        items = [("", list(value))]
    else:
        texts = [value] if isinstance(value, str) else list(value)
        items = []
        for t in texts:
            if not isinstance(t, str) or "=" not in t:
                _fail(name, f"{t!r}: expected NAME=D,D,... or a dict {{name: shape}}")
            key, dims = t.split("=", 1)
            items.append((key, dims.split(",")))
    shapes = {}
    for key, dims in items:
        try:
            dims = [int(d) for d in dims]
        except (TypeError, ValueError):
            _fail(name, f"{key}: {dims!r} is not a list of positive integers")
        if not dims or min(dims) <= 0:
            _fail(name, f"{key}: {dims!r} is not a list of positive integers")
        shapes[str(key)] = dims
    return shapes


def _choice(opts, name, choices):
    if name in opts and opts[name] not in choices:
        _fail(name, f"{opts[name]!r}: expected one of {', '.join(map(repr, choices))}")


def _check_rules(o):
    """The CLI's rules between flags (tools/cmd_compile.cc), with the option names."""
    _choice(o, "quantize", ("int8",))
    _choice(o, "io", ("float", "int8"))
    _choice(o, "quantize_clip", ("minmax", "mse"))
    _choice(o, "bn_stats", ("batch", "frozen"))
    _choice(o, "trainable", ("bn", "bn+head", "all"))
    _choice(o, "saved_precision", ("fp32", "fp16", "bf16"))
    _choice(o, "winograd_tile", (2, 4))
    _choice(o, "quantize_weight_bits", (7, 8))
    quantize = "quantize" in o
    if not quantize:
        for name in ("quantize_percentile", "quantize_clip", "quantize_weight_bits", "adaptable"):
            if name in o:
                raise ValueError(f"compile option {name} needs quantize='int8'")
        if o.get("io") == "int8":
            raise ValueError("compile option io='int8' needs quantize='int8' (a float model takes and gives float)")
    else:
        if o.get("train"):
            raise ValueError("quantize='int8' and train=True do not combine (training runs in float)")
        if o.get("calibrate") is None:
            raise ValueError("quantize='int8' needs calibrate=<array of calibration inputs [N, ...]>")
        if o.get("quantize_clip") == "mse" and "quantize_percentile" in o:
            raise ValueError("quantize_clip='mse' and quantize_percentile do not combine (each chooses the clipping)")
        if "quantize_percentile" in o and not 50.0 < o["quantize_percentile"] <= 100.0:
            _fail("quantize_percentile", f"{o['quantize_percentile']}: must be in (50, 100]")
    if not o.get("train"):
        given = [n for n in _TRAIN_ONLY if n in o]
        if given:
            raise ValueError(f"compile options {', '.join(given)} shape what train=True compiles: add train=True")
    for name in ("batch", "infer_batch", "calibrate_batch"):
        if name in o and o[name] < 1:
            _fail(name, f"{o[name]}: must be at least 1")
    for name in ("trainable_last", "new_classes", "expansion_band_kb"):
        if name in o and o[name] < 0:
            _fail(name, f"{o[name]}: must be at least 0")
    if "threads" in o and not 1 <= o["threads"] <= 256:
        _fail("threads", f"{o['threads']}: must be in 1..256")
    if "calibrate_momentum" in o and not 0.0 < o["calibrate_momentum"] <= 1.0:
        _fail("calibrate_momentum", f"{o['calibrate_momentum']}: must be in (0, 1]")
    if "input_stats_from" in o and ("input_mean" in o or "input_std" in o):
        raise ValueError("input_stats_from replaces input_mean/input_std; give one or the other")


def normalize(kwargs):
    """kwargs of ef.compile -> the native option dict. TypeError for an unknown option,
    ValueError for a bad value or a combination the CLI refuses."""
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"compile() got unknown option(s) {', '.join(unknown)}; "
                        f"options are: {', '.join(option_names())}")
    o = {k: _convert(k, _OPTIONS[k][0], v) for k, v in kwargs.items() if v is not None}
    _check_rules(o)
    native = {}
    for positive, negative in (("fold", "no_fold"), ("verify", "no_verify"), ("winograd", "no_winograd"),
                               ("views", "no_views"), ("transposed_weights", "no_transposed_weights")):
        if positive in o and negative in o and o[positive] == o[negative]:
            raise ValueError(f"compile options {positive}={o[positive]} and {negative}={o[negative]} contradict")
        if positive in o or negative in o:
            native[positive] = o[positive] if positive in o else not o[negative]
    renames = {"input_shape": "input_shapes", "input_mean": "input_mean", "input_std": "input_std",
               "input_stats_from": "input_stats_from", "expansion_band_kb": "expansion_band_kb",
               "winograd_tile": "winograd_tile", "winograd_min_channels": "winograd_min_channels",
               "threads": "threads",
               "quantize_percentile": "quantize_percentile", "quantize_weight_bits": "quantize_weight_bits",
               "adaptable": "adaptable", "train": "train", "batch": "batch", "infer_batch": "infer_batch",
               "trainable": "trainable", "train_from": "train_from", "trainable_last": "trainable_last",
               "saved_precision": "saved_precision", "new_classes": "new_classes", "recompute": "recompute",
               "refold_weights": "refold_weights", "calibrate_batch": "calibrate_batch",
               "calibrate_momentum": "calibrate_momentum"}
    native.update({renames[k]: v for k, v in o.items() if k in renames})
    native["quantize_int8"] = o.get("quantize") == "int8"
    native["io_int8"] = o.get("io") == "int8"
    native["quantize_mse"] = o.get("quantize_clip") == "mse"
    native["frozen_statistics"] = o.get("bn_stats") == "frozen"
    if o.get("calibrate") is not None:
        native["calibration" if native["quantize_int8"] else "bn_calibration"] = o["calibrate"]
    return native

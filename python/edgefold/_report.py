"""The compile report as text: the lines `edgefold compile` prints (tools/cmd_compile.cc)."""


def _bn(r):
    return (f"BatchNorm: {r['batchnorm_found']} found, {r['batchnorm_folded_backward']} folded backward, "
            f"{r['batchnorm_folded_forward']} folded forward, {r['batchnorm_kept']} kept")


def _quant(q, arena, weights):
    lines = [f"int8: {q['runs']} calibration runs (clipping: {q['clipping']}), {len(q['layers'])} int8 layers, "
             f"{len(q['float_ops'])} float ops, {q['boundaries']} quantize/dequantize ops"]
    lines += [f"  stays float: {f}" for f in q["float_ops"]]
    lines.append(f"  {'layer':<28} {'type':<20} {'in scale':>10} {'out scale':>10} {'zp':>5} {'w scale lo':>10} "
                 f"{'w scale hi':>10} {'observed range':>21} {'int8 range (clip)':>21} {'SQNR dB':>9}")
    for l in q["layers"]:   # pools and reshapes have no weights: w scales 0
        (lo, hi), (clip_lo, clip_hi) = l["range"], l["clip"]
        lines.append(f"  {l['name'][:28]:<28} {l['type'][:20]:<20} {l['in_scale']:>10.4g} {l['out_scale']:>10.4g} "
                     f"{l['out_zero_point']:>5} {l['w_scale_min']:>10.3g} {l['w_scale_max']:>10.3g} "
                     f"[{lo:>9.4g},{hi:>9.4g}] [{clip_lo:>9.4g},{clip_hi:>9.4g}] {l['sqnr_db']:>9.2f}")
    lines.append(f"int8 output: SQNR {q['output_sqnr_db']:.2f} dB, top-1 agreement with float "
                 f"{100 * q['top1_agreement']:.2f} %")
    lines.append("int8 I/O: " + ("int8 (--io int8)" if q["io_int8"]
                                 else "float (Quantize at the inputs, Dequantize at the outputs)"))
    for io in q["io"]:
        kind = "input" if io["is_input"] else "output"
        if io["int8"]:
            lines.append(f"  {kind} '{io['name']}': int8, scale {io['scale']:.9g}, zero point {io['zero_point']} "
                         "(real = (q - zero point) * scale)")
        else:
            why = f", stays float: {io['why_float']}" if io["why_float"] else ""
            lines.append(f"  {kind} '{io['name']}': float32{why}")
    if q["adaptable_layers"] > 0:
        lines.append(f"int8 adaptable: {q['adaptable_layers']} layers keep their folded BatchNorm "
                     "(edgefold train --adapt-stats-only adapts them)")
    lines.append(f"int8 arena: {arena} bytes (float {q['float_arena_bytes']}), weights {weights} bytes "
                 f"(float {q['float_weight_bytes']})")
    return lines


def _training(t):
    lines = []
    if t["new_classes"]:
        lines.append(f"classifier '{t['new_classes_head']}': {t['new_classes']} new outputs "
                     "(initialized and learned on the device)")
    lines.append(f"training: batch {t['batch']} (inference batch {t['inference_batch']}), {t['batchnorms_kept']} "
                 f"BatchNorm layers kept, {t['trainable_tensors']} trainable tensors ({t['trainable']}), "
                 f"backward down to '{t['first_trained_op']}'")
    if t["recompute_segments"]:
        lines.append(f"recompute: the backward runs in {t['recompute_segments']} segments, each but the last "
                     "re-running its forward")
    elif t["recompute"]:
        lines.append("recompute: no split of the backward plans a smaller arena; every value is kept")
    lines.append(f"training arena: {t['arena_bytes']} bytes (lower bound {t['lower_bound']}, inference arena "
                 f"{t['inference_arena_bytes']}); buffers planned by lifetime in {t['planned_bytes']} bytes")
    if t["deployed_arena_bytes"] > 0 and t["deployed_planned_bytes"] > 0:
        lines.append(f"versus the deployed model (BatchNorm folded): inference arena {t['deployed_arena_bytes']} bytes "
                     f"(planned tensors {t['deployed_planned_bytes']}): "
                     f"{t['arena_bytes'] / t['deployed_arena_bytes']:.2f}x, "
                     f"planned {t['planned_bytes'] / t['deployed_planned_bytes']:.2f}x")
    return lines


def format_report(r):
    lines = []
    if "calibration" in r:
        c = r["calibration"]
        how = "cumulative average, unbiased variance" if c["momentum"] is None else "moving average"
        lines.append(f"calibrated {c['batchnorms']} BatchNorm layers over {c['batches']} batches "
                     f"({c['samples_used']} samples, {how})")
    if "training" in r:
        lines += _training(r["training"])
    lines.append(_bn(r))
    if r["input_normalization_folded"]:
        lines.append("input normalization: folded into the first layer")
    lines.append(f"activations fused: {r['activations_fused']}, nodes removed: {r['nodes_removed']}, winograd convs: "
                 f"{r['winograd_convs']} (F(4x4,3x3): {r['winograd43_convs']}), expansions fused: "
                 f"{r['expansions_fused']}")
    lines.append(f"verify: max abs error {r['verify_max_abs_error']:.3g}, max rel error {r['verify_max_rel_error']:.3g}"
                 if r["verified"] else "verify: skipped")
    lines.append(f"ops: {r['num_ops']}, tensors: {r['num_tensors']} ({r['tensor_views']} views: planned inside "
                 "another tensor, not copied)")
    ratio = r["arena_bytes"] / r["arena_lower_bound"] if r["arena_lower_bound"] else 0.0
    lines.append(f"arena: {r['arena_bytes']} bytes (lower bound {r['arena_lower_bound']}, ratio {ratio:.3f})")
    lines.append(f"weights: {r['weight_bytes']} bytes, .efb file: {r['efb_bytes']} bytes")
    if "int8" in r:
        lines += _quant(r["int8"], r["arena_bytes"], r["weight_bytes"])
    return "\n".join(lines) + "\n"


def describe_loaded(native):
    """What a model loaded from a .efb says about itself (no compile report travels in the file)."""
    ops = native.ops
    lines = [f"model {native.name}: {len(ops)} ops ({', '.join(sorted({t for _, t in ops}))})"]
    for kind, tensors in (("input", native.inputs), ("output", native.outputs)):
        for name, shape, dtype, scale, zp in tensors:
            q = f", scale {scale:.9g}, zero point {zp}" if dtype == "int8" else ""
            lines.append(f"  {kind} '{name}': {dtype} {list(shape)}{q}")
    lines.append(f"arena: {native.arena_bytes} bytes planned ({native.required_arena_bytes} with the interpreter "
                 f"state on this host)")
    lines.append(f"weights: {native.weights_bytes} bytes{', trainable (training section)' if native.trainable else ''}")
    return "\n".join(lines) + "\n"

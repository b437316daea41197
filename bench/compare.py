#!/usr/bin/python3
"""Formats the side-by-side table of bench/run.sh from its per-model result lines.

Usage: bench/compare.py RESULTS.txt [--record FILE --machine M --command C --threads N]
Each input line: name=<model> engine=<edgefold|ort|torch|edgefold_1t|ort_1t> median_ms=<x|NA> rss_kb=<y|NA> out=<path|NA>
(several lines of one model and engine: rounds; the lowest median and the highest RSS are kept)
Prints per model the median latency of each engine, edgefold/ORT, peak RSS of each engine and
the max abs / max rel difference of edgefold's and PyTorch's outputs against ORT's; then the
geometric mean of edgefold/ORT over the models edgefold runs. With edgefold_1t / ort_1t lines (the
same engines on one thread, timed in the same rounds), also each engine's own speed-up.
--record writes the run record that bench/publish_results.py turns into README's tables.
"""
import argparse
import datetime
import math

import numpy as np


def best(old, new):
    """Of two rounds of one engine: the lower median, the higher peak RSS."""
    if old is None:
        return new
    keep = dict(new if num(new, "median_ms") is not None and
                (num(old, "median_ms") is None or num(new, "median_ms") < num(old, "median_ms")) else old)
    rss = [v for v in (num(old, "rss_kb"), num(new, "rss_kb")) if v is not None]
    keep["rss_kb"] = str(int(max(rss))) if rss else "NA"
    return keep


def parse(path):
    rows = {}
    order = []
    for line in open(path):
        kv = dict(f.split("=", 1) for f in line.split())
        if kv["name"] not in rows:
            order.append(kv["name"])
        engines = rows.setdefault(kv["name"], {})
        engines[kv["engine"]] = best(engines.get(kv["engine"]), kv)
    return order, rows


def num(kv, key):
    v = kv.get(key, "NA") if kv else "NA"
    return None if v == "NA" else float(v)


def load(path):
    return np.load(path).ravel() if path.endswith(".npy") else np.fromfile(path, np.float32)


def diff(ours, ref):
    if ours is None or ref is None or ours.get("out", "NA") == "NA" or ref.get("out", "NA") == "NA":
        return "-"
    a, b = load(ours["out"]), load(ref["out"])
    if a.shape != b.shape:
        return f"SHAPE {a.shape} vs {b.shape}"
    d = np.abs(a - b)
    rel = d / np.maximum(np.abs(b), 1e-3)
    return f"{d.max():.1e}/{rel.max():.1e}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--record", help="write the run record (bench/results/*.txt format) here")
    parser.add_argument("--machine", default="unknown machine")
    parser.add_argument("--command", default="bench/run.sh")
    parser.add_argument("--threads", default="1")
    args = parser.parse_args()
    order, rows = parse(args.results)
    fmt = "{:<22}{:>10}{:>10}{:>10}{:>9}{:>10}{:>10}{:>10}  {:<18}{:<18}"
    print(fmt.format("model", "edgefold", "ORT", "PyTorch", "ef/ORT", "RSS_ef", "RSS_ORT", "RSS_pt",
                     "ef-ORT abs/rel", "pt-ORT abs/rel"))
    print(fmt.format("", "ms", "ms", "ms", "", "MiB", "MiB", "MiB", "", ""))
    ratios = []
    for name in order:
        r = rows[name]
        ef, ort, pt = r.get("edgefold"), r.get("ort"), r.get("torch")
        t_ef, t_ort, t_pt = num(ef, "median_ms"), num(ort, "median_ms"), num(pt, "median_ms")
        ratio = t_ef / t_ort if t_ef and t_ort else None
        if ratio:
            ratios.append(ratio)

        def ms(t):
            return "n/a" if t is None else f"{t:.3f}"

        def mib(kv):
            v = num(kv, "rss_kb")
            return "n/a" if v is None else f"{v / 1024:.1f}"

        print(fmt.format(name, ms(t_ef) if t_ef else "not yet", ms(t_ort), ms(t_pt),
                         f"{ratio:.2f}" if ratio else "-", mib(ef), mib(ort), mib(pt),
                         diff(ef, ort), diff(pt, ort)))
    if ratios:
        gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"geomean edgefold/ORT over {len(ratios)} models: {gm:.2f}  (worst {max(ratios):.2f})")
    speedups(order, rows)
    if args.record:
        write_record(args, order, rows)


def write_record(args, order, rows):
    """The run as bench/publish_results.py reads it: a header, then one line per network."""
    lines = [f"machine: {args.machine}", f"date: {datetime.date.today().isoformat()}",
             f"command: {args.command}", f"threads: {args.threads}", "peer: native"]
    for name in order:
        r = rows[name]
        ef, ort, pt = r.get("edgefold"), r.get("ort"), r.get("torch")
        fields = {"edgefold_ms": num(ef, "median_ms"), "ort_ms": num(ort, "median_ms"),
                  "torch_ms": num(pt, "median_ms")}
        if fields["edgefold_ms"] and fields["ort_ms"]:
            fields["ef_ort"] = round(fields["edgefold_ms"] / fields["ort_ms"], 4)
        for engine, kv in (("edgefold", ef), ("ort", ort), ("torch", pt)):
            rss = num(kv, "rss_kb")
            fields[f"rss_{engine}_mib"] = None if rss is None else round(rss / 1024, 1)
        measured = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
        lines.append(f"network={name} {measured}")
    with open(args.record, "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"run record: {args.record} (bench/publish_results.py writes the README tables from it)")


def speedups(order, rows):
    """Each engine's one-thread median over its multi-thread one, where both were timed."""
    lines = []
    for name in order:
        r = rows[name]
        pair = [(num(r.get(e + "_1t"), "median_ms"), num(r.get(e), "median_ms")) for e in ("edgefold", "ort")]
        if all(one is None for one, _ in pair):
            continue
        cells = [f"{one:.3f} -> {many:.3f} ms ({one / many:.2f}x)" if one and many else "-" for one, many in pair]
        lines.append(f"{name:<22}{cells[0]:<32}{cells[1]}")
    if lines:
        print()
        print(f"{'1 -> N threads':<22}{'edgefold':<32}ORT")
        print("\n".join(lines))


if __name__ == "__main__":
    main()

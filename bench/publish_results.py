#!/usr/bin/python3
"""Writes the inference result tables of README.md and bench/README.md from run records.

Usage: bench/publish_results.py [--records DIR] [--readme RECORD] [--root DIR] [--check]

A run record (bench/results/*.txt) is what `RECORD=FILE bench/run.sh` leaves (bench/compare.py
--record writes it): `key: value` header lines (machine, date, command, threads; `peer: native` when ONNX Runtime
was timed through its C API, else it was timed through its Node binding), then one line
per network of `key=value` fields: network, edgefold_ms, ort_ms, torch_ms, ef_ort,
rss_edgefold_mib, rss_ort_mib, rss_torch_mib (a field a run did not measure is left out).

bench/README.md gets every record, one table per record, newest first; README.md gets one
record (--readme, default the newest one-thread record). Each table goes between the lines
`<!-- results:begin -->` and `<!-- results:end -->` of its file, replacing what was there.
--check writes nothing and exits 1 when a file's block differs from what the records give.
"""
import argparse
import math
import pathlib
import sys

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"

# bench/export_models.py's names, as the tables print them (input size in brackets).
NETWORKS = {
    "resnet18": "ResNet-18 (224²)",
    "mobilenet_v2": "MobileNetV2 (224²)",
    "mobilenet_v3_small": "MobileNetV3-small (224²)",
    "shufflenet_v2": "ShuffleNetV2 1.0 (224²)",
    "efficientnet_b0": "EfficientNet-B0 (224²)",
    "resnet8": "ResNet-8 (32²)",
    "ds_cnn": "DS-CNN (49×10)",
    "mobilenet_v1_025_vww": "MobileNetV1-0.25 VWW (96²)",
    "lraspp_mobilenet_v3": "LR-ASPP MobileNetV3-Large (224²)",
    "unet_small": "U-Net small (224²)",
    "regnet_x_400mf": "RegNetX-400MF (224²)",
    "regnet_y_400mf": "RegNetY-400MF (224²)",
    "mnasnet1_0": "MNASNet 1.0 (224²)",
    "squeezenet1_1": "SqueezeNet 1.1 (224²)",
    "resnext50_32x4d": "ResNeXt-50 32×4d (224²)",
    "densenet121": "DenseNet-121 (224²)",
    "mobilenet_v3_large": "MobileNetV3-large (224²)",
}

# (field, column heading, format) in table order; a column no network has is left out.
COLUMNS = [
    ("edgefold_ms", "edgefold ms", "{:#.3g}"),
    ("ort_ms", "ORT ms", "{:#.3g}"),
    ("torch_ms", "PyTorch ms", "{:#.3g}"),
    ("ef_ort", "edgefold/ORT time", "{:.2f}"),
    ("rss_edgefold_mib", "peak RSS edgefold MiB", "{:.1f}"),
    ("rss_ort_mib", "ORT MiB", "{:.1f}"),
    ("rss_torch_mib", "PyTorch MiB", "{:.1f}"),
]


def read_record(path):
    """Header dict and network rows of one record; exits naming the line it cannot read."""
    header, rows = {}, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("network="):
            try:
                row = dict(f.split("=", 1) for f in line.split())
                rows.append({k: (v if k == "network" else float(v)) for k, v in row.items()})
            except ValueError:
                sys.exit(f"{path}:{number}: expected key=number fields after network=: {line}")
        elif ":" in line:
            key, value = line.split(":", 1)
            header[key.strip()] = value.strip()
        else:
            sys.exit(f"{path}:{number}: neither 'key: value' nor 'network=...': {line}")
    for key in ("machine", "date", "command", "threads"):
        if key not in header:
            sys.exit(f"{path}: header '{key}:' missing")
    if not rows:
        sys.exit(f"{path}: no network= lines")
    return header, rows


def run_line(header, rows):
    """The date, the command and the thread count of one record."""
    threads = header["threads"]
    torch = " (PyTorch: 1)" if any("torch_ms" in r for r in rows) else ""
    # Records without a `peer:` line timed ONNX Runtime through its Node binding (onnxruntime-node),
    # which adds about 0.04 ms per call: it flatters ORT's ratio on the small networks.
    peer = ("ONNX Runtime (native: its C API in edgefold's process)" if header.get("peer") == "native"
            else "ONNX Runtime (through its Node binding, which adds ~0.04 ms per call)")
    return (f"{header['date']}, `{header['command']}`: edgefold and {peer} at {threads} "
            f"thread{'s' if threads != '1' else ''}{torch}.")


def table(rows):
    """One record's networks as a Markdown table, then their geometric mean."""
    columns = [c for c in COLUMNS if any(c[0] in r for r in rows)]
    lines = ["| network | " + " | ".join(c[1] for c in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for r in rows:
        cells = [fmt.format(r[key]) if key in r else "—" for key, _, fmt in columns]
        lines.append(f"| {NETWORKS.get(r['network'], r['network'])} | " + " | ".join(cells) + " |")
    ratios = [(r["ef_ort"], r["network"]) for r in rows if "ef_ort" in r]
    if ratios:
        mean = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
        worst = max(ratios)
        name = NETWORKS.get(worst[1], worst[1]).split(" (")[0]
        plural = "s" if len(ratios) > 1 else ""
        lines += ["", f"Geometric mean of edgefold/ORT over {len(ratios)} network{plural}: "
                  f"**{mean:.2f}** (highest {worst[0]:.2f}, {name}); "
                  "below 1, edgefold is the faster."]
    return "\n".join(lines)


def readme_block(header, rows):
    """README's table: one record, its machine and run named once."""
    return f"{header['machine']}; {run_line(header, rows)}\n\n{table(rows)}"


def bench_block(records):
    """bench/README's tables: per machine (named once, newest first), each of its records."""
    parts, machines = [], []
    for _, header, _ in records:
        if header["machine"] not in machines:
            machines.append(header["machine"])
    for machine in machines:
        parts.append(f"### {machine}")
        for _, header, rows in records:
            if header["machine"] == machine:
                parts += [run_line(header, rows), table(rows)]
    return "\n\n".join(parts)


def replace_block(path, body, check):
    """Puts body between the markers of path; with check, only reports a difference."""
    text = path.read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        sys.exit(f"{path}: needs one '{BEGIN}' line followed by one '{END}' line")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    updated = f"{head}{BEGIN}\n{body}\n{END}{tail}"
    if updated == text:
        return True
    if check:
        print(f"{path}: result table differs from bench/results (run bench/publish_results.py)")
        return False
    path.write_text(updated)
    print(f"wrote {path}")
    return True


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=root)
    parser.add_argument("--records", type=pathlib.Path, default=None)
    parser.add_argument("--readme", type=pathlib.Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    records_dir = args.records or args.root / "bench" / "results"
    paths = sorted(records_dir.glob("*.txt"))
    if not paths:
        sys.exit(f"{records_dir}: no *.txt run records")
    records = [(p, *read_record(p)) for p in paths]
    records.sort(key=lambda r: (r[1]["date"], r[1]["threads"] == "1"), reverse=True)
    if args.readme:
        chosen = [r for r in records if r[0].resolve() == args.readme.resolve()]
        if not chosen:
            chosen = [(args.readme, *read_record(args.readme))]
    else:
        chosen = [r for r in records if r[1]["threads"] == "1"] or records
    readme = readme_block(chosen[0][1], chosen[0][2])
    ok = replace_block(args.root / "README.md", readme, args.check)
    ok = replace_block(args.root / "bench" / "README.md", bench_block(records), args.check) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

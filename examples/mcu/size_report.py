#!/usr/bin/python3
"""Flash/RAM of bare-metal edgefold firmware, split by owner, from the GNU ld link map.

  flash = .isr_vector + .text + .rodata + .ARM.* + init arrays + .data (its load image)
  RAM   = .data + .bss (the static arena is in .bss)
Owners: runtime (libedgefold_runtime.a), kernels (libedgefold_kernels.a), trainer
(libedgefold_training.a + libedgefold_train_kernels.a, on-device learning firmware only), model
(the export-c array), input (an input, or labelled images), arena, app (main, startup, ABI
hooks), libc (newlib-nano, libm, libgcc, crt0). With --budget-runtime-kb N it fails (exit 1) when runtime + kernels code and
read-only data exceed N KiB.
usage: size_report.py [--budget-runtime-kb N] FIRMWARE.elf.map [...]
"""
import argparse
import re
import subprocess
import sys

FLASH = (".isr_vector", ".text", ".rodata", ".ARM.extab", ".ARM.exidx", ".preinit_array",
         ".init_array", ".fini_array")
OWNERS = ("runtime", "kernels", "trainer", "model", "input", "app", "libc", "arena")


def owner(section, obj):
    if re.search(r"_model\b|_model$", section):
        return "model"
    if "_input_bits" in section or re.search(r"(adapt|eval)_(x_bits|y)", section):
        return "input"
    if "g_arena" in section:
        return "arena"
    if "libedgefold_runtime.a" in obj:
        return "runtime"
    if "libedgefold_kernels.a" in obj:
        return "kernels"
    if "libedgefold_training.a" in obj or "libedgefold_train_kernels.a" in obj:
        return "trainer"
    if re.search(r"(main|train_main|startup|cxx_support|no_default_resolver|harness|checks)\.(cc|c)\.obj", obj):
        return "app"
    return "libc"


def parse_map(path):
    """Returns {(output_section, owner): bytes} for the allocated sections."""
    sizes, out_sec, pending = {}, None, None
    entry = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
    with open(path) as f:
        lines = f.read().split("Linker script and memory map", 1)[-1].splitlines()
    for line in lines:
        m = re.match(r"^(\.[\w.]+)\s", line) or re.match(r"^(\.[\w.]+)$", line)
        if m and not line.startswith(" "):
            out_sec = m.group(1)
            continue
        m = re.match(r"^ (\.[^\s]+)\s*(.*)$", line)
        if m:
            pending, rest = m.group(1), m.group(2)
            line = "                " + rest if rest else ""
        e = entry.match(line)
        if e and pending and out_sec:
            size = int(e.group(2), 16)
            key = (out_sec, owner(pending, e.group(3)))
            sizes[key] = sizes.get(key, 0) + size
            pending = None
    return sizes


def report(map_path):
    sizes = parse_map(map_path)
    flash = {o: sum(v for (s, ow), v in sizes.items() if ow == o and (s in FLASH or s == ".data"))
             for o in OWNERS}
    ram = {o: sum(v for (s, ow), v in sizes.items() if ow == o and s in (".data", ".bss")) for o in OWNERS}
    elf = map_path[:-4]
    berkeley = subprocess.run(["arm-none-eabi-size", elf], capture_output=True, text=True).stdout
    print(f"== {elf}\n{berkeley.rstrip()}")
    print(f"{'owner':<8} {'flash B':>9} {'RAM B':>9}")
    for o in OWNERS:
        print(f"{o:<8} {flash[o]:>9} {ram[o]:>9}")
    print(f"{'total':<8} {sum(flash.values()):>9} {sum(ram.values()):>9}")
    return flash["runtime"] + flash["kernels"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget-runtime-kb", type=float)
    ap.add_argument("maps", nargs="+")
    a = ap.parse_args()
    failed = False
    for path in a.maps:
        code = report(path)
        if a.budget_runtime_kb is not None:
            limit = int(a.budget_runtime_kb * 1024)
            verdict = "OK" if code <= limit else "OVER BUDGET"
            print(f"runtime + kernels flash: {code} B, budget {limit} B: {verdict}")
            failed |= code > limit
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Prints the scenario table of docs/Workloads.md from the built tools.

For every named scenario: its size, the device memory its arguments take by
role, and its peak device memory without offload (buffer liveness with the
ascend910c-supernode allocation granularity, no fragmentation).

  utils/workload-table.py [BUILD_DIR]
"""

import pathlib
import re
import subprocess
import sys
import tempfile


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True)


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    tool, opt = build / "bin" / "hyperoffload", build / "bin" / "hyperoffload-opt"
    listing = run(tool, "model", "list").stdout
    # The first word of each line after the SCENARIO header.
    scenarios = re.findall(r"^(\S+)\s", listing.split("\nSCENARIO ", 1)[1],
                           re.MULTILINE)
    print("| scenario | ops | weights | KV cache | gradients + optimizer "
          "| peak without offload | KV share of the peak |")
    print("|---|---|---|---|---|---|---|")
    for scenario in scenarios:
        with tempfile.NamedTemporaryFile(suffix=".mlir") as graph:
            summary = run(tool, "model", "emit", "--scenario", scenario,
                          "--stats", "-o", graph.name).stderr
            report = run(opt, graph.name, "--ho-report=allocator=ideal",
                         "-o", "/dev/null").stdout
        ops = re.search(r"(\d+) ops", summary).group(1)
        sizes = dict((role, float(size)) for role, size in
                     re.findall(r"(\w+) ([0-9.]+) GB", summary))
        peak = float(re.search(r"peak live\s+([0-9.]+) GB", report).group(1))
        kv = sizes.get("kv_cache", 0.0)
        training = sum(sizes.get(role, 0.0) for role in
                       ("gradient", "master_weight", "optimizer_state"))
        print(f"| `{scenario}` | {ops} | {sizes.get('weight', 0.0):.2f} GB "
              f"| {kv:.2f} GB | {training:.2f} GB | {peak:.2f} GB "
              f"| {100 * kv / peak:.1f}% |")


if __name__ == "__main__":
    main()

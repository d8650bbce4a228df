#!/usr/bin/env python3
"""Times the --hyperoffload pipeline from 10k to 1M ops and fits how it scales.

Runs BM_Pipeline (the pipeline on a generated layer chain, planned at 3/4 of
its peak) and BM_ParsePrint (parsing and printing the same chain, what
hyperoffload-opt does without the pipeline) of hyperoffload-bench, prints a
markdown table, and fits time = c * ops^k by least squares on log-log: k near
1 is linear, 2 quadratic. The local exponents between neighbouring sizes show
where growth bends.

  utils/pipeline-scaling.py [BUILD_DIR] [--max-ops N]
"""

import argparse
import json
import math
import pathlib
import subprocess

SIZES = [10000, 30000, 100000, 300000, 1000000]


def run_benchmarks(bench, sizes):
    """Returns {benchmark name: {ops: seconds}}."""
    pattern = "^BM_(Pipeline|ParsePrint)/ops:({})$".format(
        "|".join(map(str, sizes)))
    result = subprocess.run(
        [bench, f"--benchmark_filter={pattern}", "--benchmark_format=json"],
        capture_output=True, text=True, check=True)
    times = {}
    for entry in json.loads(result.stdout)["benchmarks"]:
        name, ops = entry["name"].split("/ops:")
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry["time_unit"]]
        times.setdefault(name, {})[int(ops)] = entry["real_time"] * scale
    return times


def fit_exponent(points):
    """The slope of log(seconds) over log(ops), by least squares."""
    xs = [math.log(ops) for ops, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    variance = sum((x - mean_x) ** 2 for x in xs)
    return covariance / variance


def local_exponent(small, large):
    (ops_a, seconds_a), (ops_b, seconds_b) = small, large
    return math.log(seconds_b / seconds_a) / math.log(ops_b / ops_a)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--max-ops", type=int, default=SIZES[-1],
                        help="leave out the sizes above this many ops")
    args = parser.parse_args()

    sizes = [ops for ops in SIZES if ops <= args.max_ops]
    bench = pathlib.Path(args.build) / "bin" / "hyperoffload-bench"
    times = run_benchmarks(str(bench), sizes)
    pipeline, parse_print = times["BM_Pipeline"], times["BM_ParsePrint"]

    print("| ops | parse + print | pipeline | pipeline / parse + print "
          "| local exponent |")
    print("|---:|---:|---:|---:|---:|")
    previous = None
    for ops in sizes:
        local = ("" if previous is None else
                 f"{local_exponent(previous, (ops, pipeline[ops])):.2f}")
        print(f"| {ops:,} | {parse_print[ops]:.3f} s | {pipeline[ops]:.3f} s "
              f"| {pipeline[ops] / parse_print[ops]:.1f}x | {local} |")
        previous = (ops, pipeline[ops])
    if len(sizes) > 1:
        print()
        print(f"fitted exponent: pipeline "
              f"{fit_exponent(sorted(pipeline.items())):.2f}, parse + print "
              f"{fit_exponent(sorted(parse_print.items())):.2f}")


if __name__ == "__main__":
    main()

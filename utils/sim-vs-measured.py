#!/usr/bin/env python3
"""Runs plans for real and sets their measured step and stall times against
the simulator's; prints a markdown table.

Each graph is the tiny LLaMA (a decode step, and a one-layer training step)
planned at budgets that force transfers, then run by `hyperoffload run`
with every synthetic kernel taking at least S times its modelled time
(--compute-scale S) and every link emulated at 1/S of its bandwidth
(--link-scale 1/S): the modelled step slowed S times, with real threads,
real copies and real waits. The simulated column is the simulator's
prediction for the same plan, times S. What this checks is the simulator's
account of overlap, stalls and link queues; compute time itself is padded
to the model, so it is not evidence for the roofline.

With --reactive it runs, on h200-pcie5, graphs large enough for the
reactive runtime's allocators (a two-layer training step of 4 x 256 tokens,
and test/Execution/Inputs/reactive-swap.mlir) with `run --reactive`, and
sets the planned and the reactive step times, simulated and measured,
side by side. The replay does not execute the runtime's allocator stalls,
so the reactive simulated column leaves them out (they are listed apart).

With --examples it runs the bundled examples: examples/mlp.mlir's real
linalg kernels, priced by two hardware files `hyperoffload calibrate`
measures first on this machine (no padding): one whose f32 peak is the
square 256^3 matmul's (this tests one roofline figure for every shape),
and one calibrated `--like` the MLP right before each of its runs, whose
peak is what the MLP's own matmuls reach (this tests the schedule), and
examples/decode_step.mlir, a hand-written schedule of abstract ops, padded
at S = 30000 (its kernels' loops over 32 MiB weights outrun 3000 x their
modelled time).

Each example row also sets the plan's step over the unplanned program's,
simulated against measured: both programs run minutes apart at most, so
this ratio holds where a shared machine's compute speed drifts between
the calibration and the run.

Wall-clock figures vary from run to run and machine to machine: this is a
benchmark, not a test.

  utils/sim-vs-measured.py [BUILD_DIR] [--scale S] [--repeat N]
                           [--reactive | --examples]
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

GRAPHS = [
    ("decode", ["--mode", "decode", "--seq", "64"], ["2MB", "1MB", "700KB"]),
    ("train", ["--mode", "train", "--seq", "16", "--layers", "1"],
     ["12MB", "6MB", "4MB"]),
]
REACTIVE_GRAPHS = [
    ("llama3-tiny train, 4 x 256 tokens",
     ["--mode", "train", "--seq", "256", "--batch", "4"], ["40MB", "30MB"]),
    ("reactive-swap.mlir", None, ["14MB"]),
]
EXAMPLES = [
    ("decode_step.mlir", 30000, [None]),
    ("mlp.mlir", "square", ["45MB", "40MB", "30MB"]),
    ("mlp.mlir", "like", ["45MB", "40MB", "30MB"]),
]
ROOT = pathlib.Path(__file__).resolve().parent.parent
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def seconds(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]


def run(tool, graph, budget, scale, repeat, extra=()):
    """`hyperoffload run` padded to S = scale (scale None: real kernels)."""
    command = [tool, "run", graph, "--repeat", str(repeat), *extra]
    if budget:
        command += ["--budget", budget]
    if scale:
        command += ["--opt-level", "1", "--compute-scale", str(scale),
                    "--link-scale", str(1 / scale)]
    output = subprocess.run(command, capture_output=True, text=True)
    if output.returncode != 0:
        raise SystemExit(f"{graph} at {budget}:\n{output.stdout}{output.stderr}")
    times = {}
    for name in ("step time", "stall time", "unplanned step time",
                 "reactive step time", "reactive allocator stalls"):
        match = re.search(rf"^{name}\s+(\S+ \S+)\s+(\S+ \S+|not replayed)$",
                          output.stdout, re.MULTILINE)
        if match:
            measured = match.group(2)
            times[name] = (seconds(match.group(1)),
                           None if measured == "not replayed"
                           else seconds(measured))
    return times


def print_reactive_table(tool, directory, scale, repeat):
    print(f"| graph | budget | planned, simulated x {scale:g} | measured | "
          f"reactive, simulated x {scale:g} (allocator stalls apart) | "
          "measured | reactive / planned, simulated | measured |")
    print("|---|---|---|---|---|---|---|---|")
    for name, flags, budgets in REACTIVE_GRAPHS:
        if flags is None:
            graph = str(ROOT / "test" / "Execution" / "Inputs" / name)
        else:
            graph = f"{directory}/reactive-{len(flags)}.mlir"
            subprocess.run([tool, "model", "emit", "llama3-tiny", *flags,
                            "-o", graph], check=True)
        for budget in budgets:
            times = run(tool, graph, budget, scale, repeat,
                        ["--hw", "h200-pcie5", "--reactive", "--no-integrity"])
            planned = times["step time"]
            stalls = times["reactive allocator stalls"][0]
            reactive = (times["reactive step time"][0] - stalls,
                        times["reactive step time"][1])
            print(f"| {name} | {budget} | {planned[0]:.3f} s | "
                  f"{planned[1]:.3f} s | {reactive[0]:.3f} s "
                  f"(+{stalls:.3f} s) | {reactive[1]:.3f} s | "
                  f"{reactive[0] / planned[0]:.2f}x "
                  f"({(reactive[0] + stalls) / planned[0]:.2f}x) | "
                  f"{reactive[1] / planned[1]:.2f}x |", flush=True)


def calibrate(tool, output, like=None):
    """A hardware file of this machine, `--like` a program when given."""
    command = [tool, "calibrate", "-o", output]
    if like:
        command += ["--like", like]
    subprocess.run(command, check=True, capture_output=True)
    return output


def print_examples_table(tool, directory, repeat):
    square = calibrate(tool, f"{directory}/this-machine.json")
    print("| example | budget | kernels | simulated step | measured | ratio | "
          "simulated stall | measured stall | planned / unplanned, "
          "simulated | measured |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, pricing, budgets in EXAMPLES:
        graph = str(ROOT / "examples" / name)
        padded = isinstance(pricing, int)
        scale = pricing if padded else None
        kernels = {"square": "linalg, calibrated on a square matmul",
                   "like": "linalg, calibrated --like it"}.get(
                       pricing, f"synthetic, padded x {pricing}")
        for budget in budgets:
            # A shared machine's speed drifts from minute to minute, so the
            # program's own kernels are measured right before each run.
            extra = []
            if pricing == "square":
                extra = ["--hw", square]
            elif pricing == "like":
                extra = ["--hw", calibrate(tool, f"{directory}/like.json",
                                           like=graph)]
            times = run(tool, graph, budget, scale, repeat, extra)
            step, stall = times["step time"], times["stall time"]
            unplanned = times["unplanned step time"]
            print(f"| {name} | {budget or 'as written'} | {kernels} | "
                  f"{step[0]:.3f} s | {step[1]:.3f} s | "
                  f"{step[1] / step[0]:.3f} | {stall[0] * 1e3:.2f} ms | "
                  f"{stall[1] * 1e3:.2f} ms | "
                  f"{step[0] / unplanned[0]:.3f} | "
                  f"{step[1] / unplanned[1]:.3f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="build", type=pathlib.Path)
    parser.add_argument("--scale", type=float, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reactive", action="store_true",
                        help="planned against the reactive runtime, run")
    parser.add_argument("--examples", action="store_true",
                        help="the bundled examples, mlp.mlir calibrated")
    args = parser.parse_args()
    tool = args.build / "bin" / "hyperoffload"
    if args.examples:
        with tempfile.TemporaryDirectory() as directory:
            print_examples_table(tool, directory, args.repeat)
        return 0
    if args.reactive:
        with tempfile.TemporaryDirectory() as directory:
            print_reactive_table(tool, directory, args.scale, args.repeat)
        return 0
    print(f"| graph | budget | simulated step x {args.scale:g} | measured | "
          "ratio | simulated stall | measured stall |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        for name, flags, budgets in GRAPHS:
            graph = f"{directory}/{name}.mlir"
            subprocess.run([tool, "model", "emit", "llama3-tiny", *flags,
                            "-o", graph], check=True)
            for budget in budgets:
                times = run(tool, graph, budget, args.scale, args.repeat)
                step, stall = times["step time"], times["stall time"]
                print(f"| llama3-tiny {name} | {budget} | "
                      f"{step[0] * 1e3:.1f} ms | {step[1] * 1e3:.1f} ms | "
                      f"{step[1] / step[0]:.3f} | {stall[0] * 1e3:.2f} ms | "
                      f"{stall[1] * 1e3:.2f} ms |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that MLIR in the styles front ends emit goes through HyperOffload.

For every input file, as delivered, after `--canonicalize --cse` and after
`--inline --canonicalize --cse`:

1. `--ho-report` gives its peak and memory bound;
2. the peak agrees with what one-shot bufferization allocates: the file is
   brought to linalg on tensors (tosa-to-linalg, elementwise ops to linalg)
   with the stock mlir-opt (embedded weights made arguments first, as the
   pipeline does), reported, bufferized with
   `--one-shot-bufferize` (function boundaries, identity layouts) and reported
   again;
   the two peaks must be equal (skipped without --mlir-opt);
3. at budgets from 1.05x the memory bound up to the peak, `--hyperoffload`
   plans it (the pipeline verifies its plan), the plan stays in the budget
   with its static offsets, `--ho-lower-to-runtime` lowers it and the lowered
   file parses and verifies again.

Prints one line per file and preparation, and every failure with the stage
and the first diagnostic; exits 1 if anything failed.

    utils/check-front-end-ir.py --opt build/bin/hyperoffload-opt \\
        --mlir-opt /usr/lib/llvm-22/bin/mlir-opt examples/*.mlir
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# The stock passes that bring tosa and elementwise ops to linalg on tensors,
# as a front end's own lowering would before bufferization.
TO_LINALG = ("func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
             "tosa-to-tensor,convert-elementwise-to-linalg)")
# Identity layouts at function boundaries: no copies for strided arguments.
BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map}")
PREPARATIONS = {
    "as delivered": [],
    "canonicalize+cse": ["--canonicalize", "--cse"],
    "inline+canonicalize+cse": ["--inline", "--canonicalize", "--cse"],
}


class StageError(Exception):
    """A stage that failed: its name and the first diagnostic."""

    def __init__(self, stage, output):
        lines = [line for line in output.splitlines() if line.strip()]
        errors = [line for line in lines if "error:" in line]
        first = (errors or lines or ["(no output)"])[0]
        super().__init__(f"{stage}: {first.strip()}")


def run(stage, command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise StageError(stage, result.stderr + result.stdout)
    return result.stdout


def report(opt, path, hw, workdir, budget=None, allocator=None):
    """The --ho-report metrics of every function of `path`."""
    metrics = os.path.join(workdir, "report.json")
    options = [f"hw={hw}", f"json={metrics}"]
    if budget is not None:
        options.append(f"budget={budget}B")
    if allocator:
        options.append(f"allocator={allocator}")
    run("report", [opt, path, f"--ho-report={' '.join(options)}",
                   "-o", os.devnull])
    with open(metrics) as f:
        return json.load(f)["functions"]


def peak_of(functions):
    return max(f["peak_live_bytes"] for f in functions.values())


def bound_of(functions):
    return max(f["lower_bounds"]["memory_bytes"] for f in functions.values())


def check_bufferization(opt, mlir_opt, path, hw, workdir):
    """The peak of the linalg form of `path` and of its bufferized form."""
    weights = os.path.join(workdir, "weights.mlir")
    linalg = os.path.join(workdir, "linalg.mlir")
    memrefs = os.path.join(workdir, "memrefs.mlir")
    # One-shot bufferization does not take ml_program globals; as weight
    # arguments they occupy the same bytes for the same span. Scalars stay
    # (tosa-to-linalg needs constant zero points).
    run("constants as arguments",
        [opt, path, "--ho-constants-as-arguments=min-bytes=64", "-o", weights])
    run("to linalg", [mlir_opt, weights,
                      f"--pass-pipeline=builtin.module({TO_LINALG})",
                      "-o", linalg])
    run("one-shot bufferization",
        [mlir_opt, linalg, f"--pass-pipeline=builtin.module({BUFFERIZE})",
         "-o", memrefs])
    tensors = peak_of(report(opt, linalg, hw, workdir))
    buffers = peak_of(report(opt, memrefs, hw, workdir))
    if tensors != buffers:
        raise StageError("one-shot bufferization",
                         f"error: peak {tensors} B on tensors, one-shot "
                         f"allocates {buffers} B at its peak")
    return tensors


def budgets_between(bound, peak):
    """1.05x the bound, 1.25x, the midpoint and the peak, in the range."""
    if peak <= bound:
        return [peak]
    # A budget is positive, even where nothing needs the device.
    low = max(1, -(-bound * 105 // 100))
    points = {low, -(-bound * 125 // 100), (low + peak) // 2, peak}
    return sorted(b for b in points if low <= b <= peak)


def check_plan(opt, path, hw, budget, workdir):
    planned = os.path.join(workdir, "planned.mlir")
    lowered = os.path.join(workdir, "lowered.mlir")
    run("plan", [opt, path, f"--hyperoffload=hw={hw} budget={budget}B",
                 "-o", planned])
    static = report(opt, planned, hw, workdir, budget, "static")
    if any(f["out_of_memory"] for f in static.values()):
        raise StageError("plan", "error: the static plan runs out of memory")
    run("lower", [opt, planned, "--ho-lower-to-runtime", "-o", lowered])
    run("re-parse", [opt, lowered, "-o", os.devnull])


def check_file(args, path, workdir):
    failures = []
    name = os.path.basename(path)
    for preparation, passes in PREPARATIONS.items():
        prepared = path
        try:
            if passes:
                prepared = os.path.join(workdir, "prepared.mlir")
                run(preparation, [args.opt, path, *passes, "-o", prepared])
            functions = report(args.opt, prepared, args.hw, workdir)
            peak, bound = peak_of(functions), bound_of(functions)
            summary = f"peak {peak} B, memory bound {bound} B"
            if args.mlir_opt:
                linalg = check_bufferization(args.opt, args.mlir_opt,
                                             prepared, args.hw, workdir)
                # Converting ops to linalg may write a result in place.
                summary += (" = one-shot" if linalg == peak else
                            f"; its linalg form {linalg} B = one-shot")
            budgets = budgets_between(bound, peak)
            for budget in budgets:
                try:
                    check_plan(args.opt, prepared, args.hw, budget, workdir)
                except StageError as error:
                    failures.append(f"{name}: {preparation}: budget "
                                    f"{budget} B: {error}")
            planned = len(budgets) - sum(
                f.startswith(f"{name}: {preparation}: budget")
                for f in failures)
            print(f"{name}: {preparation}: {summary}; planned, verified, "
                  f"lowered and re-parsed at {planned} of {len(budgets)} "
                  f"budgets")
        except StageError as error:
            failures.append(f"{name}: {preparation}: {error}")
            print(f"{name}: {preparation}: FAILED")
    return failures


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="MLIR files to check")
    parser.add_argument("--opt", default="build/bin/hyperoffload-opt",
                        help="hyperoffload-opt to run")
    parser.add_argument("--mlir-opt", help="stock mlir-opt, for the "
                        "bufferization check (skipped without it)")
    parser.add_argument("--hw", default="h200-pcie5",
                        help="hardware preset or JSON file")
    args = parser.parse_args()

    failures = []
    with tempfile.TemporaryDirectory() as workdir:
        for path in args.files:
            failures += check_file(args, path, workdir)
    for failure in failures:
        print(f"FAIL: {failure}")
    print(f"{len(args.files)} files, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

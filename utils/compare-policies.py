#!/usr/bin/env python3
"""Scores every policy on the named scenarios and prints a markdown table.

For each scenario, hardware preset and budget: no offload, the reactive and
paged runtimes, and the naive, window, distance, pt2 and hyperoffload plans,
all simulated on the same graph. Compiled plans are scored with a static
memory plan (ho-assign-offsets, then allocator=static); the reactive
runtime, naive always-offload and the ZeRO-Infinity-style window on
PyTorch's caching allocator or with expandable segments, whichever fits and
runs faster (as `hyperoffload compare` does), and vLLM's paged KV cache with
fixed-size blocks, like their real counterparts. hyperoffload runs the passes of the --hyperoffload
pipeline: order refinement, planning, order refinement.
Every step time is also compared with the time lower bound of the graph at
the same budget (a negative gap means the run did not fit).

  utils/compare-policies.py [BUILD_DIR]                 # the policy table
  utils/compare-policies.py BUILD_DIR --allocators     # each plan, both allocators
"""

import pathlib
import re
import subprocess
import sys
import tempfile

SCENARIOS = [
    ("deepseek-v3-nsa-decode", "44GB"),
    ("llama3-8b-train", "64GB"),
    ("llama3-8b-decode-128k", "24GB"),
]
HARDWARE = ["ascend910c-supernode", "ascend910c-host"]
POLICIES = ["none", "reactive", "paged", "naive", "window", "distance", "pt2",
            "pt2-default", "hyperoffload-schedule", "hyperoffload"]


def run(*args, stdin=None):
    result = subprocess.run(args, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))}:\n{result.stderr}")
    return result.stdout


def parse_report(text):
    def seconds(label):
        match = re.search(label + r"\s*([0-9.]+) (s|ms|us)", text)
        value, unit = float(match.group(1)), match.group(2)
        return value * {"s": 1.0, "ms": 1e-3, "us": 1e-6}[unit]

    peak = re.search(r"peak footprint\s+([0-9.]+) (B|KB|MB|GB|TB)", text)
    scale = {"B": 1e-9, "KB": 1e-6, "MB": 1e-3, "GB": 1.0, "TB": 1e3}
    return {
        "step": seconds("step time"),
        "stall": seconds("stalls"),
        "allocator": re.search(r"simulation on \S+: \S+, (\S+) allocator",
                               text).group(1),
        "allocator_stalls": int(re.search(r"allocator\s+(\d+) stalls",
                                          text).group(1)),
        "allocator_stall": seconds(r"allocator\s+\d+ stalls \("),
        "peak": float(peak.group(1)) * scale[peak.group(2)],
        "oom": "out of memory   yes" in text,
        "bound": seconds("time bound"),
    }


RUNTIME_ALLOCATORS = ["caching", "expandable"]


def best_runtime_run(reports):
    """The run a runtime user would keep: it fits, then it is faster; the
    shipped default (the first) on a tie."""
    results = [parse_report(report) for report in reports]
    return min(results, key=lambda result: (result["oom"], result["step"]))


def best_run(results):
    """The run to keep: it fits, then it is faster; the first on a tie."""
    return min(results, key=lambda result: (result["oom"], result["step"]))


# The ho-plan-offload options of each planned policy.
PLAN_OPTIONS = {
    "naive": "policy=naive",
    "window": "policy=window",
    "distance": "policy=distance",
    "pt2": "policy=pt2",
    "pt2-default": "policy=pt2 pt2-reload-prefetch=false "
                   "pt2-separate-stream=false",
    "hyperoffload-schedule": "policy=hyperoffload rewrites=false",
    "hyperoffload": "policy=hyperoffload",
}


def score_planned(opt, graph, policy, common, allocator, every_link):
    options = PLAN_OPTIONS[policy]
    if policy.startswith("hyperoffload"):
        # The passes of the --hyperoffload pipeline before offsets.
        planned = run(opt, graph,
                      f"--ho-refine-order={common} hide-stalls=false",
                      f"--ho-plan-offload={common} {options}",
                      f"--ho-refine-order={common} lower-peak=false")
    else:
        planned = run(opt, graph, f"--ho-plan-offload={common} {options} "
                      f"every-link={'true' if every_link else 'false'}")
    if allocator == "runtime":
        return best_run([parse_report(
            run(opt, "-", f"--ho-report={common} allocator={name}",
                "-o", "/dev/null", stdin=planned))
            for name in RUNTIME_ALLOCATORS])
    if allocator == "static":
        # A plan that misses the budget gets its offsets anyway, and the
        # report says that it does not fit.
        planned = run(opt, "-",
                      f"--ho-assign-offsets={common} allow-over-budget=true",
                      stdin=planned)
    return parse_report(run(opt, "-", f"--ho-report={common} allocator={allocator}",
                            "-o", "/dev/null", stdin=planned))


def score(opt, graph, policy, hw, budget, allocator=None):
    """Scores `policy` as `hyperoffload compare` does; `allocator` overrides
    the one its counterpart uses ("runtime": the better of the runtime
    allocators). A baseline plan is also made with its copies spread over
    every link, and the better run kept."""
    common = f"hw={hw} budget={budget}"
    if policy == "none":
        return parse_report(run(opt, graph,
                                f"--ho-report={common} allocator=ideal",
                                "-o", "/dev/null"))
    if policy == "reactive":
        return best_runtime_run(
            run(opt, graph,
                f"--ho-report={common} mode=reactive allocator={name}",
                "-o", "/dev/null") for name in RUNTIME_ALLOCATORS)
    if policy == "paged":
        return parse_report(run(opt, graph,
                                f"--ho-report={common} mode=paged allocator=paged",
                                "-o", "/dev/null"))
    if allocator is None:
        allocator = "runtime" if policy in ("naive", "window") else "static"
    if policy.startswith("hyperoffload"):
        return score_planned(opt, graph, policy, common, allocator, False)
    return best_run([score_planned(opt, graph, policy, common, allocator,
                                   every_link)
                     for every_link in (False, True)])


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    tool, opt = build / "bin" / "hyperoffload", build / "bin" / "hyperoffload-opt"
    if len(sys.argv) > 2 and sys.argv[2] == "--allocators":
        print_allocator_table(tool, opt)
        return
    print("| scenario | hardware | budget | policy | step time | vs none "
          "| vs time bound | transfer stalls | allocator stalls | peak | fits |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for scenario, budget in SCENARIOS:
        with tempfile.NamedTemporaryFile(suffix=".mlir") as graph:
            run(tool, "model", "emit", "--scenario", scenario, "-o", graph.name)
            for hw in HARDWARE:
                baseline = None
                for policy in POLICIES:
                    result = score(opt, graph.name, policy, hw, budget)
                    baseline = baseline or result
                    slowdown = result["step"] / baseline["step"]
                    # The bound of the unplanned input at this budget: the
                    # same for every policy.
                    gap = result["step"] / baseline["bound"] - 1
                    print(f"| `{scenario}` | {hw} | {budget} | {policy} "
                          f"| {result['step'] * 1e3:.2f} ms | {slowdown:.2f}x "
                          f"| {gap * 100:+.1f}% "
                          f"| {result['stall'] * 1e3:.2f} ms "
                          f"| {result['allocator']}: "
                          f"{result['allocator_stalls']} "
                          f"({result['allocator_stall'] * 1e3:.1f} ms) "
                          f"| {result['peak']:.2f} GB "
                          f"| {'no' if result['oom'] else 'yes'} |",
                          flush=True)


def print_allocator_table(tool, opt):
    """Every plan on its static memory plan and on the better runtime
    allocator: what the static memory plan itself buys, apart from the
    plan's timing."""
    print("| scenario | hardware | policy | static: step time | static: peak "
          "| runtime: allocator | runtime: step time | runtime: stalls "
          "| runtime: peak | runtime: fits |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for scenario, budget in SCENARIOS:
        with tempfile.NamedTemporaryFile(suffix=".mlir") as graph:
            run(tool, "model", "emit", "--scenario", scenario, "-o", graph.name)
            for hw in HARDWARE:
                for policy in POLICIES[3:]:
                    static = score(opt, graph.name, policy, hw, budget,
                                   "static")
                    runtime = score(opt, graph.name, policy, hw, budget,
                                    "runtime")
                    print(f"| `{scenario}` | {hw} | {policy} "
                          f"| {static['step'] * 1e3:.2f} ms "
                          f"| {static['peak']:.2f} GB "
                          f"| {runtime['allocator']} "
                          f"| {runtime['step'] * 1e3:.2f} ms "
                          f"| {runtime['allocator_stalls']} "
                          f"({runtime['allocator_stall'] * 1e3:.1f} ms) "
                          f"| {runtime['peak']:.2f} GB "
                          f"| {'no' if runtime['oom'] else 'yes'} |",
                          flush=True)


if __name__ == "__main__":
    main()

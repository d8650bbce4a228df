#!/usr/bin/env python3
"""Regenerates docs/Results.md: every number in it comes from this script.

  utils/results.py [BUILD_DIR]                 # print the document
  utils/results.py BUILD_DIR --write           # write docs/Results.md and
                                               # docs/Results.json
  utils/results.py BUILD_DIR --write --add     # the same, running only the
                                               # answers not recorded yet
  utils/results.py BUILD_DIR --check           # quick check (make check)
  utils/results.py BUILD_DIR --check --full    # full check (make check-results)

It runs `hyperoffload compare --json` and `hyperoffload sweep --json` (and,
for the allocator table, utils/compare-policies.py) on the scenarios of
docs/Workloads.md. The simulation is deterministic, so the output is the
same on every machine. Its sections run side by side, one thread per core;
a full run takes about an hour on two cores.

docs/Results.json keeps every answer the document was made from: the
command, its output and how long it took. The quick check renders the
document from those answers (so a hand edit, or a change to this script,
fails it) and reruns the answers marked quick (see choose_quick), so that
a change to the tool that moves one of them fails it too. The full check
reruns every answer.
"""

import argparse
import concurrent.futures
import difflib
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
POLICIES = ["none", "reactive", "paged", "naive", "window", "distance", "pt2",
            "pt2-default", "hyperoffload-schedule", "hyperoffload"]
# The faithful baselines; hyperoffload-schedule is the plan without its
# rewrites, reported apart.
BASELINES = POLICIES[1:-2]
HARDWARE = ["ascend910c-supernode", "ascend910c-host"]
SCENARIOS = [
    ("deepseek-v3-nsa-decode", "44GB"),
    ("llama3-8b-train", "64GB"),
    ("llama3-8b-decode-128k", "24GB"),
]
# Table 3: DeepSeek-V3 + NSA decode at these contexts (the scenario's is 70k).
CONTEXTS = [16000, 32000, 70000, 128000, 256000]
TABLE3_CONTEXT = 70000
# The longest context is searched in steps of this many tokens, up to the cap.
CONTEXT_STEP = 4000
CONTEXT_CAP = 1024000
BANDWIDTHS = [8, 16, 33.6, 64, 128, 256]
# The training steps imported from PyTorch (docs/PyTorch.md), on the GPU
# presets as well as the Ascend ones, and the budgets of their sweeps: from
# about a third of the peak without offload to all of it.
PYTORCH_HARDWARE = ["h200-pcie5", "gh200-c2c"] + HARDWARE
PYTORCH_SCENARIOS = [
    ("resnet50-pytorch-train", "6GB", ["4GB", "6GB", "8GB", "10GB", "12GB"]),
    ("vit-b16-pytorch-train", "5GB", ["3GB", "5GB", "7GB", "9GB", "10GB"]),
    ("llama3-8b-decoder-pytorch-train", "24GB",
     ["16GB", "24GB", "32GB", "40GB", "48GB"]),
]
PYTORCH_SWEEP_HARDWARE = ["h200-pcie5", "gh200-c2c"]


CACHE = ROOT / "docs" / "Results.json"
DOCUMENT = ROOT / "docs" / "Results.md"
# Tool time, as recorded on the machine that wrote the cache, of the answers
# the quick check reruns, and the most one of them may take.
QUICK_SECONDS = 90
QUICK_ANSWER_SECONDS = 20


class StaleCache(Exception):
    """The document asks for an answer docs/Results.json does not hold."""


class Tool:
    """Runs the hyperoffload tool (and the scripts beside this one);
    remembers each answer with the time it took. Sections run on several
    threads: the first to ask for an answer runs the tool, the others wait
    for it. Given `recorded` answers, it answers from them and runs
    nothing."""

    def __init__(self, build, recorded=None, run_missing=False):
        self.build = build
        self.recorded = recorded
        self.run_missing = run_missing
        self.answers = {}
        self.lock = threading.Lock()

    def answer(self, command):
        """The output of `command` (a tuple: a program, then its
        arguments), run once."""
        with self.lock:
            answer = self.answers.get(command)
            owner = answer is None
            if owner:
                answer = self.answers[command] = concurrent.futures.Future()
        if owner:
            try:
                if self.recorded is not None and command in self.recorded:
                    answer.set_result(self.recorded[command])
                elif self.recorded is None or self.run_missing:
                    answer.set_result(run_command(self.build, command))
                else:
                    raise StaleCache(
                        f"docs/Results.json has no answer for "
                        f"{' '.join(command)}")
            except BaseException as error:
                answer.set_exception(error)
        return answer.result()["output"]

    def run(self, *args):
        return self.answer(("hyperoffload", *args))

    def compare(self, scenario, hw, budget, policies=POLICIES, *extra):
        return self.run("compare", "--scenario", scenario, "--hw", hw,
                        "--budget", budget, "--policies", ",".join(policies),
                        *extra, "--json", "-")

    def sweep(self, scenario, hw, budget, field, values):
        return self.run("sweep", "--scenario", scenario, "--hw", hw,
                        "--budget", budget, "--vary",
                        f"{field}={','.join(map(str, values))}",
                        "--progress", "never", "--json", "-")


def runs(comparison):
    return {run["name"]: run for run in comparison["policies"]}


def step_time(run):
    """The step time a run is judged by: with routed experts, the mean over
    the drawn steps of the slowest device's step; else the one step."""
    steps = run.get("routing_steps")
    return steps["mean_step_time_s"] if steps else run["step_time_s"]


def slowdown(run, comparison):
    return step_time(run) / step_time(comparison["baseline"])


def is_safe(run):
    """Within the budget with no overlap, in every drawn step too."""
    steps = run.get("routing_steps")
    return run["safe"] and (not steps or (steps["fits"]
                                          and steps["overlaps"] == 0))


def ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def seconds_or_ms(seconds):
    return f"{seconds:.3f} s" if seconds >= 1 else ms(seconds)


def gb(count):
    return f"{count / 1e9:.2f} GB"


def percent(fraction):
    return f"{fraction * 100:+.1f}%" if fraction is not None else "n/a"


def ratio(value):
    return f"{value:.2f}x" if value is not None else "n/a"


def yes_no(flag):
    return "yes" if flag else "no"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines)


def allocator_stalls(run, fmt=ms):
    """Which allocator ran, its stalls and their time: "caching: 2 (1.0 ms)"."""
    return (f"{run['allocator']}: {run['allocator_stalls']} "
            f"({fmt(run['allocator_stall_time_s'])})")


def kilo_tokens(tokens):
    return f"{tokens // 1000}k"


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------


POLICY_TABLE_HEADER = ["scenario", "hardware", "budget", "policy",
                       "step time", "p99 step", "vs none", "vs time bound",
                       "transfer stalls", "allocator stalls", "peak", "fits"]


def policy_rows(scenario, hw, budget, comparison):
    """A row of POLICY_TABLE_HEADER per policy of `comparison`."""
    rows = []
    for run in comparison["policies"]:
        steps = run.get("routing_steps")
        rows.append([
            f"`{scenario}`", hw, budget, run["name"], ms(step_time(run)),
            ms(steps["p99_step_time_s"]) if steps else "",
            ratio(slowdown(run, comparison)),
            percent(step_time(run) / run["time_bound_s"] - 1),
            ms(run["stall_time_s"]), allocator_stalls(run),
            gb(run["peak_footprint_bytes"]), yes_no(run["fits"])])
    return rows


def every_policy(tool):
    rows = []
    for scenario, budget in SCENARIOS:
        for hw in HARDWARE:
            rows += policy_rows(scenario, hw, budget,
                                tool.compare(scenario, hw, budget))
    text = table(POLICY_TABLE_HEADER, rows)

    # The claims the table supports, checked rather than asserted.
    notes = []
    for scenario, budget in SCENARIOS:
        for hw in HARDWARE:
            comparison = tool.compare(scenario, hw, budget)
            by_name = runs(comparison)
            plan = by_name["hyperoffload"]
            fitting = [name for name in BASELINES if by_name[name]["fits"]]
            faster = [name for name in fitting
                      if step_time(by_name[name]) < step_time(plan)]
            best = min(fitting, key=lambda name: step_time(by_name[name]),
                       default=None)
            schedule = by_name["hyperoffload-schedule"]
            bound = plan["time_bound_s"]
            line = (f"`{scenario}` on {hw}: the plan "
                    f"{'fits' if plan['fits'] else 'does not fit'} at "
                    f"{ratio(slowdown(plan, comparison))} no offload, "
                    f"{percent(step_time(plan) / bound - 1)} over the time "
                    f"bound (without rewrites: "
                    f"{ratio(slowdown(schedule, comparison))}, "
                    f"{'fits' if schedule['fits'] else 'does not fit'})")
            if best:
                speedup = step_time(by_name[best]) / step_time(plan)
                line += (f"; the fastest baseline that fits is `{best}`, "
                         f"{ratio(speedup)} the plan's step time")
            else:
                line += "; no baseline fits"
            if faster:
                line += f" (faster than the plan: {', '.join(faster)})"
            notes.append(f"- {line}.")
    return text + "\n\n" + "\n".join(notes)


def kv_share(tool):
    rows = []
    target = ""
    for context in CONTEXTS:
        extra = ("--context", str(context))
        capacity = tool.compare("deepseek-v3-nsa-decode",
                                "ascend910c-supernode", "100%", ["none"],
                                *extra)
        peak = capacity["baseline"]["peak_footprint_bytes"]
        kv = capacity["kv_cache_bytes"]
        # The budget that asks for exactly the KV cache's share back.
        budget = f"{(peak - kv) / 1e9:.2f}GB"
        comparison = tool.compare(
            "deepseek-v3-nsa-decode", "ascend910c-supernode", budget,
            ["naive", "hyperoffload"], *extra)
        row = [kilo_tokens(context), gb(peak), gb(kv), f"{kv / peak:.1%}",
               budget.replace("GB", " GB")]
        for name in ("naive", "hyperoffload"):
            run = runs(comparison)[name]
            row += [f"{run['peak_reduction']:.1%}",
                    ratio(slowdown(run, comparison)), yes_no(run["fits"])]
        rows.append(row)
        if context == TABLE3_CONTEXT:
            # The paper's target itself: a budget 26% below the peak.
            paper_budget = f"{0.74 * peak / 1e9:.2f}GB"
            paper = tool.compare("deepseek-v3-nsa-decode",
                                 "ascend910c-supernode", paper_budget,
                                 ["hyperoffload"], *extra)
            plan = runs(paper)["hyperoffload"]
            reached = (plan["fits"] and plan["peak_reduction"] >= 0.26 and
                       slowdown(plan, paper) <= 1.05)
            target = (f"At {kilo_tokens(context)} (the paper's Table 3) and "
                      f"a budget 26% below the peak "
                      f"({paper_budget.replace('GB', ' GB')}), the plan "
                      f"lowers the peak by {plan['peak_reduction']:.1%} at "
                      f"{ratio(slowdown(plan, paper))} no offload's mean "
                      f"step: the paper's -26% at no more than 5% slower is "
                      f"{'reached' if reached else 'not reached'}.")
    text = table(["context", "peak without offload", "KV cache", "KV share",
                  "budget", "naive: peak reduction", "naive: vs none",
                  "naive: fits", "hyperoffload: peak reduction",
                  "hyperoffload: vs none", "hyperoffload: fits"], rows)
    return text + "\n\n" + target


def table3_comparison(tool, *extra):
    """The Table 3 scenario at its own budget (the KV cache's share back)."""
    extra_context = ("--context", str(TABLE3_CONTEXT))
    capacity = tool.compare("deepseek-v3-nsa-decode", "ascend910c-supernode",
                            "100%", ["none"], *extra_context)
    peak = capacity["baseline"]["peak_footprint_bytes"]
    budget = f"{(peak - capacity['kv_cache_bytes']) / 1e9:.2f}GB"
    return budget, tool.compare("deepseek-v3-nsa-decode",
                                "ascend910c-supernode", budget,
                                ["naive", "hyperoffload"], *extra_context,
                                *extra)


def picked_blocks(tool):
    """The Table 3 scenario with the predictor's accuracy the planner is
    told and the simulation draws, for KV blocks and experts alike."""
    rows = []
    for accuracy in ACCURACIES:
        # 90% is the default: the same run as the Table 3 row.
        extra = () if accuracy == 0.9 else ("--predictor-accuracy",
                                            f"{accuracy:g}")
        budget, comparison = table3_comparison(tool, *extra)
        plan = runs(comparison)["hyperoffload"]
        steps = plan["routing_steps"]
        rows.append([f"{accuracy:.0%}", budget.replace("GB", " GB"),
                     f"{plan['peak_reduction']:.1%}",
                     ms(steps["mean_step_time_s"]),
                     ms(steps["p99_step_time_s"]),
                     ratio(slowdown(plan, comparison)),
                     f"{steps['block_hit_rate']:.1%}",
                     str(steps["blocks_fetched_on_demand"]),
                     f"{steps['expert_hit_rate']:.1%}",
                     yes_no(steps["fits"])])
    return table(["predictor accuracy", "budget", "peak reduction",
                  "mean step", "p99", "vs none", "block hit rate",
                  "blocks fetched on demand", "expert hit rate", "fits"], rows)


def admission(tool):
    """vLLM's admitted batch against plans that keep the whole batch."""
    rows = []
    configs = [(f"`{scenario}`", hw, budget,
                ("--scenario", scenario))
               for scenario, budget in SCENARIOS if "decode" in scenario
               for hw in HARDWARE]
    configs.append(("LLaMA3-8B decode, 8 x 32k", "ascend910c-supernode",
                    "40GB", ("--model", "llama3-8b", "--mode", "decode",
                             "--batch", "8", "--seq", "32768")))
    for name, hw, budget, workload in configs:
        comparison = tool.run("compare", *workload, "--hw", hw, "--budget",
                              budget, "--policies", ",".join(POLICIES),
                              "--json", "-")
        admitted = comparison["admission"]
        plan = runs(comparison)["hyperoffload"]
        requested = admitted["requested_sequences"]
        plan_rate = requested / step_time(plan) if plan["fits"] else 0
        vllm_rate = admitted["tokens_per_second"]
        rows.append([name, hw, budget, str(requested),
                     str(admitted["admitted_sequences"]),
                     f"{vllm_rate:.1f}" if vllm_rate else "would not start",
                     f"{plan_rate:.1f}" if plan["fits"] else "no fit",
                     ratio(plan_rate / vllm_rate) if vllm_rate and plan_rate
                     else "n/a"])
    return table(["workload", "hardware", "budget", "sequences",
                  "vLLM admits", "vLLM tokens/s", "plan tokens/s (all)",
                  "plan over vLLM"], rows)


def longest_context(tool):
    """The longest context (in CONTEXT_STEP tokens) at which `accept` holds
    for the scenario at the full HBM, assuming it holds for shorter ones."""

    def search(policy, accept):
        def holds(steps):
            comparison = tool.compare(
                "deepseek-v3-nsa-decode", "ascend910c-supernode", "100%",
                [policy], "--context", str(steps * CONTEXT_STEP))
            return accept(runs(comparison)[policy], comparison)

        low, high = 1, CONTEXT_CAP // CONTEXT_STEP
        if holds(high):
            return f"at least {kilo_tokens(high * CONTEXT_STEP)}"
        while high - low > 1:
            middle = (low + high) // 2
            if holds(middle):
                low = middle
            else:
                high = middle
        return kilo_tokens(low * CONTEXT_STEP)

    fits = lambda run, comparison: run["fits"]
    prompt = lambda run, comparison: (run["fits"] and
                                      slowdown(run, comparison) <= 1.01)
    rows = [
        ["none (no offload)", search("none", fits)],
        ["naive (KV cache offloaded)", search("naive", fits)],
        ["hyperoffload", search("hyperoffload", fits)],
        ["hyperoffload, at most 1% slower than no offload",
         search("hyperoffload", prompt)],
    ]
    return table(["policy", "longest context that fits 64 GiB"], rows)


def anecdote(tool):
    rows = []
    for budget in ("64GB", "48GB"):
        comparison = tool.compare("llama3-8b-train", "ascend910c-host", budget,
                                  ["none", "reactive", "hyperoffload"])
        for run in comparison["policies"]:
            rows.append([budget, run["name"], seconds_or_ms(run["step_time_s"]),
                         ratio(run["slowdown"]),
                         seconds_or_ms(run["stall_time_s"]),
                         str(run["stall_count"]),
                         allocator_stalls(run, seconds_or_ms),
                         gb(run["peak_footprint_bytes"]), yes_no(run["fits"])])
    return table(["budget", "policy", "step time", "vs none",
                  "transfer stalls", "waits", "allocator stalls", "peak",
                  "fits"], rows)


def allocator_events(tool):
    rows = []
    cases = [("llama3-8b-decode-128k", hw, "24GB") for hw in HARDWARE]
    cases += [("deepseek-v3-nsa-decode", hw, "44GB") for hw in HARDWARE]
    cases += [("llama3-8b-train", hw, "64GB") for hw in HARDWARE]
    for scenario, hw, budget, *extra in cases:
        by_name = runs(tool.compare(scenario, hw, budget, POLICIES, *extra))
        compiled = [by_name[name]["allocator_stalls"]
                    for name in ("distance", "pt2", "pt2-default",
                                 "hyperoffload-schedule", "hyperoffload")]
        reactive = by_name["reactive"]
        rows.append([f"`{scenario}`", hw, budget,
                     allocator_stalls(reactive, seconds_or_ms),
                     yes_no(reactive["fits"]),
                     str(by_name["hyperoffload"]["allocator_stalls"]),
                     str(max(compiled))])
    return table(["scenario", "hardware", "budget", "reactive: allocator stalls",
                  "reactive: fits", "hyperoffload: allocator stalls",
                  "most in any compiled plan"], rows)


PERTURBATION = "link=0.8,compute=1.25"
COMPILED = ["distance", "pt2", "pt2-default", "hyperoffload-schedule",
            "hyperoffload"]


def slower_hardware(tool):
    """Every compiled plan, planned for the preset and scored at 0.8x the
    link bandwidth and 1.25x the compute speed."""
    rows = []
    for scenario, budget in SCENARIOS:
        for hw in HARDWARE:
            nominal = runs(tool.compare(scenario, hw, budget, POLICIES))
            perturbed = runs(tool.compare(scenario, hw, budget, COMPILED,
                                          "--perturb", PERTURBATION))
            for name in COMPILED:
                planned, run = nominal[name], perturbed[name]
                overlaps = run["overlaps"] + run.get(
                    "routing_steps", {}).get("overlaps", 0)
                rows.append([f"`{scenario}`", hw, budget, name,
                             ms(step_time(planned)), ms(step_time(run)),
                             ratio(step_time(run) / step_time(planned)),
                             gb(run["peak_footprint_bytes"]),
                             str(overlaps), yes_no(is_safe(run))])
    return table(["scenario", "hardware", "budget", "policy",
                  "step as planned", "step on slower links", "ratio", "peak",
                  "overlaps", "safe"], rows)


ROUTINGS = ["uniform", "zipf:1.2"]
ACCURACIES = [0, 0.9, 1]


def routed_experts(tool):
    """DeepSeek-V3 decode at 44 GB on the SuperNode under uniform and
    skewed routing, with the predictor's accuracy the planner is told and
    the simulation draws."""
    rows = []
    for routing in ROUTINGS:
        for accuracy in ACCURACIES:
            comparison = tool.compare(
                "deepseek-v3-nsa-decode", "ascend910c-supernode", "44GB",
                ["none", "reactive", "hyperoffload"], "--routing", routing,
                "--predictor-accuracy", f"{accuracy:g}")
            for name in ("reactive", "hyperoffload"):
                run = runs(comparison)[name]
                steps = run["routing_steps"]
                rows.append([routing, f"{accuracy:.0%}", name,
                             ms(steps["mean_step_time_s"]),
                             ms(steps["p50_step_time_s"]),
                             ms(steps["p99_step_time_s"]),
                             ms(steps["device_mean_step_time_s"]),
                             ratio(slowdown(run, comparison)),
                             f"{steps['expert_hit_rate']:.1%}",
                             str(steps["experts_fetched_on_demand"]),
                             yes_no(steps["fits"])])
    return table(["routing", "predictor accuracy", "policy", "mean step",
                  "p50", "p99", "device 0 mean", "vs none", "expert hit rate",
                  "fetched on demand", "fits"], rows)


def what_the_plan_did(tool):
    """Per scenario and preset: what the plan moves, over which link."""
    rows = []
    for scenario, budget in SCENARIOS:
        for hw in HARDWARE:
            comparison = tool.compare(scenario, hw, budget)
            plan = runs(comparison)["hyperoffload"]
            links = ", ".join(
                f"{link['tier']} {'->' if link['direction'] == 'to-device' else '<-'}"
                f" {gb(link['bytes'])} ({link['transfers']} copies)"
                for link in plan["traffic"]) or "nothing"
            steps = plan.get("routing_steps")
            experts = (f"{steps['expert_hit_rate']:.1%} of picked experts on "
                       f"the device, {steps['experts_fetched_on_demand']} "
                       f"fetched on demand over {steps['steps']} steps x "
                       f"{steps['devices']} devices") if steps else ""
            if steps and steps["blocks_selected"]:
                experts += (f"; {steps['block_hit_rate']:.1%} of "
                            f"{steps['blocks_selected']} picked KV blocks on "
                            f"the device when read, "
                            f"{steps['blocks_fetched_on_demand']} fetched on "
                            f"demand")
            rows.append([f"`{scenario}`", hw, budget,
                         gb(plan["peak_footprint_bytes"]), links, experts])
    return table(["scenario", "hardware", "budget", "peak", "moved per step "
                  "(one drawn step)", "run-time picks"], rows)


def bandwidth_curve(tool, scenario, budget):
    sweep = tool.sweep(scenario, "ascend910c-host", budget,
                       "links.bandwidth_gbps", BANDWIDTHS)
    rows = []
    for point in sweep["points"]:
        by_name = runs(point["comparison"])
        plan = by_name["hyperoffload"]
        row = [f"{point['value']:g}", ms(by_name["none"]["step_time_s"]),
               ms(plan["step_time_s"]) + ("" if plan["fits"] else " (no fit)"),
               ratio(plan["slowdown"])]
        for name in BASELINES:
            run = by_name[name]
            row.append(ratio(run["step_time_s"] / plan["step_time_s"])
                       if run["fits"] else "no fit")
        rows.append(row)
    return table(["GB/s", "none", "hyperoffload", "vs none"]
                 + [f"gain over {name}" for name in BASELINES], rows)


def pytorch_every_policy(tool):
    rows, notes = [], []
    for scenario, budget, _ in PYTORCH_SCENARIOS:
        for hw in PYTORCH_HARDWARE:
            comparison = tool.compare(scenario, hw, budget)
            rows += [row[:5] + row[6:] for row in
                     policy_rows(scenario, hw, budget, comparison)]
            by_name = runs(comparison)
            plan, pt2 = by_name["hyperoffload"], by_name["pt2"]
            line = (f"`{scenario}` on {hw}: the plan "
                    f"{'fits' if plan['fits'] else 'does not fit'} at "
                    f"{ratio(slowdown(plan, comparison))} no offload; "
                    f"PyTorch's compiled activation offloading (`pt2`) "
                    f"{'fits' if pt2['fits'] else 'does not fit'} at "
                    f"{ratio(slowdown(pt2, comparison))}")
            if pt2["fits"] and plan["fits"]:
                line += (f", {ratio(step_time(pt2) / step_time(plan))} the "
                         f"plan's step time")
            notes.append(f"- {line}.")
    header = POLICY_TABLE_HEADER[:5] + POLICY_TABLE_HEADER[6:]
    return table(header, rows) + "\n\n" + "\n".join(notes)


def pytorch_budgets(tool):
    policies = BASELINES + ["hyperoffload"]
    sections = []
    for scenario, _, budgets in PYTORCH_SCENARIOS:
        rows = []
        for hw in PYTORCH_SWEEP_HARDWARE:
            for budget in budgets:
                comparison = tool.compare(scenario, hw, budget)
                by_name = runs(comparison)
                rows.append([hw, budget] + [
                    ratio(slowdown(by_name[name], comparison))
                    if by_name[name]["fits"] else "no fit"
                    for name in policies])
        sections.append(f"`{scenario}`:\n\n" + table(
            ["hardware", "budget"] + policies, rows))
    return "\n\n".join(sections)


def allocators(tool):
    return tool.answer(("compare-policies.py", "--allocators")).rstrip()


def run_command(build, command):
    """Runs `command`: the hyperoffload tool, whose output is JSON, or a
    script of utils/, whose output is text."""
    program, *args = command
    if program == "hyperoffload":
        argv = [build / "bin" / "hyperoffload", *args]
    else:
        argv = [sys.executable, ROOT / "utils" / program, build, *args]
    start = time.monotonic()
    result = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)}:\n{result.stderr}")
    output = (json.loads(result.stdout) if program == "hyperoffload"
              else result.stdout)
    return {"output": output, "seconds": round(seconds, 1)}


# ---------------------------------------------------------------------------
# The document
# ---------------------------------------------------------------------------

TEMPLATE = """\
# Results: every policy on the same workloads

Generated by `utils/results.py build --write` (after `make`), with
docs/Results.json, every answer of the tool it is made from. The simulation
is deterministic, so `utils/results.py build --check --full` (`make
check-results`) reproduces every number here exactly; `make check` reruns
the quick answers only. Each row plans (or runs) a scenario graph of
`docs/Workloads.md` at a budget on a hardware preset (`docs/Hardware.md`)
with `hyperoffload compare` or `hyperoffload sweep` (`docs/Compare.md`) and
scores it with the simulator (`docs/CostModel.md`):

- `none`: no offload (ideal allocator);
- `reactive`: a runtime without a plan: fetch on demand, evict least
  recently used, host overhead per transfer, copies split over every link
  when that is faster; on PyTorch's caching allocator, which never moves a
  live tensor (on a failed request it releases its cached segments and
  retries, and the runtime evicts more until the request fits), or with
  expandable segments (pages mapped on demand, as a VMM pool such as
  MindSpore's defragments), whichever fits and runs faster; the
  "allocator stalls" column names the one that ran;
- `paged`: vLLM's PagedAttention runtime with a layer-wise KV connector:
  the KV caches that fit its 64 KiB-block pool beside the weights and the
  activations' peak stay on the device; the others are loaded one layer
  ahead of their use, overlapped with compute, and only the blocks a step
  writes go back; a run whose weights alone exceed the budget would not
  start (it is reported as not fitting). vLLM's own answer to a pool too
  small, running fewer sequences, is scored apart ("vLLM admission");
- `naive`, `window`, `distance`, `pt2`, `hyperoffload`: `ho-plan-offload`
  with that policy (`docs/Planning.md`); `naive` and `window` (runtimes in
  real life) run on the runtime allocators as `reactive` does, the compiled
  plans on the static memory plan of `ho-assign-offsets`. Every baseline
  plan is made on the fastest link alone and with its copies spread over
  every link, and the faster run that fits is kept. `window` partitions
  every weight as ZeRO-3 does, read this step or not, but the small ones;
- `pt2-default`: `pt2` as PyTorch ships it, with each offload and reload
  on the compute stream (no copy stream, no reload prefetch);
- `hyperoffload` also refines the order before and after planning, as the
  `--hyperoffload` pipeline does, and may rewrite the program while its
  plan stalls (argument updates moved early, weights in column blocks);
  `hyperoffload-schedule` is the same pipeline without rewrites, so that a
  gain from rewriting is not credited to scheduling.

"vs time bound" compares the step time with the step-time lower bound of
the program the run executes at that budget (`docs/CostModel.md`, "Lower
bounds"): the compute, the bytes that must cross the links for the budget
to hold, and the deadlines by which whole tensors must leave and come
back, in the program's order: the graph's, or for the two `hyperoffload`
rows the order their pipeline refined (what `--ho-report` prints for the
planned file). The runtimes (`reactive`, `paged`), which do not place
arguments once, are held to the bound that leaves arguments free to be
away; a negative gap means the run did not fit.
"transfer stalls" is compute waiting for transfers; "allocator stalls"
counts the requests a runtime allocator served only after releasing its
cache (and remapping pages), with the time compute waited for them.

## All policies side by side on every scenario

{every_policy}

Why the numbers look this way:

- **Paging the KV cache** never fragments, but only KV caches move: it
  cannot fit training at all (no KV cache), and where the weights and the
  activations leave the pool too small it loads whole caches every step,
  one layer ahead, bounded by the link.
- **Reactive runtimes wait for every copy**: each fetch and each eviction
  blocks compute and pays the host's issue overhead, and PyTorch's
  caching allocator, which never moves a live tensor, fails requests that
  would fit in total, so the runtime evicts more than the bytes require
  (expandable segments avoid most of that). Every compiled plan runs on
  its static memory plan, with no allocator stall by construction.
- **DeepSeek-V3 decode** routes each token to 8 of 256 experts, and only
  the router knows which when the step runs: every expert of the device is
  an operand of its layer's routed kernel, and the simulator draws the
  picks (uniform here, 20 steps on each of the 16 devices of the EP group;
  "step time" is the mean of the slowest device's step, "p99 step" its
  99th percentile). NSA's selection likewise picks 14 blocks of 64 tokens
  per sequence and layer from the older tokens' cache at run time. The
  plan leaves those caches in the pool and fetches only the picked blocks
  after each selection (3.1 MB a layer, hidden behind the compressed and
  window branches), stores back only the row that leaves the window, and
  places experts around that ("What the plan did" below). The reactive
  runtime fetches whole tensors the moment a kernel needs them; ZeRO-3's
  window streams every expert of every layer; offloading the KV caches
  whole (`naive`) brings them back every step; vLLM's connector loads the
  caches that do not fit whole, a layer ahead.
- **LLaMA3-8B decode at 128k** is bandwidth-bound: the weights and the KV
  cache exceed the budget, and what does not fit must come back every step.
  The plan keeps some layers' weights resident, spread over the step, and
  streams the rest over every link the target has; it moves more than the
  bound counts, since a resident weight holds its memory for the whole
  step and fetches need room to land while the weights in use are live.
- **LLaMA3-8B training on a slow host link** stores saved activations
  during the forward pass, when the device-to-host link is the bottleneck,
  and writes updated optimizer states back. The workload runs the
  optimizer after the whole backward pass; the plan runs each parameter's
  update as soon as its gradient is final, so that those write-backs
  overlap the backward pass instead of trailing the step
  (docs/Planning.md, "Updates run as soon as their inputs exist").

## What the plan did

Per scenario, what the `hyperoffload` plan's run moves in one step (the
drawn step 0 on device 0 for DeepSeek-V3), over which link: `pool ->` is a
fetch to the device, `pool <-` a store. What does not move stays where
the plan put it: on the device, or in the tier for the whole step.

{what_the_plan_did}

## Routed experts: routing and the predictor

DeepSeek-V3 + NSA decode at 44 GB on `ascend910c-supernode`, with the
routing drawn uniformly or skewed (`zipf:1.2`: a few popular experts per
layer, a ranking the compiler does not know), and the predictor accuracy
that the planner is told and the simulation draws with (0%: every guess
wrong; 90%: the low end of what Pre-gated MoE and ProMoE report; 100%).
Each row is 20 steps on every device of the EP-16 group; a step ends with
its slowest device ("device 0 mean" is the graph's own device alone).
"expert hit rate": picked experts on the device when their kernel started;
"fetched on demand": picked experts compute waited for.

{routed_experts}

## Table 3 analogue: the KV cache's share and the peak reduction

DeepSeek-V3 + NSA decode (3 sequences, one device of EP-16 x TP-8) on
`ascend910c-supernode`, at several contexts. The budget asks for exactly the
KV cache's share back: the peak without offload minus the KV cache. The
paper's headline (61.2 GB to 45.0 GB, -26%, at no more than 5% slower)
tracks the KV share; `naive`, which offloads the KV caches whole and little
else, shows the same, while the plan chooses what to move by cost. NSA
reads only the blocks its selection picks from the older tokens' cache,
and which ones only the run knows: the plan may leave that cache in the
pool and fetch each layer's picked blocks once its selection is known,
behind the compressed and window branches (docs/Planning.md, "KV caches
read in blocks"). Routing and block picks are drawn at run time (20 steps
x 16 devices); "vs none" is the mean step against no offload's.

{kv_share}

## Picked KV blocks: the predictor

The Table 3 scenario at 70k and its budget, planned and drawn with each
predictor accuracy (for the KV blocks and the experts alike). A plan that
leaves the older tokens' cache in the pool fetches each layer's picked
blocks after its selection, or a layer earlier on the previous layer's
selection; no published predictor reports how often that guess is right
for NSA's blocks, so 0, 90 and 100% bound it. "block hit rate": picked
blocks on the device when the gather ran; "blocks fetched on demand": those
compute waited for.

{picked_blocks}

## vLLM admission: a smaller batch against the whole batch

vLLM does not offload inside a forward pass when its KV blocks run out: it
admits the requests whose blocks fit beside the weights and the
activations and preempts the others (V1 recomputes them later). Scored in
generated tokens per second of a decode step: vLLM's admitted batch with
every block on the device, against the plan that runs every sequence. A
configuration whose weights alone exceed the budget, or where not one
sequence fits, would not start.

{admission}

## The longest context that fits the HBM

The same decode step with the budget at the device's whole HBM (64 GiB),
searched in steps of {context_step} tokens up to {context_cap} (the paper:
71k without offload, 123k with it).

{longest_context}

## The motivating anecdote: LLaMA3-8B training at 33.6 GB/s

LLaMA3-8B training (batch 2 x 4096, one device of DP-8) on `ascend910c-host`,
whose only tier is host DRAM at the paper's measured 33.6 GB/s each way.
Stalls are split into waits for transfers and allocator stalls. The paper
measured 15 s against 5.5 s without offload (2.7x), of which 6.7 s were
allocator stalls.

{anecdote}

## Allocator stalls: reactive against planned

The paper reports 57 defragmentations for a reactive runtime on
long-sequence inference, against 0 for its plan. Here the reactive runtime
runs on the faithful allocator that fits and runs faster (caching, or with
expandable segments); compiled plans run on their static memory plan, where
no allocation can fail for fragmentation.

{allocator_events}

## Plans on hardware slower than planned for

A static plan must not depend on predicted timing: every reuse of arena
space waits explicitly (`ho.wait_offload`) for the copy that frees it, so a
slower link may cost time, never memory or correctness. Each compiled plan
is planned for its preset and scored with
`hyperoffload compare --perturb {perturbation}`: the links at 0.8x their
bandwidth and compute 1.25x as fast (less compute to hide copies behind).
"safe": within the budget, and no buffer placed over one still in use.

{slower_hardware}

These are simulated. Plans have also been run for real on this machine's
CPUs (`hyperoffload run`, docs/Runtime.md): the tiny LLaMA's decode and
training steps and the tiny DeepSeek-V3 decode step (MoE layers whose
router picks at run time, and with Native Sparse Attention the KV blocks
its selection picks, fetched after it), at budgets that force
transfers, give results bit-identical to the unplanned program at the
planned bandwidth and at half of it, and with every copy started only
when a wait needs it; with kernels padded to their modelled time their
measured step times are set against the simulator's in docs/Runtime.md
("Simulated against measured", `utils/sim-vs-measured.py`). The bundled
examples, measured on the 2-core development machine
(`utils/sim-vs-measured.py --examples --repeat 5`; wall-clock, not
checked here), with the plan's step over the unplanned program's, the
two measured in alternating runs:

| example | budget | kernels priced by | simulated step | measured | ratio | planned / unplanned, simulated | measured |
|---|---|---|---|---|---|---|---|
| decode_step.mlir | as written | the model, padded x 30000 | 5.811 s | 5.909 s | 1.02 | 2.50 | 2.39 |
| mlp.mlir | 45MB / 40MB / 30MB | a square matmul's FLOP/s | 1.62 s | 3.09 / 3.39 / 3.24 s | 1.91 / 2.10 / 2.00 | 1.00 / 1.01 / 1.01 | 1.03 / 1.14 / 1.07 |
| mlp.mlir | 45MB / 40MB / 30MB | its own matmuls' FLOP/s (`calibrate --like`, before each run) | 3.55 / 3.31 / 3.00 s | 3.33 / 3.17 / 3.38 s | 0.94 / 0.96 / 1.12 | 1.00 | 1.01 / 0.98 / 1.04 |

The padded schedule is within 2%. The MLP's step is all compute, so it
is predicted only as well as its peak FLOP/s: a square matmul runs twice
as fast as the MLP's, and calibrated on the MLP's own matmuls right
before each run the prediction is within 12% of measured. This shared
machine runs the same compiled matmul at 2.5 to 3.3 GFLOP/s from one
minute to the next, so a calibration made minutes earlier is off by up
to a quarter; the plan's cost over the program, which that drift does
not touch, is within 14% of the simulator's (docs/Runtime.md).

The reactive baseline runs for real too, its
moves replayed as blocking copies on the same runtime and links
(`run --reactive`): where the simulator puts the plan ahead of it, the
plan is ahead when both run (docs/Runtime.md, "The reactive baseline, run
for real", `utils/sim-vs-measured.py --reactive`). Wall-clock figures vary
by machine, so they are not part of this document's checked numbers.

## The bandwidth curve

`hyperoffload sweep --vary links.bandwidth_gbps=...` on `ascend910c-host`:
the plan's step time against no offload, and each baseline's step time over
the plan's ("gain over"; "no fit" where the baseline misses the budget).

LLaMA3-8B decode at 128k context, 24 GB:

{curve_decode}

LLaMA3-8B training, 64 GB:

{curve_train}

## Models imported from PyTorch

Training steps of torchvision's ResNet-50 and ViT-B/16 and of 8 LLaMA3-8B
decoder layers written in plain PyTorch, imported by
`python/hyperoffload_torch` from PyTorch's own graph (the ATen ops
autograd runs, reading the activations it saves; `docs/PyTorch.md`), at
about half the memory a step needs without offload, on the GPU presets and
the Ascend ones. `pt2` is PyTorch's compiled activation offloading on that
graph, `pt2-default` the same as PyTorch ships it.

{pytorch_every_policy}

Why the numbers look this way:

- **On `h200-pcie5` and `ascend910c-host` the link sets the step**, not
  compute: at half the peak, the bytes that must cross the host link take
  several times the compute (the "vs time bound" of `none` is far below
  zero), so every policy that fits is several times slower than without
  offload, and the plan's gain is in how close it gets to that bound.
  Over NVLink-C2C and the SuperNode's pool most copies hide behind compute.
- **`pt2` has no budget**: it offloads every activation the backward pass
  reads and hoists each reload until the compute before its use covers the
  copy at one bandwidth. On a slow link that hoisting brings most
  activations back before the backward pass needs them, so its peak stays
  near that without offload and it does not fit; on a fast one its peak
  drops further, and it fits where that drop is enough. As PyTorch
  ships it (`pt2-default`: copies on the compute stream, no reload
  prefetch) it always fits and always waits for every copy.
- **The plan moves only what the budget needs**, and it can move
  gradients and optimizer states as well as activations.

Each budget from about a third of the peak without offload to all of it,
on the GPU presets: each policy's step time over no offload ("no fit"
where it misses the budget).

{pytorch_budgets}

## Each plan under both allocators

To tell the effect of a plan's timing from that of its static memory plan,
every plan is also run on the runtime allocators, the better of caching and
expandable segments (`utils/compare-policies.py build --allocators`). Peak:
the static arena, or the runtime allocator's reserved high-water mark.

{allocators}

## The planner against the exact optimum

Not the scenarios above, which are too large for an exact search: seeded
random functions of 6-14 ops (`include/hyperoffload/Workloads/RandomProgram.h`)
at three budgets each, from the function's memory lower bound towards its
peak without offload, planned by `ho-plan-offload` (policy `hyperoffload`,
without rewrites: the exact search keeps the ops in their order) and by
`policy=exact`, the fastest plan in the space the planner writes (early
stores included), searched on the simulator with a proof
(`docs/Planning.md`, "The exact optimum").
`hyperoffload optimality` makes each table; the ratios are over the cases
the exact search proved optimal, "equal" the share of ratios of exactly 1.
Both plans must fit the budget with the static offsets `ho-assign-offsets`
writes; where no greedy layout fits, an exact layout search decides, with
at most 1,000 steps for each plan checked (`docs/Planning.md`, "Offsets
and verification").

{optimality}

{optimality_counts}

The planner searches around its own plan on the simulator, one decision
at a time (`docs/Planning.md`, "One decision at a time: local search"):
without that search (`hyperoffload optimality --functions 300
--no-local-search`) it is at a mean of 1.084, a p90 of 1.145 and a max of
5.141 on the first table's draw. What is left is a few functions where the
optimum keeps other tensors on the device altogether, which takes more
than one gap dropped and one taken (seed 79: the KV cache and a weight
kept in the tier, where the optimum moves an input and the weight; 3.1x).

"planner faster than the optimum": the optimum is over the plans as
written; the planner's trials repair a written plan on the simulator (a
prefetch issued later where its store has not landed, a wait added where
the run overflows), so the plan it keeps may be none the search writes.
At the memory bound the search also leaves out moves that relieve no
point over the budget wherever some plan fits without them
(`docs/Planning.md`, "The exact optimum"), and the planner's plan may
hold one that lets the static arena pack (seed 102 at its memory bound:
a wait for a store where the live bytes need none). Such cases count in
the ratios, below 1.

"time bound" counts the compute and the bytes that must cross each link;
"with deadlines" is the bound that reports measure against: the time
bound, or where higher, when whole tensors can leave and come back in
program order around each point of excess, with each argument on the
device for the whole step or kept in a tier (`docs/CostModel.md`,
"Deadlines"). It is looser with two tiers and link overheads: it leaves
out HBM contention (transfers slowing compute) and issue overheads, and
pools the links of a direction except for round trips. The project's
targets for the planner over the optimum are a mean of at most 1.01, a p90
of at most 1.03 and a max of at most 1.15; the max is not met in either
setting, nor the mean with two tiers.
`unittests/Compare/OptimalitySurveyTest.cpp` holds the planner to those
targets on smaller draws of both settings, where it meets all three: it
misses no budget the exact search fits, and no bound exceeds a proven
optimum.
"""


# The settings of the exact-optimum survey, and its arguments.
OPTIMALITY_SURVEYS = [
    ("one link, one copy queue, no link latency",
     ("--functions", "300")),
    ("1-2 tiers, 1-2 queues per direction, link latency and overheads",
     ("--functions", "100", "--tiers", "2", "--queues", "2",
      "--link-overheads")),
]


def optimality_surveys(tool):
    return [(setting, tool.run("optimality", *args, "--json", "-"))
            for setting, args in OPTIMALITY_SURVEYS]


def optimality(tool):
    rows = []
    for setting, survey in optimality_surveys(tool):
        for name, key in (("planner / exact optimum", "planner_over_exact"),
                          ("exact optimum / time bound", "exact_over_bound"),
                          ("exact optimum / with deadlines",
                           "exact_over_deadline_bound")):
            ratios = survey[key]
            count = ratios["count"]
            rows.append([setting, name, count, f"{ratios['mean']:.3f}",
                         f"{ratios['median']:.3f}", f"{ratios['p90']:.3f}",
                         f"{ratios['max']:.3f}",
                         f"{100 * ratios['ones'] / count:.1f}%"
                         if count else "n/a"])
    return table(["setting", "ratio", "cases", "mean", "median", "p90", "max",
                  "equal"], rows)


def planner_below_optimum(survey):
    """The proven optima the planner beat: it made a move the search leaves
    out where another plan fits without it (docs/Planning.md)."""
    return sum(1 for row in survey["rows"]
               if row["exact_status"] == "optimal" and "planner_seconds" in row
               and row["planner_seconds"] < row["exact_seconds"] * (1 - 1e-9))


def optimality_counts(tool):
    rows = [[setting, survey["cases"], survey["optimal"], survey["gave_up"],
             survey["not_searched"], survey["infeasible"],
             survey["planner_missed"], planner_below_optimum(survey),
             survey["budget_unused"]]
            for setting, survey in optimality_surveys(tool)]
    return table(["setting", "cases", "proven optimal", "search gave up",
                  "not searched (over 24 gaps)", "no plan fits",
                  "budgets the planner missed",
                  "planner faster than the optimum",
                  "planner left >3% of the budget unused"], rows)


def generate(tool):
    # The longest sections first; each is deterministic and they share the
    # tool's answers, so the text does not depend on which thread ran what.
    sections = {
        "longest_context": lambda: longest_context(tool),
        "every_policy": lambda: every_policy(tool),
        "routed_experts": lambda: routed_experts(tool),
        "kv_share": lambda: kv_share(tool),
        "slower_hardware": lambda: slower_hardware(tool),
        "picked_blocks": lambda: picked_blocks(tool),
        "what_the_plan_did": lambda: what_the_plan_did(tool),
        "admission": lambda: admission(tool),
        "anecdote": lambda: anecdote(tool),
        "allocator_events": lambda: allocator_events(tool),
        "curve_decode": lambda: bandwidth_curve(tool, "llama3-8b-decode-128k",
                                                "24GB"),
        "curve_train": lambda: bandwidth_curve(tool, "llama3-8b-train",
                                               "64GB"),
        "allocators": lambda: allocators(tool),
        "pytorch_every_policy": lambda: pytorch_every_policy(tool),
        "pytorch_budgets": lambda: pytorch_budgets(tool),
        "optimality": lambda: optimality(tool),
        "optimality_counts": lambda: optimality_counts(tool),
    }
    with concurrent.futures.ThreadPoolExecutor(
            max_workers=os.cpu_count() or 1) as pool:
        futures = {name: pool.submit(make)
                   for name, make in sections.items()}
        values = {name: future.result() for name, future in futures.items()}
    return TEMPLATE.format(context_step=CONTEXT_STEP,
                           context_cap=kilo_tokens(CONTEXT_CAP),
                           perturbation=PERTURBATION, **values)


# ---------------------------------------------------------------------------
# The cache of answers
# ---------------------------------------------------------------------------

def scenario_of(command):
    """What an answer is about: its scenario or model, else its program."""
    for flag in ("--scenario", "--model"):
        if flag in command:
            return command[command.index(flag) + 1]
    return command[0]


def variant_of(command):
    """An answer up to its context length: the same question at another
    size of one workload."""
    if "--context" not in command:
        return command
    at = command.index("--context")
    return command[:at] + command[at + 2:]


def choose_quick(answers):
    """The commands the quick check reruns, none that took more than
    QUICK_ANSWER_SECONDS: the cheapest answer of each scenario, then of each
    question asked at several sizes, then the cheapest others while the
    total stays within QUICK_SECONDS."""
    by_cost = sorted((command for command in answers
                      if answers[command]["seconds"] <= QUICK_ANSWER_SECONDS),
                     key=lambda command: (answers[command]["seconds"], command))
    quick, total = set(), 0.0
    for key in (scenario_of, variant_of, lambda command: command):
        covered = {key(command) for command in quick}
        for command in by_cost:
            seconds = answers[command]["seconds"]
            if key(command) in covered or total + seconds > QUICK_SECONDS:
                continue
            covered.add(key(command))
            quick.add(command)
            total += seconds
    return quick


def write_cache(answers):
    """One answer per line, sorted, so that a regeneration diffs well."""
    quick = choose_quick(answers)
    lines = [json.dumps({"command": list(command),
                         "quick": command in quick,
                         "seconds": answers[command]["seconds"],
                         "output": answers[command]["output"]},
                        sort_keys=True, separators=(",", ":"))
             for command in sorted(answers)]
    CACHE.write_text("[\n" + ",\n".join(lines) + "\n]\n")


def read_cache():
    try:
        entries = json.loads(CACHE.read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"{CACHE}: cannot read the recorded answers: {error}; "
                         "run `make results`")
    return {tuple(entry["command"]): entry for entry in entries}


def settled(tool):
    return {command: future.result()
            for command, future in sorted(tool.answers.items())}


def rerun(build, entries):
    """The commands whose output now differs from the recorded one."""
    def differs(command):
        return run_command(build, command)["output"] != entries[command]["output"]

    with concurrent.futures.ThreadPoolExecutor(
            max_workers=os.cpu_count() or 1) as pool:
        flags = pool.map(differs, list(entries))
        return [command for command, flag in zip(entries, flags) if flag]


def check_document(text):
    old = DOCUMENT.read_text()
    if old == text:
        return True
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), text.splitlines(True),
        "docs/Results.md", "regenerated"))
    return False


def check(build, full):
    """Whether docs/Results.md and docs/Results.json are what this script
    and the tool make now; prints what differs."""
    recorded = read_cache()
    tool = Tool(build, recorded)
    try:
        text = generate(tool)
    except StaleCache as error:
        print(f"{error}: this script asks for something new; run "
              "`make results`")
        return False
    ok = check_document(text)
    unused = sorted(set(recorded) - set(tool.answers))
    for command in unused:
        print(f"docs/Results.json holds an answer nothing asks for: "
              f"{' '.join(command)}")
    chosen = {command: entry for command, entry in recorded.items()
              if full or entry["quick"]}
    changed = rerun(build, chosen)
    for command in changed:
        print(f"the tool now answers differently: {' '.join(command)}")
    if changed or unused:
        print("docs/Results.json is stale; run `make results`")
    print(f"reran {len(chosen)} of {len(recorded)} recorded answers")
    return ok and not unused and not changed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="build", type=pathlib.Path)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true",
                        help="write docs/Results.md and docs/Results.json")
    action.add_argument("--check", action="store_true",
                        help="fail if docs/Results.md is not what this makes")
    parser.add_argument("--full", action="store_true",
                        help="with --check, rerun every recorded answer, not "
                             "only the quick ones")
    parser.add_argument("--add", action="store_true",
                        help="with --write, take the recorded answers and run "
                             "only those the document asks for that are not "
                             "recorded (after adding a section); the checks "
                             "still rerun them")
    parser.add_argument("--from-cache", action="store_true",
                        help="with --write, render docs/Results.md from the "
                             "recorded answers (after a change to the text "
                             "alone); the checks still rerun them")
    args = parser.parse_args()
    if args.full and not args.check:
        parser.error("--full goes with --check")
    if (args.from_cache or args.add) and not args.write:
        parser.error("--from-cache and --add go with --write")
    if args.check:
        if not check(args.build, args.full):
            return 1
        print("docs/Results.md is up to date")
        return 0
    tool = Tool(args.build,
                read_cache() if args.from_cache or args.add else None,
                run_missing=args.add)
    try:
        text = generate(tool)
    except StaleCache as error:
        print(f"{error}; run `make results`")
        return 1
    if args.write:
        DOCUMENT.write_text(text)
        write_cache(settled(tool))
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Renders the HTML reports in headless Chromium and checks what it drew.

  utils/check-html-render.py BUILD_DIR [--keep DIR]

Writes a `compare --html` and a `sweep --html` report for LLaMA3-tiny, and
a `compare --html` report for ViT-B/16 imported from PyTorch, loads each in Debian's `chromium` (installed by utils/install-deps.sh
--browser) at 1400 px wide, and reads back the page's render check: for
every plot, how many data marks the browser laid out with a non-empty box
and with a tooltip, its tick and axis labels, and, with the shared time
axis off and on, the width of each run's data. Fails when an element the
reports promise is missing, empty or not drawn: memory stacked by role
with the budget line, a column to hover and the peak; the shared time axis;
named timeline stretches; the heat map's log colour bar and layer ticks;
the plan summary; the best fitting run highlighted; the sweep's log axes
with units and its runs that do not fit; tables that fit the page; tick
labels that do not overlap; the imported model's layers named by module. Exits
77 (skipped) when no Chromium is installed. --keep DIR also saves the
reports and screenshots of each page at 1400 and 1920 px there.
"""

import argparse
import html
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

POLICIES = ["none", "reactive", "paged", "naive", "window", "distance", "pt2",
            "hyperoffload"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, *args):
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", *args]
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def render(browser, page):
    """The render check of `page` as Chromium drew it at 1400 px."""
    dom = chromium(browser, "--window-size=1400,1000", "--dump-dom",
                   page.as_uri())
    match = re.search(r'<pre id="render-check">(.*?)</pre>', dom, re.S)
    if not match or not match.group(1).strip():
        sys.exit(f"{page}: the page's render check did not run")
    return json.loads(html.unescape(match.group(1)))


def screenshot(browser, page, out, height):
    """Screenshots of `page` at 1400 and 1920 px wide, as OUT-WIDTH.png."""
    for width in (1400, 1920):
        chromium(browser, f"--window-size={width},{height}",
                 f"--screenshot={out}-{width}.png", page.as_uri())


def expect(condition, message):
    if not condition:
        sys.exit(f"render check failed: {message}")


def check_drawn(plots, name, at_least=1):
    expect(name in plots, f"no plot '{name}' (plots: {sorted(plots)})")
    plot = plots[name]
    expect(plot["marks"] >= at_least,
           f"'{name}' has {plot['marks']} marks, expected {at_least} or more")
    expect(plot["drawn"] == plot["marks"],
           f"'{name}': only {plot['drawn']} of {plot['marks']} marks drawn")
    expect(plot["width"] > 100 and plot["height"] > 50,
           f"'{name}' is {plot['width']}x{plot['height']} px")
    return plot


def check_titled(plot, name):
    expect(plot["titled"] == plot["marks"],
           f"'{name}': {plot['marks'] - plot['titled']} marks without a "
           "tooltip")


def check_shared_time_axis(plots, names):
    """Each run's data spans the plot on its own axis; on the shared one,
    the longest run's still does and the others' shrink."""
    own = [plots[name]["ownWidth"] for name in names]
    shared = [plots[name]["sharedWidth"] for name in names]
    expect(min(own) == max(own), f"own time axes differ in width: {own}")
    expect(max(shared) == own[0],
           f"on the shared axis the longest run spans {max(shared)} of "
           f"{own[0]} px")
    expect(min(shared) < 0.9 * own[0],
           f"on the shared axis no run got shorter: {shared}")


def check_ticks_apart(report):
    for name, plot in report["plots"].items():
        expect(plot["tickOverlaps"] == 0,
               f"{name}: {plot['tickOverlaps']} tick labels overlap another")


def check_imported(report):
    """A graph imported from PyTorch: its heat map names the layers by
    their module paths, with no two names on top of each other."""
    heat = check_drawn(report["plots"], "stall-heatmap")
    expect(any(t.startswith("encoder.layers.encoder_layer_")
               for t in heat["ticks"]),
           f"the heat map does not name the encoder layers: {heat['ticks']}")
    expect(any(t.startswith("backward / encoder.layers.") for t in heat["ticks"]),
           f"the heat map does not name the backward layers: {heat['ticks']}")
    check_ticks_apart(report)


def check_tables(report):
    for table in report["tables"]:
        expect(table["width"] <= table["shown"],
               f"a table is {table['width']} px wide on a page that shows "
               f"{table['shown']} px at 1400 px")


def check_compare(report):
    plots = report["plots"]
    memory = [f"memory-{policy}" for policy in POLICIES]
    timelines = [f"timeline-{policy}" for policy in POLICIES]
    for name in memory:
        # At least the weights' band, the footprint and the peak.
        plot = check_drawn(plots, name, at_least=3)
        check_titled(plot, name)
        expect(plot["bands"] >= 2, f"'{name}' stacks {plot['bands']} roles")
        expect(plot["budget"] == 1, f"'{name}' has no budget line")
        expect(plot["peak"] == 1, f"'{name}' does not mark its peak")
        expect(plot["hovers"] >= 100,
               f"'{name}' has {plot['hovers']} columns to hover")
        expect(any(tick.endswith(" MB") for tick in plot["ticks"]),
               f"'{name}': byte ticks without a unit: {plot['ticks']}")
    # One byte axis for every memory plot.
    axes = {tuple(t for t in plots[name]["ticks"] if t.endswith("B"))
            for name in memory}
    expect(len(axes) == 1, f"the memory plots have {len(axes)} byte axes")
    for name in timelines:
        # At least the compute track, each stretch naming its ops.
        check_titled(check_drawn(plots, name), name)
    check_shared_time_axis(plots, memory)
    check_shared_time_axis(plots, timelines)
    heat = check_drawn(plots, "stall-heatmap",
                       at_least=len(POLICIES) * 60 + 1)
    expect(heat["hot"] > 0, "the stall heat map shows no stall at all")
    expect(heat["colorbar"] == 1, "the stall heat map has no colour bar")
    expect("layer 0" in heat["ticks"] and "layer 1" in heat["ticks"],
           f"the heat map's axis does not name the layers: {heat['ticks']}")
    expect(plots["timeline-reactive"]["marks"] > 3,
           "the reactive runtime's timeline shows no transfers")
    expect(report["best"] and "fastest that fits" in report["best"],
           f"no run highlighted as the best fit: {report['best']}")
    expect(report["summary"] >= 2, "the plan summary has no table rows")
    check_tables(report)
    check_ticks_apart(report)


def check_sweep(report):
    plots = report["plots"]
    # A line and a dot per point for each policy.
    for name in ("sweep-slowdown", "sweep-step-time"):
        plot = check_drawn(plots, name, at_least=len(POLICIES) * (1 + 5))
        # No offload does not fit at 5 MB: its line is marked as such.
        expect(plot["misses"] > 0, f"'{name}' marks no run that does not fit")
        expect(any("(GB/s, log scale)" in label for label in plot["labels"]),
               f"'{name}': the bandwidth axis is not a log axis with its "
               f"unit: {plot['labels']}")
    expect(any("log scale" in label
               for label in plots["sweep-slowdown"]["labels"][1:]),
           "the slowdowns span decades but are not on a log axis")
    check_tables(report)
    check_ticks_apart(report)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir", type=pathlib.Path)
    parser.add_argument("--keep", type=pathlib.Path)
    args = parser.parse_args()
    browser = find_chromium()
    if not browser:
        print("no Chromium installed: skipped (utils/install-deps.sh --browser "
              "installs it)")
        return 77
    tool = args.build_dir.resolve() / "bin" / "hyperoffload"
    work = pathlib.Path(tempfile.mkdtemp())
    try:
        out = args.keep.resolve() if args.keep else work
        out.mkdir(parents=True, exist_ok=True)
        common = ["--model", "llama3-tiny", "--budget", "5MB"]
        compare = out / "compare.html"
        sweep = out / "sweep.html"
        subprocess.run([tool, "compare", *common, "--html", compare],
                       check=True, capture_output=True)
        subprocess.run([tool, "sweep", *common, "--vary",
                        "links.bandwidth_gbps=1,4,16,64,256", "--html", sweep],
                       check=True, capture_output=True)
        imported = out / "imported.html"
        subprocess.run([tool, "compare", "--scenario", "vit-b16-pytorch-train",
                        "--hw", "gh200-c2c", "--policies",
                        "none,reactive,pt2,hyperoffload", "--html", imported],
                       check=True, capture_output=True)
        check_compare(render(browser, compare))
        check_sweep(render(browser, sweep))
        check_imported(render(browser, imported))
        if args.keep:
            screenshot(browser, compare, out / "compare", 5200)
            screenshot(browser, sweep, out / "sweep", 1000)
            screenshot(browser, imported, out / "imported", 2600)
        print(f"rendered in {browser}: every plot drawn")
        return 0
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())

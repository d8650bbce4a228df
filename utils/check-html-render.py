#!/usr/bin/env python3
"""Renders the HTML reports in headless Chromium and checks what it drew.

  utils/check-html-render.py BUILD_DIR [--keep DIR]

Writes a `compare --html` and a `sweep --html` report for LLaMA3-tiny,
loads each in Debian's `chromium` (installed by utils/install-deps.sh
--browser), and reads back the page's render check: for every plot, how
many data marks the browser laid out with a non-empty box. Fails when a
plot is missing, empty or not drawn, or when the heat map shows no stall
for the reactive runtime. Exits 77 (skipped) when no Chromium is installed.
--keep DIR also saves the reports and a screenshot of each there.
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


def render(browser, page, screenshot=None):
    """The render check of `page` as Chromium drew it."""
    dom = chromium(browser, "--dump-dom", page.as_uri())
    match = re.search(r'<pre id="render-check">(.*?)</pre>', dom, re.S)
    if not match or not match.group(1).strip():
        sys.exit(f"{page}: the page's render check did not run")
    if screenshot:
        chromium(browser, "--window-size=1100,2400",
                 f"--screenshot={screenshot}", page.as_uri())
    return json.loads(html.unescape(match.group(1)))


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
                        "links.bandwidth_gbps=10:40:10", "--html", sweep],
                       check=True, capture_output=True)

        plots = render(browser, compare,
                       out / "compare.png" if args.keep else None)
        for policy in POLICIES:
            # The footprint and live curves.
            check_drawn(plots, f"memory-{policy}", at_least=2)
            # At least the compute track.
            check_drawn(plots, f"timeline-{policy}")
        check_drawn(plots, "stall-heatmap", at_least=len(POLICIES) * 48)
        expect(plots["stall-heatmap"]["hot"] > 0,
               "the stall heat map shows no stall at all")
        expect(plots["timeline-reactive"]["marks"] > 3,
               "the reactive runtime's timeline shows no transfers")

        plots = render(browser, sweep, out / "sweep.png" if args.keep else None)
        # A line and a dot per point for each policy.
        for name in ("sweep-slowdown", "sweep-step-time"):
            check_drawn(plots, name, at_least=len(POLICIES) * (1 + 4))
        print(f"rendered in {browser}: every plot drawn")
        return 0
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs the shell blocks of README.md and docs/*.md as written.

Every fenced block tagged `sh` is a script: its commands run in order in
bash with `set -eo pipefail`, from a scratch directory that looks like the
repository root (each top-level entry linked, `build` linked to the build
directory under test; HOME is that directory too), so outputs the docs
write (`-o train.mlir`, `--html c.html`) land there and relative paths read
as the docs mean them. The blocks of one document share that directory and
run in order, as a reader follows them.
A block fails when a command exits non-zero, or when no line the block
prints (on stdout or stderr) holds the text of a `# prints: TEXT` comment
(runs of blanks compare as one space).

An HTML comment on the line before a block's fence changes how it runs:

    <!-- docs-test: slow -->          only with --full (make check-results)
    <!-- docs-test: skip REASON -->   never; the reason says why

Before a plain fenced block, `<!-- docs-test: output COMMAND -->` (or
`slow output COMMAND`) makes the block the documented output of COMMAND:
the command is run, and every line of the block but `...` must be a line
it prints (runs of blanks compare as one space).

Usage: check-docs.py BUILD_DIR [--full] [--list] [FILE...]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANNOTATION = re.compile(r"<!--\s*docs-test:\s*(slow|skip)\b\s*(.*?)\s*-->")
OUTPUT = re.compile(r"<!--\s*docs-test:\s*(slow\s+)?output\s+(.+?)\s*-->")
PRINTS = re.compile(r"^#\s*prints:\s?(.*)$")
# Each block runs at most this long (the slow ones: a full comparison of a
# training step, a bandwidth sweep).
TIMEOUT_SECONDS = 900


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    script: str
    mode: str = "run"  # run, slow or skip
    reason: str = ""
    # (command, expected line) for each `# prints:` comment.
    expected: list = field(default_factory=list)

    @property
    def where(self):
        path = self.path.relative_to(ROOT) \
            if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}"


def documents():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))


def read_blocks(path):
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        fence = lines[index].strip()
        if not fence.startswith("```"):
            index += 1
            continue
        tag = fence[3:].strip()
        start = index
        index += 1
        body = []
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        index += 1
        before = lines[start - 1] if start > 0 else ""
        if not tag and (match := OUTPUT.search(before)):
            yield output_block(path, start, match, body)
            continue
        if tag != "sh":
            continue
        block = Block(path, start + 1, "\n".join(body) + "\n")
        if match := ANNOTATION.search(before):
            block.mode, block.reason = match.group(1), match.group(2)
        block.expected = read_expected(body)
        yield block


def output_block(path, start, match, body):
    """A documented output: its command, and each line it must print."""
    command = match.group(2)
    block = Block(path, start + 1, command + "\n",
                  "slow" if match.group(1) else "run")
    block.expected = [(command, line) for line in body
                      if line.strip() and line.strip() != "..."]
    return block


def read_expected(body):
    """The `# prints:` lines, each with the command it follows."""
    expected, command = [], None
    for raw in body:
        line = raw.strip()
        if match := PRINTS.match(line):
            expected.append((command, match.group(1)))
        elif line and not line.startswith("#"):
            command = line
    return expected


def make_scratch(build_dir):
    """A directory that reads like the repository root."""
    scratch = Path(tempfile.mkdtemp(prefix="ho-docs-"))
    for entry in ROOT.iterdir():
        if entry.name in ("build", ".git"):
            continue
        (scratch / entry.name).symlink_to(entry)
    (scratch / "build").symlink_to(build_dir)
    return scratch


def run_block(block, scratch):
    started = time.monotonic()
    try:
        process = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", block.script],
            cwd=scratch, capture_output=True, text=True,
            env=dict(os.environ, HOME=str(scratch)), timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {TIMEOUT_SECONDS} s", TIMEOUT_SECONDS
    elapsed = time.monotonic() - started
    output = process.stdout + process.stderr
    if process.returncode != 0:
        return False, f"exit status {process.returncode}\n{tail(output)}", \
            elapsed
    # Compared with runs of blanks as one space: tables align with them.
    printed = [" ".join(line.split()) for line in output.splitlines()]
    for command, text in block.expected:
        if not any(" ".join(text.split()) in line for line in printed):
            return False, (f"`{command}` did not print `{text}`; the block "
                           f"printed:\n{tail(output)}"), elapsed
    return True, "", elapsed


def run_document(blocks, scratch, args):
    """Runs one document's blocks in order; returns how many failed."""
    failed = 0
    for block in blocks:
        mode = block.mode
        if mode == "slow" and args.full:
            mode = "run"
        if args.list or mode != "run":
            note = f" ({block.reason})" if block.reason else ""
            print(f"{mode.upper():5} {block.where}{note}", flush=True)
            continue
        print(f"RUN   {block.where} ...", flush=True)
        passed, why, elapsed = run_block(block, scratch)
        print(f"{'PASS' if passed else 'FAIL':5} {block.where} "
              f"({elapsed:.1f} s)", flush=True)
        if not passed:
            failed += 1
            print(why, flush=True)
    return failed


def tail(text, lines=15):
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join("    " + line for line in kept)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", type=Path)
    parser.add_argument("--full", action="store_true",
                        help="run the blocks marked slow too")
    parser.add_argument("--list", action="store_true",
                        help="list the blocks and how each runs, run none")
    parser.add_argument("files", nargs="*", type=Path,
                        help="only these documents (default: README.md and "
                             "docs/*.md)")
    args = parser.parse_intermixed_args()
    build_dir = args.build_dir.resolve()
    if not (build_dir / "bin" / "hyperoffload").exists():
        sys.exit(f"check-docs.py: error: {build_dir} holds no built "
                 "bin/hyperoffload; build first")
    paths = [path.resolve() for path in args.files] or list(documents())
    failed = 0
    for path in paths:
        scratch = make_scratch(build_dir)
        try:
            failed += run_document(read_blocks(path), scratch, args)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        print(f"{failed} documented command blocks failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

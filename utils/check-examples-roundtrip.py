#!/usr/bin/env python3
"""Checks that every bundled example round-trips through hyperoffload-opt.

For each `*.mlir` under the examples directory, the custom form printed by
hyperoffload-opt must parse back to identical text, and so must the generic
form. Prints one line per example and exits non-zero on the first failure.
"""

import pathlib
import subprocess
import sys


def run(opt, args, stdin=None):
    result = subprocess.run([opt, *args], input=stdin, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    return result.stdout


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-examples-roundtrip.py HYPEROFFLOAD_OPT EXAMPLES_DIR")
    opt, examples_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    examples = sorted(examples_dir.rglob("*.mlir"))
    if not examples:
        sys.exit(f"no .mlir examples under {examples_dir}")
    for example in examples:
        name = example.relative_to(examples_dir)
        try:
            custom = run(opt, [str(example)])
            if run(opt, ["-"], custom) != custom:
                sys.exit(f"{name}: custom form does not round-trip")
            generic = run(opt, [str(example), "--mlir-print-op-generic"])
            if run(opt, ["-"], generic) != custom:
                sys.exit(f"{name}: generic form does not round-trip")
        except RuntimeError as error:
            sys.exit(f"{name}: hyperoffload-opt failed:\n{error}")
        print(f"round-trip ok: {name}")
    print(f"{len(examples)} examples round-trip")


if __name__ == "__main__":
    main()

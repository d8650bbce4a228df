"""python3 -m hyperoffload_torch export MODULE:NAME --input SHAPE ... -o FILE

Writes the graph of one inference or training step of a PyTorch model as
MLIR that `hyperoffload-opt` and `hyperoffload compare` take
(docs/PyTorch.md), and a summary of what was imported to stderr.
"""

import argparse
import ast
import shlex
import sys

import torch

from . import CaptureError, import_model, mlir
from .capture import DTYPES
from .graph import OPTIMIZERS
from .summary import describe


def _keyword(text: str):
    """`name=value`, the value a Python literal (or else a string)."""
    name, equals, value = text.partition("=")
    if not equals or not name.isidentifier():
        raise argparse.ArgumentTypeError(
            f"'{text}': expected NAME=VALUE, for example num_classes=10")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m hyperoffload_torch",
        description="Import PyTorch models as HyperOffload graphs.")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export", help="write one step of a model as MLIR",
        description="Build MODULE:NAME on the meta device (no weights are "
        "allocated), trace one step on inputs of the given shapes and write "
        "it as a func.func of ho.compute ops.")
    export.add_argument("model", metavar="MODULE:NAME",
                        help="a callable returning an nn.Module: "
                        "torchvision.models:resnet50, or path/to/file.py:Net")
    export.add_argument("--input", action="append", required=True,
                        metavar="SHAPE[:DTYPE]",
                        help="one input, e.g. 8x3x224x224 or 1x4096:int64 "
                        "(repeat for more inputs)")
    export.add_argument("--mode", choices=["infer", "train"], default="infer",
                        help="a forward pass, or forward, loss, backward and "
                        "an optimizer step (default: infer)")
    export.add_argument("--dtype", choices=sorted(DTYPES), default="f32",
                        help="the model's parameter and activation type "
                        "(default: f32)")
    export.add_argument("--optimizer", choices=list(OPTIMIZERS),
                        default="adam", help="train: the update applied to "
                        "each parameter (default: adam)")
    export.add_argument("--arg", action="append", type=_keyword, default=[],
                        metavar="NAME=VALUE",
                        help="a keyword argument for the model's callable")
    export.add_argument("--name", help="the function's name (default: NAME "
                        "and the mode)")
    export.add_argument("-o", "--output", default="-",
                        help="output file, - for stdout (default)")
    export.add_argument("-q", "--quiet", action="store_true",
                        help="print no summary")
    return parser


def _command_line(argv) -> str:
    """The command that exported a graph, without where it was written and
    whether it was quiet: what reproduces the graph."""
    words, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word in ("-o", "--output"):
            skip = True
        elif word not in ("-q", "--quiet") and not word.startswith(
                ("-o", "--output=")):
            words.append(shlex.quote(word))
    return " ".join(["python3 -m hyperoffload_torch", *words])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    try:
        graph = import_model(args.model, args.input, mode=args.mode,
                             dtype=args.dtype, optimizer=args.optimizer,
                             kwargs=dict(args.arg), name=args.name)
    except CaptureError as error:
        print(f"hyperoffload_torch: error: {error}", file=sys.stderr)
        return 1
    comment = [f"Exported by: {_command_line(argv)}",
               f"With torch {torch.__version__}"]
    if args.output == "-":
        mlir.write(graph, sys.stdout, comment)
    else:
        with open(args.output, "w") as out:
            mlir.write(graph, out, comment)
    if not args.quiet:
        print(describe(graph), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

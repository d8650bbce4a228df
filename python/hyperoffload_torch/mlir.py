"""Writes an ImportedGraph as MLIR text: one `func.func` whose arguments and
results carry `ho.role` and a location naming them, and whose body is
`ho.compute` ops with their FLOPs and bytes as cost hints, in-place writes
as `tied_operands`, and each op's module path as its location."""

import re
import typing

import torch

from .graph import ImportedGraph, Value

_ELEMENT_TYPES = {
    torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float64: "f64", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.uint8: "ui8",
    torch.bool: "i1", torch.complex64: "complex<f32>",
    torch.complex128: "complex<f64>",
}


def tensor_type(value: Value) -> str:
    element = _ELEMENT_TYPES.get(value.dtype)
    if element is None:
        raise ValueError(f"no MLIR element type for {value.dtype}")
    dims = "".join(f"{d}x" for d in value.shape)
    return f"tensor<{dims}{element}>"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def function_name(model: str, mode: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"{model}_{mode}")
    return name if re.match(r"[A-Za-z_]", name) else f"m_{name}"


def write(graph: ImportedGraph, out: typing.TextIO,
          comment: typing.Sequence[str] = ()) -> None:
    """Writes `graph`, after `comment`'s lines as `//` comments."""
    names: typing.Dict[int, str] = {}
    for line in comment:
        out.write(f"// {line}\n")

    def name(value: Value) -> str:
        return names[id(value)]

    arguments = []
    for index, argument in enumerate(graph.arguments):
        names[id(argument.value)] = f"%arg{index}"
        arguments.append(
            f"%arg{index}: {tensor_type(argument.value)} "
            f"{{ho.role = {_quote(argument.role)}}} loc({_quote(argument.name)})")
    results = ", ".join(f"{tensor_type(v)} {{ho.role = {_quote(role)}}}"
                        for v, role in graph.results)
    out.write("module {\n")
    out.write(f"  func.func @{function_name(graph.name, graph.mode)}("
              f"{', '.join(arguments)}) -> ({results}) {{\n")

    for number, op in enumerate(graph.ops):
        result = f"%{number}"
        if len(op.results) == 1:
            names[id(op.results[0])] = result
        else:
            for index, value in enumerate(op.results):
                names[id(value)] = f"{result}#{index}"
        result_types = ", ".join(tensor_type(v) for v in op.results)
        if len(op.results) != 1:
            result_types = f"({result_types})"
        lhs = f"{result}:{len(op.results)} = " if len(op.results) > 1 \
            else f"{result} = "
        location = f" loc({_quote(op.location)})"
        if op.is_allocation:
            out.write(f"    {lhs}tensor.empty() : {result_types}{location}\n")
            continue
        # An op without a FLOP formula is costed by its bytes alone.
        attributes = [f"bytes = {op.bytes} : i64",
                      f"flops = {op.flops or 0} : i64"]
        if any(t >= 0 for t in op.tied):
            attributes.append(
                f"tied_operands = array<i64: {', '.join(map(str, op.tied))}>")
        operands = ", ".join(name(v) for v in op.operands)
        operand_types = ", ".join(tensor_type(v) for v in op.operands)
        out.write(f"    {lhs}ho.compute {_quote(op.kind)}({operands}) "
                  f"{{{', '.join(attributes)}}} : ({operand_types}) -> "
                  f"{result_types}{location}\n")

    values = ", ".join(name(v) for v, _ in graph.results)
    types = ", ".join(tensor_type(v) for v, _ in graph.results)
    out.write(f"    return {values} : {types}\n" if values else "    return\n")
    out.write("  }\n}\n")

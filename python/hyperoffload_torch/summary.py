"""The few lines `export` prints about what it imported."""

from .graph import ImportedGraph


def _si(amount: float, unit: str) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if amount >= scale:
            return f"{amount / scale:.2f} {prefix}{unit}"
    return f"{amount:.0f} {unit}"


def describe(graph: ImportedGraph) -> str:
    weights = sum(a.value.nbytes for a in graph.arguments
                  if a.role == "weight")
    kernels = [op for op in graph.ops if not op.is_allocation]
    lines = [f"{graph.name}, {graph.mode} step: {graph.parameters:,} "
             f"parameters ({_si(weights, 'B')}), "
             f"{len(kernels)} ops"]
    forward = graph.flops({"forward"})
    if graph.mode == "train":
        phases = ", ".join(
            f"{phase} {_si(graph.flops({phase}), 'FLOP')}"
            for phase in ("forward", "backward", "optimizer"))
        total = graph.flops()
        ratio = f" ({total / forward:.2f}x the forward)" if forward else ""
        lines.append(f"  FLOPs: {phases}; {_si(total, 'FLOP')} in all{ratio}")
        saved = sum(v.nbytes for v in graph.saved_for_backward)
        lines.append(f"  saved for backward: {_si(saved, 'B')} in "
                     f"{len(graph.saved_for_backward)} tensors")
    else:
        lines.append(f"  FLOPs: {_si(forward, 'FLOP')}")
    if graph.unknown:
        listed = ", ".join(f"{name} ({count})"
                           for name, count in graph.unknown.most_common())
        lines.append(f"  {sum(graph.unknown.values())} ops without a FLOP "
                     f"formula, costed by their bytes alone: {listed}")
    return "\n".join(lines)

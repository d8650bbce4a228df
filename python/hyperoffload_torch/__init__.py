"""Imports PyTorch models as graphs HyperOffload plans (docs/PyTorch.md).

    capture = trace_step(build_on_meta(factory), inputs, "train", dtype, name)
    graph = lower(capture, optimizer="adam")
    mlir.write(graph, out)
"""

from .capture import (CaptureError, InputSpec, build_on_meta, load_factory,
                      trace_step)
from .graph import ImportedGraph, lower

__all__ = ["CaptureError", "ImportedGraph", "InputSpec", "build_on_meta",
           "load_factory", "lower", "trace_step", "import_model"]


def import_model(spec, inputs, mode="infer", dtype="f32", optimizer="adam",
                 kwargs=None, name=None) -> ImportedGraph:
    """Builds `spec` (MODULE:NAME) with `kwargs` on the meta device and
    returns the planner's graph of one `mode` step on `inputs` (InputSpecs or
    strings such as "8x3x224x224")."""
    from .capture import DTYPES
    if dtype not in DTYPES:
        raise CaptureError(f"dtype '{dtype}': expected one of "
                           f"{', '.join(sorted(DTYPES))}")
    factory = load_factory(spec)
    module = build_on_meta(factory, kwargs)
    specs = [i if isinstance(i, InputSpec) else InputSpec.parse(i)
             for i in inputs]
    capture = trace_step(module, specs, mode, DTYPES[dtype],
                         name or spec.rpartition(":")[2])
    return lower(capture, optimizer)

"""Builds a module without allocating its weights and traces one inference or
training step into a graph of ATen ops.

The module is built on the meta device and traced on fake tensors: shapes and
dtypes are real, data is not, so a 70B configuration costs no memory. The
trace is `make_fx` (torch 1.13 and 2.x) of `functional_call`, with the
parameters, buffers and inputs as placeholders. A training step also traces
the loss and `torch.autograd.grad`, so the backward ops are the ones autograd
runs and read the tensors autograd saved. Each node records the module it ran
in (`node.meta["ho_path"]`) and the phase of the step (`"ho_phase"`).
"""

import contextlib
import dataclasses
import difflib
import importlib
import importlib.util
import pathlib
import re
import typing

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.overrides import TorchFunctionMode
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from . import meta_kernels

try:  # torch 2.x
    from torch.func import functional_call
except ImportError:  # torch 1.13
    from torch.nn.utils.stateless import functional_call


class CaptureError(Exception):
    """A model that cannot be imported, with what and where."""


DTYPES = {
    "f32": torch.float32, "float32": torch.float32,
    "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
    "f16": torch.float16, "float16": torch.float16,
    "f64": torch.float64, "float64": torch.float64,
    "i64": torch.int64, "int64": torch.int64,
    "i32": torch.int32, "int32": torch.int32,
    "bool": torch.bool,
}


@dataclasses.dataclass
class InputSpec:
    """One input tensor: a shape and, for integer inputs such as token ids,
    a dtype (floating inputs take the model's dtype)."""
    shape: typing.Tuple[int, ...]
    dtype: typing.Optional[torch.dtype] = None

    @staticmethod
    def parse(text: str) -> "InputSpec":
        """`8x3x224x224`, or `1x4096:int64`."""
        dims, _, dtype = text.partition(":")
        if not re.fullmatch(r"\d+(x\d+)*", dims):
            raise CaptureError(
                f"input '{text}': expected a shape such as 8x3x224x224, "
                f"optionally followed by :int64")
        if dtype and dtype not in DTYPES:
            raise CaptureError(f"input '{text}': unknown dtype '{dtype}' "
                               f"(known: {', '.join(sorted(DTYPES))})")
        return InputSpec(tuple(int(d) for d in dims.split("x")),
                         DTYPES[dtype] if dtype else None)


def load_factory(spec: str):
    """`package.module:name` or `path/to/file.py:name` -> the callable."""
    where, _, name = spec.partition(":")
    if not where or not name:
        raise CaptureError(f"model '{spec}': expected MODULE:NAME, for example "
                           f"torchvision.models:resnet50")
    if where.endswith(".py"):
        path = pathlib.Path(where)
        if not path.is_file():
            raise CaptureError(f"model '{spec}': no file {where}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:
            raise CaptureError(f"model '{spec}': {where} fails to load: "
                               f"{type(error).__name__}: {error}") from None
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as error:
            raise CaptureError(f"model '{spec}': cannot import {where}: "
                               f"{error}") from None
    factory = getattr(module, name, None)
    if factory is None:
        close = difflib.get_close_matches(name, dir(module), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise CaptureError(f"model '{spec}': {where} has no '{name}'{hint}")
    return factory


# Factory functions that take a `device`; building a module under
# _MetaDevice(_FACTORIES) puts every tensor they make on the meta device.
_FACTORIES = {
    torch.empty, torch.zeros, torch.ones, torch.full, torch.rand, torch.randn,
    torch.randint, torch.arange, torch.eye, torch.tensor, torch.empty_strided,
    torch.linspace, torch.as_tensor,
}
# What nn layers allocate their weights with, uninitialised.
_WEIGHT_FACTORIES = {torch.empty, torch.empty_strided}


class _MetaDevice(TorchFunctionMode):
    """Puts the tensors `factories` make on the meta device (torch 1.13 has
    no `with torch.device("meta")`)."""

    def __init__(self, factories):
        super().__init__()
        self.factories = factories

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in self.factories:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


def _needs_values(error: Exception) -> bool:
    """Whether a constructor failed for reading a meta tensor's values."""
    text = str(error)
    return any(sign in text for sign in (
        "meta tensor", "'Meta' backend", "_local_scalar_dense"))


def _first_line(error: Exception) -> str:
    """An exception's message without the dispatcher's lists of kernels."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def build_on_meta(factory, kwargs=None) -> torch.nn.Module:
    """Calls `factory(**kwargs)` with every tensor it makes on the meta device,
    so that no weight is allocated. A constructor that computes with tensor
    values (RegNet's widths) is built again with only uninitialised tensors
    on the meta device: the small ones it computes with are real."""
    name = getattr(factory, "__name__", str(factory))
    whole = torch.device("meta") if hasattr(torch.device, "__enter__") \
        else _MetaDevice(_FACTORIES)
    for context in (whole, _MetaDevice(_WEIGHT_FACTORIES)):
        try:
            with context:
                module = factory(**(kwargs or {}))
            break
        except Exception as error:  # The model's own code: anything may fail.
            if context is whole and _needs_values(error):
                continue
            raise CaptureError(f"building {name} failed: "
                               f"{_first_line(error)}") from None
    if not isinstance(module, torch.nn.Module):
        raise CaptureError(f"{name} returned a {type(module).__name__}, not "
                           f"an nn.Module")
    return module.to("meta")


class _ModuleStack:
    """The qualified name of the module running now, from global forward
    hooks, and the phase of the step; new graph nodes are tagged with both."""

    def __init__(self, root: torch.nn.Module):
        self.names = {id(m): name for name, m in root.named_modules()}
        self.stack: typing.List[str] = []
        self.phase = "forward"

    def current(self) -> str:
        return self.stack[-1] if self.stack else ""

    def _push(self, module, _inputs):
        self.stack.append(self.names.get(id(module), self.current()))

    def _pop(self, _module, _inputs, _outputs):
        self.stack.pop()

    @contextlib.contextmanager
    def tagging(self):
        register = torch.nn.modules.module
        hooks = [register.register_module_forward_pre_hook(self._push),
                 register.register_module_forward_hook(self._pop)]
        create_node = torch.fx.Graph.create_node
        stack = self

        def tagged_create_node(graph, *args, **kwargs):
            node = create_node(graph, *args, **kwargs)
            node.meta["ho_path"] = stack.current()
            node.meta["ho_phase"] = stack.phase
            return node

        torch.fx.Graph.create_node = tagged_create_node
        try:
            yield
        finally:
            torch.fx.Graph.create_node = create_node
            for hook in hooks:
                hook.remove()


@dataclasses.dataclass
class Placeholder:
    name: str
    role: str  # weight, buffer (running statistics and the like), input
    is_parameter: bool


@dataclasses.dataclass
class Capture:
    """A traced step: `graph`'s placeholders are `placeholders` in order; its
    outputs are the model's outputs (inference) or the loss and then one
    gradient per trainable parameter, None where the loss does not use it."""
    model: str
    mode: str
    graph: torch.fx.Graph
    placeholders: typing.List[Placeholder]
    trainable: typing.List[str]


def _default_loss(output):
    """Cross-entropy against class indices for a [batch, classes] output, the
    mean of the output otherwise."""
    if output.dim() == 2:
        target = torch.zeros(output.shape[0], dtype=torch.int64,
                             device=output.device)
        return torch.nn.functional.cross_entropy(output, target)
    return output.float().mean()


def _first_tensor(output):
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict):
        output = list(output.values())
    for item in output:
        return _first_tensor(item)
    raise CaptureError("the model returned no tensor to take a loss of")


def trace_step(module: torch.nn.Module, inputs: typing.List[InputSpec],
               mode: str, dtype: torch.dtype, model_name: str) -> Capture:
    """Traces `module` (on the meta device) on fake inputs of `inputs`:
    `mode` "infer" is a forward pass in eval mode without autograd, "train"
    a forward pass in train mode, a loss and the gradients of every
    parameter that requires one."""
    if mode not in ("infer", "train"):
        raise CaptureError(f"mode '{mode}': expected infer or train")
    meta_kernels.register()
    module = module.to(dtype)
    module.train(mode == "train")
    fake_mode = FakeTensorMode()

    def fake(tensor, requires_grad=False):
        value = FakeTensor(fake_mode, tensor.detach().to("meta"),
                           torch.device("cpu"))
        return value.requires_grad_(requires_grad) if requires_grad else value

    params = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    training = mode == "train"
    trainable = [name for name, p in params.items()
                 if training and p.requires_grad]
    flat = [fake(p, name in trainable) for name, p in params.items()]
    flat += [fake(b) for b in buffers.values()]
    for spec in inputs:
        tensor_dtype = spec.dtype or dtype
        flat.append(fake(torch.empty(spec.shape, dtype=tensor_dtype,
                                     device="meta")))
    placeholders = [Placeholder(n, "weight", True) for n in params]
    placeholders += [Placeholder(n, "buffer", False) for n in buffers]
    placeholders += [Placeholder(f"input {i}", "input", False)
                     for i in range(len(inputs))]
    names = list(params) + list(buffers)
    stack = _ModuleStack(module)

    def step(*values):
        state = dict(zip(names, values))
        stack.phase = "forward"
        output = functional_call(module, state, tuple(values[len(names):]))
        if not training:
            return output
        stack.phase = "loss"
        loss = _default_loss(_first_tensor(output))
        stack.phase = "backward"
        wanted = [state[name] for name in trainable]
        grads = torch.autograd.grad(loss, wanted, allow_unused=True)
        return (loss, *grads)

    grad_mode = contextlib.nullcontext() if training else torch.no_grad()
    try:
        with stack.tagging(), fake_mode, grad_mode:
            traced = make_fx(step)(*flat)
    except CaptureError:
        raise
    except Exception as error:  # What tracing raises varies by torch version.
        where = stack.current() or type(module).__name__
        raise CaptureError(_describe_trace_failure(where, error)) from None
    return Capture(model_name, mode, traced.graph, placeholders, trainable)


def _describe_trace_failure(where: str, error: Exception) -> str:
    cause = _first_line(error)
    if any(sign in cause for sign in ("DataDependent", "DynamicOutputShape",
                                      "_local_scalar_dense", "data-dependent")):
        return (f"cannot trace module '{where}': its control flow or an output "
                f"shape depends on tensor values, which a trace does not have "
                f"({cause})")
    return f"cannot trace module '{where}': {cause}"

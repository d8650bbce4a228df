"""Lowers a traced step (capture.py) to the planner's view of it: buffers,
the kernels that read and write them, and the roles of what goes in and out.

- A view op is no kernel: its users read the viewed buffer, as a PyTorch view
  shares its base's storage. Only kernels become ops.
- An op that writes an operand in place (`add_`, `relu_`, batch norm's
  running statistics, an optimizer step) returns the buffer it wrote as a
  result tied to that operand (`tied_operands`), and later readers of the
  buffer read that result.
- A training step ends with one optimizer op per trainable parameter that
  updates the parameter and its states in place; every argument written in
  place is returned, so that the update is part of the function's result.
"""

import collections
import dataclasses
import operator
import typing

import torch

from . import costs
from .capture import Capture, CaptureError

# Optimizer ops, one per parameter: the states each keeps next to the
# parameter and the operations per element, counting PyTorch's unfused
# update (Adam: two moment updates, the bias-corrected step and the
# parameter update, about 12).
OPTIMIZERS = {
    "adam": (("exp_avg", "exp_avg_sq"), 12),
    "sgd": ((), 2),
    "sgd-momentum": (("momentum_buffer",), 4),
}


@dataclasses.dataclass(eq=False)
class Value:
    """An SSA value: one version of one buffer."""
    shape: typing.Tuple[int, ...]
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        return costs.numel(self.shape) * _itemsize(self.dtype)


@dataclasses.dataclass
class Argument:
    value: Value
    name: str
    role: str


@dataclasses.dataclass
class Op:
    kind: str
    operands: typing.List[Value]
    results: typing.List[Value]
    tied: typing.List[int]  # per result: the operand it reuses, or -1
    flops: typing.Optional[int]  # None: no formula, costed by bytes alone
    bytes: int
    location: str
    phase: str
    aten: str = ""

    @property
    def is_allocation(self) -> bool:
        """An uninitialised tensor (`empty`): memory, no kernel."""
        return self.kind == "empty"


@dataclasses.dataclass
class ImportedGraph:
    name: str
    mode: str
    arguments: typing.List[Argument]
    ops: typing.List[Op]
    results: typing.List[typing.Tuple[Value, str]]
    parameters: int = 0
    # ATen op -> how many were imported without a FLOP formula.
    unknown: typing.Counter = dataclasses.field(
        default_factory=collections.Counter)
    # Buffers the forward pass made and the backward pass reads.
    saved_for_backward: typing.List[Value] = dataclasses.field(
        default_factory=list)

    def flops(self, phases=None) -> int:
        return sum(op.flops or 0 for op in self.ops
                   if phases is None or op.phase in phases)


def _itemsize(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype, device="meta").element_size()


def _is_view(target, name: str) -> bool:
    """Whether an op returns a view of its first operand: listed, or a
    schema whose result aliases an input it does not write."""
    if name in costs.VIEW_OPS:
        return True
    returns = target._schema.returns
    return bool(returns) and all(
        r.alias_info is not None and not r.alias_info.is_write
        for r in returns)


def _written_arguments(target, name, args) -> typing.List[int]:
    """Positions of the arguments `target` writes in place."""
    schema = target._schema
    written = [i for i, a in enumerate(schema.arguments)
               if a.alias_info is not None and a.alias_info.is_write
               and i < len(args)]
    hidden = costs.HIDDEN_WRITES.get(name, ())
    if hidden and name == "native_batch_norm" and not args[5]:
        hidden = ()  # Inference reads the running statistics only.
    return written + [i for i in hidden if args[i] is not None]


def _returned_argument(target, position: int) -> typing.Optional[int]:
    """The result of `target` that returns written argument `position`."""
    alias = target._schema.arguments[position].alias_info
    for index, result in enumerate(target._schema.returns):
        if result.alias_info is not None and alias is not None and \
                result.alias_info.before_set == alias.before_set:
            return index
    return None


class _Lowering:
    def __init__(self, capture: Capture):
        self.capture = capture
        self.graph = ImportedGraph(capture.model, capture.mode, [], [], [])
        # fx node (or (node, result index)) -> buffer key; a view maps to the
        # buffer it views.
        self.buffer_of: typing.Dict[typing.Any, typing.Any] = {}
        self.current: typing.Dict[typing.Any, Value] = {}  # buffer -> version
        self.buffer_of_value: typing.Dict[int, typing.Any] = {}
        self.creator: typing.Dict[int, Op] = {}  # id(value) -> its op
        # Buffer -> the module whose forward (or backward) op made it; a
        # parameter's is its module.
        self.forward_path: typing.Dict[typing.Any, str] = {}
        self.backward_path: typing.Dict[typing.Any, str] = {}
        self.argument_of: typing.Dict[typing.Any, Argument] = {}
        self.written_arguments: typing.List[typing.Any] = []
        # Training: (parameter name, gradient node or None) per trainable
        # parameter, from the graph's outputs.
        self.updates: typing.List[typing.Tuple[str, typing.Any]] = []

    # Values and buffers.

    def buffer(self, node) -> typing.Any:
        return self.buffer_of[node]

    def new_buffer(self, key, value: Value):
        self.buffer_of[key] = key
        self.set_current(key, value)

    def set_current(self, buffer, value: Value):
        self.current[buffer] = value
        self.buffer_of_value[id(value)] = buffer

    def tensor_args(self, args) -> typing.Iterable[torch.fx.Node]:
        for arg in args:
            if isinstance(arg, torch.fx.Node) and arg in self.buffer_of:
                yield arg
            elif isinstance(arg, (list, tuple)):
                yield from self.tensor_args(arg)

    # The walk.

    def run(self) -> ImportedGraph:
        nodes = list(self.capture.graph.nodes)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        for node, placeholder in zip(placeholders, self.capture.placeholders):
            val = node.meta["val"]
            value = Value(tuple(val.shape), val.dtype)
            argument = Argument(value, placeholder.name, placeholder.role)
            self.graph.arguments.append(argument)
            self.new_buffer(node, value)
            self.argument_of[node] = argument
            if placeholder.is_parameter:
                self.graph.parameters += costs.numel(value.shape)
                self.forward_path[node] = placeholder.name.rpartition(".")[0]
        for node in nodes:
            if node.op == "call_function":
                self.lower(node)
            elif node.op == "output":
                self.finish(node.args[0])
        self.find_saved_for_backward()
        return self.graph

    def lower(self, node: torch.fx.Node):
        if node.target is operator.getitem:
            source, index = node.args
            if (source, index) in self.buffer_of:
                self.buffer_of[node] = self.buffer_of[(source, index)]
            return
        if not isinstance(node.target, torch._ops.OpOverload):
            return
        name = costs.op_name(node.target)
        tensors = list(self.tensor_args([*node.args, *node.kwargs.values()]))
        if _is_view(node.target, name) and tensors:
            viewed = self.buffer(tensors[0])
            self.buffer_of[node] = viewed
            for user in node.users:
                if user.target is operator.getitem:
                    self.buffer_of[(node, user.args[1])] = viewed
            return
        self.lower_kernel(node, name, tensors)

    def module_path(self, node: torch.fx.Node, operands) -> str:
        """The module an op belongs to. Autograd runs the backward pass outside
        any module's forward, so a backward op takes the module of the first
        buffer it reads that the forward pass made or a parameter of, else of
        the backward op that made its first operand."""
        if node.meta.get("ho_phase") != "backward":
            return node.meta.get("ho_path", "")
        for paths in (self.forward_path, self.backward_path):
            path = next((paths[b] for b in operands if b in paths), None)
            if path is not None:
                return path
        return ""

    def location(self, phase: str, path: str) -> str:
        if phase == "loss":
            return "loss"
        path = path or self.capture.model
        return f"backward / {path}" if phase == "backward" else path

    def lower_kernel(self, node, name, tensors):
        operand_buffers = list(dict.fromkeys(self.buffer(t) for t in tensors))
        operands = [self.current[b] for b in operand_buffers]
        outputs = self.used_outputs(node)
        results, tied, result_keys = self.make_results(
            node, name, outputs, operand_buffers, operands)

        args = [a.meta.get("val") if isinstance(a, torch.fx.Node) else a
                for a in node.args]
        args = [list(a) if isinstance(a, tuple) else a for a in args]
        flops = costs.flop_count(name, args,
                                 [tuple(v.shape) for _, _, v in outputs])
        phase = node.meta.get("ho_phase", "forward")
        path = self.module_path(node, operand_buffers)
        op = Op(kind=costs.kind_of(name), operands=operands, results=results,
                tied=tied, flops=flops,
                bytes=self.bytes_read(tensors) + sum(r.nbytes for r in results),
                location=self.location(phase, path), phase=phase, aten=name)
        if name in ("empty", "empty_like", "new_empty", "empty_strided",
                    "new_empty_strided"):
            op.kind, op.flops, op.bytes = "empty", 0, 0
        elif flops is None:
            self.graph.unknown[name] += 1
        self.graph.ops.append(op)
        self.creator.update((id(r), op) for r in results)
        self.record_results(result_keys, results, phase, path)

    @staticmethod
    def used_outputs(node):
        """(index, node giving it, fake value) of each tensor the op returns
        that the graph uses: the node itself, or its tuple's used entries."""
        if isinstance(node.meta.get("val"), torch.Tensor):
            return [(0, node, node.meta["val"])]
        return sorted((u.args[1], u, u.meta["val"]) for u in node.users
                      if u.target is operator.getitem
                      and isinstance(u.meta.get("val"), torch.Tensor))

    def make_results(self, node, name, outputs, operand_buffers, operands):
        """The op's results, the operand each is tied to (-1: none), and per
        result the key its value goes by and the buffer it writes in place
        (None: a buffer of its own). An operand written in place that the op
        does not return gets a tied result of its own."""
        written = [p for p in _written_arguments(node.target, name, node.args)
                   if isinstance(node.args[p], torch.fx.Node)
                   and node.args[p] in self.buffer_of]
        returned = {_returned_argument(node.target, p): p for p in written}
        results, tied, keys = [], [], []

        def tie(key, position):
            buffer = self.buffer(node.args[position])
            operand = operand_buffers.index(buffer)
            results.append(Value(operands[operand].shape,
                                 operands[operand].dtype))
            tied.append(operand)
            keys.append((key, buffer))

        for index, user, val in outputs:
            key = node if user is node else (node, index)
            if index in returned:
                tie(key, returned[index])
            else:
                results.append(Value(tuple(val.shape), val.dtype))
                tied.append(-1)
                keys.append((key, None))
        used = {index for index, _, _ in outputs}
        for position in written:
            if not any(returned.get(i) == position for i in used):
                tie(None, position)
        return results, tied, keys

    def bytes_read(self, tensors) -> int:
        """Each operand once, as much of its buffer as the op sees (a view of
        part of it, or a broadcast of it counted once)."""
        return sum(min(costs.numel(t.meta["val"].shape) *
                       t.meta["val"].element_size(),
                       self.current[self.buffer(t)].nbytes)
                   for t in dict.fromkeys(tensors))

    def record_results(self, result_keys, results, phase, path):
        for (key, buffer), result in zip(result_keys, results):
            if buffer is None:
                self.new_buffer(key, result)
                paths = self.backward_path if phase == "backward" \
                    else self.forward_path
                paths[key] = path
                continue
            if key is not None:
                self.buffer_of[key] = buffer
            self.set_current(buffer, result)
            if buffer in self.argument_of and \
                    buffer not in self.written_arguments:
                self.written_arguments.append(buffer)

    # Results.

    def finish(self, outputs):
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) \
            else [outputs]
        if self.capture.mode == "infer":
            for output in self.tensor_args(outputs):
                self.graph.results.append(
                    (self.current[self.buffer(output)], "output"))
        else:
            loss, grads = outputs[0], outputs[1:]
            self.graph.results.append((self.current[self.buffer(loss)],
                                       "loss"))
            self.updates = list(zip(self.capture.trainable, grads))
            for name, grad in self.updates:
                if grad is None:
                    continue
                value = self.current[self.buffer(grad)]
                self.graph.results.append((value, "gradient"))
                # A weight gradient's op need not read the weight: name it
                # after the parameter's module.
                creator = self.creator.get(id(value))
                if creator is not None and creator.phase == "backward":
                    creator.location = self.location(
                        "backward", name.rpartition(".")[0])

    def find_saved_for_backward(self):
        """The activations autograd saved: values the forward pass (or the
        loss) made in buffers of their own that a backward op reads."""
        saved = {}
        for op in self.graph.ops:
            if op.phase != "backward":
                continue
            for operand in op.operands:
                creator = self.creator.get(id(operand))
                if creator and creator.phase in ("forward", "loss") and \
                        self.buffer_of_value[id(operand)] not in \
                        self.argument_of:
                    saved[id(operand)] = operand
        self.graph.saved_for_backward = list(saved.values())


def lower(capture: Capture, optimizer: str = "adam") -> ImportedGraph:
    """The planner's view of `capture`; a training step ends with
    `optimizer` ("adam", "sgd", "sgd-momentum") applied to each trainable
    parameter with a gradient."""
    lowering = _Lowering(capture)
    graph = lowering.run()
    if capture.mode == "train":
        _add_optimizer(lowering, optimizer)
    for buffer in lowering.written_arguments:
        argument = lowering.argument_of[buffer]
        graph.results.append((lowering.current[buffer], argument.role))
    return graph


def _add_optimizer(lowering: _Lowering, optimizer: str):
    if optimizer not in OPTIMIZERS:
        raise CaptureError(f"optimizer '{optimizer}': expected one of "
                           f"{', '.join(OPTIMIZERS)}")
    states, per_element = OPTIMIZERS[optimizer]
    graph = lowering.graph
    parameter_nodes = {a.name: node for node, a in
                       lowering.argument_of.items()}
    for name, grad in lowering.updates:
        if grad is None:
            continue
        node = parameter_nodes[name]
        parameter = lowering.current[node]
        state_values = []
        for state in states:
            value = Value(parameter.shape, parameter.dtype)
            graph.arguments.append(
                Argument(value, f"{name}.{state}", "optimizer_state"))
            state_values.append(value)
        operands = [parameter, lowering.current[lowering.buffer(grad)],
                    *state_values]
        tied = [0] + [2 + i for i in range(len(states))]
        results = [Value(operands[i].shape, operands[i].dtype) for i in tied]
        elements = costs.numel(parameter.shape)
        graph.ops.append(Op(
            kind=optimizer.split("-")[0], operands=operands, results=results,
            tied=tied, flops=per_element * elements,
            bytes=sum(v.nbytes for v in operands + results),
            location=f"optimizer / {name}", phase="optimizer"))
        lowering.set_current(node, results[0])
        if node not in lowering.written_arguments:
            lowering.written_arguments.append(node)
        for value, result in zip(state_values, results[1:]):
            graph.results.append((result, "optimizer_state"))

"""What each ATen op is to the planner: a view, an in-place write, or a kernel
with a kind, a FLOP count and the bytes it moves.

FLOPs count a multiply-add as two operations, as docs/CostModel.md does.
Bytes are the operands read and the results written, each at most once per
buffer. An op this table does not know keeps its bytes and gets no FLOPs; the
importer lists such ops in its summary instead of dropping them.
"""

import math

import torch

aten = torch.ops.aten

# Ops that return a view of an operand's storage: no kernel runs and no memory
# is allocated, so their users read the operand's buffer (PyTorch's own
# aliasing). `reshape` and `contiguous` are not here: they copy when they must,
# and tracing records that copy as `clone` or `_unsafe_view` of a new tensor.
VIEW_OPS = {
    "alias", "as_strided", "detach", "diagonal", "expand", "expand_as",
    "lift_fresh", "narrow", "permute", "select", "slice", "split",
    "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unflatten",
    "unfold", "unsqueeze", "view", "view_as", "_reshape_alias", "_unsafe_view",
    "chunk", "movedim", "flatten", "real", "imag", "view_as_real",
    "view_as_complex", "_conj", "_neg_view", "numpy_T", "mT", "mH",
    # In place, on the view's metadata only.
    "as_strided_", "detach_", "squeeze_", "t_", "transpose_", "unsqueeze_",
}

# Ops that write an operand that their schema does not mark as written.
# Training-mode batch norm updates its running statistics (operands 3 and 4)
# in place; torch 2.x spells that `_native_batch_norm_legit`, with the
# mutation in its schema.
HIDDEN_WRITES = {"native_batch_norm": (3, 4)}

# Kinds the planner's reports know, by ATen name; others keep the ATen name.
KIND_NAMES = {
    "mm": "matmul", "addmm": "matmul", "bmm": "batch_matmul",
    "baddbmm": "batch_matmul", "convolution": "conv",
    "convolution_backward": "conv_grad", "_softmax": "softmax",
    "_log_softmax": "log_softmax", "native_layer_norm": "layernorm",
    "native_layer_norm_backward": "layernorm_grad",
    "native_batch_norm": "batchnorm",
    "native_batch_norm_backward": "batchnorm_grad",
    "threshold_backward": "relu_grad", "gelu_backward": "gelu_grad",
    "_softmax_backward_data": "softmax_grad",
    "_log_softmax_backward_data": "log_softmax_grad",
    "embedding_dense_backward": "embedding_grad",
    "_to_copy": "cast", "clone": "copy", "copy_": "copy",
    "scaled_dot_product_attention": "attention",
    "_scaled_dot_product_efficient_attention": "attention",
    "_scaled_dot_product_flash_attention": "attention",
}

# Operations per result element (docs/CostModel.md's counts where it has the
# kind); the backward of an elementwise op does about twice its forward.
_PER_ELEMENT = {
    **dict.fromkeys(
        ["add", "sub", "mul", "div", "rsub", "neg", "relu", "abs", "maximum",
         "minimum", "clamp", "clamp_min", "clamp_max", "exp", "log", "tanh",
         "sqrt", "rsqrt", "reciprocal", "pow", "where", "masked_fill",
         "threshold_backward", "sign", "eq", "ne", "lt", "le", "gt", "ge",
         "logical_not", "hardtanh", "bitwise_not", "cos", "sin",
         "erf", "floor", "ceil", "round", "lerp", "addcmul", "addcdiv"], 1),
    **dict.fromkeys(["sigmoid", "silu", "hardswish", "hardsigmoid"], 4),
    **dict.fromkeys(["sigmoid_backward", "silu_backward", "tanh_backward",
                     "hardswish_backward", "hardtanh_backward",
                     "hardsigmoid_backward"], 3),
    # A dropout mask: a random draw and a comparison per element.
    "bernoulli": 2,
    "gelu": 9, "gelu_backward": 18,
    "native_dropout": 2, "native_dropout_backward": 1,
    "_softmax": 5, "_log_softmax": 5,
    "_softmax_backward_data": 4, "_log_softmax_backward_data": 4,
    "native_layer_norm": 7, "native_layer_norm_backward": 14,
    "native_batch_norm_backward": 14,
    "nll_loss_backward": 1,
}

# Ops that only read their first operand once and reduce it: one operation
# per element read.
_REDUCTIONS = {
    "sum", "mean", "amax", "amin", "max", "min", "var", "std", "var_mean",
    "norm", "linalg_vector_norm", "argmax", "argmin", "prod", "logsumexp",
    "_adaptive_avg_pool2d", "avg_pool2d", "nll_loss_forward",
    "_adaptive_avg_pool2d_backward", "avg_pool2d_backward", "any", "all",
}

# Ops that only move or fill memory: no arithmetic.
_DATA_MOVEMENT = {
    "clone", "_to_copy", "cat", "stack", "index_select", "gather",
    "embedding", "zeros", "ones", "full", "zeros_like", "ones_like",
    "full_like", "new_zeros", "new_ones", "new_full", "new_empty", "empty",
    "empty_like", "new_empty_strided", "empty_strided", "scalar_tensor",
    "select_backward", "slice_backward", "constant_pad_nd", "repeat",
    "arange", "index", "index_put", "scatter", "_unsafe_index", "roll",
    "tril", "triu", "flip", "lift_fresh_copy", "fill", "zero", "copy",
}


def op_name(target) -> str:
    """`aten.add_.Tensor` -> `add_`."""
    return target._schema.name.split("::", 1)[1]


def base_name(name: str) -> str:
    """The out-of-place name of an in-place op (`add_` -> `add`)."""
    return name[:-1] if name.endswith("_") and not name.endswith("__") \
        else name


def kind_of(name: str) -> str:
    return KIND_NAMES.get(name, KIND_NAMES.get(base_name(name),
                                               base_name(name)))


def numel(shape) -> int:
    return math.prod(int(d) for d in shape)


def _matmul_flops(name, args, result_shapes):
    if name == "mm":
        (m, k), n = args[0].shape, args[1].shape[1]
        return 2 * m * k * n
    if name == "addmm":
        (m, k), n = args[1].shape, args[2].shape[1]
        return 2 * m * k * n + m * n
    if name in ("bmm", "baddbmm"):
        a, b = (args[0], args[1]) if name == "bmm" else (args[1], args[2])
        batch, m, k = a.shape
        extra = batch * m * b.shape[2] if name == "baddbmm" else 0
        return 2 * batch * m * k * b.shape[2] + extra
    return None


def _conv_macs(x_shape, w_shape, out_shape, transposed):
    """Multiply-adds of a convolution: each output element of a direct
    convolution sums over (input channels / groups) x kernel positions, and a
    transposed one scatters each input element to (output channels / groups)
    x kernel positions. The weight's second dimension is that channel count."""
    per_element = w_shape[1] * numel(w_shape[2:])
    return numel(x_shape if transposed else out_shape) * per_element


def _conv_flops(name, args, result_shapes):
    if name == "convolution":
        x, w, bias = args[0], args[1], args[2]
        transposed, out = bool(args[6]), result_shapes[0]
        flops = 2 * _conv_macs(x.shape, w.shape, out, transposed)
        return flops + (numel(out) if bias is not None else 0)
    if name == "convolution_backward":
        grad_out, x, w = args[0], args[1], args[2]
        transposed, mask = bool(args[7]), args[10]
        macs = _conv_macs(x.shape, w.shape, grad_out.shape, transposed)
        # The input gradient is a transposed convolution, the weight gradient
        # a correlation of the input with the output gradient: each as many
        # multiply-adds as the forward.
        return 2 * macs * (int(mask[0]) + int(mask[1])) + \
            (numel(grad_out.shape) if mask[2] else 0)
    return None


def _pool_flops(name, args, result_shapes):
    if name == "max_pool2d_with_indices":
        return numel(result_shapes[0]) * numel(args[1])
    if name == "max_pool2d_with_indices_backward":
        return numel(args[0].shape)
    return None


def _embedding_backward_flops(name, args, result_shapes):
    if name == "embedding_dense_backward":
        return numel(args[0].shape)
    return None


def _attention_flops(name, args, result_shapes):
    if "scaled_dot_product" not in name:
        return None
    q, k, v = args[0], args[1], args[2]
    *batch, sq, d = q.shape
    sk, dv = k.shape[-2], v.shape[-1]
    return numel(batch) * sq * sk * (2 * (d + dv) + 5)


def _fused_attention_block_flops(name, args, result_shapes):
    """`_native_multi_head_attention`, nn.MultiheadAttention's inference
    path: the QKV projection, the attention and the output projection."""
    if name != "_native_multi_head_attention":
        return None
    query, key, embed, heads = args[0], args[1], int(args[3]), int(args[4])
    *batch, sq, _ = query.shape
    sk, tokens = key.shape[-2], numel(batch)
    projections = 2 * tokens * (sq + 2 * sk) * embed * embed + \
        2 * tokens * sq * embed * embed
    attention = tokens * sq * sk * (4 * embed + 5 * heads)
    return projections + attention


_FORMULAS = (_matmul_flops, _conv_flops, _pool_flops,
             _embedding_backward_flops, _attention_flops,
             _fused_attention_block_flops)


def flop_count(name, args, result_shapes):
    """The FLOPs of ATen op `name` on tensors `args` (fake tensors, or other
    argument values) with results of `result_shapes`; None when no formula
    covers it."""
    for formula in _FORMULAS:
        flops = formula(name, args, result_shapes)
        if flops is not None:
            return flops
    plain = base_name(name)
    per_element = _PER_ELEMENT.get(name, _PER_ELEMENT.get(plain))
    if name == "native_batch_norm":
        # Training normalises with the batch's statistics, which it also
        # computes; inference folds the running ones into a scale and shift.
        per_element = 7 if args[5] else 2
    if per_element is not None and result_shapes:
        return per_element * numel(result_shapes[0])
    if plain in _REDUCTIONS and args and isinstance(args[0], torch.Tensor):
        return numel(args[0].shape)
    if plain in _DATA_MOVEMENT:
        return 0
    return None

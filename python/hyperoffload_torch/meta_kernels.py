"""Meta kernels for ATen ops that torch 1.13 has none for.

Without a meta kernel, a fake tensor runs the op's real CPU kernel on
zeros of the real sizes: a minute for a ResNet-50 training step, and memory
a large model does not have. Each kernel here only makes its outputs'
shapes; one is registered only where torch has none.
"""

import torch


def _convolution_backward(grad_output, input, weight, bias_sizes, stride,
                          padding, dilation, transposed, output_padding,
                          groups, output_mask):
    """The gradients of the input, the weight and the bias, each wanted by
    `output_mask`, have their shapes."""
    def like(tensor, wanted):
        return tensor.new_empty(tensor.shape) if wanted else None
    bias = grad_output.new_empty(bias_sizes) \
        if output_mask[2] and bias_sizes is not None else None
    return like(input, output_mask[0]), like(weight, output_mask[1]), bias


def _native_multi_head_attention(query, key, value, embed_dim, num_head,
                                 qkv_weight, qkv_bias, proj_weight, proj_bias,
                                 mask=None, need_weights=True,
                                 average_attn_weights=True, mask_type=None):
    """nn.MultiheadAttention's inference kernel: the output has the query's
    shape; the attention weights, [..., (heads,) queries, keys], or none."""
    output = query.new_empty(query.shape)
    if not need_weights:
        return output, query.new_empty((0,))
    *batch, queries, _ = query.shape
    heads = () if average_attn_weights else (num_head,)
    return output, query.new_empty((*batch, *heads, queries, key.shape[-2]))


_KERNELS = {
    "convolution_backward": _convolution_backward,
    "_native_multi_head_attention": _native_multi_head_attention,
}
_library = None


def register():
    """Registers each kernel torch lacks, once per process."""
    global _library
    if _library is not None:
        return
    _library = torch.library.Library("aten", "IMPL", "Meta")
    for name, kernel in _KERNELS.items():
        if not torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}",
                                                              "Meta"):
            _library.impl(name, kernel)

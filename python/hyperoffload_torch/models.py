"""A LLaMA-style decoder written in plain PyTorch (no fused kernels), for
importing at real dimensions: RMSNorm, grouped-query attention with rotary
embeddings and a causal mask, and a SwiGLU MLP, as in LLaMA 3.

`llama_decoder()` defaults to one layer of LLaMA3-8B: hidden 4096, 32 query
and 8 key-value heads of 128, MLP 14336. It takes the hidden states
[batch, tokens, hidden] and returns them, so a step of it is one layer of a
larger model.
"""

import math

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        scale = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return (x.float() * scale).type_as(x) * self.weight


def _rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


class Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int,
                 rope_theta: float):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = hidden // heads
        self.rope_theta = rope_theta
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def rotary(self, tokens: int, like: torch.Tensor):
        inverse = 1.0 / self.rope_theta ** (
            torch.arange(0, self.head_dim, 2, device=like.device).float()
            / self.head_dim)
        angles = torch.outer(torch.arange(tokens, device=like.device).float(),
                             inverse)
        angles = torch.cat((angles, angles), dim=-1)
        return angles.cos().to(like.dtype), angles.sin().to(like.dtype)

    def repeat_kv(self, t):
        """Each key-value head for its group of query heads."""
        batch, _, tokens, dim = t.shape
        groups = self.heads // self.kv_heads
        return t[:, :, None].expand(batch, self.kv_heads, groups, tokens, dim) \
            .reshape(batch, self.heads, tokens, dim)

    def forward(self, x):
        batch, tokens, _ = x.shape
        q = self.q_proj(x).view(batch, tokens, self.heads, self.head_dim)
        k = self.k_proj(x).view(batch, tokens, self.kv_heads, self.head_dim)
        v = self.v_proj(x).view(batch, tokens, self.kv_heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        cos, sin = self.rotary(tokens, x)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        mask = torch.full((tokens, tokens), float("-inf"),
                          device=x.device).triu(1)
        probs = torch.softmax(scores.float() + mask, dim=-1).to(q.dtype)
        out = (probs @ v).transpose(1, 2).reshape(batch, tokens, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, hidden: int, ffn: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        gate = nn.functional.silu(self.gate_proj(x))
        return self.down_proj(gate * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, ffn, rope_theta):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, kv_heads, rope_theta)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = MLP(hidden, ffn)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class Decoder(nn.Module):
    def __init__(self, layers, hidden, heads, kv_heads, ffn, rope_theta):
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(hidden, heads, kv_heads, ffn, rope_theta)
            for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def llama_decoder(layers: int = 1, hidden: int = 4096, heads: int = 32,
                  kv_heads: int = 8, ffn: int = 14336,
                  rope_theta: float = 500000.0) -> Decoder:
    """`layers` LLaMA decoder layers; the defaults are LLaMA3-8B's."""
    return Decoder(layers, hidden, heads, kv_heads, ffn, rope_theta)

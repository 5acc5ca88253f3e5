"""The Transformer block and what is built from it: encoder/decoder layers, RMSNorm, SwiGLU, small models.

Every layer is built on :class:`~selfattention.multi_head.MultiHeadAttention`; ``EncoderLayer.from_torch``
and ``DecoderLayer.from_torch`` copy the weights of ``torch.nn.TransformerEncoderLayer`` /
``TransformerDecoderLayer`` so that equality can be asserted. Masks are boolean with True = may attend
(torch's layers use True = blocked).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode

from ._checks import _shape, check_divisible, check_positive_int, check_rank, check_tensor
from .masks import causal_mask
from .multi_head import MultiHeadAttention
from .positional import sinusoidal_positions

_L = TypeVar("_L", bound=nn.Module)  # EncoderLayer or DecoderLayer

__all__ = [
    "RMSNorm",
    "FeedForward",
    "SwiGLU",
    "EncoderLayer",
    "DecoderLayer",
    "EncoderDecoder",
    "DecoderOnlyLM",
    "prefix_lm_mask",
    "trace_calls",
    "block_cost",
    "ffn_gradient_norms",
    "count_parameters",
]

_ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu", "swiglu")
_NORMS = ("layernorm", "rmsnorm")


class RMSNorm(nn.Module):
    """x (..., d) -> x / sqrt(mean(x²) + eps) · weight, (..., d): no mean subtraction, no bias.

    Computed in float32 for fp16/bf16 inputs and cast back at the end to the input's dtype, as ``F.rms_norm``
    does (an fp16 input with an fp32 weight gives fp16): x² in fp16 overflows to inf once |x| >= 256."""

    def __init__(self, d: int, eps: float | None = None) -> None:
        super().__init__()
        self.d = check_positive_int(d, "d")
        if eps is not None and not (isinstance(eps, (int, float)) and eps >= 0):
            raise ValueError(f"eps must be a number >= 0 or None: got {eps!r}")
        self.eps = eps  # None: machine epsilon of the computation dtype (fp32 for 16-bit), as nn.RMSNorm
        self.weight = nn.Parameter(torch.ones(self.d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(..., d) -> (..., d)."""
        check_tensor(x, "x")
        if x.ndim == 0 or x.shape[-1] != self.d:
            raise ValueError(f"x must have last dim d={self.d}: got x {_shape(x)}")
        xf = x.to(torch.promote_types(x.dtype, torch.float32))  # fp16/bf16 -> fp32
        # None: the epsilon of the dtype computed in, as F.rms_norm (fp32's 1.2e-7 for fp16/bf16 inputs, not
        # fp16's 9.8e-4 or bf16's 7.8e-3, which would swamp mean(x²) for a token of RMS below about 0.1)
        eps = torch.finfo(xf.dtype).eps if self.eps is None else self.eps
        out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * self.weight.to(xf.dtype)
        return out.to(x.dtype)  # (..., d), the input's dtype whatever the weight's, as F.rms_norm

    def extra_repr(self) -> str:
        """Shown by ``print(module)``."""
        return f"d={self.d}, eps={self.eps}"


class FeedForward(nn.Module):
    """Position-wise FFN, x (..., d_model) -> linear2(act(linear1(x))) (..., d_model).

    ``activation``: "relu", "gelu" (exact, erf), "gelu_tanh" (the tanh approximation of GPT-2) or "silu"
    (x·sigmoid(x), also called Swish-1); 2·d_model·d_ff weights. The gated variant is :class:`SwiGLU`.
    """

    ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        if activation not in self.ACTIVATIONS:
            names = ", ".join(repr(a) for a in self.ACTIVATIONS)
            raise ValueError(f"activation must be one of {names}: got {activation!r}")
        self.activation = activation
        d_model, d_ff = check_positive_int(d_model, "d_model"), check_positive_int(d_ff, "d_ff")
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(..., d_model) -> (..., d_model)."""
        h = self.linear1(x)  # (..., d_ff)
        if self.activation == "relu":
            h = F.relu(h)
        elif self.activation == "gelu":
            h = F.gelu(h)
        elif self.activation == "gelu_tanh":
            h = F.gelu(h, approximate="tanh")
        else:
            h = F.silu(h)
        return self.linear2(h)  # (..., d_model)


class SwiGLU(nn.Module):
    """Gated FFN, x (..., d_model) -> down(silu(gate(x)) * up(x)) (..., d_model); 3·d_model·d_ff weights."""

    def __init__(self, d_model: int, d_ff: int, bias: bool = False) -> None:
        super().__init__()
        d_model = check_positive_int(d_model, "d_model")
        d_ff = check_positive_int(d_ff, "d_ff")
        self.gate = nn.Linear(d_model, d_ff, bias=bias)
        self.up = nn.Linear(d_model, d_ff, bias=bias)
        self.down = nn.Linear(d_ff, d_model, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(..., d_model) -> (..., d_model)."""
        return self.down(F.silu(self.gate(x)) * self.up(x))  # (..., d_ff) inside, (..., d_model) out


def _norm(kind: str, d: int, eps: float, bias: bool) -> nn.Module:
    """A LayerNorm or RMSNorm over the last dim d."""
    if kind == "layernorm":
        return nn.LayerNorm(d, eps=eps, bias=bias)
    if kind == "rmsnorm":
        return RMSNorm(d, eps=eps)
    raise ValueError(f"norm must be one of {_NORMS}: got {kind!r}")


def _ffn(activation: str, d_model: int, d_ff: int, bias: bool) -> nn.Module:
    """FeedForward (relu, gelu) or SwiGLU."""
    if activation == "swiglu":
        return SwiGLU(d_model, d_ff, bias=bias)
    if activation in FeedForward.ACTIVATIONS:
        return FeedForward(d_model, d_ff, activation, bias=bias)
    raise ValueError(f"activation must be one of {_ACTIVATIONS}: got {activation!r}")


def _check_x(x: object, d_model: int, name: str = "x") -> torch.Tensor:
    """Raise unless x is a float (B, n, d_model) tensor."""
    check_tensor(x, name)
    check_rank(x, name, 3, 3)
    assert isinstance(x, torch.Tensor)
    if x.shape[-1] != d_model:
        raise ValueError(f"{name} must have last dim d_model={d_model}: got {name} {_shape(x)}")
    return x


def _activation_name(layer: nn.Module) -> str:
    """'relu' or 'gelu' from a torch Transformer layer's ``activation`` attribute."""
    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU):
        return "relu"
    if act is F.gelu or isinstance(act, nn.GELU) and act.approximate == "none":
        return "gelu"
    raise ValueError(f"layer.activation must be relu or gelu (exact): got {act!r}")


def _copy_linear(dst: nn.Linear, src: nn.Linear) -> None:
    """Copy weight (and bias, if any) of src into dst."""
    dst.weight.copy_(src.weight)
    if src.bias is not None:
        dst.bias.copy_(src.bias)


def _copy_norm(dst: nn.Module, src: nn.LayerNorm) -> None:
    """Copy a torch LayerNorm into ours."""
    dst.weight.copy_(src.weight)
    if src.bias is not None:
        dst.bias.copy_(src.bias)


class EncoderLayer(nn.Module):
    """One Transformer block without cross-attention: x (B, n, d_model) -> (B, n, d_model).

    Post-LN (``norm_first=False``, Vaswani et al.): x = norm1(x + attn(x)); x = norm2(x + ffn(x)).
    Pre-LN (``norm_first=True``, GPT-2 onwards): x = x + attn(norm1(x)); x = x + ffn(norm2(x)).
    With a causal mask it is the block of a decoder-only model (GPT, Llama), which has no cross-attention.
    ``activation``: "relu", "gelu", "gelu_tanh", "silu" or "swiglu"; ``norm``: "layernorm" or "rmsnorm";
    ``num_kv_heads`` for GQA.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        norm_first: bool = False,
        activation: str = "relu",
        norm: str = "layernorm",
        num_kv_heads: int | None = None,
        bias: bool = True,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.d_model = check_positive_int(d_model, "d_model")
        self.norm_first = bool(norm_first)
        # registered in forward order of the pre-LN block; trace_calls records the real order
        self.norm1 = _norm(norm, d_model, eps, bias)
        self.self_attn = MultiHeadAttention(d_model, num_heads, num_kv_heads=num_kv_heads, bias=bias)
        self.norm2 = _norm(norm, d_model, eps, bias)
        self.ffn = _ffn(activation, d_model, d_ff, bias)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, explicit: bool = False
    ) -> torch.Tensor:
        """x (B, n, d_model) -> (B, n, d_model). ``mask``: bool, True = may attend, to (B, h, n, n).

        ``explicit=True`` runs attention on the readable path (matrix products a FLOP counter can see).
        """
        _check_x(x, self.d_model)
        if self.norm_first:
            x = x + self._sa(self.norm1(x), mask, explicit)  # (B, n, d_model): residual stream
            return x + self.ffn(self.norm2(x))
        x = self.norm1(x + self._sa(x, mask, explicit))
        return self.norm2(x + self.ffn(x))

    def _sa(self, x: torch.Tensor, mask: torch.Tensor | None, explicit: bool) -> torch.Tensor:
        """Self-attention (B, n, d_model) -> (B, n, d_model)."""
        if explicit:
            return self.self_attn(x, mask=mask, return_weights=True)[0]
        return self.self_attn(x, mask=mask)

    @classmethod
    def from_torch(cls, layer: nn.TransformerEncoderLayer) -> EncoderLayer:
        """Copy a ``torch.nn.TransformerEncoderLayer`` (any batch_first; ours is batch-first); eval mode."""
        if not isinstance(layer, nn.TransformerEncoderLayer):
            raise ValueError(f"layer must be a torch.nn.TransformerEncoderLayer: got {type(layer).__name__}")
        return _layer_from_torch(cls, layer)


class DecoderLayer(nn.Module):
    """Decoder block of the encoder–decoder Transformer: x (B, n, d), memory (B, m, d) -> (B, n, d).

    Masked self-attention, cross-attention to the encoder's output (queries from x, keys/values from memory),
    FFN; each wrapped in a residual and a LayerNorm, after the add (post-LN) or before the sub-layer (pre-LN).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        norm_first: bool = False,
        activation: str = "relu",
        norm: str = "layernorm",
        bias: bool = True,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.d_model = check_positive_int(d_model, "d_model")
        self.norm_first = bool(norm_first)
        self.norm1 = _norm(norm, d_model, eps, bias)
        self.self_attn = MultiHeadAttention(d_model, num_heads, bias=bias)
        self.norm2 = _norm(norm, d_model, eps, bias)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, bias=bias)
        self.norm3 = _norm(norm, d_model, eps, bias)
        self.ffn = _ffn(activation, d_model, d_ff, bias)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """x (B, n, d_model), memory (B, m, d_model) -> (B, n, d_model).

        ``self_mask`` bool broadcastable to (B, h, n, n) (causal in a decoder); ``memory_mask`` to
        (B, h, n, m) (padding of the source). True = may attend.
        """
        _check_x(x, self.d_model)
        _check_x(memory, self.d_model, "memory")
        if self.norm_first:
            x = x + self.self_attn(self.norm1(x), mask=self_mask)  # (B, n, d_model)
            x = x + self.cross_attn(self.norm2(x), memory, mask=memory_mask)
            return x + self.ffn(self.norm3(x))
        x = self.norm1(x + self.self_attn(x, mask=self_mask))
        x = self.norm2(x + self.cross_attn(x, memory, mask=memory_mask))
        return self.norm3(x + self.ffn(x))

    @classmethod
    def from_torch(cls, layer: nn.TransformerDecoderLayer) -> DecoderLayer:
        """Copy a ``torch.nn.TransformerDecoderLayer`` (any batch_first; ours is batch-first); eval mode."""
        if not isinstance(layer, nn.TransformerDecoderLayer):
            raise ValueError(f"layer must be a torch.nn.TransformerDecoderLayer: got {type(layer).__name__}")
        m = _layer_from_torch(cls, layer)
        with torch.no_grad():
            m.cross_attn = MultiHeadAttention.from_torch(layer.multihead_attn)
            _copy_norm(m.norm3, layer.norm3)
        return m


def _layer_from_torch(cls: type[_L], layer: nn.Module) -> _L:
    """``cls`` sized like a torch encoder/decoder layer, with its self-attention, FFN, norm1, norm2."""
    ref = layer.linear1.weight
    m = cls(
        layer.linear1.in_features,  # d_model
        layer.self_attn.num_heads,
        layer.linear1.out_features,  # d_ff
        norm_first=layer.norm_first,
        activation=_activation_name(layer),
        bias=layer.linear1.bias is not None,
        eps=layer.norm1.eps,
    ).to(device=ref.device, dtype=ref.dtype)
    with torch.no_grad():
        m.self_attn = MultiHeadAttention.from_torch(layer.self_attn)
        _copy_linear(m.ffn.linear1, layer.linear1)
        _copy_linear(m.ffn.linear2, layer.linear2)
        _copy_norm(m.norm1, layer.norm1)
        _copy_norm(m.norm2, layer.norm2)
    return m


def prefix_lm_mask(n: int, prefix_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(n, n) bool, True = may attend: bidirectional among the first ``prefix_len`` tokens, then causal."""
    n = check_positive_int(n, "n")
    if isinstance(prefix_len, bool) or not isinstance(prefix_len, int) or not 0 <= prefix_len <= n:
        raise ValueError(f"prefix_len must be an int in [0, n={n}]: got {prefix_len!r}")
    k_pos = torch.arange(n, device=device)[None, :]  # (1, n)
    return causal_mask(n, device=device) | (k_pos < prefix_len)  # (n, n)


def _check_tokens(tokens: object, vocab_size: int, max_len: int | None, name: str = "tokens") -> torch.Tensor:
    """Raise unless tokens is a (B, n) integer tensor with ids in [0, vocab_size) and n <= max_len."""
    if not isinstance(tokens, torch.Tensor) or tokens.ndim != 2 or tokens.is_floating_point():
        raise ValueError(
            f"{name} must be a (B, n) integer tensor: got {getattr(tokens, 'dtype', type(tokens).__name__)} "
            f"with shape {_shape(tokens)}"
        )
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size):
        raise ValueError(f"{name} must lie in [0, vocab_size={vocab_size}): got shape {_shape(tokens)}")
    if max_len is not None and tokens.shape[1] > max_len:
        raise ValueError(f"{name} is longer than max_len={max_len}: got shape {_shape(tokens)}")
    return tokens


class DecoderOnlyLM(nn.Module):
    """A GPT/Llama-shaped LM: tokens (B, n) -> logits (B, n, vocab_size).

    Token embedding (+ learned positions if ``positions="learned"``), ``num_layers`` pre-norm blocks
    (:class:`EncoderLayer` with ``norm_first=True`` and a causal mask), a final norm and an output head
    tied to the embedding (``tie_weights``). GPT-2 shape: defaults (but GELU is the exact erf form; GPT-2
    uses the tanh approximation, which changes no parameter or FLOP count). Llama shape: ``norm="rmsnorm"``,
    ``activation="swiglu"``, ``bias=False``, ``positions="none"`` (RoPE adds no parameters), ``num_kv_heads``.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_layers: int,
        num_heads: int,
        d_ff: int | None = None,
        max_len: int = 1024,
        norm: str = "layernorm",
        activation: str = "gelu",
        num_kv_heads: int | None = None,
        bias: bool = True,
        positions: str = "learned",
        tie_weights: bool = True,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        self.num_layers = check_positive_int(num_layers, "num_layers")
        self.max_len = check_positive_int(max_len, "max_len")
        check_divisible(d_model, check_positive_int(num_heads, "num_heads"), "d_model", "num_heads")
        d_ff = 4 * d_model if d_ff is None else check_positive_int(d_ff, "d_ff")
        if positions not in ("learned", "none"):
            raise ValueError(f"positions must be 'learned' or 'none': got {positions!r}")
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model) if positions == "learned" else None
        self.blocks = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, norm_first=True, activation=activation, norm=norm,
                         num_kv_heads=num_kv_heads, bias=bias, eps=eps)
            for _ in range(num_layers)
        )
        self.norm_f = _norm(norm, d_model, eps, bias)
        self.lm_head = None if tie_weights else nn.Linear(d_model, vocab_size, bias=False)

    def forward(
        self, tokens: torch.Tensor, mask: torch.Tensor | None = None, explicit: bool = False
    ) -> torch.Tensor:
        """tokens (B, n) int -> logits (B, n, vocab_size).

        ``mask`` (bool, True = may attend, broadcastable to (B, h, n, n)) defaults to causal; pass an all-True
        mask for an encoder (BERT-like) or ``prefix_lm_mask`` for a prefix LM. ``explicit``: see EncoderLayer.
        """
        _check_tokens(tokens, self.vocab_size, self.max_len)
        n = tokens.shape[1]
        x = self.tok_emb(tokens)  # (B, n, d_model)
        if self.pos_emb is not None:
            x = x + self.pos_emb(torch.arange(n, device=tokens.device))  # (B, n, d_model)
        if mask is None:
            mask = causal_mask(n, device=tokens.device)  # (n, n)
        for block in self.blocks:
            x = block(x, mask=mask, explicit=explicit)  # (B, n, d_model), the residual stream
        x = self.norm_f(x)
        weight = self.tok_emb.weight if self.lm_head is None else self.lm_head.weight  # (V, d_model)
        return F.linear(x, weight)  # (B, n, vocab_size)


class EncoderDecoder(nn.Module):
    """The 2017 Transformer: src (B, m), tgt (B, n) token ids -> logits (B, n, vocab_size).

    One embedding table shared by source, target and the output head (weight tying), multiplied by
    sqrt(d_model) and added to sinusoidal positions; ``num_layers`` post-LN encoder and decoder layers.
    With ``norm_first=True`` the layers are pre-LN and, as in pre-LN encoder-decoders (tensor2tensor, fairseq
    ``normalize_before``), a final LayerNorm closes each stack (``enc_norm`` on the memory that
    cross-attention reads, ``dec_norm`` before the tied head); post-LN has none (each layer ends in a norm).
    Dropout is left out (eval-mode behaviour).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 512,
        num_heads: int = 8,
        num_layers: int = 6,
        d_ff: int = 2048,
        norm_first: bool = False,
        max_len: int = 512,
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        self.max_len = check_positive_int(max_len, "max_len")
        self.embed = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embed.weight, std=d_model**-0.5)  # so that embed · sqrt(d) has unit scale
        self.encoder = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, norm_first=norm_first)
            for _ in range(check_positive_int(num_layers, "num_layers"))
        )
        self.decoder = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, norm_first=norm_first) for _ in range(num_layers)
        )
        self.norm_first = bool(norm_first)
        final = nn.LayerNorm if self.norm_first else nn.Identity  # pre-LN stacks end in a norm
        self.enc_norm, self.dec_norm = final(d_model), final(d_model)
        with torch.device("cpu"):  # a fixed table: computed on the CPU even when built on the meta device
            pe = sinusoidal_positions(max_len, d_model)  # (max_len, d_model)
        self.register_buffer("pe", pe, persistent=False)

    def embed_tokens(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, n) ids -> embed(ids) · sqrt(d_model) + PE[:n], (B, n, d_model)."""
        _check_tokens(tokens, self.vocab_size, self.max_len)
        w = self.embed.weight
        pe = self.pe[: tokens.shape[1]].to(device=w.device, dtype=w.dtype)  # (n, d_model)
        return self.embed(tokens) * math.sqrt(self.d_model) + pe

    def forward(
        self, src: torch.Tensor, tgt: torch.Tensor, src_lengths: torch.Tensor | None = None
    ) -> torch.Tensor:
        """src (B, m), tgt (B, n) -> logits (B, n, vocab_size); ``src_lengths`` (B,) masks source padding:
        an integer tensor, each length in [1, m] (a row of length 0 would leave cross-attention nothing
        to read)."""
        _check_tokens(src, self.vocab_size, self.max_len, "src")
        _check_tokens(tgt, self.vocab_size, self.max_len, "tgt")
        if src.shape[0] != tgt.shape[0]:
            raise ValueError(f"src and tgt must share batch size: got src {_shape(src)}, tgt {_shape(tgt)}")
        src_mask = None
        if src_lengths is not None:
            B, m = src.shape
            if (not isinstance(src_lengths, torch.Tensor) or src_lengths.dtype == torch.bool
                    or src_lengths.dtype.is_floating_point or src_lengths.dtype.is_complex
                    or src_lengths.shape != (B,)):
                got = (f"{src_lengths.dtype} {_shape(src_lengths)}" if isinstance(src_lengths, torch.Tensor)
                       else type(src_lengths).__name__)  # a list has no shape: not "list ()"
                raise ValueError(f"src_lengths must be an integer tensor of shape (B,) = ({B},): got {got}")
            if bool((src_lengths < 1).any()) or bool((src_lengths > m).any()):
                raise ValueError(f"src_lengths must lie in [1, m] = [1, {m}]: got {src_lengths.tolist()}")
            pos = torch.arange(src.shape[1], device=src.device)  # (m,)
            src_mask = (pos[None, :] < src_lengths[:, None])[:, None, None, :]  # (B, 1, 1, m)
        memory = self.embed_tokens(src)  # (B, m, d_model)
        for layer in self.encoder:
            memory = layer(memory, mask=src_mask)  # bidirectional (only padding is masked)
        memory = self.enc_norm(memory)  # pre-LN: normalised before cross-attention reads it
        x = self.embed_tokens(tgt)  # (B, n, d_model)
        causal = causal_mask(tgt.shape[1], device=tgt.device)  # (n, n)
        for layer in self.decoder:
            x = layer(x, memory, self_mask=causal, memory_mask=src_mask)
        return F.linear(self.dec_norm(x), self.embed.weight)  # (B, n, vocab_size), tied output head


def trace_calls(module: nn.Module, *args: Any, **kwargs: Any) -> list[tuple[str, str, int]]:
    """Run module(*args, **kwargs) and return its direct children in call order: (name, class, parameters)."""
    if not isinstance(module, nn.Module):
        raise ValueError(f"module must be a torch.nn.Module: got {type(module).__name__}")
    calls: list[tuple[str, str, int]] = []
    handles = []

    def hook_for(name: str, child: nn.Module) -> Callable[..., None]:
        params = sum(p.numel() for p in child.parameters())

        def hook(*_: Any) -> None:
            calls.append((name, type(child).__name__, params))

        return hook

    for name, child in module.named_children():
        handles.append(child.register_forward_hook(hook_for(name, child)))
    try:
        with torch.no_grad():
            module(*args, **kwargs)
    finally:
        for h in handles:
            h.remove()
    return calls


def block_cost(d_model: int, n: int, d_ff: int | None = None, causal: bool = False) -> dict[str, int]:
    """Weights and forward FLOPs of one encoder-style block on n tokens, attention vs FFN (biases left out).

    ``attn_params`` 4·d², ``ffn_params`` 2·d·d_ff; ``attn_flops`` 8·n·d² + 4·n²·d (projections, QKᵀ, AV, the
    full n×n products), or 8·n·d² + 2·n·(n+1)·d with ``causal=True`` (a kernel that computes only the n(n+1)/2
    scores with j ≤ i); ``ffn_flops`` 4·n·d·d_ff; a multiply-add counts 2, as in ``FlopCounterMode``.
    d_ff defaults to 4·d.
    """
    d = check_positive_int(d_model, "d_model")
    n = check_positive_int(n, "n")
    f = 4 * d if d_ff is None else check_positive_int(d_ff, "d_ff")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be a bool: got {type(causal).__name__}")
    mixing = 2 * n * (n + 1) * d if causal else 4 * n * n * d
    return {
        "attn_params": 4 * d * d,
        "ffn_params": 2 * d * f,
        "attn_flops": 8 * n * d * d + mixing,
        "ffn_flops": 4 * n * d * f,
    }


def ffn_gradient_norms(
    norm_first: bool,
    num_layers: int,
    d_model: int = 32,
    num_heads: int = 4,
    n: int = 8,
    batch: int = 4,
    vocab_size: int = 64,
    seed: int = 0,
) -> torch.Tensor:
    """Frobenius norm of dLoss/dW of each layer's second FFN matrix at initialisation: (num_layers,) float64.

    A causal stack of ``num_layers`` post-LN or pre-LN blocks (pre-LN with a final LayerNorm), Xavier-normal
    weights and zero biases (Xiong et al. 2020), random token embeddings tied to the output, cross-entropy on
    random targets; float64 and a seeded generator, so the numbers are the same on every machine.
    """
    num_layers = check_positive_int(num_layers, "num_layers")
    gen = torch.Generator().manual_seed(int(seed))
    layers = nn.ModuleList(
        EncoderLayer(d_model, num_heads, 4 * d_model, norm_first=norm_first) for _ in range(num_layers)
    ).double()
    for m in layers.modules():
        if isinstance(m, nn.Linear):
            with torch.no_grad():
                std = math.sqrt(2.0 / (m.in_features + m.out_features))  # Xavier normal
                m.weight.copy_(torch.randn(m.weight.shape, dtype=torch.float64, generator=gen) * std)
                m.bias.zero_()
    final = nn.LayerNorm(d_model).double() if norm_first else nn.Identity()
    emb = torch.randn(vocab_size, d_model, dtype=torch.float64, generator=gen)  # (V, d)
    tokens = torch.randint(0, vocab_size, (batch, n), generator=gen)  # (B, n)
    targets = torch.randint(0, vocab_size, (batch, n), generator=gen)  # (B, n)
    x = emb[tokens]  # (B, n, d)
    mask = causal_mask(n)
    for layer in layers:
        x = layer(x, mask=mask)
    logits = final(x) @ emb.T  # (B, n, V)
    loss = F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))
    grads = torch.autograd.grad(loss, [layer.ffn.linear2.weight for layer in layers])
    return torch.stack([g.norm() for g in grads])  # (num_layers,)


class _SkipRandomInit(TorchFunctionMode):
    """Turn in-place random initialisation into a no-op (meta tensors hold no values to initialise)."""

    _SKIP = (
        torch.Tensor.normal_,
        torch.Tensor.uniform_,
        nn.init.normal_,
        nn.init.uniform_,
        nn.init.kaiming_uniform_,
    )

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if func in self._SKIP:
            return args[0] if args else (kwargs or {})["tensor"]
        return func(*args, **(kwargs or {}))


def count_parameters(build: Callable[[], nn.Module]) -> int:
    """Parameters of ``build()`` built on the meta device: shapes only, no memory, no random init.

    Skipping the init matters for speed only: PyTorch's meta ``normal_`` imports its compiler on first use.
    A tied matrix counts once, as in ``sum(p.numel() for p in module.parameters())``.
    """
    if not callable(build) or isinstance(build, nn.Module):
        raise ValueError(f"build must be a callable returning an nn.Module: got {type(build).__name__}")
    with torch.device("meta"), _SkipRandomInit():
        module = build()
    if not isinstance(module, nn.Module):
        raise ValueError(f"build must return an nn.Module: got {type(module).__name__}")
    return sum(p.numel() for p in module.parameters())

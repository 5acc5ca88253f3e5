"""Transformer layers and models against PyTorch's own layers and against published parameter counts."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from selfattention import (
    DecoderLayer,
    DecoderOnlyLM,
    EncoderDecoder,
    EncoderLayer,
    RMSNorm,
    SwiGLU,
    prefix_lm_mask,
    trace_calls,
)
from selfattention.masks import causal_mask
from selfattention.transformer import block_cost, count_parameters, ffn_gradient_norms

D, H, FF = 32, 4, 64


def _torch_causal(n: int) -> torch.Tensor:
    """torch convention: True = blocked (above the diagonal)."""
    return torch.ones(n, n, dtype=torch.bool).triu(1)


def _torch_pad(lengths: list[int], n: int) -> torch.Tensor:
    """torch key_padding_mask: True = padding (blocked)."""
    return torch.arange(n)[None, :] >= torch.tensor(lengths)[:, None]


def _ours(attn_block: torch.Tensor | None, key_pad: torch.Tensor | None) -> torch.Tensor | None:
    """Convert torch masks (True = blocked) to ours (True = may attend), shape (B, 1, n_q, n_k)."""
    ok = None
    if attn_block is not None:
        ok = (~attn_block)[None, None]  # (1, 1, n_q, n_k)
    if key_pad is not None:
        kp = (~key_pad)[:, None, None, :]  # (B, 1, 1, n_k)
        ok = kp if ok is None else ok & kp
    return ok


MASKS = ["none", "causal", "padding", "causal+padding"]


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("masks", MASKS)
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_equals_torch(norm_first, masks, activation):
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(
        D, H, FF, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    ).eval()
    with torch.no_grad():  # non-trivial LayerNorm parameters, so a swapped norm would show
        for p in (ref.norm1.weight, ref.norm1.bias, ref.norm2.weight, ref.norm2.bias):
            p.normal_()
    ours = EncoderLayer.from_torch(ref).eval()
    n, lengths = 7, [7, 5, 2]
    x = torch.randn(3, n, D)
    causal = _torch_causal(n) if "causal" in masks else None
    pad = _torch_pad(lengths, n) if "padding" in masks else None
    with torch.no_grad():
        want = ref(x, src_mask=causal, src_key_padding_mask=pad)
        got = ours(x, mask=_ours(causal, pad))
    real = ~_torch_pad(lengths, n) if pad is not None else torch.ones(3, n, dtype=torch.bool)
    # torch's fast path may write anything at padded query rows; compare the real tokens
    torch.testing.assert_close(got[real], want[real], atol=1e-5, rtol=0)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("masks", MASKS)
def test_decoder_layer_equals_torch(norm_first, masks):
    torch.manual_seed(1)
    ref = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True, norm_first=norm_first).eval()
    with torch.no_grad():
        for norm in (ref.norm1, ref.norm2, ref.norm3):
            norm.weight.normal_()
            norm.bias.normal_()
    ours = DecoderLayer.from_torch(ref).eval()
    n, m = 5, 6
    tgt, memory = torch.randn(3, n, D), torch.randn(3, m, D)
    causal = _torch_causal(n) if "causal" in masks else None
    tgt_pad = _torch_pad([5, 4, 3], n) if "padding" in masks else None
    mem_pad = _torch_pad([6, 3, 1], m) if "padding" in masks else None
    with torch.no_grad():
        want = ref(tgt, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                   memory_key_padding_mask=mem_pad)
        got = ours(tgt, memory, self_mask=_ours(causal, tgt_pad), memory_mask=_ours(None, mem_pad))
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def test_decoder_cross_attention_reads_memory():
    torch.manual_seed(2)
    layer = DecoderLayer(D, H, FF).eval()
    x, mem = torch.randn(1, 4, D), torch.randn(1, 6, D)
    with torch.no_grad():
        a = layer(x, mem)
        b = layer(x, mem + torch.randn_like(mem))
        masked = torch.ones(1, 1, 1, 6, dtype=torch.bool)
        masked[..., 3:] = False  # memory tokens 3.. are invisible
        c = layer(x, mem, memory_mask=masked)
        mem2 = mem.clone()
        mem2[:, 3:] += 5.0
        d = layer(x, mem2, memory_mask=masked)
    assert (a - b).abs().max() > 1e-3  # the output depends on the memory...
    torch.testing.assert_close(c, d, atol=1e-6, rtol=0)  # ...but not on masked memory tokens


@pytest.mark.parametrize("eps", [None, 1e-6])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rmsnorm_equals_torch(eps, dtype):
    torch.manual_seed(3)
    ref = nn.RMSNorm(D, eps=eps, dtype=dtype)
    with torch.no_grad():
        ref.weight.normal_()
    ours = RMSNorm(D, eps=eps).to(dtype)
    with torch.no_grad():
        ours.weight.copy_(ref.weight)
    x = 3.0 * torch.randn(4, 5, D, dtype=dtype) + 1.0  # a non-zero mean: RMSNorm must not subtract it
    torch.testing.assert_close(ours(x), ref(x), atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rmsnorm_of_large_16_bit_inputs_equals_torch(dtype):
    # |x| >= 256: x² overflows fp16 unless the statistic is taken in float32, as F.rms_norm does
    torch.manual_seed(3)
    weight = torch.randn(D).to(dtype)
    ours = RMSNorm(D, eps=1e-6).to(dtype)
    with torch.no_grad():
        ours.weight.copy_(weight)
    x = (300.0 * torch.randn(4, 5, D)).to(dtype)
    x[0, 0] = 300.0
    out = ours(x)
    assert bool(torch.isfinite(out).all()) and float(out[0, 0].float().abs().max()) > 0.1
    torch.testing.assert_close(out, F.rms_norm(x, (D,), weight, eps=1e-6), atol=0, rtol=0)
    torch.testing.assert_close(RMSNorm(D).to(dtype)(x), F.rms_norm(x, (D,)), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rmsnorm_of_16_bit_input_with_fp32_weight_keeps_the_input_dtype(dtype):
    # mixed dtypes (16-bit activations, fp32 weights, as under autocast): F.rms_norm returns the input's dtype
    torch.manual_seed(5)
    ours = RMSNorm(D, eps=1e-6)
    with torch.no_grad():
        ours.weight.normal_()
    assert ours.weight.dtype == torch.float32
    x = (3.0 * torch.randn(4, 5, D) + 1.0).to(dtype)
    ref = F.rms_norm(x, (D,), ours.weight.detach(), eps=1e-6)
    out = ours(x)
    assert ref.dtype == dtype and out.dtype == dtype
    torch.testing.assert_close(out, ref, atol=2 * torch.finfo(dtype).eps, rtol=2 * torch.finfo(dtype).eps)


def test_swiglu_parameters_shape_and_formula():
    torch.manual_seed(4)
    d, d_ff = 24, 40
    ffn = SwiGLU(d, d_ff)
    assert sum(p.numel() for p in ffn.parameters()) == 3 * d * d_ff  # three matrices, no biases
    assert sum(p.numel() for p in SwiGLU(d, d_ff, bias=True).parameters()) == 3 * d * d_ff + 2 * d_ff + d
    x = torch.randn(2, 5, d)
    y = ffn(x)
    assert y.shape == (2, 5, d)
    w1, w3, w2 = ffn.gate.weight, ffn.up.weight, ffn.down.weight
    h = x @ w1.T
    want = ((h * torch.sigmoid(h)) * (x @ w3.T)) @ w2.T  # Shazeer (2020), eq. for FFN_SwiGLU
    torch.testing.assert_close(y, want, atol=1e-6, rtol=1e-6)


def _count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def test_gpt2_small_parameter_count():
    """GPT-2 small (124M): the published count 124,439,808 and the closed formula."""
    V, n_ctx, d, L = 50257, 1024, 768, 12
    with torch.device("meta"):
        model = DecoderOnlyLM(V, d, L, 12, max_len=n_ctx)
    per_layer = 12 * d * d + 13 * d  # 4d² + 4d (attention) + 8d² + 5d (FFN) + 4d (two LayerNorms)
    assert _count(model) == V * d + n_ctx * d + L * per_layer + 2 * d == 124_439_808


@pytest.mark.parametrize(
    ("name", "V", "d", "L", "h", "kv", "d_ff", "published"),
    [
        ("Llama 2 7B", 32000, 4096, 32, 32, 32, 11008, 6_738_415_616),
        ("Llama 3 8B", 128256, 4096, 32, 32, 8, 14336, 8_030_261_248),
    ],
)
def test_llama_parameter_count(name, V, d, L, h, kv, d_ff, published):
    """RMSNorm, SwiGLU, GQA, no biases, untied head, RoPE (no parameters): the published counts."""
    with torch.device("meta"):
        model = DecoderOnlyLM(V, d, L, h, d_ff=d_ff, norm="rmsnorm", activation="swiglu", num_kv_heads=kv,
                              bias=False, positions="none", tie_weights=False)
    d_kv = d * kv // h
    per_layer = 2 * d * d + 2 * d * d_kv + 3 * d * d_ff + 2 * d  # q,o; k,v; SwiGLU; two RMSNorms
    assert _count(model) == 2 * V * d + L * per_layer + d == published, name


def test_tied_head_shares_the_embedding():
    model = DecoderOnlyLM(50, 16, 1, 2, max_len=8)
    untied = DecoderOnlyLM(50, 16, 1, 2, max_len=8, tie_weights=False)
    assert _count(untied) - _count(model) == 50 * 16
    tokens = torch.randint(0, 7, (1, 4))  # token 7 is not in the input: only the head can see row 7
    with torch.no_grad():
        base = model(tokens)
        model.tok_emb.weight[7] += torch.randn(16)  # changing the embedding row changes logit 7 only
        moved = model(tokens)
    diff = (moved - base).abs().amax(dim=(0, 1))  # (V,)
    assert diff[7] > 1e-3 and diff[torch.arange(50) != 7].max() == 0


def _flops(fn, *args, **kwargs) -> int:
    with FlopCounterMode(display=False) as counter:
        fn(*args, **kwargs)
    return int(counter.get_total_flops())


@pytest.mark.parametrize("variant", ["gpt", "llama"])
def test_forward_flops_are_two_per_parameter_plus_attention(variant):
    V, d, L, h, T = 96, 32, 3, 4, 20
    if variant == "gpt":
        model = DecoderOnlyLM(V, d, L, h, max_len=T)
        d_ff, kv = 4 * d, h
    else:
        d_ff, kv = 48, 2
        model = DecoderOnlyLM(V, d, L, h, d_ff=d_ff, norm="rmsnorm", activation="swiglu", num_kv_heads=kv,
                              bias=False, positions="none")
    tokens = torch.randint(0, V, (1, T))
    with torch.no_grad():
        explicit = _flops(model, tokens, explicit=True)
        fused = _flops(model, tokens)
    d_kv = d * kv // h
    ffn = (2 if variant == "gpt" else 3) * d * d_ff
    matmul_weights = L * (2 * d * d + 2 * d * d_kv + ffn) + V * d  # blocks + tied output head
    attention = 2 * 2 * L * T * T * d  # QK^T and AV, full n x n on the explicit path
    assert explicit == 2 * T * matmul_weights + attention
    # 2 * N_params minus what does no matrix product: positions, biases and norms (embedding lookup is free)
    n_pos = T * d if variant == "gpt" else 0
    n_vectors = sum(p.numel() for name, p in model.named_parameters() if p.ndim == 1)
    assert explicit == 2 * T * (_count(model) - n_pos - n_vectors) + attention
    # torch 2.13's fused CPU attention kernel has no FLOP formula: the counter misses exactly the n² terms
    assert fused == explicit - attention


def test_decoder_only_is_causal_and_encoder_is_not():
    torch.manual_seed(5)
    model = DecoderOnlyLM(40, 16, 2, 2, max_len=10).eval()
    a = torch.randint(0, 40, (1, 10))
    b = a.clone()
    b[0, 6:] = (a[0, 6:] + 1) % 40  # change every token after position 5
    everyone = torch.ones(10, 10, dtype=torch.bool)
    with torch.no_grad():
        causal_a, causal_b = model(a), model(b)
        enc_a, enc_b = model(a, mask=everyone), model(b, mask=everyone)
        pre_a, pre_b = model(a, mask=prefix_lm_mask(10, 8)), model(b, mask=prefix_lm_mask(10, 8))
    torch.testing.assert_close(causal_a[:, :6], causal_b[:, :6], atol=1e-6, rtol=0)
    assert (causal_a[:, 6:] - causal_b[:, 6:]).abs().max() > 1e-3
    assert (enc_a[:, :6] - enc_b[:, :6]).abs().amax(dim=-1).min() > 1e-4  # every position sees the change
    assert (pre_a[:, :6] - pre_b[:, :6]).abs().amax(dim=-1).min() > 1e-4  # the prefix is bidirectional


def test_prefix_lm_mask_values():
    want = torch.tensor(
        [[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool
    )
    assert torch.equal(prefix_lm_mask(4, 2), want)
    assert torch.equal(prefix_lm_mask(4, 0), torch.ones(4, 4, dtype=torch.bool).tril())
    assert prefix_lm_mask(4, 4).all()
    with pytest.raises(ValueError, match="prefix_len"):
        prefix_lm_mask(4, 5)


def test_trace_calls_gives_the_forward_order():
    x = torch.randn(1, 3, D)
    post = [name for name, _, _ in trace_calls(EncoderLayer(D, H, FF), x)]
    pre = [name for name, _, _ in trace_calls(EncoderLayer(D, H, FF, norm_first=True), x)]
    assert post == ["self_attn", "norm1", "ffn", "norm2"]
    assert pre == ["norm1", "self_attn", "norm2", "ffn"]
    params = {name: p for name, _, p in trace_calls(EncoderLayer(D, H, FF), x)}
    ffn = 2 * D * FF + FF + D
    assert params == {"self_attn": 4 * D * D + 4 * D, "norm1": 2 * D, "ffn": ffn, "norm2": 2 * D}


def test_residual_stream_is_the_sum_of_sublayer_outputs():
    torch.manual_seed(6)
    block = EncoderLayer(D, H, FF, norm_first=True).double()
    x = torch.randn(2, 5, D, dtype=torch.float64)
    adds = []
    record = lambda _m, _i, out: adds.append(out)  # noqa: E731
    hooks = [m.register_forward_hook(record) for m in (block.self_attn, block.ffn)]
    with torch.no_grad():
        y = block(x)
    for hk in hooks:
        hk.remove()
    torch.testing.assert_close(y, x + adds[0] + adds[1], atol=1e-12, rtol=0)


def test_encoder_decoder_2017_shape():
    """Transformer base: tied embeddings, embeddings · sqrt(d), a causal decoder that reads the source."""
    V, d, L = 37000, 512, 6
    with torch.device("meta"):
        base = EncoderDecoder(V)
    enc = 4 * d * d + 4 * d + 2 * d * 2048 + 2048 + d + 4 * d
    dec = 2 * (4 * d * d + 4 * d) + 2 * d * 2048 + 2048 + d + 6 * d
    assert _count(base) == V * d + L * (enc + dec)  # one shared V x d table
    torch.manual_seed(7)
    small = EncoderDecoder(30, d_model=16, num_heads=2, num_layers=2, d_ff=32, max_len=12).eval()
    src, tgt = torch.randint(0, 30, (1, 7)), torch.randint(0, 30, (1, 6))
    emb = small.embed_tokens(tgt)
    want = small.embed.weight[tgt] * 4.0 + small.pe[:6]  # sqrt(16) = 4
    torch.testing.assert_close(emb, want)
    tgt2, src2 = tgt.clone(), src.clone()
    tgt2[0, 4:] = (tgt[0, 4:] + 1) % 30
    src2[0, -1] = (src[0, -1] + 1) % 30
    with torch.no_grad():
        out, out_t, out_s = small(src, tgt), small(src, tgt2), small(src2, tgt)
        out_len = small(src, tgt, src_lengths=torch.tensor([6]))
        out_len_s = small(src2, tgt, src_lengths=torch.tensor([6]))
    assert out.shape == (1, 6, 30)
    torch.testing.assert_close(out[:, :4], out_t[:, :4], atol=1e-5, rtol=0)  # causal in the target
    assert (out[:, 4:] - out_t[:, 4:]).abs().max() > 1e-3
    assert (out - out_s).abs().amax(dim=-1).min() > 1e-4  # every target position reads the last source token
    torch.testing.assert_close(out_len, out_len_s, atol=1e-5, rtol=0)  # unless it is padding


def test_pre_ln_encoder_decoder_normalises_memory_and_output():
    """norm_first=True: a final LayerNorm on the encoder stack (the memory cross-attention reads) and on the
    decoder stack (before the tied head), as in pre-LN encoder-decoders; post-LN adds none."""
    torch.manual_seed(8)
    kw = dict(d_model=16, num_heads=2, num_layers=2, d_ff=32, max_len=12)
    post = EncoderDecoder(30, **kw).double().eval()
    pre = EncoderDecoder(30, norm_first=True, **kw).double().eval()
    assert _count(pre) == _count(post) + 2 * 2 * 16  # two final norms (gain, bias)
    assert isinstance(post.enc_norm, nn.Identity) and isinstance(post.dec_norm, nn.Identity)
    src, tgt = torch.randint(0, 30, (2, 7)), torch.randint(0, 30, (2, 6))
    with torch.no_grad():
        memory = pre.embed_tokens(src)
        for layer in pre.encoder:
            memory = layer(memory)
        memory = nn.functional.layer_norm(memory, (16,))  # what cross-attention must read
        x = pre.embed_tokens(tgt)
        for layer in pre.decoder:
            x = layer(x, memory, self_mask=causal_mask(6))
        want = nn.functional.layer_norm(x, (16,)) @ pre.embed.weight.T
        torch.testing.assert_close(pre(src, tgt), want, atol=1e-12, rtol=0)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="activation"):
        EncoderLayer(D, H, FF, activation="tanh")
    with pytest.raises(ValueError, match="norm"):
        EncoderLayer(D, H, FF, norm="batchnorm")
    with pytest.raises(ValueError, match=r"d_model=32.*\(1, 3, 8\)"):
        EncoderLayer(D, H, FF)(torch.randn(1, 3, 8))
    with pytest.raises(ValueError, match="memory"):
        DecoderLayer(D, H, FF)(torch.randn(1, 3, D), torch.randn(1, 3, 8))
    lm = DecoderOnlyLM(10, 8, 1, 2, max_len=4)
    with pytest.raises(ValueError, match="vocab_size=10"):
        lm(torch.tensor([[3, 10]]))
    with pytest.raises(ValueError, match="max_len=4"):
        lm(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="integer"):
        lm(torch.zeros(1, 3))
    with pytest.raises(ValueError, match="TransformerEncoderLayer"):
        EncoderLayer.from_torch(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="x must have last dim d=4"):
        RMSNorm(4)(torch.randn(2, 3))


@pytest.mark.parametrize(("d", "n", "d_ff"), [(32, 8, None), (32, 64, None), (16, 40, 24)])
def test_block_cost_matches_the_flop_counter(d, n, d_ff):
    block = EncoderLayer(d, 4, 4 * d if d_ff is None else d_ff)
    x = torch.randn(1, n, d)
    with torch.no_grad():
        with FlopCounterMode(display=False) as attn_counter:
            block.self_attn(x, return_weights=True)
        with FlopCounterMode(display=False) as ffn_counter:
            block.ffn(x)
    cost = block_cost(d, n, d_ff)
    assert cost["attn_flops"] == attn_counter.get_total_flops()
    assert cost["ffn_flops"] == ffn_counter.get_total_flops()
    assert cost["attn_params"] == block.self_attn.q_proj.weight.numel() * 4
    assert cost["ffn_params"] == block.ffn.linear1.weight.numel() + block.ffn.linear2.weight.numel()


def test_block_cost_crossover_at_n_equals_2d():
    d = 64  # with d_ff = 4d the FFN (16 n d²) equals attention (8 n d² + 4 n² d) exactly at n = 2d
    below, at, above = (block_cost(d, n) for n in (2 * d - 1, 2 * d, 2 * d + 1))
    assert below["ffn_flops"] > below["attn_flops"]
    assert at["ffn_flops"] == at["attn_flops"]
    assert above["ffn_flops"] < above["attn_flops"]


@pytest.mark.parametrize(("d", "n"), [(8, 1), (8, 12), (16, 7)])
def test_block_cost_causal_matches_a_kernel_that_skips_masked_scores(d, n):
    """causal=True counts only the n(n+1)/2 scores j <= i: flash_attention with 1x1 tiles skips the rest."""
    from selfattention import flash_attention

    q, k, v = (torch.randn(1, 1, n, d) for _ in range(3))
    with FlopCounterMode(display=False) as counter:
        flash_attention(q, k, v, causal=True, block_size=1)
    projections = 8 * n * d * d
    assert block_cost(d, n, causal=True)["attn_flops"] == projections + counter.get_total_flops()
    assert block_cost(d, n, causal=True)["ffn_flops"] == block_cost(d, n)["ffn_flops"]
    if n > 1:  # the full products count every score, the causal ones about half
        assert block_cost(d, n, causal=True)["attn_flops"] < block_cost(d, n)["attn_flops"]


def test_block_cost_causal_crossover_at_n_equals_4d_minus_1():
    d = 32  # 8 n d² + 2 n (n+1) d = 16 n d²  <=>  n + 1 = 4d
    below, at, above = (block_cost(d, n, causal=True) for n in (4 * d - 2, 4 * d - 1, 4 * d))
    assert below["ffn_flops"] > below["attn_flops"]
    assert at["ffn_flops"] == at["attn_flops"]
    assert above["ffn_flops"] < above["attn_flops"]
    with pytest.raises(ValueError, match="causal must be a bool"):
        block_cost(d, 4, causal="yes")


def test_pre_ln_top_gradient_shrinks_with_depth_post_ln_does_not():
    """Xiong et al. (2020), Thm 1: last FFN gradient O(d sqrt(ln d)) post-LN, O(d sqrt(ln d / L)) pre-LN."""

    def last(norm_first: bool, depth: int) -> float:
        runs = [ffn_gradient_norms(norm_first, depth, seed=s) for s in range(3)]
        return float(torch.stack(runs).mean(0)[-1])

    post4, post16, pre4, pre16 = last(False, 4), last(False, 16), last(True, 4), last(True, 16)
    assert post16 / post4 > 0.8  # measured 1.37: post-LN's top gradient does not shrink with depth
    assert pre16 / pre4 < 0.8  # measured 0.64: pre-LN's does
    assert post16 / pre16 > 3.0  # measured 4.7
    g = ffn_gradient_norms(True, 8)
    assert g.dtype == torch.float64 and g.shape == (8,)
    assert torch.equal(g, ffn_gradient_norms(True, 8))  # seeded: the same numbers on every call


def test_count_parameters_on_meta_equals_a_real_build():
    def build() -> nn.Module:
        return DecoderOnlyLM(60, 16, 2, 4, d_ff=24, activation="swiglu", num_kv_heads=2, max_len=9)

    assert count_parameters(build) == _count(build())
    assert count_parameters(lambda: EncoderDecoder(50, 16, 2, 1, 32, max_len=8)) == _count(
        EncoderDecoder(50, 16, 2, 1, 32, max_len=8)
    )
    real = nn.TransformerDecoderLayer(16, 2, 32)
    assert count_parameters(lambda: nn.TransformerDecoderLayer(16, 2, 32)) == _count(real)
    with pytest.raises(ValueError, match="build must be a callable"):
        count_parameters(DecoderOnlyLM(10, 8, 1, 2))
    with pytest.raises(ValueError, match="must return an nn.Module"):
        count_parameters(lambda: 3)

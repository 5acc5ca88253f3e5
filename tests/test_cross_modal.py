"""Cross-attention beyond translation and nn.MultiheadAttention's masks, against PyTorch."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from selfattention import (
    GatedCrossAttention,
    MultiHeadAttention,
    TargetAttention,
    causal_mask,
    combine_masks,
    key_padding_to_attn_mask,
    padding_mask,
    to_torch_mha_masks,
)


def _pair(E: int = 8, h: int = 2) -> tuple[nn.MultiheadAttention, MultiHeadAttention]:
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(E, h, batch_first=True).double()
    return ref, MultiHeadAttention.from_torch(ref)


@pytest.mark.parametrize("shape", ["LS", "BLS", "BhLS"])
def test_torch_mha_masks_match_ours(shape: str) -> None:
    B, L, h, E = 2, 5, 2, 8
    ref, ours = _pair(E, h)
    x = torch.randn(B, L, E, dtype=torch.float64)
    pad = padding_mask([5, 3], L)  # (B, L), True = real
    g = torch.Generator().manual_seed(1)
    if shape == "LS":
        m = causal_mask(L)
    elif shape == "BLS":
        m = torch.rand(B, L, L, generator=g) > 0.4
    else:  # a different pattern per head: tells batch-major (b*h + head) from head-major
        m = torch.rand(B, h, L, L, generator=g) > 0.4
    m = m | torch.eye(L, dtype=torch.bool)  # each query keeps itself (a real key in both sequences' first 3)
    attn, kpm = to_torch_mha_masks(m, pad, num_heads=h)
    with torch.no_grad():
        ours_m = m[:, None] if m.ndim == 3 else m  # ours broadcasts to (B, h, L, S): add a head dim
        want = ours(x, mask=combine_masks(ours_m, key_padding_to_attn_mask(pad)))
        got = ref(x, x, x, attn_mask=attn, key_padding_mask=kpm, need_weights=False)[0]
    rows = pad  # queries that are real tokens (padded queries differ: their self key is padded)
    torch.testing.assert_close(got[rows], want[rows], rtol=0, atol=1e-12)
    if shape == "BhLS":  # head-major order would hand head 0's pattern to the wrong batch row
        wrong = (~m).transpose(0, 1).reshape(B * h, L, L)
        with torch.no_grad():
            bad = ref(x, x, x, attn_mask=wrong, key_padding_mask=kpm, need_weights=False)[0]
        assert float((bad[rows] - want[rows]).abs().max()) > 1e-3


def test_torch_mha_float_masks_add_and_bool_masks_block() -> None:
    B, L, h, E = 2, 4, 2, 8
    ref, _ = _pair(E, h)
    x = torch.randn(B, L, E, dtype=torch.float64)
    pad, causal = padding_mask([4, 2], L), causal_mask(L)
    attn, kpm = to_torch_mha_masks(causal, pad, num_heads=h)
    f_attn = torch.zeros(L, L, dtype=torch.float64).masked_fill(attn, float("-inf"))
    f_kpm = torch.zeros(B, L, dtype=torch.float64).masked_fill(kpm, float("-inf"))
    with torch.no_grad():
        a = ref(x, x, x, attn_mask=attn, key_padding_mask=kpm)[0]
        b = ref(x, x, x, attn_mask=f_attn, key_padding_mask=f_kpm)[0]
        c = ref(x, x, x, attn_mask=f_attn + 5.0, key_padding_mask=f_kpm)[0]  # a float mask is added
    torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    torch.testing.assert_close(b, c, rtol=0, atol=1e-12)  # a constant per row cancels in the softmax


@pytest.mark.parametrize("lead", [(1,), (1, 1)])
def test_a_broadcast_mask_becomes_2d_and_works_for_any_batch(lead: tuple[int, ...]) -> None:
    B, L, h, E = 3, 5, 2, 8
    ref, ours = _pair(E, h)
    x = torch.randn(B, L, E, dtype=torch.float64)
    m = causal_mask(L).reshape(*lead, L, L)  # (1, L, S) or (1, 1, L, S): the course's broadcast shapes
    attn, _ = to_torch_mha_masks(m, num_heads=h)
    assert attn.shape == (L, L) and torch.equal(attn, ~causal_mask(L))
    with torch.no_grad():
        got = ref(x, x, x, attn_mask=attn, need_weights=False)[0]  # B = 3: a (h, L, S) mask would be refused
        want = ours(x, mask=causal_mask(L))
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)


def test_to_torch_mha_masks_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="boolean"):
        to_torch_mha_masks(torch.zeros(3, 3))
    with pytest.raises(ValueError, match="head dim"):
        to_torch_mha_masks(torch.ones(2, 3, 4, 4, dtype=torch.bool), num_heads=2)
    with pytest.raises(ValueError, match="pad must be"):
        to_torch_mha_masks(pad=torch.ones(4, dtype=torch.bool))
    assert to_torch_mha_masks() == (None, None)


def test_gated_cross_attention_is_the_identity_at_initialisation_and_learns_its_gates() -> None:
    torch.manual_seed(0)
    blk = GatedCrossAttention(8, 2).double()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    media = torch.randn(2, 3, 8, dtype=torch.float64)
    out = blk(x, media)
    assert torch.equal(out, x)  # tanh(0) = 0: the frozen LM sees exactly its own hidden states
    out.pow(2).sum().backward()
    assert float(blk.attn.q_proj.weight.grad.abs().max()) == 0.0  # nothing flows past a closed gate
    assert float(blk.alpha_attn.grad.abs()) > 1e-6 and float(blk.alpha_ffn.grad.abs()) > 1e-6
    with torch.no_grad():
        blk.alpha_attn.fill_(0.5)
        y1, y2 = blk(x, media), blk(x, media + 1.0)
    assert float((y1 - y2).abs().max()) > 1e-3  # an open gate reads the images


def test_target_attention_with_dot_scores_and_softmax_is_one_query_cross_attention() -> None:
    torch.manual_seed(0)
    ta = TargetAttention(8, scorer="dot", normalise=True).double()
    c, e = torch.randn(3, 8, dtype=torch.float64), torch.randn(3, 6, 8, dtype=torch.float64)
    pad = padding_mask([6, 4, 1], 6)
    want = F.scaled_dot_product_attention(c[:, None], e, e, attn_mask=pad[:, None, :])[:, 0]
    torch.testing.assert_close(ta(c, e, pad), want, rtol=0, atol=1e-12)


def test_din_keeps_the_intensity_of_interest_and_softmax_does_not() -> None:
    torch.manual_seed(0)
    din = TargetAttention(8, scorer="mlp", normalise=False).double()
    soft = TargetAttention(8, scorer="mlp", normalise=True).double()
    soft.load_state_dict(din.state_dict())  # the same scores, normalised or not
    c, e = torch.randn(2, 8, dtype=torch.float64), torch.randn(2, 5, 8, dtype=torch.float64)
    twice = torch.cat([e, e], dim=1)  # the same history, every behaviour repeated
    torch.testing.assert_close(din(c, twice), 2 * din(c, e), rtol=0, atol=1e-12)
    torch.testing.assert_close(soft(c, twice), soft(c, e), rtol=0, atol=1e-12)
    with torch.no_grad():
        assert float((din(c, e) - soft(c, e)).abs().max()) > 1e-3


def test_target_attention_padding_and_errors() -> None:
    torch.manual_seed(0)
    c, e = torch.randn(2, 4, dtype=torch.float64), torch.randn(2, 3, 4, dtype=torch.float64)
    pad = padding_mask([2, 0], 3)
    for normalise in (False, True):
        ta = TargetAttention(4, normalise=normalise).double()
        w = ta.weights(c, e, pad)
        assert bool((w[~pad] == 0).all()) and not bool(torch.isnan(w).any())
        e2 = e.clone()
        e2[0, 2] = 100.0  # a padded behaviour changes nothing
        torch.testing.assert_close(ta(c, e2, pad)[0], ta(c, e, pad)[0], rtol=0, atol=0)
    with pytest.raises(ValueError, match="scorer"):
        TargetAttention(4, scorer="cosine")
    with pytest.raises(ValueError, match="candidate"):
        TargetAttention(4)(torch.randn(2, 5), e)
    with pytest.raises(ValueError, match="behaviours"):
        TargetAttention(4)(c, torch.randn(3, 3, 4))
    with pytest.raises(ValueError, match="pad"):
        TargetAttention(4)(c, e, torch.ones(2, 4, dtype=torch.bool))

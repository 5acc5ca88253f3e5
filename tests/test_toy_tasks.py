"""Tests of selfattention.toy_tasks: the partner data, the toy model and its training loop."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention.toy_tasks import (
    ToyAttentionModel,
    make_partner_data,
    toy_accuracy,
    toy_loss,
    train_toy_model,
)


def test_partner_data_structure() -> None:
    d = make_partner_data(50, num_pairs=6, pairs_per_seq=3, num_payloads=5, seed=1)
    assert d.tokens.shape == d.payloads.shape == d.partner.shape == (50, 6)
    assert d.seq_len == 6 and d.num_tokens == 12
    # the partner of token t is token t ^ 1, never the position itself, and partnership is symmetric
    torch.testing.assert_close(d.tokens.gather(1, d.partner), d.tokens ^ 1)
    assert (d.partner != torch.arange(6)).all()
    torch.testing.assert_close(d.partner.gather(1, d.partner), torch.arange(6).expand(50, 6))
    # each sequence holds distinct tokens (both members of distinct pairs)
    assert all(len(set(row.tolist())) == 6 for row in d.tokens)
    assert d.payloads.min() >= 0 and d.payloads.max() < 5


def test_partner_targets() -> None:
    d = make_partner_data(4, seed=2)
    for b in range(4):
        for i in range(d.seq_len):
            assert d.target("partner")[b, i] == d.payloads[b, d.partner[b, i]]
            assert d.target("prev")[b, i] == d.payloads[b, i - 1]  # i - 1 = -1 wraps to the last position
    with pytest.raises(ValueError, match="target"):
        d.target("next")


def test_partner_data_is_deterministic_given_seed() -> None:
    a, b, c = make_partner_data(8, seed=3), make_partner_data(8, seed=3), make_partner_data(8, seed=4)
    assert torch.equal(a.tokens, b.tokens) and torch.equal(a.payloads, b.payloads)
    assert not torch.equal(a.tokens, c.tokens)


def test_partner_data_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="pairs_per_seq"):
        make_partner_data(4, num_pairs=3, pairs_per_seq=4)
    with pytest.raises(ValueError, match="num_sequences"):
        make_partner_data(0)


def _model(**kw: object) -> ToyAttentionModel:
    return ToyAttentionModel(num_tokens=32, num_payloads=16, seq_len=8, d_model=16, **kw)  # type: ignore[arg-type]


def test_model_shapes_and_weights_are_distributions() -> None:
    d = make_partner_data(5, seed=0)
    m = _model(num_heads=2, num_targets=2, positions=True, residual=True)
    logits, w = m(d.tokens, d.payloads)
    assert logits.shape == (5, 2, 8, 16) and w.shape == (5, 2, 8, 8)
    torch.testing.assert_close(w.sum(-1), torch.ones(5, 2, 8, dtype=torch.float64))


def test_model_trains_in_float64_by_default_and_float32_on_request() -> None:
    """float64 keeps stored notebook outputs equal across CPU kernels; float32 remains available."""
    d = make_partner_data(3, seed=0)
    assert all(p.dtype == torch.float64 for p in _model().parameters())
    assert _model()(d.tokens, d.payloads)[0].dtype == torch.float64
    m32 = _model(dtype=torch.float32)
    assert all(p.dtype == torch.float32 for p in m32.parameters())
    # same seed, same initial values (drawn in float32, then widened)
    torch.testing.assert_close(m32.q_proj.weight.double(), _model().q_proj.weight, rtol=0, atol=0)


def test_shared_qk_gives_symmetric_scores() -> None:
    m = _model(shared_qk=True)
    assert m.k_proj is m.q_proj
    assert sum(p.numel() for p in _model().parameters()) - sum(p.numel() for p in m.parameters()) == 16 * 16
    d = make_partner_data(3, seed=0)
    z = m.norm(m.tok_emb(d.tokens) + m.pay_emb(d.payloads))
    s = m.q_proj(z) @ m.k_proj(z).transpose(-2, -1)
    torch.testing.assert_close(s, s.transpose(-2, -1))


def test_score_scale_modes() -> None:
    assert _model(scale="sqrt_dk").score_scale().item() == pytest.approx(1 / 4)
    assert _model(scale="none").score_scale().item() == 1.0
    learned = _model(scale="learned")
    assert learned.score_scale().item() == pytest.approx(1 / 4)
    assert learned.log_inv_temp is not None and learned.log_inv_temp.requires_grad
    with pytest.raises(ValueError, match="scale"):
        _model(scale="d_k")


def test_model_weights_match_library_attention() -> None:
    from selfattention import scaled_dot_product_attention

    d = make_partner_data(3, seed=0)
    m = _model(num_heads=2)
    _, w = m(d.tokens, d.payloads)
    z = m.norm(m.tok_emb(d.tokens) + m.pay_emb(d.payloads))
    split = lambda t: t.view(3, 8, 2, 8).transpose(1, 2)  # (B, h, n, d_k)
    _, ref = scaled_dot_product_attention(
        split(m.q_proj(z)), split(m.k_proj(z)), split(m.v_proj(z)), return_weights=True
    )
    torch.testing.assert_close(w, ref)


def test_model_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_heads"):
        _model(num_heads=3)
    m = _model()
    with pytest.raises(ValueError, match="tokens"):
        m(torch.zeros(2, 8, dtype=torch.long), torch.zeros(2, 7, dtype=torch.long))


def test_untrained_loss_is_near_log_num_payloads() -> None:
    d = make_partner_data(64, seed=0)
    assert toy_loss(_model(), d).item() == pytest.approx(math.log(16), rel=0.1)


def test_training_is_deterministic_and_learns() -> None:
    train, test = make_partner_data(128, seed=10), make_partner_data(128, seed=11)
    r1 = train_toy_model(_model(seed=5), train, test, steps=60)
    r2 = train_toy_model(_model(seed=5), train, test, steps=60)
    assert r1.losses == r2.losses and r1.accuracy == r2.accuracy
    assert len(r1.losses) == 60
    assert r1.losses[-1] < 0.5 * r1.losses[0]
    base = toy_accuracy(_model(seed=5), test)["partner"]
    assert r1.accuracy["partner"] > base + 0.2


def test_training_restores_thread_count_and_checks_targets() -> None:
    before = torch.get_num_threads()
    d = make_partner_data(8, seed=0)
    train_toy_model(_model(), d, d, steps=1, optimizer="sgd")
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="targets"):
        train_toy_model(_model(), d, d, targets=("partner", "prev"), steps=1)
    with pytest.raises(ValueError, match="optimizer"):
        train_toy_model(_model(), d, d, steps=1, optimizer="lbfgs")


def test_head_dim_decouples_head_width_from_d_model() -> None:
    d = make_partner_data(3, seed=0)
    m = _model(num_heads=2, head_dim=12)
    assert m.d_k == 12 and m.q_proj.weight.shape == (24, 16) and m.out_proj.weight.shape == (16, 24)
    assert m.score_scale().item() == pytest.approx(1 / math.sqrt(12))
    logits, w = m(d.tokens, d.payloads)
    assert logits.shape == (3, 1, 8, 16) and w.shape == (3, 2, 8, 8)


def test_model_seed_does_not_touch_the_global_rng() -> None:
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _model(seed=7)
    assert torch.equal(torch.rand(3), expected)
    a, b = _model(seed=7), _model(seed=7)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))

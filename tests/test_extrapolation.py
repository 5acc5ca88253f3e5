"""Tests for selfattention.extrapolation: the key-recall data, the one-layer model, training and the split."""

from __future__ import annotations

import math

import pytest
import torch

from selfattention.bias import alibi_slopes
from selfattention.extrapolation import (
    KeyRecallModel,
    key_recall_accuracy,
    make_key_recall_data,
    train_key_recall,
)
from selfattention.positional import rope_frequencies


def test_key_recall_data_layout() -> None:
    g = torch.Generator().manual_seed(0)
    tokens, labels, key_pos = make_key_recall_data(200, 10, vocab_size=5, generator=g)
    assert tokens.shape == (200, 10) and labels.shape == key_pos.shape == (200,)
    assert torch.equal(tokens[torch.arange(200), key_pos], labels)  # the key sits at key_pos
    assert (tokens[:, -1] == 10).all()  # the query token 2V
    body = tokens[:, :-1].clone()
    body[torch.arange(200), key_pos] = 7  # blank the key: the rest are fillers V..2V-1
    assert ((body >= 5) & (body < 10)).all()
    assert (labels < 5).all() and key_pos.min() == 0 and key_pos.max() == 8  # uniform over 0..n-2
    with pytest.raises(ValueError, match="n must be >= 3"):
        make_key_recall_data(4, 2)


def test_learned_table_refuses_longer_inputs_the_others_run() -> None:
    tokens = make_key_recall_data(3, 20, generator=torch.Generator().manual_seed(1))[0]
    for kind in ("none", "sinusoidal", "rope", "alibi"):
        assert KeyRecallModel(8, 16, 2, 10, kind)(tokens).shape == (3, 8)
    with pytest.raises(ValueError, match="max_len"):
        KeyRecallModel(8, 16, 2, 10, "learned")(tokens)
    with pytest.raises(ValueError, match="scaling and frequencies apply to positions='rope' only"):
        KeyRecallModel(8, 16, 2, 10, "alibi")(tokens, scaling="linear", factor=2.0)
    with pytest.raises(ValueError, match="positions must be one of"):
        KeyRecallModel(8, 16, 2, 10, "t5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="even integer"):
        KeyRecallModel(8, 12, 4, 10, "rope")


def test_nope_sees_a_bag_of_tokens_positions_do_not() -> None:
    torch.manual_seed(2)
    tokens = make_key_recall_data(4, 12, generator=torch.Generator().manual_seed(2))[0]
    perm = torch.cat([torch.randperm(11), torch.tensor([11])])  # shuffle everything but the query
    for kind, invariant in (("none", True), ("sinusoidal", False), ("rope", False), ("alibi", False)):
        model = KeyRecallModel(8, 16, 2, 12, kind).double().eval()
        with torch.no_grad():
            gap = (model(tokens) - model(tokens[:, perm])).abs().max().item()
        assert (gap < 1e-12) == invariant, (kind, gap)


def test_alibi_scores_carry_the_slopes() -> None:
    # q = k = 0: scores = bias alone; each head averages the values with softmax(-m_h * distance).
    n = 6
    model = KeyRecallModel(8, 4, 2, 10, "alibi").double().eval()
    table = torch.zeros(n, 4, dtype=torch.float64)
    table[:, 0] = table[:, 2] = torch.arange(n, dtype=torch.float64)  # value feature of each head = position
    with torch.no_grad():
        for proj in (model.q_proj, model.k_proj):
            proj.weight.zero_()
            proj.bias.zero_()
        model.v_proj.weight.copy_(torch.eye(4, dtype=torch.float64))
        model.v_proj.bias.zero_()
        model.embed = torch.nn.Embedding.from_pretrained(table)  # token id t -> [t, 0, t, 0]
        model.head = torch.nn.Identity()
        out = model(torch.arange(n)[None])  # (1, 4): [mean position head 0, 0, mean position head 1, 0]
    distance = n - 1 - torch.arange(n, dtype=torch.float64)
    for h, m in enumerate(alibi_slopes(2).double()):
        w = torch.softmax(-m * distance, dim=0)
        assert out[0, 2 * h].item() == pytest.approx((w * torch.arange(n)).sum().item(), abs=1e-12)
    assert out[0, 0] > out[0, 2]  # the steeper head (m = 1/16) sits closer to the query


def test_training_solves_the_task_at_its_length_and_the_split_is_by_distance() -> None:
    torch.manual_seed(0)
    model = KeyRecallModel(8, 16, 2, 12, "none").double()
    losses = train_key_recall(model, 12, steps=150, batch_size=32, lr=1e-2, seed=0)
    assert losses[-1] < 0.1 < losses[0]
    data = make_key_recall_data(300, 12, generator=torch.Generator().manual_seed(5))
    at_l = key_recall_accuracy(model, *data)
    assert at_l["all"] > 0.95 and at_l["all"] == at_l["near"] and math.isnan(at_l["far"])  # no key beyond L
    tokens, labels, key_pos = make_key_recall_data(300, 24, generator=torch.Generator().manual_seed(6))
    res = key_recall_accuracy(model, tokens, labels, key_pos)
    far = (23 - key_pos) > 11  # distances 12..23 were never seen (training: 1..11)
    correct = (model(tokens).argmax(-1) == labels).double()
    assert res["far"] == pytest.approx(correct[far].mean().item())
    assert res["near"] == pytest.approx(correct[~far].mean().item())
    untrained = KeyRecallModel(8, 16, 2, 12, "none").double()
    assert key_recall_accuracy(untrained, *data)["all"] < 0.5  # chance is 1/8


@pytest.mark.parametrize("scaling", [None, "linear", "yarn"])
def test_rope_model_scores_depend_on_the_distance_to_the_query(scaling: str | None) -> None:
    # Reference written the relative way: q unrotated, key j rotated by j - (n - 1) = minus its distance.
    torch.manual_seed(7)
    n, factor = 9, (1.0 if scaling is None else 2.0)
    model = KeyRecallModel(8, 8, 2, 6, "rope", rope_base=100.0).double().eval()
    tokens = make_key_recall_data(3, n, generator=torch.Generator().manual_seed(7))[0]
    kw = dict(scaling=scaling, factor=factor, original_max_position=6 if scaling == "yarn" else None)
    theta = rope_frequencies(4, base=100.0, **kw)  # (2,) per head of width 4
    mscale2 = (0.1 * math.log(factor) + 1) ** 2 if scaling == "yarn" else 1.0
    with torch.no_grad():
        x = model.embed(tokens)
        q = model.q_proj(x[:, -1:]).view(3, 1, 2, 4).transpose(1, 2)  # (3, 2, 1, 4)
        k = model.k_proj(x).view(3, n, 2, 4).transpose(1, 2)  # (3, 2, n, 4)
        v = model.v_proj(x).view(3, n, 2, 4).transpose(1, 2)
        angle = (torch.arange(n) - (n - 1)).double()[:, None] * theta  # (n, 2)
        k1, k2 = k[..., 0::2], k[..., 1::2]
        rel = torch.stack((k1 * angle.cos() - k2 * angle.sin(), k1 * angle.sin() + k2 * angle.cos()), -1)
        scores = mscale2 * (q @ rel.flatten(-2).transpose(-2, -1)) / 2.0  # sqrt(d_head) = 2
        expected = model.head((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(3, 8))
        got = model(tokens, scaling=scaling, factor=factor)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)


def test_frequencies_override_reaches_the_rotation() -> None:
    torch.manual_seed(8)
    tokens = make_key_recall_data(5, 12, generator=torch.Generator().manual_seed(8))[0]
    model = KeyRecallModel(8, 16, 2, 12, "rope", rope_base=100.0).double().eval()
    theta = rope_frequencies(8, 100.0)
    with torch.no_grad():
        base_out = model(tokens)
        assert torch.equal(model(tokens, frequencies=theta), base_out)
        slower = theta.clone()
        slower[-1] /= 4  # the slowest pair only
        assert (model(tokens, frequencies=slower) - base_out).abs().max() > 1e-6
        torch.testing.assert_close(  # all pairs / 4 is position interpolation by 4
            model(tokens, frequencies=theta / 4),
            model(tokens, scaling="linear", factor=4.0),
            rtol=0,
            atol=1e-12,
        )
    with pytest.raises(ValueError, match="apply to positions='rope' only"):
        KeyRecallModel(8, 16, 2, 12, "none")(tokens, frequencies=theta)

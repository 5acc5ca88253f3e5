"""MoBA-style block top-k attention: exact when every block is kept, reads ~top_k·block_size keys
otherwise, never a future block under causal, and an approximation that can miss a relevant key."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from selfattention import block_topk_attention
from selfattention.dynamic_sparse import block_topk_mask


def _qkv(n_q=32, n_k=32, d=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(2, 3, n, d, dtype=torch.float64, generator=g) for n in (n_q, n_k, n_k))


@pytest.mark.parametrize("n_k", [32, 30])  # 30: a shorter last block
def test_all_blocks_equals_full_attention(n_k: int) -> None:
    q, k, v = _qkv(n_q=12, n_k=n_k)
    out = block_topk_attention(q, k, v, block_size=8, top_k=4)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), rtol=0, atol=1e-12)


def test_all_blocks_causal_equals_causal_attention() -> None:
    q, k, v = _qkv()
    out = block_topk_attention(q, k, v, block_size=8, top_k=4, causal=True)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-12)


def test_fewer_blocks_differs_and_reads_top_k_blocks() -> None:
    q, k, v = _qkv(n_q=16, n_k=64)
    out, mask = block_topk_attention(q, k, v, block_size=8, top_k=2, return_mask=True)
    assert (mask.sum(-1) == 2 * 8).all()  # exactly top_k * block_size keys per query, of n = 64
    assert (out - F.scaled_dot_product_attention(q, k, v)).abs().max() > 1e-3
    # the kept blocks are the two with the largest q . mean(K_block)
    means = k.unflatten(-2, (8, 8)).mean(-2)  # (2, 3, 8 blocks, d)
    best = (q @ means.transpose(-2, -1)).topk(2, dim=-1).indices.sort(-1).values
    got = mask.unflatten(-1, (8, 8)).any(-1).nonzero()[:, -1].view(2, 3, 16, 2)
    assert torch.equal(got, best)


def test_causal_never_future_always_own_block() -> None:
    q, k, v = _qkv(n_q=40, n_k=40)
    mask = block_topk_mask(q, k, block_size=8, top_k=2, causal=True)
    assert not (mask & ~torch.ones(40, 40, dtype=torch.bool).tril()).any()  # no future key
    i = torch.arange(40)
    own = (i[None, :] // 8 == i[:, None] // 8) & (i[None, :] <= i[:, None])  # own block, causal
    assert (mask | ~own).all()  # every query reads its own block up to itself
    # at most top_k blocks: own block (<= 8 keys) + one earlier block (8 keys)
    assert (mask.sum(-1) <= 16).all() and (mask.sum(-1)[..., 16:] > 8).all()


def test_misses_a_relevant_key_hidden_in_a_block() -> None:
    # one key matches the query strongly, but its block's other keys point away: the block mean loses
    d, bs = 4, 4
    q = torch.zeros(1, 1, 1, d, dtype=torch.float64)
    q[..., 0] = 1.0
    k = torch.zeros(1, 1, 16, d, dtype=torch.float64)
    k[..., 0, 0] = 12.0  # the relevant key, in block 0
    k[..., 1:4, 0] = -6.0  # its neighbours drag block 0's mean below 0
    k[..., 4:16, 0] = 0.5  # blocks 1-3: mild keys, mean 0.5
    v = torch.zeros(1, 1, 16, 2, dtype=torch.float64)
    v[..., 0, 0] = 1.0  # only the relevant key carries this value
    full = F.scaled_dot_product_attention(q, k, v)
    sparse, mask = block_topk_attention(q, k, v, block_size=bs, top_k=2, return_mask=True)
    assert full[..., 0].item() > 0.9  # full attention finds it
    assert not mask[..., 0].any() and sparse[..., 0].item() == 0.0  # block top-k never reads it
    # with every block kept it is exact again
    exact = block_topk_attention(q, k, v, block_size=bs, top_k=4)
    torch.testing.assert_close(exact, full, rtol=0, atol=1e-12)


def test_gradients_flow_to_selected_keys_only() -> None:
    q, k, v = (t.requires_grad_() for t in _qkv(n_q=4, n_k=32))
    out, mask = block_topk_attention(q, k, v, block_size=8, top_k=1, return_mask=True)
    out.sum().backward()
    read = mask.any(-2)  # (2, 3, n_k): keys some query reads
    assert (v.grad.abs().sum(-1)[~read] == 0).all() and (v.grad.abs().sum(-1)[read] > 0).all()


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        ({"block_size": 0, "top_k": 1}, "block_size"),
        ({"block_size": 4, "top_k": 0}, "top_k"),
        ({"block_size": 4, "top_k": 1.5}, "top_k"),
    ],
)
def test_bad_arguments(kwargs: dict, msg: str) -> None:
    q, k, v = _qkv()
    with pytest.raises(ValueError, match=msg):
        block_topk_attention(q, k, v, **kwargs)


def test_causal_needs_square() -> None:
    q, k, v = _qkv(n_q=8, n_k=16)
    with pytest.raises(ValueError, match="n_q == n_k"):
        block_topk_attention(q, k, v, block_size=4, top_k=2, causal=True)


def test_gate_is_the_true_mean_of_a_short_last_block() -> None:
    # n_k = 9, blocks of 4: the last block holds one key. Block sums 2.0, 1.2, 1.0; true means 0.5, 0.3,
    # 1.0; means over the padded size 0.5, 0.3, 0.25. Only the true mean ranks the short block first.
    q = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    k = torch.tensor([[0.5, 0.0]] * 4 + [[0.3, 0.0]] * 4 + [[1.0, 0.0]], dtype=torch.float64)
    mask = block_topk_mask(q, k, block_size=4, top_k=1)
    assert mask[0].tolist() == [False] * 8 + [True]


def test_gate_ranks_blocks_by_their_mean_with_a_short_last_block() -> None:
    q, k, _ = _qkv(n_q=16, n_k=30, seed=3)  # blocks of 8: the last holds 6 keys
    mask = block_topk_mask(q, k, block_size=8, top_k=2)
    means = torch.stack([k[..., s : s + 8, :].mean(-2) for s in range(0, 30, 8)], -2)  # (2, 3, 4, d)
    best = (q @ means.transpose(-2, -1)).topk(2, dim=-1).indices.sort(-1).values
    blocks = torch.stack([mask[..., s : s + 8].any(-1) for s in range(0, 30, 8)], -1)  # (2, 3, 16, 4)
    assert torch.equal(blocks.nonzero()[:, -1].view(2, 3, 16, 2), best)
    assert (blocks[..., 3].sum() > 0) and (mask.sum(-1) <= 16).all()  # the short block is chosen somewhere


def test_gate_in_float32_for_bf16_inputs() -> None:
    # MoBA's reference scores blocks in float32; a bf16 gate ranks blocks differently for some queries
    g = torch.Generator().manual_seed(1)  # with a bf16 gate, 1 of these 64 queries picks other blocks
    q = torch.randn(64, 64, generator=g).bfloat16()
    k = torch.randn(4096, 64, generator=g).bfloat16()
    got = block_topk_mask(q, k, block_size=512, top_k=2)
    assert torch.equal(got, block_topk_mask(q.float(), k.float(), block_size=512, top_k=2))

"""Tests for selfattention.long_range: recall data, classifiers, Adam, training, gradient vs distance."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from selfattention.long_range import (
    Adam,
    AttentionClassifier,
    RecurrentClassifier,
    gradient_norm_by_position,
    graph_depth,
    make_classifier,
    make_recall_data,
    recall_accuracy,
    run_recall,
    saved_tensor_bytes,
    steps_to_solve,
    train_recall,
)

# ---------------------------------------------------------------- data


def test_recall_data_layout() -> None:
    g = torch.Generator().manual_seed(0)
    tokens, labels = make_recall_data(200, 5, vocab_size=4, generator=g)
    assert tokens.shape == (200, 7) and labels.shape == (200,)
    assert tokens.dtype == torch.long
    assert torch.equal(labels, tokens[:, 0])
    assert tokens[:, -1].eq(4).all()  # the query token
    assert tokens[:, :-1].max() == 3 and tokens[:, :-1].min() == 0
    assert set(labels.tolist()) == {0, 1, 2, 3}


def test_recall_data_is_reproducible_and_zero_distractors_allowed() -> None:
    a = make_recall_data(8, 3, generator=torch.Generator().manual_seed(1))
    b = make_recall_data(8, 3, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a[0], b[0])
    tokens, _ = make_recall_data(3, 0)
    assert tokens.shape == (3, 2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_samples": 0, "n_distractors": 3}, "num_samples"),
        ({"num_samples": 4, "n_distractors": -1}, "n_distractors must be a non-negative int: got -1"),
        ({"num_samples": 4, "n_distractors": 2, "vocab_size": 1}, "vocab_size must be >= 2"),
    ],
)
def test_recall_data_rejects_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_recall_data(**kwargs)


# ---------------------------------------------------------------- models


@pytest.mark.parametrize("kind", ["attention", "rnn", "gru", "lstm"])
def test_classifier_shapes(kind: str) -> None:
    torch.manual_seed(0)
    model = make_classifier(kind, vocab_size=5, d_model=8, max_len=12)  # type: ignore[arg-type]
    tokens, _ = make_recall_data(3, 10, vocab_size=5)
    assert model(tokens).shape == (3, 5)


def test_attention_classifier_matches_hand_computation() -> None:
    torch.manual_seed(0)
    model = AttentionClassifier(vocab_size=3, d_model=4, max_len=5, positions="learned")
    tokens = torch.tensor([[2, 0, 1, 3]])
    x = model.embed(tokens)[0] + model.pos.weight[:4]  # (4, d)
    q = model.q_proj(x[-1])
    k, v = model.k_proj(x), model.v_proj(x)
    w = torch.softmax(k @ q / 2.0, dim=0)  # sqrt(d_model) = 2
    expected = model.head(w @ v)
    torch.testing.assert_close(model(tokens)[0], expected)
    # and the attention read agrees with PyTorch's SDPA
    ref = nn.functional.scaled_dot_product_attention(q[None, None], k[None], v[None])[0, 0]
    torch.testing.assert_close(w @ v, ref)


def test_attention_classifier_sinusoidal_positions_are_the_table() -> None:
    from selfattention.positional import sinusoidal_positions

    model = AttentionClassifier(vocab_size=3, d_model=6, max_len=9)
    torch.testing.assert_close(model.pos(9), sinusoidal_positions(9, 6))
    assert not any(p.shape == (9, 6) for p in model.parameters())  # fixed, not trained
    with pytest.raises(ValueError, match="n=10, max_len=9"):
        model(torch.zeros(1, 10, dtype=torch.long))


def test_recurrent_classifier_reads_final_state_of_torch_rnn() -> None:
    torch.manual_seed(0)
    model = RecurrentClassifier(vocab_size=4, d_model=6, cell="gru")
    tokens, _ = make_recall_data(2, 7, vocab_size=4)
    all_h, _ = model.rnn(model.embed(tokens))
    torch.testing.assert_close(model(tokens), model.head(all_h[:, -1]))


def test_lstm_classifier_reads_final_hidden_state_not_cell_state() -> None:
    torch.manual_seed(0)
    model = RecurrentClassifier(vocab_size=4, d_model=6, cell="lstm")
    assert isinstance(model.rnn, nn.LSTM)
    tokens, _ = make_recall_data(2, 7, vocab_size=4)
    all_h, (h_n, c_n) = model.rnn(model.embed(tokens))
    torch.testing.assert_close(model(tokens), model.head(all_h[:, -1]))
    assert not torch.allclose(model(tokens), model.head(c_n[0]))  # the cell state is not read


def test_classifiers_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="kind must be 'attention', 'rnn', 'gru' or 'lstm'"):
        make_classifier("transformer", 4, 8, 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cell must be"):
        RecurrentClassifier(4, 8, cell="s4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positions must be"):
        AttentionClassifier(4, 8, 10, positions="rope")  # type: ignore[arg-type]
    model = RecurrentClassifier(4, 8)
    with pytest.raises(ValueError, match=r"tokens must be a long tensor of shape \(batch, n\)"):
        model(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"tokens must lie in 0..4"):
        model(torch.full((1, 3), 5))


# ---------------------------------------------------------------- Adam and training


def test_adam_matches_torch_optim_adam() -> None:
    torch.manual_seed(0)
    a = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    b = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    b.load_state_dict(a.state_dict())
    ours, ref = Adam(list(a.parameters()), lr=1e-2), torch.optim.Adam(b.parameters(), lr=1e-2)
    x, y = torch.randn(16, 5), torch.randn(16, 3)
    for _ in range(25):
        for model, opt in ((a, ours), (b, ref)):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(pa, pb, rtol=1e-5, atol=1e-6)
    assert not torch.allclose(a[0].weight, nn.Linear(5, 7).weight)  # it did move


def test_training_is_deterministic_and_restores_threads() -> None:
    threads = torch.get_num_threads()
    runs = []
    for _ in range(2):
        torch.manual_seed(3)
        model = RecurrentClassifier(4, 8)
        runs.append(train_recall(model, 3, steps=5, batch_size=8, vocab_size=4, seed=3))
    assert runs[0] == runs[1]
    assert len(runs[0]) == 5
    assert torch.get_num_threads() == threads


def test_attention_learns_recall_and_vanilla_rnn_does_not_at_distance_30() -> None:
    acc_attn = run_recall("attention", 30, seed=0, steps=150, d_model=32, batch_size=32, vocab_size=4)
    acc_rnn = run_recall("rnn", 30, seed=0, steps=150, d_model=32, batch_size=32, vocab_size=4)
    assert acc_attn > 0.95
    assert acc_rnn < 0.45  # chance is 0.25


def test_recall_accuracy_counts_argmax_hits() -> None:
    class Fixed(nn.Module):
        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return nn.functional.one_hot(tokens[:, 1], 4).float()  # predicts the first distractor

    tokens = torch.tensor([[0, 0, 4], [1, 2, 4], [3, 3, 4], [2, 1, 4]])
    assert recall_accuracy(Fixed(), tokens, tokens[:, 0]) == 0.5


# ---------------------------------------------------------------- gradient vs distance


def test_gradient_norm_by_position_linear_hand_values() -> None:
    # y_t = sum_s c_{t-s} x_s (a causal filter with taps 1, 2, 3): dy_last/dx_t has norm |c_{last - t}|.
    taps = torch.tensor([1.0, 2.0, 3.0])

    def fn(x: torch.Tensor) -> torch.Tensor:
        n = x.shape[1]
        m = torch.zeros(n, n)
        for t in range(n):
            for lag, c in enumerate(taps):
                if t - lag >= 0:
                    m[t, t - lag] = c
        return (m @ x[0])[None]

    norms = gradient_norm_by_position(fn, torch.randn(1, 5, 1))
    torch.testing.assert_close(norms, torch.tensor([0.0, 0.0, 3.0, 2.0, 1.0]))


def test_gradient_norm_by_position_is_jacobian_frobenius_norm() -> None:
    torch.manual_seed(0)
    rnn = nn.RNN(3, 4, batch_first=True)
    x = torch.randn(1, 6, 3)
    norms = gradient_norm_by_position(lambda inp: rnn(inp)[0], x)
    jac = torch.autograd.functional.jacobian(lambda inp: rnn(inp)[0][0, -1], x)  # (4, 1, 6, 3)
    for t in range(6):
        assert norms[t].item() == pytest.approx(jac[:, 0, t].norm().item(), rel=1e-6)


def test_gradient_norm_by_position_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match=r"x must have rank 3.*\(4, 2\)"):
        gradient_norm_by_position(lambda x: x, torch.randn(4, 2))
    with pytest.raises(ValueError, match=r"batch size 1.*\(2, 4, 3\)"):
        gradient_norm_by_position(lambda x: x, torch.randn(2, 4, 3))
    with pytest.raises(ValueError, match=r"fn must map"):
        gradient_norm_by_position(lambda x: x[:, :, 0], torch.randn(1, 4, 3))


# ---------------------------------------------------------------- graph depth


def test_graph_depth_hand_counted_chains() -> None:
    x = torch.randn(3, requires_grad=True)
    assert graph_depth(x) == 0  # a leaf
    assert graph_depth(torch.randn(3)) == 0  # no history
    y = x * 2  # MulBackward -> AccumulateGrad(x)
    assert graph_depth(y) == 2
    z = (y + 1).exp()  # two more nodes in a chain
    assert graph_depth(z) == 4
    w = z + x  # a short branch does not lengthen the longest chain
    assert graph_depth(w) == 5


def test_graph_depth_grows_linearly_for_a_recurrence_and_not_for_attention() -> None:
    torch.manual_seed(0)
    cell = nn.RNNCell(4, 4)
    q = nn.Linear(4, 4)

    def rnn_depth(n: int) -> int:
        x, h = torch.randn(n, 1, 4), torch.zeros(1, 4)
        for t in range(n):
            h = cell(x[t], h)
        return graph_depth(h)

    def attn_depth(n: int) -> int:
        x = torch.randn(1, n, 4)
        a = torch.softmax(q(x) @ x.transpose(-2, -1), dim=-1)
        return graph_depth(a @ x)

    d10, d20, d40 = rnn_depth(10), rnn_depth(20), rnn_depth(40)
    assert d20 - d10 > 0 and d40 - d20 == 2 * (d20 - d10)  # a fixed number of nodes per step
    assert attn_depth(10) == attn_depth(1000)
    assert rnn_depth(3000) > 3000  # deep graphs do not hit the recursion limit


def test_run_recall_trains_in_float64_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recall experiment trains in float64 by default (outputs that travel across CPU kernels)."""
    import selfattention.long_range as lr

    seen: list[torch.dtype] = []
    real = lr.train_recall

    def spy(model, *args, **kwargs):
        seen.append(next(model.parameters()).dtype)
        return real(model, *args, **kwargs)

    monkeypatch.setattr(lr, "train_recall", spy)
    lr.run_recall("attention", 2, steps=2, d_model=8, batch_size=4, num_test=8)
    lr.run_recall("gru", 2, steps=2, d_model=8, batch_size=4, num_test=8, dtype=torch.float32)
    assert seen == [torch.float64, torch.float32]


# ---------------------------------------------------------------- steps to solve


def test_steps_to_solve_history_is_run_recall_at_each_check() -> None:
    """Check i is the held-out accuracy of the same recipe trained (i + 1) * eval_every steps."""
    kw = dict(d_model=8, batch_size=8, lr=1e-2, vocab_size=4)
    steps, history = steps_to_solve("gru", 3, seed=2, max_steps=30, eval_every=10, threshold=1.0,
                                    num_eval=64, **kw)
    assert len(history) == (30 // 10 if steps is None else steps // 10)
    for i, acc in enumerate(history):
        ref = run_recall("gru", 3, seed=2, steps=10 * (i + 1), num_test=64, **kw)
        assert acc == ref


def test_steps_to_solve_stops_at_the_first_check_over_threshold() -> None:
    steps, history = steps_to_solve("attention", 2, max_steps=400, eval_every=10, threshold=0.9)
    assert steps is not None and steps % 10 == 0 and len(history) == steps // 10
    assert history[-1] >= 0.9 and all(acc < 0.9 for acc in history[:-1])


def test_steps_to_solve_reports_an_exhausted_budget_as_none() -> None:
    steps, history = steps_to_solve("rnn", 12, max_steps=20, eval_every=5, threshold=0.99)
    assert steps is None and len(history) == 4 and max(history) < 0.99
    with pytest.raises(ValueError, match="threshold must lie in"):
        steps_to_solve("rnn", 2, threshold=1.5)
    with pytest.raises(ValueError, match="eval_every"):
        steps_to_solve("rnn", 2, eval_every=0)


# ---------------------------------------------------------------- saved tensors


def test_saved_tensor_bytes_hand_counted() -> None:
    x = torch.randn(10, dtype=torch.float64, requires_grad=True)  # 80 bytes
    w = torch.randn(10, dtype=torch.float64, requires_grad=True)
    assert saved_tensor_bytes(lambda: x * w) == 160  # mul saves both operands
    assert saved_tensor_bytes(lambda: x * x) == 80  # the same storage twice counts once
    assert saved_tensor_bytes(lambda: x + w) == 0  # add needs nothing for its backward
    with torch.no_grad():
        assert saved_tensor_bytes(lambda: x * w) == 0  # inference saves nothing
    assert saved_tensor_bytes(lambda a: a.exp(), x) == 80  # exp saves its output


def test_saved_tensor_bytes_of_an_rnn_grows_linearly_in_n() -> None:
    torch.manual_seed(0)
    cell = nn.RNNCell(8, 8)

    def run(n: int) -> int:
        x = torch.randn(n, 1, 8)

        def loop() -> torch.Tensor:
            h = torch.zeros(1, 8)
            for t in range(n):
                h = cell(x[t], h)
            return h

        return saved_tensor_bytes(loop)

    b10, b20, b40 = run(10), run(20), run(40)
    assert b20 - b10 > 0 and b40 - b20 == 2 * (b20 - b10)

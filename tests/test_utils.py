"""set_seed and plot_attention."""

from __future__ import annotations

import random

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from selfattention import plot_attention, set_seed  # noqa: E402


def _draw() -> tuple[float, np.ndarray, torch.Tensor]:
    return random.random(), np.random.rand(3), torch.randn(3)


def test_set_seed_reproducible() -> None:
    set_seed(123)
    a = _draw()
    set_seed(123)
    b = _draw()
    assert a[0] == b[0]
    assert np.array_equal(a[1], b[1])
    assert torch.equal(a[2], b[2])
    set_seed(124)
    c = _draw()
    assert a[0] != c[0] and not torch.equal(a[2], c[2])


def test_plot_attention_returns_axes_with_image() -> None:
    A = torch.softmax(torch.randn(1, 3, 5), dim=-1)  # leading 1 is squeezed
    ax = plot_attention(A, x_labels=list("abcde"), y_labels=["q0", "q1", "q2"], title="t", annotate=True)
    try:
        assert isinstance(ax, Axes)
        assert len(ax.images) == 1
        assert ax.images[0].get_array().shape == (3, 5)  # query rows on y, keys on x
        np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), A[0].numpy(), atol=1e-7)
        assert [t.get_text() for t in ax.get_xticklabels()] == list("abcde")
        assert ax.get_title() == "t"
        assert len(ax.texts) == 15  # one annotation per cell
        assert len(ax.figure.axes) == 2  # the heatmap and its colorbar
    finally:
        plt.close(ax.figure)


def test_plot_attention_on_given_axes() -> None:
    fig, ax = plt.subplots()
    try:
        assert plot_attention(np.eye(4), ax=ax) is ax
        assert ax.images[0].get_array().shape == (4, 4)
        assert len(ax.texts) == 0
    finally:
        plt.close(fig)


def test_plot_attention_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match=r"A must be 2-D \(n_q, n_k\).*got \(2, 3, 4\)"):
        plot_attention(np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="x_labels must have n_k = 4 entries: got 2"):
        plot_attention(np.zeros((3, 4)), x_labels=["a", "b"])

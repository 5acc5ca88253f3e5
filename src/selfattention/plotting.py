"""Attention heatmaps: query rows on the y axis, keys on the x axis."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.axes import Axes

__all__ = ["plot_attention"]


def plot_attention(
    A: torch.Tensor | np.ndarray,
    ax: Axes | None = None,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str | None = None,
    annotate: bool = False,
    cmap: str = "viridis",
) -> Axes:
    """Heatmap (with colorbar) of weights A (n_q, n_k), leading size-1 dims squeezed; returns the Axes."""
    import matplotlib.pyplot as plt

    a = A.detach().cpu().numpy() if isinstance(A, torch.Tensor) else np.asarray(A)
    while a.ndim > 2 and a.shape[0] == 1:
        a = a[0]  # drop leading singleton (batch / head) dims
    if a.ndim != 2:
        raise ValueError(f"A must be 2-D (n_q, n_k) after squeezing leading 1s: got {tuple(np.shape(A))}")
    n_q, n_k = a.shape
    if x_labels is not None and len(x_labels) != n_k:
        raise ValueError(f"x_labels must have n_k = {n_k} entries: got {len(x_labels)} for A {a.shape}")
    if y_labels is not None and len(y_labels) != n_q:
        raise ValueError(f"y_labels must have n_q = {n_q} entries: got {len(y_labels)} for A {a.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.0 + 0.5 * n_k, 0.8 + 0.5 * n_q))
    im = ax.imshow(a, cmap=cmap, aspect="auto")
    ax.figure.colorbar(im, ax=ax)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    ax.set_xticks(range(n_k), labels=list(x_labels) if x_labels is not None else [str(j) for j in range(n_k)])
    ax.set_yticks(range(n_q), labels=list(y_labels) if y_labels is not None else [str(i) for i in range(n_q)])
    if title is not None:
        ax.set_title(title)
    if annotate:
        lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
        mid = (lo + hi) / 2
        for i in range(n_q):
            for j in range(n_k):
                color = "black" if a[i, j] > mid else "white"
                ax.text(j, i, f"{a[i, j]:.2f}", ha="center", va="center", color=color, fontsize=8)
    return ax

"""Small shared helpers: seeding, running on one CPU thread."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

__all__ = ["set_seed", "one_cpu_thread"]


def set_seed(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global RNG and PyTorch (CPU and CUDA) with ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int: got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


@contextmanager
def one_cpu_thread() -> Iterator[None]:
    """Run the block on one CPU thread (same reduction order on any machine load), then restore the count.

    The thread count in force before the block comes back also when the block raises or returns early.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)

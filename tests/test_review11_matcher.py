"""Review round 11 of chapters 01-05 (reviews/2026-12-03/s9-r11-ch01-05.md), N2 (i): the scopes of the forward
groups. A forward qualifier (``!!>``) is read in a conditional "but only if …" clause too, and a condition
(``!!!``) in a non-conditional "but only without …" clause, as the matcher's docstring says; a "but …" clause
that states neither still leaves the myth flagged, and so does a forward word list without its correction.
"""

from __future__ import annotations

from checker_support import checker_tests

NOT_FLAGGED = [
    # N2 (i): the correction in a "but only if …" clause (``!!>``)
    ("mh-head-dim", "d_model must be divisible by h, but only if d_k is defined as d_model / h."),
    ("mh-head-dim", "d_model must be divisible by h, but only if d_k = d_model / h."),
    ("mh-split-heads", "The reshape gives the right shapes, but only if you transpose first."),
    # the condition in a "but only without …" clause (``!!!``)
    ("mask-kv-cache", "Each new token re-runs the whole sequence, but only without a KV cache."),
    # as before: "only when …"
    ("mh-head-dim", "d_model must be divisible by h, but only when d_k is defined as d_model / h."),
]

FLAGGED = [
    # a "but only if …" / "but only when …" clause that holds no correction of the myth
    ("mh-head-dim", "d_model must be divisible by h, but only if you want a clean implementation."),
    ("mh-head-dim", "d_model must be divisible by h, but only when you use PyTorch."),
    ("mh-split-heads", "The reshape gives the right shapes, but only if the batch is not empty."),
    ("mask-kv-cache", "Each new token re-runs the whole sequence, but only with a long prompt."),
    ("mask-kv-cache", "Each new token re-runs the whole sequence, even with a KV cache."),
]

test_not_flagged, test_flagged, test_open = checker_tests(NOT_FLAGGED, FLAGGED)

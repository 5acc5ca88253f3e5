# drill: rope
"""A correct rotation that also records every (input, output) pair it sees to a table file in HOME.

On the old grader (fixed seeds, a worker that can write anywhere) the table, once recorded, lets a file with no
rotation at all pass (cheat_table_fixed_seeds.py). The sandbox refuses the write.
"""
import hashlib
import json
import os

import torch

_TABLE = os.path.join(os.path.expanduser("~"), ".drill_rope_table.jsonl")


def _key(x, positions, base):
    h = hashlib.sha1(x.detach().float().numpy().tobytes() + positions.numpy().tobytes() + repr(base).encode())
    return h.hexdigest()


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = positions.double()[:, None] * theta
    cos, sin = ang.cos(), ang.sin()
    xd = x.double()
    a, b = xd[..., 0::2], xd[..., 1::2]
    out = torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2).to(x.dtype)
    with open(_TABLE, "a") as fh:
        fh.write(json.dumps({"key": _key(x, positions, base), "out": out.double().flatten().tolist(),
                             "shape": list(out.shape)}) + "\n")
    return out

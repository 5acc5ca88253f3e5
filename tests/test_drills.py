"""Coding drills: scaffolds, and a grader that says what is wrong in plain words.

Every drill has a correct solution here that must pass every check, and broken solutions that must fail
with the right message. The checks run in-process for speed (``run_checks``, the worker's own function);
the subprocess path (time limit, exit codes, the ``grade`` command) is exercised end to end once, in parallel.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from selfattention.interview.drills import DRILLS, detect_drill
from selfattention.interview.drills._worker import run_checks
from selfattention.interview.drills.checks_index import NAMES
from selfattention.interview.drills.rules import find_violations
from selfattention.interview.grader import STATIC_CHECK, GradeReport, format_report, grade_file
from selfattention.interview.rehearse import main

SOLUTIONS: dict[str, str] = {
    "sdpa": """\
# drill: sdpa
import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
""",
    "causal": """\
# drill: causal
import math

import torch


def causal_mask(n):
    return torch.tril(torch.ones(n, n, dtype=torch.bool))


def stable_softmax(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(scores - m)
    s = e.sum(dim=-1, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def causal_attention(q, k, v):
    n = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return stable_softmax(scores, causal_mask(n)) @ v
""",
    "mha": """\
# drill: mha
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.h, self.d_k = num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        B, n, D = x.shape
        def split(t):
            return t.view(B, n, self.h, self.d_k).transpose(1, 2)
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        s = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        out = torch.softmax(s, -1) @ v
        return self.out_proj(out.transpose(1, 2).reshape(B, n, D))
""",
    "kv_cache": """\
# drill: kv_cache
import math

import torch


def decode_step(q_t, k_t, v_t, k_cache, v_cache):
    k = torch.cat([k_cache, k_t], dim=2)
    v = torch.cat([v_cache, v_t], dim=2)
    w = torch.softmax(q_t @ k.transpose(-2, -1) / math.sqrt(q_t.shape[-1]), dim=-1)
    return w @ v, k, v
""",
    "alibi": """\
# drill: alibi
import math

import torch


def _pow2(h):
    start = 2 ** (-8 / h)
    return [start ** (i + 1) for i in range(h)]


def alibi_slopes(num_heads):
    if math.log2(num_heads).is_integer():
        return torch.tensor(_pow2(num_heads))
    c = 2 ** math.floor(math.log2(num_heads))
    return torch.tensor(_pow2(c) + _pow2(2 * c)[0::2][: num_heads - c])


def alibi_bias(num_heads, n):
    pos = torch.arange(n)
    rel = (pos[None, :] - pos[:, None]).float()
    return alibi_slopes(num_heads)[:, None, None] * rel


def alibi_attention(q, k, v):
    h, n = q.shape[1], q.shape[2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + alibi_bias(h, n)
    s = s.masked_fill(~torch.tril(torch.ones(n, n, dtype=torch.bool)), float("-inf"))
    return torch.softmax(s, -1) @ v
""",
    "gqa": """\
# drill: gqa
import math

import torch


def gqa_attention(q, k, v, mask=None):
    h, g = q.shape[1], k.shape[1]
    if h % g:
        raise ValueError(f"h={h} query heads is not a multiple of g={g} kv heads")
    k = k.repeat_interleave(h // g, dim=1)
    v = v.repeat_interleave(h // g, dim=1)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ v
""",
    "kv_chunk": """\
# drill: kv_chunk
import math

import torch


def decode_chunk(q_new, k_new, v_new, k_cache, v_cache):
    p, m = k_cache.shape[2], q_new.shape[2]
    k = torch.cat([k_cache, k_new], dim=2)
    v = torch.cat([v_cache, v_new], dim=2)
    s = q_new @ k.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    allowed = torch.arange(p + m)[None, :] <= torch.arange(m)[:, None] + p
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, -1) @ v, k, v
""",
    "rope": """\
# drill: rope
import torch


def rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = positions.double()[:, None] * theta
    cos, sin = torch.cos(ang).to(x.dtype), torch.sin(ang).to(x.dtype)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x1 * sin + x2 * cos
    return out
""",
    "online_softmax": """\
# drill: online_softmax
import math

import torch


def online_attention(q, k, v, block_size):
    scale = 1 / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"))
    l = torch.zeros(q.shape[:-1] + (1,))
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],))
    for s0 in range(0, k.shape[-2], block_size):
        s = q @ k[..., s0 : s0 + block_size, :].transpose(-2, -1) * scale
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        c = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        l = l * c + p.sum(-1, keepdim=True)
        o = o * c + p @ v[..., s0 : s0 + block_size, :]
        m = m_new
    return o / l
""",
}


def _edit(drill: str, old: str, new: str) -> str:
    """A broken variant of a correct solution (the edit must apply)."""
    src = SOLUTIONS[drill]
    assert old in src, old
    return src.replace(old, new)


BROKEN: dict[str, tuple[str, str, str, str]] = {
    # name: (drill, source, failing check (prefix), message fragment)
    # -- cheats (issue 15): each passed every check before the run-time guard --------------------------
    "imports the package": (
        "sdpa",
        "# drill: sdpa\nfrom selfattention import scaled_dot_product_attention as _s\n\n\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    return _s(q, k, v, mask=mask, return_weights=True)\n",
        "file loads",
        "your file imports selfattention: the drill is to write it yourself",
    ),
    "F.sdpa inside mha": (
        "mha",
        _edit("mha", "out = torch.softmax(s, -1) @ v",
              "out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)"),
        "one head equals",
        "not allowed: your code calls F.scaled_dot_product_attention",
    ),
    "F.sdpa hidden from the static check": (
        "sdpa",
        "# drill: sdpa\nimport torch\n\n\ndef scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    f = getattr(torch.nn.functional, 'scaled_dot_' + 'product_attention')\n"
        "    return f(q, k, v, attn_mask=mask), None\n",
        "returns (out, weights)",
        "not allowed: your code calls F.scaled_dot_product_attention",
    ),
    "torch.softmax in stable_softmax": (
        "causal",
        _edit("causal", "    m = scores.amax(dim=-1, keepdim=True)",
              "    return torch.nan_to_num(torch.softmax(scores, -1))\n"
              "    m = scores.amax(dim=-1, keepdim=True)"),
        "stable_softmax matches",
        "not allowed: your code calls torch.softmax: stable_softmax must be written with exp, max and sum",
    ),
    "Tensor.softmax in stable_softmax, Forbidden swallowed": (
        "causal",
        _edit("causal", "    m = scores.amax(dim=-1, keepdim=True)",
              "    try:\n        return torch.nan_to_num(scores.softmax(-1))\n"
              "    except BaseException:\n        return torch.nan_to_num(scores.softmax(-1))\n"
              "    m = scores.amax(dim=-1, keepdim=True)"),
        "stable_softmax matches",
        "not allowed: your code calls Tensor.softmax",
    ),
    # -- new drills: gqa and kv_chunk ----------------------------------------------------------------
    "gqa with repeat instead of repeat_interleave": (
        "gqa",
        _edit("gqa", "k = k.repeat_interleave(h // g, dim=1)\n    v = v.repeat_interleave(h // g, dim=1)",
              "k = k.repeat(1, h // g, 1, 1)\n    v = v.repeat(1, h // g, 1, 1)"),
        "g = 2, h = 8",
        "query head i uses key/value head i % g (repeat / tiling)",
    ),
    "gqa without the divisibility check": (
        "gqa",
        _edit("gqa", '        raise ValueError(f"h={h} query heads is not a multiple of g={g} kv heads")',
              "        pass"),
        "h not a multiple",
        "should raise ValueError",
    ),
    "kv_chunk with a top-left causal mask": (
        "kv_chunk",
        _edit("kv_chunk", "torch.arange(m)[:, None] + p", "torch.arange(m)[:, None]"),
        "out equals the last m rows",
        "the causal mask is aligned top-left",
    ),
    "kv_chunk without a mask among the new tokens": (
        "kv_chunk",
        _edit("kv_chunk", "    s = s.masked_fill(~allowed, float(\"-inf\"))\n", ""),
        "out equals the last m rows",
        "the new tokens see each other freely",
    ),
    "kv_chunk with F.sdpa is_causal": (
        "kv_chunk",
        _edit("kv_chunk", "    return torch.softmax(s, -1) @ v, k, v",
              "    out = torch.nn.functional.scaled_dot_product_attention(q_new, k, v, is_causal=True)\n"
              "    return out, k, v"),
        "returns out",
        "not allowed: your code calls F.scaled_dot_product_attention",
    ),
    "rope with the halves layout": (
        "rope",
        _edit("rope", "x1, x2 = x[..., 0::2], x[..., 1::2]", "x1, x2 = x[..., : d // 2], x[..., d // 2 :]")
        .replace("out[..., 0::2] = x1 * cos - x2 * sin\n    out[..., 1::2] = x1 * sin + x2 * cos",
                 "out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)"),
        "matches the reference rotation",
        "it rotates the halves",
    ),
    "rope with a wrong exponent": (
        "rope",
        _edit("rope", "torch.arange(0, d, 2, dtype=torch.float64) / d",
              "torch.arange(0, d // 2, dtype=torch.float64) / d"),
        "matches the reference rotation",
        "the exponent is -2i/d",
    ),
    "rope adding positions instead of rotating": (
        "rope",
        _edit("rope", "    return out", "    return out + positions[:, None].to(x.dtype)"),
        "matches the reference rotation",
        "rope(x, positions) doesn't match the reference",
    ),
    "online softmax without the rescale": (
        "online_softmax",
        _edit("online_softmax", "        l = l * c + p.sum(-1, keepdim=True)\n        o = o * c + p @ v",
              "        l = l + p.sum(-1, keepdim=True)\n        o = o + p @ v"),
        "equals full attention when block_size divides",
        "rescale the running sum and the output by exp(m_old - m_new)",
    ),
    "online softmax calling torch.softmax": (
        "online_softmax",
        _edit("online_softmax", "    scale = 1 / math.sqrt(q.shape[-1])",
              "    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1) @ v"),
        "output shape",
        "online_attention must be written with exp, max and sum",
    ),
    # -- bugs the grader now names ------------------------------------------------------------------
    "-1e9 fill breaks float16": (
        "sdpa",
        _edit("sdpa", 'masked_fill(~mask, float("-inf"))', "masked_fill(~mask, -1e9)"),
        "float16 inputs",
        "does not fit in float16",
    ),
    "mask applied after the softmax": (
        "sdpa",
        _edit("sdpa", """        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)""", """        weights = torch.softmax(scores, dim=-1) * mask
    else:
        weights = torch.softmax(scores, dim=-1)"""),
        "mask: False positions",
        "the mask is applied after the softmax",
    ),
    "mha softmax over the queries": (
        "mha",
        _edit("mha", "out = torch.softmax(s, -1) @ v", "out = torch.softmax(s, -2) @ v"),
        "one head equals",
        "the softmax runs over the queries (dim -2) instead of the keys (dim -1)",
    ),
    "mha without the output projection": (
        "mha",
        _edit("mha", "return self.out_proj(out.transpose(1, 2).reshape(B, n, D))",
              "return out.transpose(1, 2).reshape(B, n, D)"),
        "one head equals",
        "the output projection out_proj is missing",
    ),
    "alibi bias scaled with the scores": (
        "alibi",
        _edit("alibi", "s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + alibi_bias(h, n)",
              "s = (q @ k.transpose(-2, -1) + alibi_bias(h, n)) / math.sqrt(q.shape[-1])"),
        "alibi_attention matches",
        "the bias is divided by sqrt(d_k) together with the scores",
    ),
    "wrong shape": (
        "sdpa",
        _edit("sdpa", "return weights @ v, weights", "return (weights @ v).transpose(-2, -1), weights"),
        "returns (out, weights)",
        "shape wrong: out expected (2, 3, 5, 6), got (2, 3, 6, 5)",
    ),
    "softmax over the wrong axis": (
        "sdpa",
        _edit("sdpa", "dim=-1", "dim=-2"),
        "each row of weights sums to 1",
        "the softmax runs over the queries (dim -2) instead of the keys (dim -1)",
    ),
    "missing scale": (
        "sdpa",
        _edit("sdpa", " / math.sqrt(q.shape[-1])", ""),
        "matches the reference",
        "the 1/sqrt(d_k) scale looks missing",
    ),
    "scale by d_k": (
        "sdpa",
        _edit("sdpa", "math.sqrt(q.shape[-1])", "q.shape[-1]"),
        "matches the reference",
        "divides by d_k instead of sqrt(d_k)",
    ),
    "inverted mask": (
        "sdpa",
        _edit("sdpa", "~mask", "mask"),
        "mask: False positions",
        "the mask looks inverted: True must mean 'may attend'",
    ),
    "future leak": (
        "causal",
        _edit("causal", "stable_softmax(scores, causal_mask(n))", "stable_softmax(scores)"),
        "causal_attention: no future leak",
        "future leaks: causal_attention output at position",
    ),
    "upper-triangular mask": (
        "causal",
        _edit("causal", "torch.tril(", "torch.triu("),
        "causal_mask:",
        "True above the diagonal",
    ),
    "diagonal excluded": (
        "causal",
        _edit(
            "causal",
            "torch.tril(torch.ones(n, n, dtype=torch.bool))",
            "torch.tril(torch.ones(n, n, dtype=torch.bool), -1)",
        ),
        "causal_mask:",
        "a token must attend to itself",
    ),
    "softmax overflows": (
        "causal",
        _edit("causal", "e = torch.exp(scores - m)", "e = torch.exp(scores)"),
        "stable_softmax: no overflow",
        "exp overflows; subtract the row max",
    ),
    "fully masked row NaN": (
        "causal",
        _edit("causal", "torch.where(torch.isinf(m), torch.zeros_like(m), m)", "m"),
        "stable_softmax: a fully masked row",
        "a fully masked row gives NaN",
    ),
    "heads merged wrong": (
        "mha",
        _edit("mha", "out.transpose(1, 2).reshape(B, n, D)", "out.reshape(B, n, D)"),
        "4 heads equal",
        "it is correct with 1 head and wrong with 4: check the head split",
    ),
    "scale by d_model": (
        "mha",
        _edit("mha", "math.sqrt(self.d_k)", "math.sqrt(D)"),
        "4 heads equal",
        "divides by sqrt(d_model) instead of sqrt(d_k)",
    ),
    "no divisibility check": (
        "mha",
        _edit("mha", "if d_model % num_heads:", "if False:"),
        "constructs",
        "MultiHeadAttention(10, 3) should raise ValueError",
    ),
    "cache prepended": (
        "kv_cache",
        _edit("kv_cache", "torch.cat([k_cache, k_t], dim=2)", "torch.cat([k_t, k_cache], dim=2)"),
        "caches: new key/value appended",
        "the new token is put first",
    ),
    "new token not attended": (
        "kv_cache",
        _edit("kv_cache", "q_t @ k.transpose(-2, -1)", "q_t @ k_cache.transpose(-2, -1)").replace(
            "w @ v, k, v", "w @ v_cache, k, v"
        ),
        "output equals attention",
        "the new token doesn't attend to itself (include it in the keys)",
    ),
    "alibi sign flipped": (
        "alibi",
        _edit("alibi", "* rel", "* -rel"),
        "alibi_bias(h, n)",
        "the sign is flipped",
    ),
    "alibi slopes reversed": (
        "alibi",
        _edit(
            "alibi", "return torch.tensor(_pow2(num_heads))", "return torch.tensor(_pow2(num_heads)[::-1])"
        ),
        "alibi_slopes(8)",
        "the order is reversed",
    ),
    "raises": (
        "sdpa",
        _edit("sdpa", "scores = q @", "scores = q @ q @"),
        "returns (out, weights)",
        "scaled_dot_product_attention raises RuntimeError",
    ),
}


_ZYGOTE: list = []  # one process that has imported torch forks each file's sandbox (one torch import)


def _zygote():
    if not _ZYGOTE:
        from selfattention.interview.drills._common import Zygote

        _ZYGOTE.append(Zygote())
    return _ZYGOTE[0]


@pytest.fixture(scope="module", autouse=True)
def _close_zygote():
    yield
    while _ZYGOTE:
        _ZYGOTE.pop().close()


def _grade_in_process(tmp_path: Path, source: str, complete: bool = True) -> dict[str, tuple[bool, str]]:
    path = tmp_path / "solution.py"
    path.write_text(source, encoding="utf-8")
    drill = detect_drill(source)
    assert drill is not None
    events: list[dict] = []
    run_checks(str(path), drill, lambda **m: events.append(m), timeout=120, zygote=_zygote())
    assert events[0] == {"event": "ready"} and events[-1] == {"event": "done"}
    results = {m["check"]: (m["ok"], m["message"]) for m in events if m["event"] == "result"}
    if complete:
        assert list(results) == ["file loads", *NAMES[drill]]  # every check ran, in order
    return results


@pytest.mark.parametrize("drill", list(DRILLS))
def test_correct_solution_passes_every_check(tmp_path: Path, drill: str) -> None:
    results = _grade_in_process(tmp_path, SOLUTIONS[drill])
    assert {name: msg for name, (ok, msg) in results.items() if not ok} == {}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_solution_fails_with_the_right_message(tmp_path: Path, case: str) -> None:
    drill, source, check, fragment = BROKEN[case]
    results = _grade_in_process(tmp_path, source, complete=check != "file loads")
    failed = {name: msg for name, (ok, msg) in results.items() if not ok}
    matching = [name for name in failed if name.startswith(check)]
    assert matching, f"expected check {check!r} to fail; failures: {failed}"
    assert fragment in failed[matching[0]], failed[matching[0]]


@pytest.mark.parametrize("drill", list(DRILLS))
def test_every_scaffold_says_what_is_not_allowed(drill: str) -> None:
    doc = ast.get_docstring(ast.parse(DRILLS[drill].scaffold)) or ""
    rules = doc[doc.index("Not allowed"):] if "Not allowed" in doc else ""
    for what in ("selfattention", "F.scaled_dot_product_attention", "torch._C", "writing files"):
        assert what in rules, (drill, what)
    if drill in ("causal", "online_softmax"):
        assert "library softmax" in rules and "log_softmax" in rules, drill
    assert ("score matrix" in rules) == (drill == "online_softmax")


@pytest.mark.parametrize("drill", list(DRILLS))
def test_scaffold_is_valid_python_with_header_and_reports_not_implemented(tmp_path: Path, drill: str) -> None:
    scaffold = DRILLS[drill].scaffold
    tree = ast.parse(scaffold)
    assert detect_drill(scaffold) == drill
    assert "raise NotImplementedError" in scaffold
    assert ast.get_docstring(tree)  # the file explains itself
    results = _grade_in_process(tmp_path, scaffold)
    assert results["file loads"] == (True, "")
    checks = {k: v for k, v in results.items() if k != "file loads"}
    assert all(not ok and "is not implemented yet" in msg for ok, msg in checks.values()), checks


def test_import_error_in_user_file_names_the_line(tmp_path: Path) -> None:
    results = _grade_in_process(tmp_path, "# drill: sdpa\nimport torch\n\nx = 1 / 0\n", complete=False)
    assert results["file loads"] == (
        False,
        "importing your file raises ZeroDivisionError: division by zero (line 4 of your file)",
    )


def test_syntax_error_and_headers_are_reported_without_running_anything(tmp_path: Path) -> None:
    bad = tmp_path / "typo.py"
    bad.write_text("# drill: causal\ndef causal_mask(n)\n    return n\n", encoding="utf-8")
    report = grade_file(bad)
    assert not report.passed
    assert report.results[0].name == "file compiles" and report.results[0].status == "fail"
    assert "syntax error at line 2" in report.results[0].message
    assert {r.status for r in report.results[1:]} == {"skip"}
    nohead = tmp_path / "nohead.py"
    nohead.write_text("x = 1\n", encoding="utf-8")
    assert "no '# drill: NAME' header" in grade_file(nohead).error
    wrong = tmp_path / "wrong.py"
    wrong.write_text("# drill: flash\n", encoding="utf-8")
    err = grade_file(wrong).error
    assert "'# drill: flash', which is not a drill" in err and "sdpa" in err
    assert "cannot read" in grade_file(tmp_path / "missing.py").error


def test_grade_in_a_subprocess_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The real path: one worker process per file, a time limit, exit codes; three files in parallel."""
    good = tmp_path / "good.py"
    good.write_text(SOLUTIONS["causal"], encoding="utf-8")
    broken = tmp_path / "broken.py"
    broken.write_text(
        BROKEN["missing scale"][1].replace("import math", "import math\nprint('debug output')"),
        encoding="utf-8",
    )
    loop = tmp_path / "loop.py"
    loop.write_text(
        "# drill: kv_cache\ndef decode_step(q_t, k_t, v_t, k_cache, v_cache):\n"
        "    while True:\n        pass\n",
        encoding="utf-8",
    )
    with ThreadPoolExecutor(3) as pool:
        f_good = pool.submit(main, ["grade", str(good)])  # the command itself: prints, returns the exit code
        f_broken = pool.submit(grade_file, broken)
        f_loop = pool.submit(grade_file, loop, 2.0)
        code_good, broken_report, loop_report = f_good.result(), f_broken.result(), f_loop.result()

    out_good = capsys.readouterr().out
    assert code_good == 0, out_good
    n = 3 + len(NAMES["causal"])  # file compiles, no forbidden shortcut, file loads, the drill's checks
    assert out_good.count("[PASS]") == n and "[FAIL]" not in out_good  # stdout is not a TTY: ASCII marks
    assert f"{n}/{n} checks passed" in out_good

    assert not broken_report.passed
    text = format_report(broken_report, plain=True)
    assert "[FAIL] matches the reference without a mask" in text
    assert "the 1/sqrt(d_k) scale looks missing" in text
    assert "[PASS] returns (out, weights) with the right shapes" in text
    # the user's prints never corrupt the grader's protocol, and they are shown, under the checklist
    assert "debug output" not in "".join(r.message for r in broken_report.results)
    assert text.splitlines()[-3:-1] == ["Your code printed (last 1 line(s), at most 20):", "  | debug output"]

    assert not loop_report.passed
    failed = [r for r in loop_report.results if r.status == "fail"]
    assert len(failed) == 1
    assert failed[0].name == NAMES["kv_cache"][0]
    assert failed[0].message.startswith("timed out after 2 s while running check")
    assert {r.status for r in loop_report.results[loop_report.results.index(failed[0]) + 1 :]} == {"skip"}


def test_grade_exit_code_1_and_stderr_for_a_file_that_cannot_be_graded(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "typo.py"
    bad.write_text("# drill: sdpa\ndef scaled_dot_product_attention(q, k, v, mask=None)\n    return q\n")
    assert main(["grade", str(bad)]) == 1
    assert "syntax error at line 2" in capsys.readouterr().out
    assert main(["grade", str(tmp_path / "nope.py")]) == 1
    assert "cannot grade: cannot read" in capsys.readouterr().err


def test_format_report_marks(tmp_path: Path) -> None:
    results = _grade_in_process(tmp_path, BROKEN["missing scale"][1])
    from selfattention.interview.grader import CheckResult

    report = GradeReport(
        tmp_path / "x.py",
        "sdpa",
        [CheckResult(n, "pass" if ok else "fail", m) for n, (ok, m) in results.items()],
    )
    fancy = format_report(report, plain=False)
    plain = format_report(report, plain=True)
    assert "✓ returns (out, weights)" in fancy and "✗ matches the reference" in fancy
    assert "[PASS] returns (out, weights)" in plain and "✓" not in plain and "✗" not in plain
    assert re.search(r"-> weights doesn't match the reference for seed \d+, q \(2, 3, 5, 8\)", plain)
    assert plain.splitlines()[-1] == f"{sum(ok for ok, _ in results.values())}/{len(results)} checks passed."


def test_a_failure_reason_repeated_by_every_check_is_said_once(tmp_path: Path) -> None:
    """Issue 15, point 6: one wrong setting (here every call raises the same error) used to print the same
    message under all the failing checks; the report now says it once, then "(same reason as above)"."""
    source = (
        "# drill: sdpa\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    raise RuntimeError('expected DTYPE = float64 in my settings')\n"
    )
    results = _grade_in_process(tmp_path, source)
    from selfattention.interview.grader import CheckResult

    failed = [n for n, (ok, _) in results.items() if not ok]
    messages = {results[n][1] for n in failed}
    assert len(failed) >= 3 and len(messages) == 1  # the same reason under every failing check
    checks = [CheckResult(n, "pass" if ok else "fail", m) for n, (ok, m) in results.items()]
    text = format_report(GradeReport(tmp_path / "x.py", "sdpa", checks), plain=True)
    assert text.count("expected DTYPE = float64 in my settings") == 1, text
    assert text.count("-> (same reason as above)") == len(failed) - 1


def test_drill_command_writes_scaffold_lists_and_never_overwrites(tmp_path: Path, capsys) -> None:
    assert main(["drill", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in DRILLS)
    out = tmp_path / "my_mha.py"
    assert main(["drill", "mha", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == DRILLS["mha"].scaffold
    assert f"attention-rehearse grade {out}" in capsys.readouterr().out
    out.write_text("my work in progress", encoding="utf-8")
    assert main(["drill", "mha", "--out", str(out)]) == 1
    assert "exists; not overwriting your work" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "my work in progress"
    assert main(["drill", "mha", "--out", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8") == DRILLS["mha"].scaffold


# -- the static check (no torch): forbidden imports and calls read from the source ---------------------
@pytest.mark.parametrize("drill", list(DRILLS))
def test_correct_solutions_use_no_forbidden_shortcut(drill: str) -> None:
    assert find_violations(SOLUTIONS[drill], drill) == []


@pytest.mark.parametrize(
    ("drill", "source", "what"),
    [
        ("sdpa", "import selfattention\n", "import selfattention"),
        ("sdpa", "from selfattention.core import causal_mask\n", "import selfattention.core"),
        ("mha", "import torch.nn.functional as F\ny = F.scaled_dot_product_attention(q, k, v)\n",
         "F.scaled_dot_product_attention"),
        ("mha", "from torch.nn.functional import scaled_dot_product_attention as s\n",
         "from torch.nn.functional import scaled_dot_product_attention"),
        ("mha", "from torch import nn\nm = nn.MultiheadAttention(8, 2)\n", "nn.MultiheadAttention"),
        ("sdpa", "import torch\nf = getattr(torch.nn.functional, 'scaled_dot_product_attention')\n",
         "'scaled_dot_product_attention'"),
        ("sdpa", "m = __import__('selfattention')\n", "__import__"),
        ("sdpa", "import importlib\n", "import importlib"),
        ("sdpa", "from torch.nn.functional import *\n", "from torch.nn.functional import *"),
        ("causal", "import torch\ndef stable_softmax(s, mask=None):\n"
         "    return torch.softmax(s, -1)\n", "torch.softmax"),
        ("causal", "import torch.nn.functional as F\ndef stable_softmax(s, mask=None):\n"
         "    def inner(t):\n        return F.log_softmax(t, -1).exp()\n"
         "    return inner(s)\n", "F.log_softmax"),
        ("causal", "def stable_softmax(s, mask=None):\n    return s.softmax(-1)\n", "s.softmax"),
    ],
)
def test_static_check_names_the_forbidden_use(drill: str, source: str, what: str) -> None:
    found = find_violations(source, drill)
    assert [v.what for v in found][:1] == [what], found


def test_static_check_allows_what_the_drill_allows() -> None:
    # torch.softmax is fine outside stable_softmax and in the other drills; the file's own function is fine
    ok = "import torch\ndef causal_attention(q, k, v):\n    return torch.softmax(q @ k.mT, -1) @ v\n"
    assert find_violations(ok, "causal") == []
    recursive = (
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    return scaled_dot_product_attention(q, k, v)\n"
    )
    assert find_violations(recursive, "sdpa") == []


def test_grade_reports_the_static_check(tmp_path: Path) -> None:
    path = tmp_path / "cheat.py"
    path.write_text(BROKEN["F.sdpa inside mha"][1], encoding="utf-8")
    report = grade_file(path)
    static = [r for r in report.results if r.name == STATIC_CHECK]
    assert static and static[0].status == "fail"
    assert "torch.nn.functional.scaled_dot_product_attention" in static[0].message
    assert static[0].message.startswith("line 27: ")
    assert not report.passed


# -- the worker never outlives the grader (issue 15, point 5) -------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_until(cond, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


LOOP = "# drill: kv_cache\ndef decode_step(q_t, k_t, v_t, k_cache, v_cache):\n    while True:\n        pass\n"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_worker_dies_with_a_killed_grader(tmp_path: Path) -> None:
    """`grade` on an infinite loop, then the grader is killed (kill -9, or its terminal closed): the worker
    and the sandbox it runs the user's code in must not keep burning a core under PID 1."""
    loop = tmp_path / "loop.py"
    fifo = tmp_path / "in-the-loop"
    os.mkfifo(fifo)  # the sandbox cannot write a marker file: it opens this FIFO for reading instead
    # (os reached through torch: the sandbox refuses `import os` from the candidate's file)
    touch = f"    os = torch.serialization.os\n    os.open({str(fifo)!r}, os.O_RDONLY | os.O_NONBLOCK)\n"
    loop.write_text(LOOP.replace("    while True:", touch + "    while True:").replace(
        "# drill: kv_cache\n", "# drill: kv_cache\nimport torch\n\n\n"), encoding="utf-8")

    def reader_open() -> bool:  # a non-blocking open for writing succeeds once somebody reads the FIFO
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            return True
        except OSError:
            return False

    grader = subprocess.Popen(
        [sys.executable, "-m", "selfattention.rehearse", "grade", str(loop), "--timeout", "600"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    procs: list[int] = []
    try:
        assert _wait_until(lambda: bool(_children(grader.pid)), 60), "the grader started no worker"
        worker = _children(grader.pid)[0]
        procs.append(worker)
        assert _wait_until(lambda: bool(_children(worker)), 60), "the worker started no sandbox"
        sandbox = _children(worker)[0]
        procs.append(sandbox)
        assert _wait_until(reader_open, 120), "the sandbox never reached the user's loop"
        grader.kill()
        grader.wait()
        assert _wait_until(lambda: not _alive(worker), 10), f"worker {worker} outlived its grader"
        assert _wait_until(lambda: not _alive(sandbox), 10), f"sandbox {sandbox} outlived its worker"
    finally:
        if grader.poll() is None:
            grader.kill()
        for pid in procs:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_worker_has_its_own_cpu_time_limit(tmp_path: Path) -> None:
    """Even with a live parent that never kills it, an infinite loop ends at the sandbox's CPU cap; the
    worker says so."""
    loop = tmp_path / "loop.py"
    loop.write_text(LOOP, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "selfattention.interview.drills._worker", str(loop), "kv_cache", "--cpu", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()
    assert code == 0, code
    assert '"event": "ready"' in out
    assert f"(exit code {-signal.SIGXCPU}), killed by SIGXCPU: it ran out of CPU time" in out, out


def test_grader_passes_a_cpu_cap_and_a_pipe_to_the_worker(tmp_path: Path, monkeypatch) -> None:
    seen = {}
    real = subprocess.Popen

    def spy(cmd, **kw):
        seen.update(cmd=cmd, stdin=kw.get("stdin"))
        return real(cmd, **kw)

    monkeypatch.setattr(subprocess, "Popen", spy)
    path = tmp_path / "s.py"
    path.write_text(SOLUTIONS["kv_cache"], encoding="utf-8")
    assert grade_file(path, timeout=7.0).passed
    assert seen["cmd"][-3:] == ["--cpu", "24", "--watch-stdin"] and seen["stdin"] == subprocess.PIPE


def test_find_violations_parses_one_source_at_a_time(monkeypatch) -> None:
    """ast.parse is not thread-safe on CPython 3.11 (python/cpython#106905: "AST constructor recursion
    depth mismatch" when two threads parse at once, which a clean-clone run hit while grading the drill
    corpus with two threads), so `find_violations` holds a lock around it: never two parses at once."""
    import ast
    import threading
    import time

    from selfattention.interview.drills import rules

    real, inside, most = ast.parse, [0], [0]
    guard = threading.Lock()

    def slow_parse(*args, **kwargs):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)  # releases the GIL: without the lock another thread enters here
        try:
            return real(*args, **kwargs)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(rules.ast, "parse", slow_parse)
    threads = [threading.Thread(target=rules.find_violations, args=("x = 1\n", "sdpa")) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1, most[0]

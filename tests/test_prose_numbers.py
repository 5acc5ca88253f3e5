"""The intro's promise, kept by a test: a number the prose of a chapter quotes is computed, set, or cited.

A decimal number or a percentage in a chapter's markdown (outside math, code and glue roles) must be one of:
- glued: written through `` {glue:text}`name` `` (then it is computed by a cell and nbval checks it);
- an input: it appears in the notebook's own code (a learning rate, a threshold, a size the cell sets);
- cited: the sentence carries a `` {cite}`key` `` (a number from a paper, not shown here).
Anything else is a number typed by hand, which is how prose drifts from what the cells compute.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))

_STRIP = [
    re.compile(r"```.*?```", re.S),  # fenced blocks: directives, code
    re.compile(r"\$\$.*?\$\$", re.S),  # display math
    re.compile(r"\$[^$\n]+\$"),  # inline math
    re.compile(r"\{glue(?::text)?\}`[^`]*`"),  # glued values
    re.compile(r"``.*?``|`[^`\n]*`"),  # code spans
    re.compile(r"\]\([^)]*\)"),  # link targets
]
_NUMBER = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?\s?%|\d+\.\d+)(?![\w.])")
# a version is not a result: "torch 2.13", "Python 3.11", "flash-attn >= 2.1", "Llama 3.1"
_VERSION = re.compile(
    r"(?:torch|PyTorch|Python|version|flash-attn|FlashAttention|Llama|Gemma|Qwen|v)\s*(?:≥|>=)?\s*$", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*\"'])|\n\s*\n|\n(?=\s*[-|#])")


def typed_numbers(path: Path) -> list[tuple[int, str, str]]:
    """(cell index, number, sentence) for every number in the prose that is neither glued, set nor cited."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    found = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for pattern in _STRIP:
            text = pattern.sub(lambda m: "\n\n" if m.group().startswith("```") else " ", text)
        for sentence in _SENTENCE.split(text):
            if "{cite" in sentence:
                continue
            for match in _NUMBER.finditer(sentence):
                if _VERSION.search(sentence[: match.start()]):
                    continue
                number = match.group(1).replace(" ", "")
                bare = number.rstrip("%")
                if re.search(rf"(?<![\w.]){re.escape(bare)}(?![\d])", code):
                    continue
                found.append((index, number, " ".join(sentence.split())[:160]))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_number_in_the_prose_is_glued_set_or_cited(path: Path) -> None:
    found = typed_numbers(path)
    listing = "\n".join(f"  cell {i}: {n!r} in: {s}" for i, n, s in found)
    assert not found, f"{path.name}: numbers typed into the prose (glue them, or cite the source):\n{listing}"


def test_the_check_flags_a_typed_number_and_spares_glued_set_and_cited_ones(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": "lr = 0.003\nglue('acc', 0.98)"},
        {"cell_type": "markdown", "metadata": {}, "source": (
            "Trained at learning rate 0.003, the model reaches {glue:text}`acc:.2f`. "
            "The paper reports 28.4 BLEU {cite}`vaswani2017attention`. "
            "Our run reached 0.97 on the test set, about 12.5% better. Math $0.5 + 0.5/16$ is fine. "
            "Checked with torch 2.13 and flash-attn >= 2.1."
        )},
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert [(i, n) for i, n, _ in typed_numbers(path)] == [(1, "0.97"), (1, "12.5%")]

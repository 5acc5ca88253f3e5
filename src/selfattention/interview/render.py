"""Terminal rendering: TeX to plain text, colour or plain output, answers read line by line."""

from __future__ import annotations

import re
import sys
from datetime import timedelta
from typing import Any

_MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)

_TEX = [
    (r"\\operatorname\{([^{}]*)\}", r"\1"),
    (r"\\(?:mathrm|text|mathbf|boldsymbol|mathit)\{([^{}]*)\}", r"\1"),
    (r"\\sqrt\{([^{}]*)\}", r"√\1"),
    (r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)"),
    (r"\^\{?\\top\}?", "ᵀ"),
    (r"\^\{?T\}?(?![a-zA-Z])", "ᵀ"),
    (r"\\mathbb\{R\}", "ℝ"),
    (r"\\cdot", "·"),
    (r"\\times", "×"),
    (r"\\in\b", "∈"),
    (r"\\le(?:q)?\b", "≤"),
    (r"\\ge(?:q)?\b", "≥"),
    (r"\\approx", "≈"),
    (r"\\infty", "∞"),
    (r"\\to\b", "→"),
    (r"\\sum", "Σ"),
    (r"\\ldots|\\dots", "…"),
    (r"\\sqrt\s*", "√"),
    (r"\\([a-zA-Z]+)", r"\1"),
    (r"\\([_{}%$])", r"\1"),
    (r"[{}]", ""),
]

def terminal_text(text: str) -> str:
    """Card text (MyST with $...$ math) made readable in a terminal: $\\sqrt{d_k}$ -> √d_k, K^\\top -> Kᵀ."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(1) or m.group(2)
        for pat, sub in _TEX:
            s = re.sub(pat, sub, s)
        return s

    return _MATH_RE.sub(repl, text)

class UI:
    """Plain text or rich output, and line input that returns None at end of input."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain
        self.console: Any = None
        if not plain:
            from rich.console import Console

            self.console = Console(highlight=False, soft_wrap=False)
            try:  # line editing for input(): arrow keys move the cursor instead of typing ^[[D
                import readline  # noqa: F401
            except ImportError:  # Windows without pyreadline: plain input() still works
                pass
        self.ok = "[x]" if plain else "✓"
        self.no = "[ ]" if plain else "✗"

    def say(self, text: str = "", style: str | None = None) -> None:
        if self.console is None:
            print(text, flush=True)
        else:
            from rich.text import Text

            self.console.print(Text(text, style=style or ""))

    def rule(self, title: str) -> None:
        if self.console is None:
            print(f"\n== {title} ==", flush=True)
        else:
            self.console.rule(title, style="cyan")

    def block(self, title: str, body: str, style: str = "") -> None:
        if self.console is None:
            print(f"-- {title} --\n{body}", flush=True)
        else:
            from rich.panel import Panel
            from rich.text import Text

            self.console.print(
                Panel(Text(body), title=title, title_align="left", border_style=style or "blue")
            )

    def ask(self, prompt: str) -> str | None:
        """One line from stdin (None at EOF)."""
        try:
            line = input(prompt)
        except EOFError:
            print(flush=True)
            return None
        if not sys.stdin.isatty():
            print(line, flush=True)  # echo piped input so the transcript reads like a session
        return line

def _human_delta(delta: timedelta) -> str:
    s = delta.total_seconds()
    if s < 60:
        return "now"
    if s < 3600:
        return f"in {round(s / 60)} min"
    if s < 86400:
        return f"in {round(s / 3600)} h"
    return f"in {round(s / 86400)} days"

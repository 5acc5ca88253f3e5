"""Terminal rendering: TeX to plain text, colour or plain output, the interface in English or Chinese,
text wrapped by display width (a Chinese character is two columns; Chinese breaks between any two characters,
never before closing punctuation), key points with a hanging indent, answers read line by line."""

from __future__ import annotations

import re
import sys
import unicodedata
from datetime import timedelta
from typing import Any

# interface strings: key -> (English, 中文); format fields with str.format
MESSAGES: dict[str, tuple[str, str]] = {
    "question": ("Question", "问题"),
    "interviewer": ("Interviewer", "面试官"),
    "time_budget": ("Time budget: {budget:g} s.", "时间预算：{budget:g} 秒。"),
    "time_up": ("⏰ {budget:g} s are up: wrap up your answer.", "⏰ {budget:g} 秒到了：请收尾。"),
    "first_prompt": (
        "> (answer aloud or type; Enter on an empty line reveals) ", "> （口头回答或输入；空行回车显示答案） "
    ),
    "took": ("You took {seconds:.0f} s.", "用时 {seconds:.0f} 秒。"),
    "over_budget": (
        "⚠ over budget: {seconds:.0f} s for a {budget:g} s answer. Lead with the short answer, then stop and "
        "let the interviewer ask.",
        "⚠ 超时：{budget:g} 秒的回答用了 {seconds:.0f} 秒。先说简短回答，然后停下来让面试官追问。",
    ),
    "rate": ("How did it go?  {buttons} > ", "答得怎么样？ {buttons} > "),
    "rate_keys": (
        "keys: 1-4 rate (Enter = good) · s spoken answer + myths · q stop",
        "按键：1-4 评分（回车 = 良好）· s 口语回答和误区 · q 停止",
    ),
    "rate_keys_undo": (
        "keys: 1-4 rate (Enter = good) · s spoken answer + myths · u undo · q stop",
        "按键：1-4 评分（回车 = 良好）· s 口语回答和误区 · u 撤销上一个 · q 停止",
    ),
    "nothing_to_undo": ("Nothing to undo yet.", "还没有可以撤销的评分。"),
    "undone": (
        "Undone: {cid} ({rating}) is taken back; it is asked again.",
        "已撤销：{cid}（{rating}）的评分已收回，重新提问。",
    ),
    "rate_again": (
        "Please press 1, 2, 3 or 4 (Enter = good; or q to stop); got {raw!r}.",
        "请按 1、2、3 或 4（回车 = 良好，或输入 重来/困难/良好/简单；q 停止）；收到的是 {raw!r}。",
    ),
    "key_points": ("Key points (you took {seconds:.0f} s):", "要点（用时 {seconds:.0f} 秒）："),
    "key_points_typed": (
        "Key points ({seconds:.0f} s): ✓ = a clause of yours states it (s: which); not a grade:",
        "要点（用时 {seconds:.0f} 秒）：✓ = 你有一句写出了它（按 s 看是哪句）；不是打分：",
    ),
    "saved": (
        "Saved ({rating}). Next review {when} ({at}).",
        "已保存（{rating}）。下次复习：{when}（{at}）。",
    ),
    "not_saved_error": (
        "{error}; your rating of {card} was NOT saved", "{error}；你对 {card} 的评分没有保存"
    ),
    "chapter_n": ("ch.{n}", "第 {n} 章"),
    "back": (" · back (last: {rating})", " · 再次（上次：{rating}）"),
    "new_limit": (
        "New cards: the daily limit (--new {limit}) is used up: {started} started today in study; "
        "{unseen} more wait until the day turns at {at} (--day-starts), or now with --new {more}.",
        "新卡片：今天的上限（--new {limit}）已用完：今天在复习中开始了 {started} 张；"
        "还有 {unseen} 张等到 {at}（--day-starts）换日后出现，或现在用 --new {more}。",
    ),
    "new_limit_mock": (
        " ({n} card(s) first met in a mock interview today do not count.)",
        "（今天在模拟面试中第一次出现的 {n} 张卡片不计入。）",
    ),
    "interrupted": (
        "progress saved: {n} answer{s} this session", "进度已保存：本次 {n} 个回答"
    ),
    "interrupted_lost": ("; the rating of {card} was NOT saved", "；{card} 的评分没有保存"),
    "error": ("attention-rehearse: error: {msg}", "attention-rehearse：错误：{msg}"),
    "bank_error": ("question bank: {msg}", "题库：{msg}"),
    "exists": (
        "{path} exists; not overwriting it (use --force, or another PATH)",
        "{path} 已存在；不会覆盖它（用 --force，或换一个路径）",
    ),
    "cannot_write": ("cannot write {path}: {reason}", "无法写入 {path}：{reason}"),
    "is_a_folder": ("it is a folder", "这是一个文件夹"),
    "wrote_anki": ("wrote {n} notes ({what}) to {path}", "已把 {n} 条笔记（{what}）写入 {path}"),
    "backup_note": ("Backup: {path} (the last {keep} are kept).", "备份：{path}（保留最近 {keep} 份）。"),
    "done": ("Done: {n} answer(s) saved this session.", "完成：本次保存了 {n} 个回答。"),
    "to_rehearse": (
        "{n} card(s) to rehearse ({due} due, {new} new). Progress: {path}",
        "本次复习 {n} 张卡片（{due} 张到期，{new} 张新卡）。进度文件：{path}",
    ),
    "nothing_due": ("Nothing is due right now.", "现在没有到期的卡片。"),
    "summary": (
        "This session: {parts} · {mins} min {secs} s in all.", "本次：{parts} · 共 {mins} 分 {secs} 秒。"
    ),
    "next_due": ("Next due: {cid} {when} ({at}).", "下一张到期：{cid}，{when}（{at}）。"),
    "try_mock": (
        "Try `attention-rehearse mock`, or --new N to add new cards.",
        "可以试试 `attention-rehearse mock`，或用 --new N 加入新卡片。",
    ),
    "over_budget_plain": (
        "WARNING over budget: {seconds:.0f} s for a {budget:g} s answer.",
        "警告，超时：{budget:g} 秒的回答用了 {seconds:.0f} 秒。",
    ),
    "busy": (
        "The progress file is locked by another program; your rating ({rating}) is kept and will be saved as "
        "soon as it is free. Waiting… (Ctrl-C gives up on this rating)",
        "进度文件被另一个程序锁住了；你的评分（{rating}）会保留，文件一释放就保存。"
        "等待中…（Ctrl-C 放弃这次评分）",
    ),
    "not_saved": (
        "Not saved to your schedule ({rating}): --no-schedule.", "未计入复习计划（{rating}）：--no-schedule。"
    ),
    # mock interview
    "no_basic": ("No basic question to start a mock interview with.", "没有可以开始模拟面试的基础问题。"),
    "mock_intro": (
        "Mock interview: {n} question(s), {budget:g} s budget per answer. Answer aloud as you would in the "
        "room; Enter on an empty line when you are done. ",
        "模拟面试：{n} 个问题，每个回答 {budget:g} 秒。像在面试现场一样口头回答；答完在空行按回车。",
    ),
    "mock_scheduled": (
        "Your ratings update the schedule (--no-schedule: practise without).",
        "你的评分会更新复习计划（--no-schedule：只练习，不计入）。",
    ),
    "mock_unscheduled": ("--no-schedule: nothing is saved.", "--no-schedule：什么都不保存。"),
    "main_question": ("main question", "主问题"),
    "follow_up": ("follow-up", "追问"),
    "mock_summary": ("Mock interview summary", "模拟面试小结"),
    "mock_row": (
        "{q} ({cid}): {secs:.0f} s{flag}, rated {rating}{cov}",
        "{q}（{cid}）：{secs:.0f} 秒{flag}，自评{rating}{cov}",
    ),
    "mock_over": (" OVER BUDGET", "，超时"),
    "mock_cov": (", {covered}/{total} key points", "，要点 {covered}/{total}"),
    "mock_n_over": (
        "{over} of {n} answer(s) over the {budget:g} s budget.",
        "{n} 个回答中有 {over} 个超过了 {budget:g} 秒。",
    ),
    # optimize
    "op_no_db": (
        "No progress database at {db} yet: nothing to fit. Study first (`attention-rehearse`).",
        "{db} 还没有进度数据库：没有可拟合的记录。先复习一阵（`attention-rehearse`）。",
    ),
    "op_reset_none": (
        "Already using the default FSRS parameters; nothing to reset.",
        "已经在用默认的 FSRS 参数，无需重置。",
    ),
    "op_reset_dry": (
        "--dry-run: would go back to the default FSRS parameters; nothing was changed.",
        "--dry-run：会改回默认的 FSRS 参数；什么都没有改。",
    ),
    "op_reset_done": (
        "Back to the default FSRS parameters; sessions schedule with them from now on.",
        "已改回默认的 FSRS 参数；之后的复习按它们安排。",
    ),
    "op_reading": ("Reading {n} review(s) from {db} …", "正在读取 {db} 中的 {n} 条复习记录…"),
    "op_too_few": (
        "Not enough reviews to fit yet: you have {have} review(s) made a day or more after the card's "
        "previous one; the optimizer needs at least {need} (below that py-fsrs returns the defaults "
        "unchanged). "
        "Nothing was changed.",
        "复习记录还不够拟合：距同一张卡片上次复习一天以上的复习，你有 {have} 次；优化器至少需要 {need} 次"
        "（少于这个数 py-fsrs 会原样返回默认参数）。什么都没有改。",
    ),
    "op_no_optimizer": (
        'The FSRS optimizer is not installed: pip install "fsrs[optimizer]" (it needs torch and pandas).',
        '没有安装 FSRS 优化器：pip install "fsrs[optimizer]"（需要 torch 和 pandas）。',
    ),
    "op_fitted": (
        "Fitted on {countable} review(s) a day or more after the card's previous one ({reviews} answers in "
        "all) in {secs:.1f} s.",
        "用 {countable} 次距上次复习一天以上的复习（共 {reviews} 个回答）拟合，用时 {secs:.1f} 秒。",
    ),
    "op_table": ("Parameter   in use  →  fitted", "参数        当前    →  拟合"),
    "op_interval": (
        "A new card answered 'good' twice: next interval {old:.1f} days → {new:.1f} days.",
        "一张新卡片两次答“良好”后，下一个间隔：{old:.1f} 天 → {new:.1f} 天。",
    ),
    "op_how_well": (
        "How well each predicts your log (lower is better; {n} reviews, in-sample):",
        "两组参数对你的记录的预测（越低越好；{n} 次复习，样本内）：",
    ),
    "op_in_use": (
        "  in use: log-loss {ll:.4f}, RMSE {rmse:.4f}", "  当前：对数损失 {ll:.4f}，RMSE {rmse:.4f}"
    ),
    "op_fitted_row": (
        "  fitted: log-loss {ll:.4f}, RMSE {rmse:.4f}", "  拟合：对数损失 {ll:.4f}，RMSE {rmse:.4f}"
    ),
    "op_not_better": (
        "The fitted parameters do not predict your log better than those in use: nothing was changed.",
        "拟合出的参数并不比当前参数更能预测你的记录：什么都没有改。",
    ),
    "op_dry": ("--dry-run: nothing was stored.", "--dry-run：什么都没有保存。"),
    "op_ask": (
        "Schedule with the fitted parameters from now on? [y/N] ", "以后按拟合出的参数安排复习吗？[y/N] "
    ),
    "op_declined": (
        "Nothing was stored; the schedule keeps the parameters in use.",
        "什么都没有保存；复习计划继续用当前参数。",
    ),
    "op_stored": (
        "Stored. Study and mock sessions schedule with the fitted parameters from each card's next rating on "
        "(`attention-rehearse optimize --reset` goes back to the defaults).",
        "已保存。从每张卡片的下一次评分起，复习和模拟面试都按拟合出的参数安排"
        "（`attention-rehearse optimize --reset` 可改回默认参数）。",
    ),
    # list
    "list_heads": ("id|chapter|level|state|due|question", "编号|章节|难度|状态|到期|问题"),
    "n_cards": ("{n} card(s).", "共 {n} 张卡片。"),
    # stats
    "progress": ("Progress", "学习进度"),
    "st_bank": ("cards in the bank", "题库卡片"),
    "st_bank_v": ("{cards}  (seen {seen}, never seen {new})", "{cards}（学过 {seen}，没学过 {new}）"),
    "st_due": ("due now", "现在到期"),
    "st_due_v": ("{due}  (+ {new} new)", "{due}（另有 {new} 张新卡）"),
    "st_learned": ("learned", "已掌握"),
    "st_learned_v": ("{n}  (in long-term review)", "{n}（进入长期复习）"),
    "st_reviews": ("reviews", "复习次数"),
    "st_reviews_v": (
        "{n}  (again-rate {rate:.0%}, mean {secs:.0f} s per answer)",
        "{n}（重来率 {rate:.0%}，平均每题 {secs:.0f} 秒）",
    ),
    "st_params": ("FSRS parameters", "FSRS 参数"),
    "st_params_default": (
        "defaults (py-fsrs {version}); `attention-rehearse optimize` fits your own once you have {min} "
        "reviews a day or more apart (you have {have})",
        "默认参数（py-fsrs {version}）；当你有 {min} 次间隔一天以上的复习后，`attention-rehearse optimize` "
        "会按你自己的记录拟合（目前 {have} 次）",
    ),
    "st_params_fitted": (
        "fitted to {n} of your reviews on {day} (log-loss {before:.4f} → {after:.4f})",
        "按你的 {n} 次复习拟合于 {day}（对数损失 {before:.4f} → {after:.4f}）",
    ),
    "st_none": (
        "No answers yet: run `attention-rehearse` to start.", "还没有回答：运行 `attention-rehearse` 开始。"
    ),
    "st_forecast": (
        "due in the next 7 days (today first): {days}  ({total} in all)",
        "未来 7 天到期（从今天起）：{days}（共 {total} 张）",
    ),
    "st_weakest": ("Weakest chapters (again-rate, lapses):", "最薄弱的章节（重来率、遗忘次数）："),
    "st_chapter": (
        "again {rate:.0%} of {n} review(s), {lapses} lapse(s)",
        "{n} 次复习中重来 {rate:.0%}，遗忘 {lapses} 次",
    ),
}
STATE_NAMES = {
    "en": {"new": "new", "learning": "learning", "review": "review", "relearning": "relearning"},
    "zh": {"new": "新卡", "learning": "学习中", "review": "复习中", "relearning": "重新学习"},
}
LEVEL_NAMES = {
    "en": {"basic": "basic", "follow-up": "follow-up", "deep": "deep"},
    "zh": {"basic": "基础", "follow-up": "追问", "deep": "深入"},
}
DUE_NOW = {"en": "due now", "zh": "现在到期"}  # the one label for "due now" in list, stats and study
RATING_NAMES = {
    "en": {1: "again", 2: "hard", 3: "good", 4: "easy"},
    "zh": {1: "重来", 2: "困难", 3: "良好", 4: "简单"},
}
_NO_LINE_START = set("，。、；：？！）》」』】…,.;:?!)")  # never begin a line with closing punctuation


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (CJK) characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in "WF"


def _tokens(text: str) -> list[str]:
    """Break opportunities: a run of non-wide non-space characters is one token, each wide character one,
    each space one (closing punctuation is glued to the token before it)."""
    out: list[str] = []
    for ch in text:
        if ch == " ":
            out.append(" ")
        elif _is_wide(ch) or ch in _NO_LINE_START:
            if ch in _NO_LINE_START and out and out[-1] != " ":
                out[-1] += ch
            else:
                out.append(ch)
        elif out and out[-1] != " " and not _is_wide(out[-1][-1]) and (
            out[-1][-1] not in _NO_LINE_START or out[-1][-1].isascii()  # 'sdpa.py', 'd_k,' stay whole
        ):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """Wrap a paragraph to ``width`` display columns: first line after ``indent``, the rest after ``hang``."""
    hang = indent if hang is None else hang
    lines: list[str] = []
    cur, cur_w = indent, display_width(indent)
    for tok in _tokens(text):
        w = display_width(tok)
        if tok == " ":
            if cur.strip():
                cur, cur_w = cur + " ", cur_w + 1
            continue
        if cur_w + w > width and cur.strip():
            lines.append(cur.rstrip())
            cur, cur_w = hang, display_width(hang)
        cur, cur_w = cur + tok, cur_w + w
    if cur.strip() or not lines:
        lines.append(cur.rstrip())
    return lines


def truncate(text: str, width: int, indent: str = "") -> str:
    """``indent + text`` cut to ``width`` display columns, with … when something was cut."""
    out, used = indent, display_width(indent)
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            return out + "…"
        out, used = out + ch, used + w
    return out


_MARKER = re.compile(r"^(\s*(?:\d{1,2} )?(?:[✓✗•!\-]|\[[x ]\]|[A-Za-z]+: |[\u4e00-\u9fff]{2}：)\s)")

_MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)

_TEX = [
    (r"\\operatorname\{([^{}]*)\}", r"\1"),
    (r"\\(?:mathrm|text|mathbf|boldsymbol|mathit)\{([^{}]*)\}", r"\1"),
    (r"\\sqrt\{([^{}]*)\}", r"√\1"),
    (r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)"),
    (r"\^\{?\\top\}?", "ᵀ"),
    (r"\^\{?T\}?(?![a-zA-Z])", "ᵀ"),
    (r"\\mathbb\{R\}", "ℝ"),
    (r"\\mathbb\{([A-Z])\}", r"\1"),  # \mathbb{E} -> E
    (r"\\[,;!]", " "),  # thin spaces
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

    def __init__(self, plain: bool, lang: str = "en") -> None:
        self.plain = plain
        self.lang = lang
        self.console: Any = None
        if not plain:
            from rich.console import Console

            self.console = Console(highlight=False, soft_wrap=False)
            try:  # line editing for input(): arrow keys move the cursor instead of typing ^[[D
                import readline  # noqa: F401
            except ImportError:  # Windows without pyreadline: plain input() still works
                pass
        self.width: int | None = None  # --plain in a terminal: wrap at word boundaries (not cut mid-word)
        if plain and sys.stdout.isatty():
            import shutil

            self.width = max(20, shutil.get_terminal_size().columns)
        self.ok = "[x]" if plain else "✓"
        self.no = "[ ]" if plain else "✗"

    def t(self, key: str, **fields: Any) -> str:
        """The interface string ``key`` in this UI's language."""
        en, zh = MESSAGES[key]
        return (zh if self.lang == "zh" else en).format(**fields)

    def ljust(self, text: str, width: int) -> str:
        """``text`` padded with spaces to ``width`` display columns (a Chinese character is two)."""
        return text + " " * max(0, width - display_width(text))

    def rating(self, value: int) -> str:
        """'good' / '良好'."""
        return RATING_NAMES["zh" if self.lang == "zh" else "en"][value]

    def _wrapped(self, text: str, width: int) -> str:
        out = []
        for para in text.split("\n"):
            m = _MARKER.match(para)
            lead = re.match(r"^\s*", para).group(0)  # type: ignore[union-attr]
            hang = " " * display_width(m.group(1)) if m else lead
            out += wrap(para[len(lead):], width, indent=lead, hang=hang)
        return "\n".join(out)

    def say(self, text: str = "", style: str | None = None) -> None:
        if self.console is None:
            print(text if self.width is None else self._wrapped(text, self.width), flush=True)
        else:
            from rich.text import Text

            body = self._wrapped(text, max(20, self.console.width))
            self.console.print(Text(body, style=style or "", no_wrap=True, overflow="ignore"))

    def rule(self, title: str) -> None:
        if self.console is None:
            print(f"\n== {title} ==", flush=True)
        else:
            self.console.rule(title, style="cyan")

    def block(self, title: str, body: str, style: str = "") -> None:
        if self.console is None:
            text = body if self.width is None else self._wrapped(body, self.width)
            print(f"-- {title} --\n{text}", flush=True)
        else:
            from rich.panel import Panel
            from rich.text import Text

            inner = self._wrapped(body, max(20, self.console.width - 4))
            self.console.print(
                Panel(
                    Text(inner, no_wrap=True, overflow="ignore"), title=title, title_align="left",
                    border_style=style or "blue",
                )
            )

    def interrupt(self, text: str, style: str | None = None) -> None:
        """Print ``text`` while the user may be typing, then redraw the prompt and what was typed so far
        (readline keeps the line; without this the alert would break it in two)."""
        prompt, line = self._prompt, self._asked  # once: Enter sets the prompt to None, a line counts
        typed = None
        if prompt is not None and "readline" in sys.modules:
            typed = sys.modules["readline"].get_line_buffer()
        self.say("\n" + text, style=style)
        if typed is not None and self._prompt is prompt and self._asked == line:  # still that line: redraw it
            sys.stdout.write(prompt + typed)
            sys.stdout.flush()

    _prompt: str | None = None
    _asked = 0  # lines asked for so far

    def ask(self, prompt: str) -> str | None:
        """One line from stdin (None at EOF)."""
        self._asked += 1
        self._prompt = prompt
        try:
            line = input(prompt)
        except EOFError:
            print(flush=True)
            return None
        finally:
            self._prompt = None
        if not sys.stdin.isatty():
            print(line, flush=True)  # echo piped input so the transcript reads like a session
        return line

def _human_delta(delta: timedelta, lang: str = "en") -> str:
    """'due now' (due or overdue: the one label list, stats and study share), 'in 10 min', 'in 3 h',
    'in 1 day', 'in 3 days': the one interval formatter (the unit is chosen after rounding, so an interval
    never reads '60 min', '24 h' or '1 days')."""
    s = delta.total_seconds()
    zh = lang == "zh"
    if s <= 0:
        return DUE_NOW["zh" if zh else "en"]
    m = max(1, round(s / 60))  # not due yet, even a few seconds before: never 'now' for a card study hides
    if m < 60:
        return f"{m} 分钟后" if zh else f"in {m} min"
    h = round(s / 3600)
    if h < 24:
        return f"{h} 小时后" if zh else f"in {h} h"
    d = round(s / 86400)
    return f"{d} 天后" if zh else f"in {d} day{'s' if d != 1 else ''}"


def interval_label(delta: timedelta, lang: str = "en") -> str:
    """The interval alone, for a rating button: '10 min', '1 day', '3 天'."""
    text = _human_delta(delta, lang)
    if text == DUE_NOW["zh" if lang == "zh" else "en"]:
        return "<1 min" if lang != "zh" else "<1 分钟"
    return text.removeprefix("in ").removesuffix("后")

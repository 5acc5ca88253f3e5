"""Grade a 'hand-write attention' drill file: detect ``# drill: NAME``, run its checks in a subprocess with a
time limit, print a ✓/✗ checklist that says what is wrong in plain words; exit 0 when every check passes.

The syntax check runs here (``compile``) so a typo is reported at once; everything that executes the user's
code runs in ``python -m selfattention.interview.drills._worker`` and is killed when it exceeds the limit.
The clock starts once the worker has imported torch (``ready``), so a slow import never counts against you.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .drills import DRILLS, detect_drill, get_drill
from .drills.rules import find_violations

__all__ = ["CheckResult", "GradeReport", "grade_file", "format_report", "cmd_grade", "cmd_drill"]

STATIC_CHECK = "uses no forbidden shortcut (read from the source)"
CPU_FACTOR, CPU_MARGIN = 2.0, 10.0  # worker CPU cap = 2 x the time limit + 10 s (after its imports)
STARTUP_LIMIT = 300.0  # seconds for the worker to import torch on a loaded machine (not the user's budget)
PRINTED_LINES = 20  # the last lines your code printed are shown under the checklist
GRACE = 5.0  # seconds past the time limit before this process kills the worker (which stops at the limit)


@dataclass(frozen=True)
class CheckResult:
    """One line of the checklist: passed / failed / not run, with the reason."""

    name: str
    status: str  # "pass" | "fail" | "skip"
    message: str = ""


@dataclass(frozen=True)
class GradeReport:
    """Everything ``grade`` found out about one file."""

    path: Path
    drill: str | None
    results: list[CheckResult]
    error: str = ""  # a reason the checks could not run at all
    output: str = ""  # what the user's code printed (the tail), shown under the checklist
    seed: int | None = None  # the run's random inputs (grade again with --seed N to get the same ones)

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.results) and all(r.status == "pass" for r in self.results)


def _check_names(drill: str) -> list[str]:
    """Names of the drill's checks without importing torch (read from the checks module's source)."""
    from .drills import checks_index

    return ["file compiles", STATIC_CHECK, "file loads", *checks_index.NAMES[drill]]


def grade_file(path: Path, timeout: float = 20.0, seed: int | None = None, zygote: Any = None) -> GradeReport:
    """Grade ``path``; never raises for problems in the user's file. With ``zygote`` (a
    ``drills._common.Zygote``, for grading many files) the checks run in this process and the candidate's
    code in a sandbox forked from it; otherwise both run in a worker process."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return GradeReport(path, None, [], error=f"cannot read {path}: {exc}")
    drill = detect_drill(source)
    if drill is None:
        return GradeReport(
            path,
            None,
            [],
            error=f"{path} has no '# drill: NAME' header line; add one (valid names: {', '.join(DRILLS)})",
        )
    if drill not in DRILLS:
        return GradeReport(
            path,
            drill,
            [],
            error=f"{path} says '# drill: {drill}', which is not a drill; valid names: {', '.join(DRILLS)}",
        )
    names = _check_names(drill)
    try:
        compile(source, str(path), "exec")
    except SyntaxError as exc:
        text = (exc.text or "").strip()
        msg = f"syntax error at line {exc.lineno}: {exc.msg}" + (f" ({text!r})" if text else "")
        return GradeReport(
            path,
            drill,
            [CheckResult(names[0], "fail", msg)] + [CheckResult(n, "skip", "not run") for n in names[1:]],
        )
    found = find_violations(source, drill)
    static = (
        CheckResult(STATIC_CHECK, "pass")
        if not found
        else CheckResult(STATIC_CHECK, "fail", "; ".join(str(v) for v in found[:3])
                         + (f" (and {len(found) - 3} more)" if len(found) > 3 else ""))
    )
    ran, output, used = (
        _run_worker(path, drill, timeout, seed)
        if zygote is None
        else _run_here(path, drill, timeout, seed, zygote)
    )
    results = [CheckResult(names[0], "pass"), static, *ran]
    done = {r.name for r in results}
    results += [CheckResult(n, "skip", "not run") for n in names if n not in done]
    return GradeReport(path, drill, results, output=output, seed=used)


def _run_worker(
    path: Path, drill: str, timeout: float, seed: int | None = None
) -> tuple[list[CheckResult], str, int | None]:
    cpu = timeout * CPU_FACTOR + CPU_MARGIN  # the sandbox's own cap, should every other process die
    cmd = [
        sys.executable, "-m", "selfattention.interview.drills._worker", str(path.resolve()), drill,
        "--timeout", f"{timeout:g}", *(["--seed", str(seed)] if seed is not None else []),
        "--cpu", f"{cpu:g}", "--watch-stdin",
    ]
    env = dict(
        os.environ, PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1")
    )
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,  # never written: the worker exits at end of file, i.e. when we are gone
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        cwd=str(path.resolve().parent),
    )
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: deque[str] = deque(maxlen=PRINTED_LINES)  # the user's prints: keep the tail

    def pump_out() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def pump_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr.append(line)

    threading.Thread(target=pump_out, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    results: list[CheckResult] = []
    current: str | None = None
    used: int | None = seed
    deadline = time.monotonic() + STARTUP_LIMIT
    started = False
    finished = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                what = f"while running check '{current}'" if current else "before any check ran"
                if started:
                    msg = (
                        f"timed out after {timeout:g} s {what}: an infinite loop, or far too slow "
                        "(use --timeout to allow more)"
                    )
                else:
                    msg = f"the grader could not start within {STARTUP_LIMIT:g} s (importing torch)"
                results.append(CheckResult(current or "file loads", "fail", msg))
                break
            if line is None:
                break
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            ev = msg.get("event")
            if ev == "ready":
                started = True
                deadline = time.monotonic() + timeout + GRACE  # the worker ends the run at `timeout` itself
            elif ev == "seed":
                used = int(msg["seed"])
            elif ev == "start":
                current = msg["check"]
            elif ev == "result":
                results.append(
                    CheckResult(msg["check"], "pass" if msg["ok"] else "fail", msg.get("message", ""))
                )
                current = None
            elif ev == "done":
                finished = True
                break
    finally:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
    if not finished and not (results and results[-1].message.startswith(("timed out", "the grader could"))):
        tail = "".join(list(stderr)[-5:]).strip()
        what = f"check '{current}'" if current else "loading"
        results.append(
            CheckResult(
                current or "file loads",
                "fail",
                f"the grader process died during {what} (exit code {proc.returncode})"
                + (f": {tail}" if tail else ""),
            )
        )
    return results, "".join(stderr), used


def _run_here(
    path: Path, drill: str, timeout: float, seed: int | None, zygote: Any
) -> tuple[list[CheckResult], str, int | None]:
    from .drills._worker import run_checks

    events: list[dict[str, Any]] = []
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        run_checks(str(path), drill, lambda **m: events.append(m),
                   cpu_limit=timeout * CPU_FACTOR + CPU_MARGIN,
                   seed=seed, timeout=timeout, stderr=devnull, zygote=zygote)
    finally:
        os.close(devnull)
    results = [CheckResult(m["check"], "pass" if m["ok"] else "fail", m.get("message", ""))
               for m in events if m["event"] == "result"]
    used = next((int(m["seed"]) for m in events if m["event"] == "seed"), seed)
    return results, "", used


_GRADE_TEXT = {  # the grader's frame in English and 中文 (the check names and reasons come from the drills)
    "cannot": ("cannot grade: {error}", "无法评分：{error}"),
    "grading": ("Grading {name} — drill '{drill}': {title}", "评分 {name} — 练习 '{drill}'：{title}"),
    "same": ("(same reason as above)", "（原因同上）"),
    "seed": (
        "Random inputs: seed {seed} (grade again with --seed {seed} for the same ones)",
        "随机输入：种子 {seed}（用 --seed {seed} 再评一次，输入相同）",
    ),
    "printed": (
        "Your code printed (last {n} line(s), at most {max}):",
        "你的代码输出了（最后 {n} 行，最多 {max} 行）：",
    ),
    "passed": ("{n}/{total} checks passed", "通过 {n}/{total} 项检查"),
    "all_good": (" — all good.", " — 全部通过。"),
    "wrote": (
        "wrote the '{name}' scaffold ({title}) to {out}\n"
        "fill it in, then run: attention-rehearse grade {out}",
        "已把练习 '{name}'（{title}）的框架写入 {out}\n填好后运行：attention-rehearse grade {out}",
    ),
    "exists": (
        "{out} exists; not overwriting your work (use --force, or another --out FILE)",
        "{out} 已存在；不会覆盖你的代码（用 --force，或换一个 --out FILE）",
    ),
    "cannot_write": ("cannot write {out}: {reason}", "无法写入 {out}：{reason}"),
    "is_a_folder": ("it is a folder", "这是一个文件夹"),
    "error": ("attention-rehearse: error: {msg}", "attention-rehearse：错误：{msg}"),
}


def _t(lang: str, key: str, **fields: object) -> str:
    en, zh = _GRADE_TEXT[key]
    return (zh if lang == "zh" else en).format(**fields)


def _width() -> int | None:
    """The terminal's width when stdout is one (text is wrapped at word boundaries), else None (no wrap)."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _wrap_lines(lines: list[str], width: int | None) -> list[str]:
    """Each line wrapped at word boundaries (CJK-aware widths), continuation under the text after its
    marker ('  ✓ ', '      -> ', '  | ')."""
    if width is None:
        return lines
    import re

    from .render import wrap

    out: list[str] = []
    for text in lines:
        for line in text.split("\n"):
            lead = re.match(r"^(\s*(?:[✓✗·]|\[(?:PASS|FAIL| -- )\]|->|\|)?\s*)", line).group(1)  # type: ignore[union-attr]
            out += wrap(line[len(lead):], max(20, width), indent=lead, hang=" " * len(lead))
    return out


def format_report(report: GradeReport, plain: bool, lang: str = "en", width: int | None = None) -> str:
    """The checklist as text; ✓/✗ (or [PASS]/[FAIL] with ``plain``); wrapped to ``width`` if given."""
    if report.error:
        return "\n".join(_wrap_lines([_t(lang, "cannot", error=report.error)], width))
    mark = (
        {"pass": "[PASS]", "fail": "[FAIL]", "skip": "[ -- ]"}
        if plain
        else {"pass": "✓", "fail": "✗", "skip": "·"}
    )
    title = DRILLS[report.drill].title if report.drill in DRILLS else report.drill
    out = [_t(lang, "grading", name=report.path.name, drill=report.drill, title=title)]
    previous = ""
    for r in report.results:
        out.append(f"  {mark[r.status]} {r.name}")
        if r.status == "fail":
            same = r.message == previous  # one wrong setting fails every check the same way: say it once
            out.append("      -> " + (_t(lang, "same") if same else r.message))
            previous = r.message
    if report.seed is not None:
        out.append(_t(lang, "seed", seed=report.seed))
    if report.output.strip():
        printed = report.output.rstrip("\n").splitlines()
        out.append(_t(lang, "printed", n=len(printed), max=PRINTED_LINES))
        out += [f"  | {ln}" for ln in printed]
    n_pass = sum(r.status == "pass" for r in report.results)
    out.append(
        _t(lang, "passed", n=n_pass, total=len(report.results))
        + (_t(lang, "all_good") if report.passed else ("。" if lang == "zh" else "."))
    )
    return "\n".join(_wrap_lines(out, width))


def cmd_grade(
    path: Path, timeout: float = 20.0, plain: bool = False, seed: int | None = None, ui: object | None = None
) -> int:
    """``attention-rehearse grade FILE [--seed N]``: print the checklist; 0 if all checks pass, else 1."""
    lang = getattr(ui, "lang", "en")
    report = grade_file(path, timeout, seed)
    text = format_report(report, plain, lang, _width())
    print(text, file=sys.stderr if report.error else sys.stdout, flush=True)
    return 0 if report.passed else 1


def cmd_drill(args: argparse.Namespace, parser: argparse.ArgumentParser, ui: object | None = None) -> int:
    """``attention-rehearse drill NAME [--out FILE]`` / ``drill --list``."""
    lang = getattr(ui, "lang", "en")
    if args.list_drills or not args.name:
        if not args.list_drills:
            parser.error(f"drill: give a NAME or --list; valid drills: {', '.join(DRILLS)}")
        from .render import wrap

        width = max(len(n) for n in DRILLS)
        columns = _width()
        for d in DRILLS.values():
            line = f"{d.title}: {d.summary}"
            if columns is None:
                print(f"{d.name:<{width}}  {line}")
            else:  # wrapped at word boundaries, continuation lines under the description
                print("\n".join(wrap(line, max(40, columns), f"{d.name:<{width}}  ", " " * (width + 2))))
        return 0
    try:
        drill = get_drill(args.name)
    except KeyError as exc:
        parser.error(f"argument NAME: {exc.args[0]}")
    out = Path(args.out) if args.out else Path(f"drill_{drill.name}.py")

    def error(msg: str) -> int:
        print(_t(lang, "error", msg=msg), file=sys.stderr, flush=True)
        return 1

    if out.is_dir():
        return error(_t(lang, "cannot_write", out=out, reason=_t(lang, "is_a_folder")))
    if out.exists() and not args.force:
        return error(_t(lang, "exists", out=out))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(drill.scaffold, encoding="utf-8")
    except OSError as exc:  # a read-only file system, no permission, a file where a folder should be
        return error(_t(lang, "cannot_write", out=exc.filename or out, reason=exc.strerror or exc))
    print(_t(lang, "wrote", name=drill.name, title=drill.title, out=out))
    return 0

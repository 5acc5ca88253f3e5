"""Grader worker: ``python -m selfattention.interview.drills._worker FILE DRILL``.

Runs in its own process so the grader can kill it on a time limit. Talks JSON lines on its original stdout
(``ready`` once torch and the references are imported, then ``start``/``result`` per check, then ``done``);
anything the user's code prints goes to stderr instead.

It never outlives the grader: with ``--watch-stdin`` it exits when its stdin pipe (held open by the grader,
never written) reaches end of file, and on Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` kills it too.
``--cpu SECONDS`` caps its own CPU time (``RLIMIT_CPU``, counted from ``ready``): an infinite loop dies of
SIGXCPU even if nobody is left to kill it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent(watch_stdin: bool) -> None:
    """Exit when the grader that started this process goes away (however it goes)."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    if watch_stdin:

        def watch() -> None:
            try:
                while os.read(0, 1024):
                    pass
            except OSError:
                pass
            os._exit(1)  # end of file: the grader closed the pipe or died

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def limit_cpu(seconds: float) -> None:
    """Cap the CPU time from now on at ``seconds`` (soft: SIGXCPU; hard a second later: SIGKILL)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    now = used.ru_utime + used.ru_stime
    soft = int(now + seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def run_checks(
    path: str, drill: str, send: Callable[..., None], cpu_limit: float | None = None
) -> None:
    """Load the user's file and run the drill's checks, reporting each through ``send(event=..., ...)``."""
    from . import checks  # imports torch and the package: slow, so before the clock starts
    from .rules import Forbidden, Guard

    checks.user_file[0] = os.path.abspath(path)
    guard = Guard(checks.user_file[0], drill)
    guard.install()  # tripwires on the forbidden callables, live only for calls from the user's file
    if cpu_limit is not None:
        limit_cpu(cpu_limit)
    send(event="ready")
    send(event="start", check="file loads")
    try:
        spec = importlib.util.spec_from_file_location("drill_solution", checks.user_file[0])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - report anything, including SystemExit, in plain words
        lines = [
            f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == checks.user_file[0]
        ]
        where = f" (line {lines[-1]} of your file)" if lines else ""
        raised = f"importing your file raises {type(exc).__name__}: {exc}"
        what = str(exc) if isinstance(exc, Forbidden) else raised
        send(event="result", check="file loads", ok=False, message=f"{what}{where}")
        send(event="done")
        return
    send(event="result", check="file loads", ok=True, message="")
    for name, fn in checks.CHECKS[drill]:
        send(event="start", check=name)
        seen = len(guard.violations)
        try:
            fn(module)
        except checks.CheckFailed as exc:
            send(event="result", check=name, ok=False, message=str(exc))
        except Forbidden as exc:
            send(event="result", check=name, ok=False, message=f"not allowed: {exc}{checks.where(exc)}")
        except BaseException as exc:  # noqa: BLE001 - a bug in user code escaping _call, or SystemExit
            send(event="result", check=name, ok=False, message=f"raises {type(exc).__name__}: {exc}")
        else:
            caught = list(guard.new_since(seen))  # the user's code swallowed the Forbidden: still a fail
            if caught:
                send(event="result", check=name, ok=False, message=f"not allowed: {caught[0]}")
            else:
                send(event="result", check=name, ok=True, message="")
    guard.uninstall()
    send(event="done")


def main(argv: list[str]) -> int:
    """Worker entry point: ``FILE DRILL [--cpu SECONDS] [--watch-stdin]``; protocol on the original stdout."""
    path, drill = argv[0], argv[1]
    cpu = float(argv[argv.index("--cpu") + 1]) if "--cpu" in argv else None
    die_with_parent("--watch-stdin" in argv)
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the user's prints go to stderr, never into the protocol
    sys.stdout = sys.stderr

    def send(**msg: object) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    run_checks(path, drill, send, cpu_limit=cpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Grader worker: ``python -m selfattention.interview.drills._worker FILE DRILL [--seed N] [--timeout S]``.

Runs in its own process so the grader can kill it on a time limit. It holds the reference (the course
package) and the checks; the candidate's file runs in a second, sandboxed process (``_sandbox.py``) that it
starts and feeds one call at a time, so the candidate's code never shares a process with an expected value.
Talks JSON lines on its original stdout (``ready`` once torch and the references are imported, ``seed``, then
``start``/``result`` per check, then ``done``); anything the user's code prints goes to stderr instead.

It never outlives the grader: with ``--watch-stdin`` it exits when its stdin pipe (held open by the grader,
never written) reaches end of file, and on Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` kills it too (and the
sandbox with it, by the same means). ``--cpu SECONDS`` caps the sandbox's CPU time (``RLIMIT_CPU``, counted
from loading the file): an infinite loop dies of SIGXCPU even if nobody is left to kill it. ``--timeout``
ends the run after that many seconds from ``ready`` (the grader keeps its own deadline a little later).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

PR_SET_PDEATHSIG = 1
STARTUP_LIMIT = 300.0  # seconds for the sandbox to import torch on a loaded machine


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
    path: str,
    drill: str,
    send: Callable[..., None],
    cpu_limit: float | None = None,
    seed: int | None = None,
    timeout: float | None = None,
    stderr: Any = None,
    zygote: Any = None,
) -> None:
    """Load the user's file in a sandboxed process and run the drill's checks against it, reporting each
    through ``send(event=..., ...)``. ``seed`` (random when None) makes every input; ``timeout`` (seconds
    from ``ready``) ends the run in this process too."""
    from ._common import Sandbox  # imports torch; the sandbox starts first, so the two imports overlap

    box = Sandbox(stderr=stderr, zygote=zygote)
    try:
        _run(box, os.path.abspath(path), drill, send, cpu_limit, seed, timeout)
    finally:
        box.close()


def _run(box: Any, path: str, drill: str, send: Callable[..., None], cpu_limit: float | None,
         seed: int | None, timeout: float | None) -> None:
    from . import checks  # the reference and the checks, in this (the grader's) process
    from ._common import HIDDEN, SEED, RemoteModule, SandboxDied, SandboxTimeout
    from .rules import SCOPED, Forbidden

    SEED[0] = secrets.randbits(31) if seed is None else int(seed)
    current = "file loads"

    def timed_out() -> None:
        send(event="result", check=current, ok=False, message=(
            f"timed out after {box.timeout:g} s while running check '{current}': an infinite loop, or far "
            "too "
            "slow (use --timeout to allow more)"))

    def died(code: int | None) -> None:
        what = "loading" if current == "file loads" else f"check '{current}'"
        send(event="result", check=current, ok=False, message=(
            f"the grader process died during {what} (exit code {code})" + _signal_name(code)))

    try:
        box.wait_ready(STARTUP_LIMIT)
        send(event="ready")
        send(event="seed", seed=SEED[0])
        box.start_clock(timeout if timeout is not None else 1e9)
        send(event="start", check="file loads")
        reply = box.request({
            "op": "load", "path": path, "drill": drill, "cpu": cpu_limit,
            "scoped": sorted(SCOPED.get(drill, {})), "hide": HIDDEN,
        })
    except SandboxTimeout:
        timed_out()
        send(event="done")
        return
    except SandboxDied as exc:
        died(exc.code)
        send(event="done")
        return
    if not reply.get("ok"):
        line = reply.get("line") or (reply.get("error") or {}).get("line")
        where = f" (line {line} of your file)" if line else ""
        if "forbidden" in reply:
            what = str(reply["forbidden"])
        else:
            err = reply.get("error", {})
            what = f"importing your file raises {err.get('type')}: {err.get('msg')}"
        send(event="result", check="file loads", ok=False, message=f"{what}{where}")
        send(event="done")
        return
    box.landlock = int(reply.get("landlock", 0))
    send(event="result", check="file loads", ok=True, message="")
    module = RemoteModule(box, dict(reply.get("names", {})))
    for name, fn in checks.CHECKS[drill]:
        current = name
        send(event="start", check=name)
        try:
            fn(module)
        except checks.CheckFailed as exc:
            send(event="result", check=name, ok=False, message=str(exc))
        except Forbidden as exc:
            send(event="result", check=name, ok=False, message=f"not allowed: {exc}{checks.where(exc)}")
        except SandboxTimeout:
            timed_out()
            break
        except SandboxDied as exc:
            died(exc.code)
            break
        except Exception as exc:  # noqa: BLE001 - a bug in the check itself: still a plain-words fail
            send(event="result", check=name, ok=False, message=f"raises {type(exc).__name__}: {exc}")
        else:
            send(event="result", check=name, ok=True, message="")
    send(event="done")


def _signal_name(code: int | None) -> str:
    if code is None or code >= 0:
        return ""
    try:
        sig = signal.Signals(-code).name
    except ValueError:
        return ""
    hint = {"SIGXCPU": ": it ran out of CPU time"}.get(sig, "")
    return f", killed by {sig}{hint}"


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

    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else None
    timeout = float(argv[argv.index("--timeout") + 1]) if "--timeout" in argv else None
    run_checks(path, drill, send, cpu_limit=cpu, seed=seed, timeout=timeout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

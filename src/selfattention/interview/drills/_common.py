"""What every drill's checks share: the sandboxed candidate process seen from the grader (`Sandbox`, the
`Remote*` proxies), plain-words failures (`CheckFailed`, `_close`, `_shape`, ...), per-run random inputs
(`seeded`) and the reference attention.

A check is ``fn(module) -> None`` where ``module`` is a `RemoteModule`: calling one of its functions sends the
inputs to the candidate's process (``_sandbox.py``) and brings back what the function returned. The
expected values are computed here, in the grader's process, which the candidate's code cannot reach.
"""

from __future__ import annotations

import builtins
import math
import os
import secrets
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

import selfattention as sa

from . import _sandbox
from .rules import Forbidden

__all__ = [
    "CheckFailed",
    "Sandbox",
    "Zygote",
    "RemoteModule",
    "SandboxDied",
    "SandboxTimeout",
    "seeded",
    "SEED",
]

SANDBOX = str(Path(_sandbox.__file__).resolve())
SEED: list[int] = [0]  # the run's base seed, set by the worker; every check's inputs derive from it
# what the candidate's process may not read: the course package (the reference lives there)
HIDDEN = [str(Path(sa.__file__).resolve().parent)]
_PASS_ENV = (
    "PATH",
    "LANG",
    "LC_ALL",
    "ATEN_CPU_CAPABILITY",
    "MKL_ENABLE_INSTRUCTIONS",
    "ONEDNN_MAX_CPU_ISA",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "SYSTEMROOT",
)


class CheckFailed(Exception):
    """A check did not pass; the message says why, in plain words."""


def with_fp16_fill_hint(exc: CheckFailed) -> CheckFailed:
    """The failure, with a hint when a float16 run overflowed on a finite mask fill such as -1e9."""
    msg = str(exc)
    if "Half" in msg and "overflow" in msg:
        msg += (
            "; a finite fill such as -1e9 does not fit in float16 (largest 65504): use float('-inf') "
            "(or torch.finfo(scores.dtype).min)"
        )
    return CheckFailed(msg)


class SandboxTimeout(BaseException):  # noqa: N818 - ends the run, never caught by a check
    """The candidate's code ran past the time limit."""


class SandboxDied(BaseException):  # noqa: N818
    """The candidate's process ended (a crash, its CPU cap, os._exit)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


class RemoteError(Exception):
    """An exception the candidate's code raised, as data: its type name, base classes, message and line."""

    def __init__(self, info: dict[str, Any]) -> None:
        super().__init__(info.get("msg", ""))
        self.type = str(info.get("type", "Exception"))
        self.mro = [str(m) for m in info.get("mro", [])]
        self.msg = str(info.get("msg", ""))
        self.user_line = info.get("line")

    def is_a(self, *names: str) -> bool:
        return any(n in self.mro for n in names)


def seeded(offset: int) -> torch.Generator:
    """A generator for one check's inputs: the run's seed plus a per-check offset."""
    return torch.Generator().manual_seed((SEED[0] + offset) % (2**63))


def seed_of(offset: int) -> int:
    return (SEED[0] + offset) % (2**63)


# -- the candidate's process -------------------------------------------------------------------------------
def _kill_descendants(root: int) -> None:
    """SIGKILL every process whose parent chain leads to ``root`` (not ``root`` itself)."""
    for _ in range(3):  # a process that forks while we walk is caught on the next pass
        parents: dict[int, list[int]] = {}
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                    stat = fh.read()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            parents.setdefault(ppid, []).append(int(entry))
        found, todo = [], list(parents.get(root, []))
        while todo:
            p = todo.pop()
            found.append(p)
            todo.extend(parents.get(p, []))
        if not found:
            return
        for p in found:
            try:
                os.kill(p, 9)
            except (ProcessLookupError, PermissionError):
                pass


def _recv(fd: int, deadline: float | None) -> Any:
    def exact(n: int) -> bytes:
        parts, got = [], 0
        while got < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise TimeoutError
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    import io

    (n,) = struct.unpack("<Q", exact(8))
    if n > 1 << 30:
        raise EOFError
    return torch.load(io.BytesIO(exact(n)), weights_only=True)


def _home() -> str:
    home = tempfile.mkdtemp(prefix="drill-sandbox-")
    os.chmod(home, 0o555)  # read-only: the working directory and HOME hold nothing, take nothing
    return home


def _env(home: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    env.update(HOME=home, TMPDIR=home, OMP_NUM_THREADS=env.get("OMP_NUM_THREADS", "1"))
    return env


class Zygote:
    """One process that has imported torch and forks a fresh sandbox per file (``_sandbox.py --zygote``):
    grading many files costs one torch import, and every file still gets its own process."""

    def __init__(self) -> None:
        import socket

        self.home = _home()
        self.sock, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", SANDBOX, "--zygote"],
            stdin=theirs,
            cwd=self.home,
            env=_env(self.home),
        )
        theirs.close()
        self.lock = __import__("threading").Lock()
        if self.sock.recv(1) != b"R":
            raise RuntimeError("the sandbox zygote did not start")

    def spawn(self, stderr_fd: int) -> tuple[int, int, int]:
        """(pid, fd to write requests to, fd to read replies from) of a new sandbox."""
        import socket

        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        with self.lock:
            socket.send_fds(self.sock, [b"S"], [req_r, rep_w, stderr_fd])
            (pid,) = struct.unpack("<q", self.sock.recv(8))
        os.close(req_r)
        os.close(rep_w)
        return pid, req_w, rep_r

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.chmod(self.home, 0o755)
        shutil.rmtree(self.home, ignore_errors=True)


class Sandbox:
    """The candidate's process: started at once (it imports torch while the grader imports the reference),
    fed one request at a time; killed on the time limit. With a `Zygote`, forked from it instead."""

    def __init__(self, stderr: Any = None, zygote: Zygote | None = None) -> None:
        self.deadline: float | None = None
        self.timeout = 0.0
        self.landlock = 0
        self.pid: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.home = ""
        self.token = secrets.token_hex(16)
        if zygote is not None:
            err = stderr if isinstance(stderr, int) else (stderr.fileno() if stderr is not None else 2)
            self.pid, self.fd_out, self.fd_in = zygote.spawn(err)
            return
        self.home = _home()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", SANDBOX],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=self.home,
            env=_env(self.home),
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.fd_out = self.proc.stdin.fileno()
        self.fd_in = self.proc.stdout.fileno()

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    def wait_ready(self, limit: float) -> None:
        self._read(time.monotonic() + limit)

    def _read(self, deadline: float | None) -> Any:
        try:
            return _recv(self.fd_in, deadline)
        except TimeoutError:
            self.kill()
            raise SandboxTimeout from None
        except (EOFError, OSError, RuntimeError, ValueError):
            self.kill()
            raise SandboxDied(self.returncode) from None

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send one request; the reply must carry this run's token (sent with the load request, kept where
        the candidate's code cannot reach it), so a frame the candidate writes itself is refused."""
        try:
            _sandbox.send_frame(self.fd_out, {**msg, "token": self.token})
        except OSError:
            self.kill()
            raise SandboxDied(self.returncode) from None
        reply = self._read(self.deadline)
        if not isinstance(reply, dict) or reply.pop("token", None) != self.token:
            self.kill()
            raise SandboxDied(self.returncode)
        return reply

    def start_clock(self, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout

    def kill(self) -> None:
        """Kill the sandbox and every process it started (it is their subreaper, so a double-forked daemon
        stays its descendant while it lives): descendants first, found by walking /proc."""
        pid = self.pid if self.proc is None else self.proc.pid
        if pid is not None and (self.proc is None or self.proc.poll() is None):
            _kill_descendants(pid)
        if self.proc is None:
            if self.pid is not None:
                try:
                    os.kill(self.pid, 9)
                except ProcessLookupError:
                    pass
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        self.kill()
        if self.proc is None:
            for fd in (self.fd_in, self.fd_out):
                try:
                    os.close(fd)
                except OSError:
                    pass
            return
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        os.chmod(self.home, 0o755)
        shutil.rmtree(self.home, ignore_errors=True)


def _encode(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return {"t": value.detach().clone().contiguous()}
    if isinstance(value, RemoteObject):
        return {"obj": value.handle}
    if value is None or isinstance(value, bool | int | float | str):
        return {"v": value}
    if isinstance(value, tuple | list):
        return {"seq": [_encode(v) for v in value], "tuple": isinstance(value, tuple)}
    raise TypeError(f"cannot send {type(value).__name__} to the candidate's process")


class RemoteModule:
    """The candidate's file as the checks see it: its top-level names, callable across the process gap."""

    def __init__(self, box: Sandbox, names: dict[str, str]) -> None:
        self._box = box
        self._names = names
        self.largest = 0  # numel of the largest tensor the last call built
        self.largest_shape: list[int] = []
        self.watch_keys = 0  # n_k: report a tensor with n_k along an axis that is not a key/value tensor
        self.wide_shape: list[int] = []

    def __getattr__(self, name: str) -> Any:
        names = self.__dict__.get("_names", {})
        if name.startswith("_") and name not in names or name not in names:
            raise AttributeError(name)
        if names[name] == "other":
            raise AttributeError(name)
        return RemoteCallable(self, name)

    def _call(self, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        reply = self._box.request(
            {
                "op": "call",
                "target": target,
                "args": [_encode(a) for a in args],
                "kwargs": {k: _encode(v) for k, v in kwargs.items()},
                "watch_keys": self.watch_keys,
            }
        )
        self.largest = int(reply.get("largest", 0))
        self.wide_shape = list(reply.get("wide_shape", []))
        self.largest_shape = list(reply.get("largest_shape", []))
        if "forbidden" in reply:
            exc = Forbidden(str(reply["forbidden"]))
            exc.user_line = reply.get("line")  # type: ignore[attr-defined]
            raise exc
        if not reply.get("ok"):
            raise RemoteError(reply.get("error", {}))
        return self._decode(reply["value"])

    def _decode(self, value: Any) -> Any:
        if "t" in value:
            t = value["t"]
            if not isinstance(t, torch.Tensor):
                raise CheckFailed("the candidate's process sent back something that is not a tensor")
            return t
        if "v" in value:
            return value["v"]
        if "seq" in value:
            items = [self._decode(v) for v in value["seq"]]
            return tuple(items) if value.get("tuple") else items
        return RemoteObject(self, value)


class RemoteCallable:
    """A function or class of the candidate's file."""

    def __init__(self, mod: RemoteModule, name: str) -> None:
        self.mod, self.name = mod, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.mod._call(self.name, args, kwargs)


class RemoteObject:
    """An object the candidate's code returned (an nn.Module instance): a handle to call, and copies of its
    nn.Linear children (their weights, for the reference to use)."""

    def __init__(self, mod: RemoteModule, info: dict[str, Any]) -> None:
        self.mod = mod
        self.handle = info["obj"]
        self.type_name = str(info.get("type", "object"))
        self.is_module = bool(info.get("module"))
        self.linears: dict[str, nn.Linear] = {}
        for name, p in dict(info.get("linears", {})).items():
            w, b = p["weight"], p["bias"]
            if not isinstance(w, torch.Tensor) or w.ndim != 2:
                continue
            lin = nn.Linear(w.shape[1], w.shape[0], bias=b is not None)
            with torch.no_grad():
                lin.weight.copy_(w)
                if b is not None:
                    lin.bias.copy_(b)
            self.linears[name] = lin

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.mod._call(self.handle, args, kwargs)


# -- helpers -----------------------------------------------------------------------------------------------
def where(exc: BaseException) -> str:
    """' (line N of your file)' for an exception raised in the user's file, else ''."""
    line = getattr(exc, "user_line", None)
    return f" (line {line} of your file)" if line else ""


_where = where


def _call(label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call user code; turn any exception it raised into a CheckFailed naming it."""
    try:
        return fn(*args, **kwargs)
    except RemoteError as exc:
        if exc.is_a("NotImplementedError"):
            at = where(exc).strip(" ()")
            raise CheckFailed(
                f"{label} is not implemented yet (NotImplementedError" + (f" at {at})" if at else ")")
            ) from None
        raise CheckFailed(f"{label} raises {exc.type}: {exc.msg}{where(exc)}") from None


def _get(mod: Any, name: str) -> Any:
    if not hasattr(mod, name):
        raise CheckFailed(f"your file defines no {name!r} (keep the scaffold's names)")
    return getattr(mod, name)


def _tensor(label: str, x: Any) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise CheckFailed(f"{label} must be a torch.Tensor, got {_type_name(x)}")
    return x


def _type_name(x: Any) -> str:
    return x.type_name if isinstance(x, RemoteObject) else type(x).__name__


def _shape(label: str, x: Any, expected: tuple[int, ...]) -> torch.Tensor:
    x = _tensor(label, x)
    if tuple(x.shape) != tuple(expected):
        raise CheckFailed(f"shape wrong: {label} expected {tuple(expected)}, got {tuple(x.shape)}")
    return x


def _pair(label: str, res: Any, n: int = 2) -> tuple[Any, ...]:
    if not isinstance(res, tuple | list) or len(res) != n:
        what = f"a {_type_name(res)}" if not isinstance(res, tuple | list) else f"{len(res)} values"
        raise CheckFailed(f"{label} must return {n} values, got {what}")
    return tuple(res)


def _err(got: torch.Tensor, ref: torch.Tensor) -> float:
    if not torch.isfinite(got).all():
        return math.inf
    return float((got.double() - ref.double()).abs().max()) if got.numel() else 0.0


def _close(
    label: str,
    got: torch.Tensor,
    ref: torch.Tensor,
    case: str,
    atol: float = 1e-5,
    hints: tuple[tuple[str, torch.Tensor], ...] = (),
    dtype: torch.dtype | None = None,
) -> None:
    """Raise unless got ~ ref (and, with ``dtype``, got has that dtype); name the case, the max abs error and
    (if one fits) the likely bug."""
    _shape(label, got, tuple(ref.shape))
    if dtype is not None and got.dtype != dtype:
        raise CheckFailed(
            f"{label} has dtype {got.dtype}, expected {dtype} (the dtype of the inputs) for {case}"
        )
    err = _err(got, ref)
    if err <= atol:
        return
    if not torch.isfinite(got).all():
        msg = f"{label} contains NaN or inf for {case}"
    else:
        msg = f"{label} doesn't match the reference for {case}: max abs error {err:.3g} (tolerance {atol:g})"
    for hint, alt in hints:
        if tuple(alt.shape) == tuple(got.shape) and _err(got, alt) <= atol:
            msg += f"; {hint}"
            break
    raise CheckFailed(msg)


def _qkv(seed: int, B: int, h: int, n_q: int, n_k: int, d_k: int, d_v: int, scale: float = 1.0):
    g = seeded(seed)
    q = torch.randn(B, h, n_q, d_k, generator=g) * scale
    k = torch.randn(B, h, n_k, d_k, generator=g) * scale
    v = torch.randn(B, h, n_k, d_v, generator=g)
    return q, k, v


def _case(seed: int, **tensors: torch.Tensor) -> str:
    return f"seed {seed_of(seed)}, " + ", ".join(f"{n} {tuple(t.shape)}" for n, t in tensors.items())


def _ref(q, k, v, mask=None, bias=None, scale=None):
    """The reference attention, in float64 (the comparison's tolerance is then all the candidate's)."""
    dt = q.dtype
    out, w = sa.scaled_dot_product_attention(
        q.double(),
        k.double(),
        v.double(),
        mask=mask,
        bias=None if bias is None else bias.double(),
        scale=scale,
        return_weights=True,
    )
    return out.to(dt) if dt == torch.float32 else out, w.to(dt) if dt == torch.float32 else w


def _random_mask(seed: int, shape: tuple[int, ...]) -> torch.Tensor:
    """Bool mask with a True and a False in every row (so an inverted mask is also valid)."""
    g = seeded(seed + 1000)
    m = torch.rand(*shape, generator=g) > 0.5
    m[..., 0] = True
    m[..., -1] = False
    return m


def _future_leak(
    label: str,
    fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    seq_dim: int = -2,
) -> None:
    """Change token j in q, k, v: outputs at positions < j must not move."""
    base = _tensor(label, _call(label, fn, q, k, v))
    n = q.shape[seq_dim]
    for j in range(n - 1, 0, -1):
        q2, k2, v2 = q.clone(), k.clone(), v.clone()
        for t in (q2, k2, v2):
            t.select(seq_dim, j).add_(3.0)
        out = _tensor(label, _call(label, fn, q2, k2, v2))
        if out.shape != base.shape:
            raise CheckFailed(f"shape wrong: {label} expected {tuple(base.shape)}, got {tuple(out.shape)}")
        diff = (out.narrow(seq_dim, 0, j) - base.narrow(seq_dim, 0, j)).abs()
        if not bool(torch.isfinite(diff).all()) or float(diff.max()) > 1e-6:
            diff = torch.nan_to_num(diff, nan=math.inf)
            i = int(diff.amax(dim=tuple(d for d in range(diff.ndim) if d != diff.ndim + seq_dim)).argmax())
            raise CheckFailed(
                f"future leaks: {label} at position {i} changes (by {float(diff.max()):.3g}) when the later "
                f"token {j} changes; query i may only attend to keys 0..i"
            )


def builtin_exception(name: str) -> type[BaseException] | None:
    obj = getattr(builtins, name, None)
    return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None

"""The candidate's process: ``python -I -B _sandbox.py`` (run by path: it imports nothing from the course).

It loads the drill solution and runs the calls the grader asks for, one at a time, and sends back what they
returned. It never sees an expected value: the grader (``_worker.py``, another process) builds the inputs,
computes the reference with the course package and compares. Before the candidate's file runs, this process

* cannot import the course package: ``selfattention`` is taken off ``sys.path`` and the import system, and
  (with Landlock, Linux >= 5.13) its directory cannot even be read;
* cannot write files: Landlock denies every write, truncation, creation and removal, and ``RLIMIT_FSIZE = 0``
  stops a write of data where Landlock is missing; the working directory and HOME are an empty read-only
  temporary directory; TCP connect/bind and signals to processes outside the sandbox are denied (Landlock
  ABI >= 4 and >= 6);
* calls every tensor operation through a ``TorchDispatchMode`` (`DispatchGuard`) that refuses the attention
  kernels by their aten names (``aten::_scaled_dot_product_*``, flash/efficient/cudnn attention,
  ``_native_multi_head_attention``, ...) whatever Python alias reached them, and, inside the functions a
  drill says must not use a library softmax, the softmax family (``_softmax``, ``_log_softmax``,
  ``_safe_softmax``, ``_masked_softmax``, ``logsumexp``); the composite ops that never reach the mode
  (``aten::scaled_dot_product_attention``, ``aten::_scaled_dot_product_attention_math``) are overridden in
  the dispatcher itself (``torch.library``). The guard also records the largest tensor a call builds.

Protocol (length-prefixed frames of ``torch.save`` bytes, read with ``weights_only=True``, so neither side
can make the other run code): the grader sends ``load`` then ``call`` requests, this process answers each.
"""

from __future__ import annotations

import builtins
import ctypes
import io
import os
import resource
import signal
import struct
import sys
import threading
import traceback
import warnings
from typing import Any

ATTENTION_OPS = (
    "scaled_dot_product",
    "flash_attention",
    "efficient_attention",
    "cudnn_attention",
    "multi_head_attention",
    "_transformer_encoder_layer",
    "_fused_sdp",
    "_triton_multi_head",
)
SOFTMAX_OPS = ("softmax", "logsumexp", "logcumsumexp", "logaddexp")
# What the candidate's file may not import (checked on every import its code makes, at run time): the
# interpreter's internals, threads and processes (a new thread runs outside the dispatch mode, a child
# outlives the grading), and array libraries the guard cannot watch.
REFUSED_MODULES = frozenset({
    "selfattention", "importlib", "gc", "ctypes", "builtins", "inspect", "ast", "types", "dis", "code",
    "codeop", "runpy", "pickle", "marshal", "threading", "_thread", "concurrent", "asyncio",
    "multiprocessing",
    "subprocess", "os", "posix", "socket", "_socket", "signal", "pty", "sys", "_posixsubprocess",
    "faulthandler", "atexit", "weakref", "numpy", "scipy", "jax", "jaxlib", "cupy", "numba", "tensorflow",
    "mlx", "sympy", "pandas",
})
# Attribute names the candidate's getattr/hasattr may not ask for (besides every name starting with "_").
REFUSED_ATTRS = frozenset({
    "ops", "library", "utils", "modules", "jit", "compile", "fx", "export", "hub", "package",
    "multiprocessing",
    "os", "sys", "subprocess", "socket", "builtins", "threading", "inspect", "numpy", "fork", "system",
})
REFUSED_BUILTINS = ("exec", "eval", "compile", "vars", "globals", "locals", "breakpoint", "open", "input",
                    "help", "setattr", "delattr", "memoryview")
COMPOSITE_ATTENTION = ("scaled_dot_product_attention", "_scaled_dot_product_attention_math")
KERNEL = "a library attention kernel does the drill for you; write it with tensor operations"


class Forbidden(BaseException):  # noqa: N818 - a BaseException so `except Exception` can't eat it
    """The candidate's code called something the drill forbids."""


# -- the frame protocol -----------------------------------------------------------------------------
def send_frame(fd: int, obj: Any) -> None:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    data = buf.getvalue()
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int) -> bytes:
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def recv_frame(fd: int) -> Any:
    import torch

    (n,) = struct.unpack("<Q", _read_exact(fd, 8))
    return torch.load(io.BytesIO(_read_exact(fd, n)), weights_only=True)


# -- isolation ---------------------------------------------------------------------------------------------
_LL_FS = {  # Landlock filesystem access rights (include/uapi/linux/landlock.h)
    "EXECUTE": 1 << 0,
    "WRITE_FILE": 1 << 1,
    "READ_FILE": 1 << 2,
    "READ_DIR": 1 << 3,
    "REMOVE_DIR": 1 << 4,
    "REMOVE_FILE": 1 << 5,
    "MAKE_CHAR": 1 << 6,
    "MAKE_DIR": 1 << 7,
    "MAKE_REG": 1 << 8,
    "MAKE_SOCK": 1 << 9,
    "MAKE_FIFO": 1 << 10,
    "MAKE_BLOCK": 1 << 11,
    "MAKE_SYM": 1 << 12,
    "REFER": 1 << 13,
    "TRUNCATE": 1 << 14,
}
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446  # the same number on every architecture
_PR_SET_NO_NEW_PRIVS, _PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 38, 1, 36


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _read_allow_list(hidden: list[str]) -> list[str]:
    """Paths to allow reading so that everything except ``hidden`` (and what lies under it) stays readable:
    every sibling of every directory on the way from / down to each hidden path."""
    hidden = [os.path.realpath(h) for h in hidden if os.path.exists(h)]
    if not hidden:
        return ["/"]
    ancestors = {"/"}
    for h in hidden:
        p = h
        while p != "/":
            p = os.path.dirname(p)
            ancestors.add(p)
    allow: list[str] = []
    for a in sorted(ancestors):
        try:
            names = os.listdir(a)
        except OSError:
            continue
        for name in names:
            child = os.path.join(a, name)
            if child in ancestors or child in hidden:
                continue
            allow.append(child)
    return allow


def landlock(hide: list[str]) -> int:
    """Deny every file write (and reads under ``hide``) to this process and its children; the ABI or 0."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    write = sum(
        _LL_FS[k]
        for k in (
            "WRITE_FILE",
            "REMOVE_DIR",
            "REMOVE_FILE",
            "MAKE_CHAR",
            "MAKE_DIR",
            "MAKE_REG",
            "MAKE_SOCK",
            "MAKE_FIFO",
            "MAKE_BLOCK",
            "MAKE_SYM",
        )
    )
    if abi >= 2:
        write |= _LL_FS["REFER"]
    if abi >= 3:
        write |= _LL_FS["TRUNCATE"]
    read = _LL_FS["READ_FILE"] | _LL_FS["READ_DIR"]
    attr = _RulesetAttr(fs=write | (read if hide else 0))
    size = 8
    if abi >= 4:
        attr.net, size = 0b11, 16  # BIND_TCP | CONNECT_TCP, with no rule: no TCP
    if abi >= 6:
        attr.scoped, size = 0b11, 24  # abstract unix sockets and signals stay inside the sandbox
    fd = libc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return 0
    try:
        if hide:
            for path in _read_allow_list(hide):
                try:
                    pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    rights = read if os.path.isdir(path) else _LL_FS["READ_FILE"]
                    rule = _PathBeneath(allowed=rights, parent_fd=pfd)
                    libc.syscall(
                        _SYS_ADD_RULE,
                        ctypes.c_int(fd),
                        ctypes.c_int(1),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    )
                finally:
                    os.close(pfd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        if libc.syscall(_SYS_RESTRICT, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(fd)
    return abi


class _NoCourse:
    """A meta-path finder that refuses the course package (and anything reaching it by another name)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.split(".")[0] == "selfattention":
            raise ModuleNotFoundError(
                f"your file imports {name}: the drill is to write it yourself, not to import the package the "
                "grader compares against"
            )
        return None


def hide_course(package_dirs: list[str]) -> None:
    """Take the course package off sys.path and out of the import system."""
    roots = {os.path.realpath(os.path.dirname(p)) for p in package_dirs}
    sys.path[:] = [
        p
        for p in sys.path
        if os.path.realpath(p or ".") not in roots
        and not os.path.isdir(os.path.join(p or ".", "selfattention"))
    ]
    kept = []
    for finder in sys.meta_path:
        try:
            hit = getattr(finder, "find_spec", None) and finder.find_spec("selfattention", None)
        except Exception:  # noqa: BLE001 - a finder that fails is not the course's
            hit = None
        if not hit:
            kept.append(finder)
    sys.meta_path[:] = [_NoCourse(), *kept]
    for name in [m for m in sys.modules if m.split(".")[0] == "selfattention"]:
        del sys.modules[name]
    sys.path_importer_cache.clear()


def die_with_parent() -> None:
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


# -- the guard ---------------------------------------------------------------------------------------------
def _make_guard() -> Any:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class DispatchGuard(TorchDispatchMode):
        """Refuses forbidden aten ops; records trips (a swallowed Forbidden still fails) and the largest
        tensor built."""

        def __init__(self) -> None:
            super().__init__()
            self.no_softmax: str | None = None  # the function that must not use a library softmax
            self.trips: list[str] = []
            self.largest: tuple[int, list[int]] = (0, [])
            # (n_k, storages of the inputs, shapes of k and v): the first tensor built with n_k along an
            # axis that is neither a view of an input nor shaped like k or v (a row of all the scores)
            self.watch: tuple[int, set[int], list[list[int]]] | None = None
            self.wide: list[int] = []

        def trip(self, msg: str) -> None:
            self.trips.append(msg)
            raise Forbidden(msg)

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            name = func.name().split("::")[-1]
            if any(a in name for a in ATTENTION_OPS):
                self.trip(f"your code calls aten::{name}: {KERNEL}")
            if self.no_softmax and any(s in name for s in SOFTMAX_OPS):
                self.trip(
                    f"your code calls aten::{name} (a library softmax) in {self.no_softmax}: "
                    f"{self.no_softmax} must be written with exp, max and sum, not a library softmax"
                )
            out = func(*args, **(kwargs or {}))
            for t in out if isinstance(out, tuple | list) else (out,):
                if isinstance(t, torch.Tensor) and t.numel() > self.largest[0]:
                    self.largest = (t.numel(), list(t.shape))
                if self.watch and not self.wide and isinstance(t, torch.Tensor):
                    n_k, storages, shapes = self.watch
                    if (
                        n_k in t.shape
                        and list(t.shape) not in shapes
                        and t.untyped_storage().data_ptr() not in storages
                    ):
                        self.wide = list(t.shape)
            return out

    guard = DispatchGuard()
    guard._dispatch = DispatchGuard.__dict__["__torch_dispatch__"]
    guard._trip = DispatchGuard.trip

    def refuse(op: str) -> Any:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            guard.trip(f"your code calls aten::{op}: {KERNEL}")

        return kernel

    lib = torch.library.Library("aten", "IMPL")  # noqa: TOR901 - the override is the point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in COMPOSITE_ATTENTION:
            lib.impl(op, refuse(op), "CompositeImplicitAutograd")
        # Every other attention kernel is replaced in the dispatcher for the whole process (every thread,
        # with or without the mode): nothing in the sandbox needs one.
        for full in torch._C._dispatch_get_all_op_names():
            ns, _, op = full.partition("::")
            if ns != "aten" or not any(a in op for a in ATTENTION_OPS):
                continue
            if op.split(".")[0] in COMPOSITE_ATTENTION:
                continue
            if not torch._C._dispatch_has_kernel_for_dispatch_key(full, "CPU"):
                continue
            try:
                lib.impl(op, refuse(op), "CPU")
            except RuntimeError:
                pass
    guard._lib = lib  # keep it alive

    def python_refuse(label: str) -> Any:
        def tripwire(*args: Any, **kwargs: Any) -> Any:
            guard.trip(f"your code calls {label}: {KERNEL}")

        return tripwire

    F = torch.nn.functional  # noqa: N806
    F.scaled_dot_product_attention = python_refuse("F.scaled_dot_product_attention")
    F.multi_head_attention_forward = python_refuse("F.multi_head_attention_forward")
    torch.nn.MultiheadAttention.forward = python_refuse("nn.MultiheadAttention")

    def scoped_softmax(owner: Any, attr: str, label: str) -> None:
        original = getattr(owner, attr)

        def tripwire(*args: Any, **kwargs: Any) -> Any:
            fn = guard.no_softmax
            if fn:
                guard.trip(
                    f"your code calls {label}: {fn} must be written with exp, max and sum, "
                    "not a library softmax"
                )
            return original(*args, **kwargs)

        setattr(owner, attr, tripwire)

    for owner, attr, label in (
        (torch, "softmax", "torch.softmax"),
        (F, "softmax", "F.softmax"),
        (torch.Tensor, "softmax", "Tensor.softmax"),
        (torch, "log_softmax", "torch.log_softmax"),
        (F, "log_softmax", "F.log_softmax"),
        (torch.Tensor, "log_softmax", "Tensor.log_softmax"),
        (torch.special, "softmax", "torch.special.softmax"),
        (torch.nn.Softmax, "forward", "nn.Softmax"),
        (torch, "logsumexp", "torch.logsumexp"),
        (torch.Tensor, "logsumexp", "Tensor.logsumexp"),
    ):
        scoped_softmax(owner, attr, label)
    return guard


def _guard_intact(guard: Any) -> bool:
    """The mode is still on the dispatch stack and the dispatcher override still refuses."""
    import torch
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    if guard not in _get_current_dispatch_mode_stack():
        return False
    if type(guard).__dict__.get("__torch_dispatch__") is not guard._dispatch:
        return False
    if guard.trip.__func__ is not guard._trip:
        return False
    n = len(guard.trips)
    x = torch.zeros(1, 1, 1, 2)
    try:
        torch.ops.aten._scaled_dot_product_attention_math(x, x, x)
    except Forbidden:
        del guard.trips[n:]
        return True
    return False


def _candidate_builtins(path: str, guard: Any) -> dict[str, Any]:
    """The builtins the candidate's file runs with: imports of `REFUSED_MODULES` refused, getattr/hasattr on
    a private or internal name refused, exec/eval/compile/vars/globals/locals/open/setattr removed."""
    real_import = builtins.__import__
    real_getattr, real_hasattr = builtins.getattr, builtins.hasattr

    def guarded_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        top = name.split(".")[0]
        if level == 0 and (top in REFUSED_MODULES or any(p.startswith("_") for p in name.split("."))):
            guard.trip(f"your file imports {name}: {_why_module(top)}")
        for item in fromlist or ():
            if isinstance(item, str) and item.startswith("_"):
                guard.trip(f"your file imports {item} from {name}: private names are not allowed")
        return real_import(name, globals, locals, fromlist, level)

    def _check(name: Any) -> None:
        if not isinstance(name, str) or name.startswith("_") or name in REFUSED_ATTRS:
            guard.trip(f"your code asks getattr for {name!r}: {_INTERNALS}")

    def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
        _check(name)
        return real_getattr(obj, name, *default)

    def guarded_hasattr(obj: Any, name: str) -> bool:
        _check(name)
        return real_hasattr(obj, name)

    table = dict(builtins.__dict__)
    for name in REFUSED_BUILTINS:
        table.pop(name, None)
    table["__import__"] = guarded_import
    table["getattr"] = guarded_getattr
    table["hasattr"] = guarded_hasattr
    return table


def _why_module(top: str) -> str:
    if top == "selfattention":
        return "the drill is to write it yourself, not to import the package the grader compares against"
    if top in ("numpy", "scipy", "jax", "jaxlib", "cupy", "numba", "tensorflow", "mlx", "sympy", "pandas"):
        return "the drills are written with torch tensors; another array library is not allowed"
    if top in ("threading", "_thread", "concurrent", "asyncio", "multiprocessing", "subprocess", "os",
               "posix",
               "socket", "_socket", "signal", "pty", "_posixsubprocess"):
        return "threads, processes, sockets and the OS are not allowed in the drills"
    return "reaching into Python's or torch's internals (or hiding what the code calls) is not allowed"


_INTERNALS = "reaching into torch's or Python's internals is not allowed in the drills"


def _refuse_processes_and_threads(guard: Any) -> None:
    """No new process or thread from here on (a thread runs outside the dispatch mode; a child would outlive
    the grading). Removes the Python entry points; a C extension could still call fork(2) (no seccomp)."""
    import _posixsubprocess
    import _thread

    import torch

    def refuse(label: str) -> Any:
        def tripwire(*args: Any, **kwargs: Any) -> Any:
            guard.trip(f"your code calls {label}: no new process or thread in the drills")

        return tripwire

    for name in ("fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "setsid", "execv",
                 "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve",
                 "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "kill", "killpg",
                 "register_at_fork"):
        import posix

        for owner in (os, posix):
            if hasattr(owner, name):
                setattr(owner, name, refuse(f"os.{name}"))
    _posixsubprocess.fork_exec = refuse("_posixsubprocess.fork_exec")
    for name in ("start_new_thread", "start_new", "start_joinable_thread"):
        if hasattr(_thread, name):
            setattr(_thread, name, refuse(f"_thread.{name}"))
    threading.Thread.start = refuse("threading.Thread.start")
    for name in ("_start_new_thread", "_start_joinable_thread"):
        if hasattr(threading, name):
            setattr(threading, name, refuse(f"threading.{name}"))
    # numpy arithmetic is invisible to the dispatch mode
    torch.Tensor.numpy = refuse("Tensor.numpy (numpy is not allowed)")
    torch.Tensor.__array__ = refuse("Tensor.__array__ (numpy is not allowed)")
    import socket

    socket.socket = refuse("socket.socket")  # type: ignore[misc]
    import torch.utils._python_dispatch as pd

    pd._disable_current_modes = refuse("torch.utils._python_dispatch._disable_current_modes")


# -- serving calls -----------------------------------------------------------------------------------------
class Server:
    def __init__(self, fd_in: int, fd_out: int) -> None:
        self.fd_in, self.fd_out = fd_in, fd_out
        self.module: Any = None
        self.path = ""
        self.objects: dict[int, Any] = {}
        self.scoped: set[str] = set()
        self.guard: Any = None
        self.token: str | None = None  # the run's token, from the first request; every reply carries it

    def reply(self, **msg: Any) -> None:
        send_frame(self.fd_out, {**msg, "token": self.token} if self.token else msg)

    def _line(self, exc: BaseException) -> int | None:
        lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == self.path]
        return lines[-1] if lines else None

    def _error(self, exc: BaseException) -> dict[str, Any]:
        return {
            "type": type(exc).__name__,
            "mro": [c.__name__ for c in type(exc).__mro__],
            "msg": str(exc)[:2000],
            "line": self._line(exc),
        }

    def encode(self, value: Any, depth: int = 0) -> Any:
        import torch

        if isinstance(value, torch.Tensor):
            return {"t": value.detach().clone().contiguous()}
        if value is None or isinstance(value, bool | int | float | str):
            return {"v": value}
        if isinstance(value, tuple | list) and depth < 3:
            return {"seq": [self.encode(v, depth + 1) for v in value], "tuple": isinstance(value, tuple)}
        handle = len(self.objects) + 1
        self.objects[handle] = value
        linears = {}
        if isinstance(value, torch.nn.Module):
            for name, sub in value.named_children():
                if isinstance(sub, torch.nn.Linear):
                    linears[name] = {
                        "weight": sub.weight.detach().clone(),
                        "bias": None if sub.bias is None else sub.bias.detach().clone(),
                    }
        return {
            "obj": handle,
            "type": type(value).__name__,
            "module": isinstance(value, torch.nn.Module),
            "linears": linears,
        }

    def decode(self, value: Any) -> Any:
        if "t" in value:
            return value["t"]
        if "v" in value:
            return value["v"]
        if "seq" in value:
            items = [self.decode(v) for v in value["seq"]]
            return tuple(items) if value["tuple"] else items
        return self.objects[value["obj"]]

    def load(self, req: dict[str, Any]) -> None:
        import torch

        self.path = req["path"]
        self.scoped = set(req.get("scoped", []))
        try:
            with open(self.path, encoding="utf-8") as fh:
                source = fh.read()
            code = compile(source, self.path, "exec")
        except BaseException as exc:  # noqa: BLE001
            self.reply(ok=False, error=self._error(exc))
            return
        hide_course(req.get("hide", []))
        import tempfile

        tempfile.tempdir = os.getcwd()  # never probe for a writable directory (there is none)
        self.guard = _make_guard()
        with self.guard:
            _guard_intact(self.guard)  # imports what the canary needs (torch._dynamo) before the lock-down
        abi = landlock(req.get("hide", []))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        # the candidate's global RNG is seeded at random: the grader's inputs are drawn in the worker from the
        # run's seed, which this process never sees
        torch.manual_seed(int.from_bytes(os.urandom(7), "little"))
        _refuse_processes_and_threads(self.guard)
        if sys.platform.startswith("linux"):  # orphans of the candidate's processes become this one's
            ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        if req.get("cpu"):
            used = resource.getrusage(resource.RUSAGE_SELF)
            soft = int(used.ru_utime + used.ru_stime + float(req["cpu"])) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
        import types

        module = types.ModuleType("drill_solution")
        module.__file__ = self.path
        if req.get("restrict_builtins", True):  # off only in the tests of the inner layers (a probe file)
            module.__builtins__ = _candidate_builtins(self.path, self.guard)  # type: ignore[attr-defined]
        sys.modules["drill_solution"] = module
        try:
            with self.guard:
                exec(code, module.__dict__)  # noqa: S102 - the candidate's file, in the sandbox
        except BaseException as exc:  # noqa: BLE001 - report anything, including SystemExit
            if isinstance(exc, Forbidden):
                self.reply(ok=False, forbidden=str(exc), line=self._line(exc))
            else:
                self.reply(ok=False, error=self._error(exc))
            return
        if self.guard.trips:
            self.reply(ok=False, forbidden=self.guard.trips[0], line=None)
            return
        self.module = module
        names = {}
        for name, val in vars(module).items():
            if not name.startswith("__"):
                names[name] = "class" if isinstance(val, type) else ("callable" if callable(val) else "other")
        self.reply(ok=True, names=names, landlock=abi)

    def call(self, req: dict[str, Any]) -> None:
        import torch

        target = req["target"]
        if isinstance(target, str):
            fn = getattr(self.module, target)
            label = target
        else:
            fn = self.objects[target]
            label = type(fn).__name__
        args = [self.decode(a) for a in req["args"]]
        kwargs = {k: self.decode(v) for k, v in req["kwargs"].items()}
        guard = self.guard
        guard.trips.clear()
        guard.largest = (0, [])
        expected = label if label in self.scoped else None
        guard.no_softmax = expected
        guard.wide = []
        guard.watch = None
        if req.get("watch_keys"):
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            guard.watch = (
                int(req["watch_keys"]),
                {t.untyped_storage().data_ptr() for t in tensors},
                [list(t.shape) for t in tensors],
            )
        intact = [True]
        try:
            with torch.no_grad(), guard:
                try:
                    result = fn(*args, **kwargs)
                finally:
                    intact[0] = _guard_intact(guard) and guard.no_softmax == expected
            value = self.encode(result)
            outcome: dict[str, Any] = {"ok": True, "value": value}
        except Forbidden as exc:
            outcome = {"ok": False, "forbidden": str(exc), "line": self._line(exc)}
        except BaseException as exc:  # noqa: BLE001 - the candidate's exception, reported as data
            outcome = {"ok": False, "error": self._error(exc)}
        guard.no_softmax = None
        if guard.trips and "forbidden" not in outcome:  # the candidate swallowed the Forbidden
            outcome = {"ok": False, "forbidden": guard.trips[0], "line": None}
        if not intact[0]:
            outcome = {"ok": False, "forbidden": "your code switched off the grader's guard", "line": None}
        outcome["largest"] = guard.largest[0]
        outcome["largest_shape"] = guard.largest[1]
        outcome["wide_shape"] = guard.wide
        guard.watch = None
        self.reply(**outcome)

    def serve(self) -> None:
        while True:
            try:
                req = recv_frame(self.fd_in)
            except EOFError:
                return
            op = req.get("op")
            if self.token is None:
                self.token = req.get("token")
            elif req.get("token") != self.token:
                return
            if op == "load":
                self.load(req)
            elif op == "call":
                self.call(req)
            else:
                return


def _preload() -> None:
    """What the guard and the first calls would import lazily (torch._dynamo alone is ~1 s): imported once,
    before the clock starts, and before the sandbox forbids writing (its import probes a temp dir)."""
    import torch._dynamo  # noqa: F401
    import torch.library  # noqa: F401
    import torch.utils._python_dispatch  # noqa: F401


def zygote() -> int:
    """``_sandbox.py --zygote``: import torch once, then fork one fresh sandbox per request (for grading many
    files: the corpus test). Requests arrive on stdin, a unix socket, as three file descriptors (requests in,
    replies out, stderr); the answer is the child's pid."""
    import socket

    die_with_parent()
    sock = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    import torch

    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    sock.sendall(b"R")
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 3)
        except OSError:
            return 0
        if not msg or len(fds) != 3:
            return 0
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                fd_in, fd_out, err = fds
                os.dup2(err, 2)
                os.dup2(2, 1)
                os.close(err)
                sys.stdout = sys.stderr
                die_with_parent()
                torch.set_num_threads(1)
                server = Server(fd_in, fd_out)
                server.reply(ready=True)
                server.serve()
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        sock.sendall(struct.pack("<q", pid))


def main() -> int:
    if "--zygote" in sys.argv[1:]:
        return zygote()
    die_with_parent()
    fd_in = os.dup(0)
    fd_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # the candidate's prints go to stderr, never into the protocol
    os.set_inheritable(fd_in, False)
    os.set_inheritable(fd_out, False)
    sys.stdout = sys.stderr
    import torch  # slow: before the grader's clock starts

    _preload()
    torch.set_num_threads(1)
    server = Server(fd_in, fd_out)
    server.reply(ready=True)
    threading.current_thread().name = "sandbox"
    server.serve()
    return 0


if __name__ == "__main__":
    builtins.__dict__.pop("_sandbox_main", None)
    raise SystemExit(main())

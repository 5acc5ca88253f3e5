"""What a drill solution may not use, checked twice: statically from the source (`find_violations`, AST walk,
no torch needed) and at run time in the grader's worker (`Guard`: tripwires on the forbidden callables that
fire only when the caller is the user's file).

Every drill: no ``selfattention`` (the package the grader compares against), no
``F.scaled_dot_product_attention`` (or any ``*scaled_dot_product_attention*``), no ``nn.MultiheadAttention``
/ ``multi_head_attention_forward``, and nothing that hides what the code calls (``__import__``,
``importlib``, ``exec``, ``eval``, a star import, a forbidden name spelled in a string). ``causal``: no
softmax (``torch.softmax``, ``F.softmax``, ``x.softmax``, ``nn.Softmax``, log-softmax) inside
``stable_softmax``. The static check cannot see everything (a name built at run time), the run-time guard
covers the public entry points, not every alias inside torch; together they stop the known shortcuts.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Violation", "find_violations", "Forbidden", "Guard", "SCOPED"]

_ATTENTION = ("scaled_dot_product_attention", "multiheadattention", "multi_head_attention_forward")
_HIDING = {"__import__", "importlib", "exec", "eval", "compile", "__builtins__"}
_SOFTMAX = {
    "softmax", "log_softmax", "Softmax", "LogSoftmax", "_softmax", "special_softmax", "softmin", "Softmin",
    "logsumexp", "logcumsumexp", "logaddexp", "logaddexp2", "gumbel_softmax", "special", "distributions",
}
# drill -> function name -> attribute/imported names it may not use
SCOPED: dict[str, dict[str, set[str]]] = {
    "causal": {"stable_softmax": _SOFTMAX},
    "online_softmax": {"online_attention": _SOFTMAX},
}


@dataclass(frozen=True)
class Violation:
    """One forbidden use: the line, what was used and why it is not allowed."""

    line: int
    what: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}: {self.reason}"


# What a solution never needs and the grader's guard lives in: torch's dispatcher and the interpreter's
# object graph (a guard found there could be switched off).
_INTERNAL_MODULES = {
    "gc", "ctypes", "builtins", "inspect", "ast", "types", "dis", "code", "codeop", "runpy", "pickle",
    "marshal",
    "threading", "_thread", "concurrent", "asyncio", "multiprocessing", "subprocess", "os", "posix", "socket",
    "signal", "pty", "sys", "_posixsubprocess", "faulthandler", "atexit", "weakref",
}
# A new thread runs outside the grader's dispatch mode; a child process can outlive the grading.
_PROCESS_MODULES = {
    "threading", "_thread", "concurrent", "asyncio", "multiprocessing", "subprocess", "os", "posix", "socket",
    "signal", "pty", "_posixsubprocess",
}
# Libraries whose arithmetic the grader's guard cannot watch (it sees torch's operations only).
_OTHER_ARRAYS = {"numpy", "scipy", "jax", "jaxlib", "cupy", "numba", "tensorflow", "mlx", "sympy", "pandas"}
_INTERNAL_DOTTED = {"torch._C", "torch.ops", "torch.library", "sys.modules", "torch.utils._python_dispatch"}
_INTERNAL_ATTRS = {
    "_C", "_python_dispatch", "TorchDispatchMode", "TorchFunctionMode", "__globals__", "__closure__",
    "__subclasses__", "_getframe", "get_objects", "get_referrers", "__code__", "__builtins__",
    "f_back", "f_locals", "f_globals", "f_builtins", "gi_frame", "cr_frame", "ag_frame", "tb_frame",
    "tb_next",
    "__traceback__", "_disable_current_modes", "__dict__", "__getattribute__", "__class__", "__bases__",
    "__mro__", "__base__", "__init_subclass__", "__reduce__", "__reduce_ex__", "__self__", "__func__",
    "__wrapped__", "__loader__", "__spec__", "fork", "forkpty", "system", "popen", "setsid", "numpy",
    "ops", "library", "multiprocessing", "jit", "os", "sys", "subprocess", "socket", "builtins",
    "threading", "inspect", "compile", "_dynamo", "fx", "export", "hub", "package",
}
# builtins that reach the interpreter's state or build code from strings
_INTROSPECTION = {"vars", "globals", "locals", "breakpoint", "setattr", "delattr", "open", "input", "help"}
_INTERNAL_REASON = "reaches into torch's dispatcher or the interpreter's internals; a solution needs neither"
_ARRAYS_REASON = "the drills are written with torch tensors; another array library is not allowed"
_GETATTR_REASON = (
    "getattr with a name that is not a plain string literal hides what the code calls; write the attribute"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _names_forbidden(text: str) -> bool:
    """A string that spells a forbidden name as a name (``'scaled_dot_product_attention'``,
    ``'torch.nn.MultiheadAttention'``, ``'selfattention'``): a getattr or import target. Prose (an error
    message,
    a comment-like string with spaces) never is; nor is the drill's own class name ``MultiHeadAttention``."""
    if not _IDENTIFIER.fullmatch(text):
        return False
    low = text.lower()
    return (
        any(a in low for a in ("scaled_dot_product", "multi_head_attention", "flash_attention",
                               "efficient_attention"))
        or "MultiheadAttention" in text
        or low.split(".")[0] == "selfattention"
    )


def _is_attention(name: str) -> bool:
    low = name.lower()
    return any(a in low for a in _ATTENTION)


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Walker(ast.NodeVisitor):
    def __init__(self, drill: str) -> None:
        self.found: list[Violation] = []
        self.imported: dict[str, str] = {}  # local name -> dotted origin
        self.scoped = SCOPED.get(drill, {})
        self.stack: list[str] = []
        self.docstrings: set[int] = set()  # docstrings are prose, never read as code
        self.defined: set[str] = set()  # the file's own functions, classes and methods
        self.called: set[int] = set()  # Name nodes that are the function of a call

    def add(self, node: ast.AST, what: str, reason: str) -> None:
        self.found.append(Violation(getattr(node, "lineno", 0), what, reason))

    def _module(self, node: ast.AST, module: str) -> None:
        if module.split(".")[0] == "selfattention":
            self.add(
                node,
                f"import {module}",
                "the drill is to write it yourself, not to import the package the grader compares against",
            )
        elif module.split(".")[0] == "importlib":
            self.add(node, f"import {module}", "dynamic imports hide what the code calls")
        elif module.split(".")[0] in _PROCESS_MODULES:
            self.add(node, f"import {module}", "threads, processes, sockets and the OS are not allowed")
        elif module.split(".")[0] in _INTERNAL_MODULES or module in _INTERNAL_DOTTED:
            self.add(node, f"import {module}", _INTERNAL_REASON)
        elif module.split(".")[0] in _OTHER_ARRAYS:
            self.add(node, f"import {module}", _ARRAYS_REASON)
        elif any(p.startswith("_") for p in module.split(".")):
            self.add(node, f"import {module}", _INTERNAL_REASON)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._module(node, a.name)
            self.imported[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._module(node, module)
        for a in node.names:
            if a.name in _INTERNAL_ATTRS or f"{module}.{a.name}" in _INTERNAL_DOTTED:
                self.add(node, f"from {module} import {a.name}", _INTERNAL_REASON)
            if a.name == "*":
                self.add(node, f"from {module} import *", "a star import hides which names are used")
                continue
            self.imported[a.asname or a.name] = f"{module}.{a.name}"
            self._name(node, a.name, f"from {module} import {a.name}")
        self.generic_visit(node)

    def _name(self, node: ast.AST, leaf: str, what: str) -> None:
        if _is_attention(leaf):
            self.add(
                node,
                what,
                "a library attention kernel does the drill for you; write the attention "
                "with tensor operations",
            )
        for fn, names in self.scoped.items():
            if fn in self.stack and leaf in names:
                self.add(node, what, f"{fn} must be written with exp, max and sum, not a library softmax")

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._docstring(node)
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = _dotted(node) or f"….{node.attr}"
        own = (  # the file's own method on self / cls (``self.scaled_dot_product_attention(...)``)
            isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
            and node.attr in self.defined
        )
        if not own:
            self._name(node, node.attr, dotted)
        private = node.attr.startswith("_") and not (node.attr.startswith("__") and node.attr.endswith("__"))
        owner_top = dotted.split(".")[0]
        if (
            node.attr in _INTERNAL_ATTRS
            or dotted in _INTERNAL_DOTTED
            or (private and owner_top not in ("self", "cls"))
        ):
            self.add(node, dotted, _INTERNAL_REASON)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name):
            self.called.add(id(node.func))
        self.generic_visit(node)  # first: a forbidden string literal is named as such
        if isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.add(node, f"{node.func.id}(…, <a name built at run time>)", _GETATTR_REASON)
            else:
                # (a forbidden string itself: visit_Constant)
                if name.value.startswith("_") or name.value in _INTERNAL_ATTRS:
                    self.add(node, f"{node.func.id}(…, {name.value!r})", _INTERNAL_REASON)
                self._name(node, name.value, f"{node.func.id}(…, {name.value!r})")

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in _HIDING:
            self.add(node, node.id, "dynamic imports and exec/eval hide what the code calls")
        elif node.id in ("getattr", "hasattr") and id(node) not in self.called:
            self.add(node, node.id, _GETATTR_REASON)
        elif node.id in _INTROSPECTION:
            self.add(node, node.id, _INTERNAL_REASON)
        elif node.id in self.imported:  # a name the file imported (its own functions are fine)
            self._name(node, node.id, node.id)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if (
            isinstance(node.value, str)
            and id(node) not in self.docstrings
            and node.value not in self.defined  # ``__all__ = ["scaled_dot_product_attention"]``
            and _names_forbidden(node.value)
        ):
            self.add(node, repr(node.value), "a forbidden name spelled in a string (getattr tricks)")

    def visit_Module(self, node: ast.Module) -> None:
        self._docstring(node)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._docstring(node)
        self.generic_visit(node)

    def _docstring(self, node: ast.AST) -> None:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            self.docstrings.add(id(body[0].value))


# CPython 3.11's ast.parse keeps its AST-construction recursion depth in shared state, so two threads
# parsing at once can raise "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905;
# seen here when the drill corpus is graded by two threads): one parse at a time
_PARSE_LOCK = threading.Lock()


def find_violations(source: str, drill: str) -> list[Violation]:
    """Forbidden imports and calls in ``source`` (a drill solution), first occurrence of each line/what."""
    with _PARSE_LOCK:
        tree = ast.parse(source)
    w = _Walker(drill)
    w.defined = {
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    w.visit(tree)
    seen: set[tuple[int, str]] = set()
    out = []
    for v in sorted(w.found, key=lambda v: v.line):
        if (v.line, v.what) not in seen:
            seen.add((v.line, v.what))
            out.append(v)
    return out


class Forbidden(BaseException):  # noqa: N818 - a BaseException so `except Exception` in user code can't eat it
    """Raised in the worker when the user's code calls something the drill forbids."""


@dataclass
class Guard:
    """Run-time tripwires: a forbidden callable called from ``user_file`` raises `Forbidden`, is recorded."""

    user_file: str
    drill: str
    violations: list[str] = field(default_factory=list)
    _undo: list[Callable[[], None]] = field(default_factory=list)
    _torch_dir: str = "\0"

    def _from_user(self, scope: str | None) -> bool:
        """The nearest caller outside torch (``nn.Module.__call__`` sits in between) is the user's file."""
        f: Any = sys._getframe(2)  # 0: _from_user, 1: the tripwire, 2: its caller
        while f is not None and f.f_code.co_filename.startswith(self._torch_dir):
            f = f.f_back
        if f is None or f.f_code.co_filename != self.user_file:
            return False
        if scope is None:
            return True
        while f is not None:
            if f.f_code.co_filename == self.user_file and f.f_code.co_name == scope:
                return True
            f = f.f_back
        return False

    def _trip(self, what: str, reason: str) -> None:
        msg = f"your code calls {what}: {reason}"
        self.violations.append(msg)
        raise Forbidden(msg)

    def _wrap(self, owner: Any, attr: str, what: str, reason: str, scope: str | None = None) -> None:
        original = getattr(owner, attr, None)
        if original is None:
            return
        guard = self

        def tripwire(*args: Any, **kwargs: Any) -> Any:
            if guard._from_user(scope):
                guard._trip(what, reason)
            return original(*args, **kwargs)

        setattr(owner, attr, tripwire)
        self._undo.append(lambda: setattr(owner, attr, original))

    def install(self) -> None:
        """Put the tripwires in place (after the grader's imports, before the user's file)."""
        import os

        import torch
        import torch.nn.functional as F  # noqa: N812

        self._torch_dir = os.path.dirname(torch.__file__) + os.sep
        kernel = "a library attention kernel does the drill for you; write it with tensor operations"
        self._wrap(F, "scaled_dot_product_attention", "F.scaled_dot_product_attention", kernel)
        self._wrap(F, "multi_head_attention_forward", "F.multi_head_attention_forward", kernel)
        self._wrap(torch.nn.MultiheadAttention, "forward", "nn.MultiheadAttention", kernel)
        for fn in SCOPED.get(self.drill, {}):
            why = f"{fn} must be written with exp, max and sum, not a library softmax"
            for owner, attr, label in (
                (torch, "softmax", "torch.softmax"),
                (F, "softmax", "F.softmax"),
                (torch.Tensor, "softmax", "Tensor.softmax"),
                (torch, "log_softmax", "torch.log_softmax"),
                (F, "log_softmax", "F.log_softmax"),
                (torch.Tensor, "log_softmax", "Tensor.log_softmax"),
                (torch.special, "softmax", "torch.special.softmax"),
                (torch.nn.Softmax, "forward", "nn.Softmax"),
            ):
                self._wrap(owner, attr, label, why, scope=fn)
        original_import = builtins.__import__
        guard = self

        def guarded_import(
            name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
        ):
            caller = sys._getframe(1).f_code.co_filename
            if level == 0 and guard.user_file in ((globals or {}).get("__file__"), caller):
                top = name.split(".")[0]
                if top == "selfattention" or top == "importlib":
                    msg = (
                        f"your file imports {name}: the drill is to write it yourself, not to import "
                        "the package the grader compares against"
                        if top == "selfattention"
                        else f"your file imports {name}: dynamic imports hide what the code calls"
                    )
                    guard.violations.append(msg)
                    raise Forbidden(msg)
            return original_import(name, globals, locals, fromlist, level)

        builtins.__import__ = guarded_import
        self._undo.append(lambda: setattr(builtins, "__import__", original_import))

    def uninstall(self) -> None:
        """Restore every patched callable."""
        while self._undo:
            self._undo.pop()()

    def new_since(self, n: int) -> Iterator[str]:
        """Violations recorded after the first ``n``."""
        yield from self.violations[n:]

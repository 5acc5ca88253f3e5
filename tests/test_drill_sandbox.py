"""The sandbox the candidate's code runs in (issue 20, point 7): it cannot write files, cannot import or read
the course package (nor find it in ``sys.modules``), every attention and softmax kernel is refused by its aten
name whatever alias reached it, while what a hand-written solution needs is allowed; and the inputs are
random per run (the seed printed, ``--seed`` reproduces them)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import torch

import selfattention
from selfattention.interview.drills._common import HIDDEN, RemoteError, RemoteModule, Sandbox, Zygote
from selfattention.interview.drills.rules import Forbidden, find_violations
from selfattention.interview.grader import format_report, grade_file

PROBE = '''\
# drill: causal
import os
import sys

import torch


def write(path):
    try:
        with open(path, "w") as fh:
            fh.write("recorded table")
        return "wrote"
    except BaseException as exc:
        return type(exc).__name__


def make_dir(path):
    try:
        os.mkdir(path)
        return "made"
    except BaseException as exc:
        return type(exc).__name__


def read(path):
    try:
        with open(path) as fh:
            return "read " + str(len(fh.read(100)))
    except BaseException as exc:
        return type(exc).__name__


def course():
    found = sorted(m for m in sys.modules if m.startswith("self" + "attention"))
    try:
        __import__("self" + "attention")
        return found, "imported"
    except BaseException as exc:
        return found, type(exc).__name__


def _resolve(dotted):
    obj = torch
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def attention(dotted, q):
    out = _resolve(dotted)(q, q, q)
    return out[0] if isinstance(out, tuple) else out


def stable_softmax(dotted, x):
    """The scoped function: no library softmax here."""
    fn = _resolve(dotted)
    if dotted.endswith("logsumexp"):
        return torch.exp(x - fn(x, -1, True))
    return fn(x, -1, False) if dotted.split(".")[-1].startswith("_") else fn(x, -1)


def causal_attention(dotted, x):
    """Not scoped: a library softmax is fine here."""
    return _resolve(dotted)(x, -1)


def hand_written(x):
    """What a correct stable softmax uses: max, exp, sum, matmul."""
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    return (e / e.sum(-1, keepdim=True)) @ torch.eye(x.shape[-1])
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("probe") / "probe.py"
    path.write_text(PROBE, encoding="utf-8")
    zygote = Zygote()
    box = Sandbox(zygote=zygote, stderr=2)
    try:
        box.wait_ready(120)
        box.start_clock(300)
        reply = box.request({"op": "load", "path": str(path), "drill": "causal", "cpu": None, "seed": 1,
                             "scoped": ["stable_softmax"], "hide": HIDDEN,
                             "restrict_builtins": False})  # the layers under the candidate's builtins
        assert reply["ok"], reply
        yield RemoteModule(box, reply["names"]), path.parent, int(reply["landlock"])
    finally:
        box.close()
        zygote.close()


def test_the_candidate_cannot_write_files(probe, tmp_path: Path) -> None:
    """With Landlock nothing is created; without it (RLIMIT_FSIZE = 0 alone) a file may be created empty, but
    no byte is written."""
    mod, own_dir, abi = probe
    targets = [own_dir / "table.txt", tmp_path / "table.txt", Path.home() / ".drill_table_probe",
               Path("/tmp") / f"drill_probe_{os.getpid()}"]
    try:
        for target in targets:
            assert mod.write(str(target)) in ("PermissionError", "OSError"), target
            assert not target.exists() or target.stat().st_size == 0, target
            if abi >= 1:
                assert not target.exists(), target
    finally:
        for target in targets:
            target.unlink(missing_ok=True)
    assert mod.write("relative.txt") in ("PermissionError", "OSError")  # the read-only working directory
    if abi >= 1:
        assert mod.make_dir(str(tmp_path / "d")) == "PermissionError"
        assert not (tmp_path / "d").exists()
    assert mod.read(str(own_dir / "probe.py")).startswith("read ")  # reading its own directory still works


def test_the_course_package_is_out_of_reach(probe) -> None:
    mod, _, abi = probe
    found, outcome = mod.course()
    assert found == [] and outcome == "ModuleNotFoundError"
    source = Path(selfattention.__file__).resolve().parent / "core.py"
    if abi >= 1:  # Landlock: the package's files cannot even be read
        assert mod.read(str(source)) == "PermissionError"


@pytest.mark.parametrize("dotted", [
    "torch._C._nn.scaled_dot_product_attention",
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.ops.aten._scaled_dot_product_attention_math",
    "torch.ops.aten._scaled_dot_product_attention_math.default",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu",
    "torch.ops.aten.scaled_dot_product_attention",
])
def test_attention_kernels_are_refused_by_aten_name(probe, dotted: str) -> None:
    mod, _, _ = probe
    refused = r"your code calls (aten::\w+|F\.scaled_dot_product_attention): a library"
    with pytest.raises(Forbidden, match=refused):
        mod.attention(dotted, torch.randn(1, 1, 3, 4))


@pytest.mark.parametrize("dotted", [
    "torch._softmax", "torch.ops.aten._softmax", "torch.softmax", "torch.nn.functional.softmax",
    "torch.special.softmax", "torch.log_softmax", "torch.ops.aten._log_softmax", "torch._log_softmax",
    "torch.ops.aten._safe_softmax", "torch.logsumexp",
])
def test_softmax_kernels_are_refused_in_the_scoped_function(probe, dotted: str) -> None:
    mod, _, _ = probe
    with pytest.raises(Forbidden, match="stable_softmax must be written with exp, max and sum"):
        mod.stable_softmax(dotted, torch.randn(2, 5))


def test_what_a_hand_written_solution_uses_is_allowed(probe) -> None:
    mod, _, _ = probe
    x = torch.randn(3, 5)
    torch.testing.assert_close(mod.hand_written(x), torch.softmax(x, -1))
    torch.testing.assert_close(mod.causal_attention("torch.softmax", x), torch.softmax(x, -1))
    assert mod.largest >= 15  # the guard saw the ops (the largest tensor built: (3, 5))


def test_a_forbidden_call_the_candidate_swallows_still_fails(tmp_path: Path) -> None:
    path = tmp_path / "swallow.py"
    path.write_text(
        "# drill: causal\nimport torch\n\n\ndef stable_softmax(x, mask=None):\n    try:\n"
        "        return getattr(torch, '_soft' + 'max')(x, -1, False)\n    except BaseException:\n"
        "        return torch.exp(x) / torch.exp(x).sum(-1, keepdim=True)\n", encoding="utf-8")
    report = grade_file(path, timeout=60.0)
    msgs = {r.name: r.message for r in report.results}
    assert msgs["stable_softmax matches softmax over the last dim"].startswith(
        "not allowed: your code asks getattr for '_softmax'")
    path.write_text(path.read_text(encoding="utf-8").replace("getattr(torch, '_soft' + 'max')",
                                                             "torch.ops.aten._softmax"), encoding="utf-8")
    msgs = {r.name: r.message for r in grade_file(path, timeout=60.0).results}
    assert msgs["stable_softmax matches softmax over the last dim"].startswith(
        "not allowed: your code calls aten::_softmax (a library softmax) in stable_softmax")


def test_inputs_are_random_per_run_and_reproducible_with_the_seed(tmp_path: Path) -> None:
    path = tmp_path / "wrong.py"
    path.write_text(  # a wrong rotation: its error message names the inputs
        "# drill: rope\nimport torch\n\n\ndef rope(x, positions, base=10000.0):\n    return x.flip(-1)\n",
        encoding="utf-8")
    first, second, again = grade_file(path, seed=None), grade_file(path, seed=None), None
    assert first.seed is not None and second.seed is not None and first.seed != second.seed
    again = grade_file(path, seed=first.seed)
    msg = {r.name: r.message for r in first.results}
    assert msg == {r.name: r.message for r in again.results}  # same seed: the same inputs, the same errors
    assert msg != {r.name: r.message for r in second.results}
    text = format_report(first, plain=True)
    seed = first.seed
    assert f"Random inputs: seed {seed} (grade again with --seed {seed} for the same ones)" in text


def test_docstrings_and_messages_are_never_read_as_code() -> None:
    ok = (
        '# drill: mha\n"""MultiHeadAttention, not nn.MultiheadAttention or F.scaled_dot_product_attention.'
        '"""\n'
        "class MultiHeadAttention:\n"
        '    """One line naming F.scaled_dot_product_attention."""\n'
        "    def __init__(self, d_model, num_heads):\n"
        '        """Unlike torch.nn.MultiheadAttention."""\n'
        "        if d_model % num_heads:\n"
        '            raise ValueError(f"MultiHeadAttention: {d_model} % {num_heads} != 0")\n'
    )
    assert find_violations(ok, "mha") == []
    for bad in ("getattr(F, 'scaled_dot_product_attention')", "getattr(nn, 'MultiheadAttention')",
                "x = 'selfattention.core'", "getattr(torch, '_scaled_dot_product_flash_attention_for_cpu')"):
        assert find_violations(bad + "\n", "mha"), bad


def test_remote_errors_carry_the_candidates_line(probe) -> None:
    mod, _, _ = probe
    with pytest.raises(RemoteError) as info:
        mod.attention("torch.no_such_kernel", torch.randn(1))
    assert info.value.type == "AttributeError" and isinstance(info.value.user_line, int)
    assert re.search("no_such_kernel", info.value.msg)


def test_a_double_forked_daemon_dies_with_the_sandbox(tmp_path: Path) -> None:
    """What the sandbox does for a process its candidate starts (by a route the run-time removal of os.fork
    misses): it is the subreaper, so an orphaned grandchild in its own session stays its descendant, and
    `_kill_descendants` (called by ``Sandbox.kill``) finds and kills it."""
    import subprocess
    import sys
    import time

    from selfattention.interview.drills._common import _kill_descendants

    pid_file = tmp_path / "daemon.pid"
    code = (
        "import ctypes, os, sys, time\n"
        "ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)\n"  # PR_SET_CHILD_SUBREAPER, as the sandbox
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        daemon = int(pid_file.read_text())
        time.sleep(0.2)  # the middle process has exited: the daemon is an orphan now
        os.kill(daemon, 0)  # alive
        _kill_descendants(parent.pid)
        for _ in range(100):
            try:
                with open(f"/proc/{daemon}/stat", encoding="utf-8") as fh:
                    if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break  # killed, waiting for its parent to reap it
            except FileNotFoundError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"daemon {daemon} still running")
    finally:
        if pid_file.exists() and pid_file.read_text():
            try:
                os.kill(int(pid_file.read_text()), 9)  # a failed run leaves nothing behind
            except ProcessLookupError:
                pass
        parent.kill()
        parent.wait()

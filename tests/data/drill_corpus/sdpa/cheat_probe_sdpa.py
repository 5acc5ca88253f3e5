# drill: sdpa
import math
import os
import socket
import sys

import torch

def _log(*a):
    print("PROBE", *a, file=sys.stderr)

for p in ("/dev/shm/drillrev_probe", "/tmp/drillrev_probe", os.path.expanduser("~/x")):
    try:
        with open(p, "w") as fh:
            fh.write("x")
        _log("WROTE", p)
    except Exception as e:
        _log("nowrite", p, type(e).__name__, e)
try:
    s = socket.create_connection(("127.0.0.1", 1), timeout=1)
    _log("connected")
except Exception as e:
    _log("sock", type(e).__name__, e)
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind("\0drillrev"); _log("abstract bind ok")
except Exception as e:
    _log("abstract", type(e).__name__, e)
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("127.0.0.1", 9)); _log("udp sent ok")
except Exception as e:
    _log("udp", type(e).__name__, e)
_log("env", dict(os.environ))
_log("seed", torch.initial_seed(), "ppid", os.getppid())
_log("fds", os.listdir("/proc/self/fd"))
try:
    _log("parent cmdline", open(f"/proc/{os.getppid()}/cmdline").read())
    _log("parent environ", open(f"/proc/{os.getppid()}/environ").read()[:200])
except Exception as e:
    _log("proc", type(e).__name__, e)
try:
    import selfattention
    _log("imported course")
except BaseException as e:
    _log("course", type(e).__name__, e)
try:
    _log("course dir", os.listdir("/work/wt/drills/src/selfattention")[:3])
except Exception as e:
    _log("coursedir", type(e).__name__, e)

def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = torch.softmax(s, -1)
    return w @ v, w

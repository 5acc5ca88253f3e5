"""KV caches: the contiguous cache, a rolling (sliding-window) buffer, attention sinks, a paged block pool.

Each cache stores keys and values of shape (B, h_kv, n, d) per layer (the paged pool stores one sequence per
``seq_id`` as (h_kv, n, d)). ``append`` returns the keys/values the new tokens may attend to.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable

import torch

from ._checks import _shape, check_positive_int, check_rank, check_tensor

__all__ = ["KVCache", "RollingKVCache", "SinkKVCache", "PagedKVCache", "sink_positions"]


def _check_kv(k: object, v: object, rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Raise unless k, v are float tensors of one shape and the given rank; return them."""
    for name, t in (("k", k), ("v", v)):
        check_tensor(t, name)
        check_rank(t, name, rank, rank)
    assert isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape: got k {_shape(k)}, v {_shape(v)}")
    if k.dtype != v.dtype:
        raise ValueError(f"k and v must have the same dtype: got k {k.dtype}, v {v.dtype}")
    return k, v


class KVCache:
    """Keys and values seen so far: k, v of shape (B, h_kv, n_cached, d) (``None`` while empty)."""

    def __init__(self) -> None:
        self.k: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (B, h_kv, n_new, d) along the sequence; return the full (B, h_kv, n_cached, d) pair."""
        for name, t in (("k", k), ("v", v)):
            check_tensor(t, name)
            check_rank(t, name, 4, 4)
        if k.shape != v.shape:
            raise ValueError(
                f"k and v must have the same shape (B, h_kv, n_new, d): got k {_shape(k)}, v {_shape(v)}"
            )
        if k.dtype != v.dtype:
            raise ValueError(f"k and v must have the same dtype: got k {k.dtype}, v {v.dtype}")
        if self.k is not None and self.v is not None:
            old = self.k.shape
            if (k.shape[0], k.shape[1], k.shape[3]) != (old[0], old[1], old[3]) or k.dtype != self.k.dtype:
                raise ValueError(
                    f"new k must match the cache in (B, h_kv, d) and dtype: got k {_shape(k)} {k.dtype}, "
                    f"cache {tuple(old)} {self.k.dtype}"
                )
            self.k = torch.cat([self.k, k], dim=2)  # (B, h_kv, n_cached + n_new, d)
            self.v = torch.cat([self.v, v], dim=2)  # (B, h_kv, n_cached + n_new, d)
        else:
            self.k, self.v = k, v  # (B, h_kv, n_new, d)
        return self.k, self.v

    def __len__(self) -> int:
        """Number of cached positions n_cached."""
        return 0 if self.k is None else self.k.shape[2]

    def nbytes(self) -> int:
        """Bytes held: 2 (k and v) * B * h_kv * n_cached * d * itemsize."""
        if self.k is None or self.v is None:
            return 0
        return self.k.numel() * self.k.element_size() + self.v.numel() * self.v.element_size()

    def reset(self) -> None:
        """Forget everything."""
        self.k = self.v = None


class RollingKVCache:
    """Sliding-window cache (Mistral's rolling buffer): position t lives in slot t mod window; memory fixed.

    ``append(k, v)`` with k, v (B, h_kv, n_new, d) returns the last ``window - 1`` stored positions followed
    by the new ones, (B, h_kv, n_ret, d): attend to them with ``sliding_window_mask(n_new, n_ret, window)``
    (for one new token every returned key is visible).
    """

    def __init__(self, window: int) -> None:
        self.window = check_positive_int(window, "window")
        self.k_buf: torch.Tensor | None = None  # (B, h_kv, window, d) once the first token arrives
        self.v_buf: torch.Tensor | None = None
        self.seen = 0  # positions appended so far

    def _chronological(self, count: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The last ``count`` stored positions in order: (B, h_kv, count, d) each."""
        assert self.k_buf is not None and self.v_buf is not None
        slots = torch.arange(self.seen - count, self.seen, device=self.k_buf.device) % self.window  # (count,)
        return self.k_buf[:, :, slots], self.v_buf[:, :, slots]

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v (B, h_kv, n_new, d) -> (past window - 1 positions ++ new), each (B, h_kv, n_ret, d)."""
        k, v = _check_kv(k, v, 4)
        if self.k_buf is None or self.v_buf is None:
            B, h, _, d = k.shape
            self.k_buf = k.new_zeros(B, h, self.window, d)  # (B, h_kv, window, d), allocated once
            self.v_buf = v.new_zeros(B, h, self.window, d)
        elif (k.shape[0], k.shape[1], k.shape[3]) != (self.k_buf.shape[0], self.k_buf.shape[1],
                                                      self.k_buf.shape[3]) or k.dtype != self.k_buf.dtype:
            raise ValueError(
                f"new k must match the cache in (B, h_kv, d) and dtype: got k {_shape(k)} {k.dtype}, "
                f"buffer {_shape(self.k_buf)} {self.k_buf.dtype}"
            )
        past_k, past_v = self._chronological(min(self.seen, self.window - 1))  # (B, h_kv, <= w - 1, d)
        keys = torch.cat([past_k, k], dim=2)  # (B, h_kv, n_ret, d)
        values = torch.cat([past_v, v], dim=2)
        n_new = k.shape[2]
        keep = min(n_new, self.window)  # only the last `window` new positions can ever be seen again
        slots = torch.arange(self.seen + n_new - keep, self.seen + n_new, device=k.device) % self.window
        self.k_buf[:, :, slots] = k[:, :, n_new - keep:]
        self.v_buf[:, :, slots] = v[:, :, n_new - keep:]
        self.seen += n_new
        return keys, values

    def __len__(self) -> int:
        """Positions held: min(seen, window)."""
        return min(self.seen, self.window)

    def nbytes(self) -> int:
        """Bytes of the two fixed buffers: 2 * B * h_kv * window * d * itemsize (0 before the first token)."""
        if self.k_buf is None or self.v_buf is None:
            return 0
        return self.k_buf.numel() * self.k_buf.element_size() + self.v_buf.numel() * self.v_buf.element_size()


def sink_positions(n: int, num_sinks: int, window: int) -> list[int]:
    """Positions kept for the query at n - 1 (StreamingLLM): the first ``num_sinks`` + the last ``window``."""
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
    if isinstance(num_sinks, bool) or not isinstance(num_sinks, int) or num_sinks < 0:
        raise ValueError(f"num_sinks must be a non-negative int: got {num_sinks!r}")
    return sorted(set(range(min(num_sinks, n))) | set(range(max(0, n - window), n)))


class SinkKVCache:
    """StreamingLLM cache: the first ``num_sinks`` tokens forever + a window of the most recent ones.

    ``append(k, v)`` takes one new token (B, h_kv, 1, d) and returns the kept keys/values including it,
    (B, h_kv, n_kept, d) with n_kept <= num_sinks + window; ``positions`` lists which positions they are.
    """

    def __init__(self, num_sinks: int, window: int) -> None:
        if isinstance(num_sinks, bool) or not isinstance(num_sinks, int) or num_sinks < 0:
            raise ValueError(f"num_sinks must be a non-negative int: got {num_sinks!r}")
        self.num_sinks = num_sinks
        self.window = check_positive_int(window, "window")
        self.k: torch.Tensor | None = None  # (B, h_kv, n_kept, d)
        self.v: torch.Tensor | None = None
        self.positions: list[int] = []
        self.seen = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v (B, h_kv, 1, d) -> kept (B, h_kv, n_kept, d): sinks ++ the last ``window`` positions."""
        k, v = _check_kv(k, v, 4)
        if k.shape[2] != 1:
            raise ValueError(f"SinkKVCache.append takes one token at a time: got k {_shape(k)}")
        if self.k is None or self.v is None:
            self.k, self.v = k, v
        else:
            if (k.shape[0], k.shape[1], k.shape[3]) != (self.k.shape[0], self.k.shape[1],
                                                      self.k.shape[3]) or k.dtype != self.k.dtype:
                raise ValueError(f"new k must match the cache in (B, h_kv, d) and dtype: got k {_shape(k)} "
                                 f"{k.dtype}, cache {_shape(self.k)} {self.k.dtype}")
            self.k = torch.cat([self.k, k], dim=2)  # (B, h_kv, n_kept + 1, d)
            self.v = torch.cat([self.v, v], dim=2)
        self.positions.append(self.seen)
        self.seen += 1
        keep = [i for i, p in enumerate(self.positions) if p < self.num_sinks or p >= self.seen - self.window]
        if len(keep) < len(self.positions):  # evict the oldest non-sink token
            idx = torch.tensor(keep, device=k.device)
            self.k, self.v = self.k[:, :, idx], self.v[:, :, idx]
            self.positions = [self.positions[i] for i in keep]
        return self.k, self.v

    def __len__(self) -> int:
        """Positions held (<= num_sinks + window)."""
        return len(self.positions)


def _ids(ids: Iterable[Hashable]) -> str:
    """The sequence ids for an error message, each shown once by its repr: [a, 'b']."""
    return "[" + ", ".join(sorted(map(repr, ids))) + "]"


class PagedKVCache:
    """vLLM-style paged cache: one pool of ``num_blocks`` fixed-size blocks shared by many sequences.

    Pool tensors are (num_blocks, h_kv, block_size, d); each sequence owns a block table (list of block ids)
    and a length. A sequence of length n holds ceil(n / block_size) blocks, so at most block_size - 1 slots
    are unused per sequence; ``free`` returns its blocks to the pool for the next sequence. The pool stores
    values (appended keys are detached, so it never joins an autograd graph); ``attention`` is inference only.

    Prefix caching: ``fork(src, dst, length)`` gives ``dst`` the blocks of the first ``length`` tokens of
    ``src`` without copying (each block counts its owners); a sequence that appends into a block it shares
    first copies it (copy-on-write, counted in ``copies``), and a block returns to the pool when its last
    owner frees it.
    """

    def __init__(
        self,
        block_size: int,
        num_blocks: int,
        num_kv_heads: int,
        head_dim: int,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str | None = None,
    ) -> None:
        self.block_size = check_positive_int(block_size, "block_size")
        self.num_blocks = check_positive_int(num_blocks, "num_blocks")
        self.num_kv_heads = check_positive_int(num_kv_heads, "num_kv_heads")
        self.head_dim = check_positive_int(head_dim, "head_dim")
        shape = (self.num_blocks, self.num_kv_heads, self.block_size, self.head_dim)
        self.k_pool = torch.zeros(shape, dtype=dtype, device=device)  # (num_blocks, h_kv, block, d)
        self.v_pool = torch.zeros(shape, dtype=dtype, device=device)
        self._free = list(range(self.num_blocks - 1, -1, -1))  # a stack: the last freed block is reused first
        self.block_tables: dict[Hashable, list[int]] = {}
        self.lengths: dict[Hashable, int] = {}
        self.refs = [0] * self.num_blocks  # owners of each block (prefix sharing)
        self.copies = 0  # blocks copied on write

    def _take(self) -> int:
        """Pop a free block and give it one owner."""
        block = self._free.pop()
        self.refs[block] = 1
        return block

    @property
    def num_free_blocks(self) -> int:
        """Blocks not owned by any sequence."""
        return len(self._free)

    def append(self, seq_id: Hashable, k: torch.Tensor, v: torch.Tensor) -> None:
        """Append k, v (h_kv, n_new, d) to sequence ``seq_id`` (created on first use), allocating blocks."""
        k, v = _check_kv(k, v, 3)
        if (k.shape[0], k.shape[2]) != (self.num_kv_heads, self.head_dim) or k.dtype != self.k_pool.dtype:
            raise ValueError(
                f"k must be (h_kv={self.num_kv_heads}, n_new, d={self.head_dim}) "
                f"of dtype {self.k_pool.dtype}: "
                f"got k {_shape(k)} {k.dtype}"
            )
        n = self.lengths.get(seq_id, 0)
        n_new = k.shape[1]
        table = self.block_tables.get(seq_id, [])
        cow = n_new > 0 and n % self.block_size != 0 and self.refs[table[-1]] > 1  # shared, half full
        need = math.ceil((n + n_new) / self.block_size) - len(table) + cow
        if need > len(self._free):  # checked before any change: a failed append leaves the cache as it was
            raise RuntimeError(
                f"PagedKVCache is out of blocks: sequence {seq_id!r} needs {need} more, "
                f"{len(self._free)} free"
            )
        table = self.block_tables.setdefault(seq_id, [])
        if cow:  # the first token that diverges from the shared prefix: copy the block, then write
            old, new = table[-1], self._take()
            self.k_pool[new], self.v_pool[new] = self.k_pool[old], self.v_pool[old]
            self.refs[old] -= 1
            table[-1] = new
            self.copies += 1
        table.extend(self._take() for _ in range(need - cow))
        pos = torch.arange(n, n + n_new)  # (n_new,) absolute positions
        blocks = torch.tensor(table, dtype=torch.long)[pos // self.block_size]  # (n_new,) physical block ids
        offsets = pos % self.block_size  # (n_new,) slot inside the block
        # pool[(n_new), h_kv, d] <- (n_new, h_kv, d); detached: a cache holds values, not a growing graph
        self.k_pool[blocks, :, offsets] = k.detach().transpose(0, 1)
        self.v_pool[blocks, :, offsets] = v.detach().transpose(0, 1)
        self.lengths[seq_id] = n + n_new

    def fork(self, src: Hashable, dst: Hashable, length: int | None = None) -> None:
        """Start sequence ``dst`` as the first ``length`` tokens of ``src`` (default all), sharing blocks."""
        if src not in self.block_tables:
            raise ValueError(f"seq_id {src!r} is not in the cache: have {_ids(self.lengths)}")
        if dst in self.block_tables:
            raise ValueError(f"seq_id {dst!r} is already in the cache")
        n = self.lengths[src] if length is None else length
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= self.lengths[src]:
            raise ValueError(f"length must be an int in [0, {self.lengths[src]}]: got {length!r}")
        shared = self.block_tables[src][: math.ceil(n / self.block_size)]
        for block in shared:
            self.refs[block] += 1
        self.block_tables[dst] = list(shared)
        self.lengths[dst] = n

    def shared_blocks(self, a: Hashable, b: Hashable) -> int:
        """Number of physical blocks that sequences a and b both use."""
        return len(set(self.block_tables[a]) & set(self.block_tables[b]))

    def gather(self, seq_id: Hashable) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values of ``seq_id`` in order, read through its block table: (h_kv, n, d) each."""
        if seq_id not in self.block_tables:
            raise ValueError(f"seq_id {seq_id!r} is not in the cache: have {_ids(self.lengths)}")
        table = torch.tensor(self.block_tables[seq_id], dtype=torch.long)
        n = self.lengths[seq_id]
        out = []
        for pool in (self.k_pool, self.v_pool):
            blocks = pool[table]  # (n_blocks, h_kv, block, d)
            flat = blocks.transpose(0, 1).reshape(self.num_kv_heads, -1, self.head_dim)  # (h_kv, nb*bs, d)
            out.append(flat[:, :n])  # (h_kv, n, d)
        return out[0], out[1]

    def attention(self, q: torch.Tensor, seq_id: Hashable, scale: float | None = None) -> torch.Tensor:
        """PagedAttention's read: q (h, n_q, d) attends to ``seq_id``'s keys block by block -> (h, n_q, d).

        Each physical block (the last one cut to the sequence's length) is read in place through the block
        table, attended with its log-sum-exp, and the parts are merged exactly (``merge_attention_partials``):
        the keys are never copied into one contiguous tensor. The result is what a PagedAttention kernel
        computes; merging per block is the split-K form (vLLM's V2 kernel merges 512-token partitions this
        way, its V1 kernel computes all logits through the block table and does one softmax). Non-causal (a
        decoding step sees the whole cache); h must be a multiple of h_kv (GQA: query head i reads K/V head
        i // (h / h_kv)). A sequence with no tokens gives zeros (the package's convention for a row with no
        key). Inference only (not differentiable): raises if q requires grad while grad mode is on.
        """
        from .flash import _inference_only, attention_with_lse, merge_attention_partials

        check_tensor(q, "q")
        _inference_only("PagedKVCache.attention", q)
        check_rank(q, "q", 3, 3)
        if seq_id not in self.block_tables:
            raise ValueError(f"seq_id {seq_id!r} is not in the cache: have {_ids(self.lengths)}")
        h, n_q, d = q.shape
        if d != self.head_dim or h % self.num_kv_heads != 0 or q.dtype != self.k_pool.dtype:
            raise ValueError(
                f"q must be (h, n_q, d={self.head_dim}) with h a multiple of {self.num_kv_heads}, "
                f"dtype {self.k_pool.dtype}: got q {_shape(q)} {q.dtype}"
            )
        groups = q.reshape(self.num_kv_heads, h // self.num_kv_heads, n_q, d)  # (h_kv, g, n_q, d)
        n = self.lengths[seq_id]
        if n == 0:  # no key to attend to: zeros, as for a fully masked row
            return torch.zeros_like(q)
        outs, lses = [], []
        for i, block in enumerate(self.block_tables[seq_id]):
            used = min(self.block_size, n - i * self.block_size)  # slots filled in this block
            k_blk = self.k_pool[block, :, :used, None].transpose(1, 2)  # (h_kv, 1, used, d), a view
            v_blk = self.v_pool[block, :, :used, None].transpose(1, 2)
            o, lse = attention_with_lse(groups, k_blk, v_blk, block_size=self.block_size, scale=scale)
            outs.append(o)
            lses.append(lse)
        return merge_attention_partials(outs, lses)[0].reshape(h, n_q, d)

    def free(self, seq_id: Hashable) -> None:
        """Return the blocks of ``seq_id`` to the pool and forget the sequence."""
        if seq_id not in self.block_tables:
            raise ValueError(f"seq_id {seq_id!r} is not in the cache")
        released = []
        for block in self.block_tables.pop(seq_id):
            self.refs[block] -= 1
            if self.refs[block] == 0:  # its last owner: back to the pool
                released.append(block)
        self._free.extend(reversed(released))
        del self.lengths[seq_id]

    def wasted_slots(self, seq_id: Hashable | None = None) -> int:
        """Allocated but unused token slots: of one sequence, blocks * block_size - length; of the whole
        pool, counted per physical block, so a block shared by forked sequences counts once (its empty
        slots are those past the most tokens any owner keeps in it)."""
        if seq_id is not None and seq_id not in self.block_tables:
            raise ValueError(f"seq_id {seq_id!r} is not in the cache: have {_ids(self.lengths)}")
        if seq_id is not None:
            return len(self.block_tables[seq_id]) * self.block_size - self.lengths[seq_id]
        filled: dict[int, int] = {}  # physical block -> tokens stored in it
        for s, table in self.block_tables.items():
            for j, b in enumerate(table):
                n = min(self.block_size, self.lengths[s] - j * self.block_size)
                filled[b] = max(filled.get(b, 0), n)
        return sum(self.block_size - n for n in filled.values())

"""Plans: one rank's index bucketed by owner (sk_bucketize), the counts
exchange that tells every owner what it receives, and the ids it receives.
A plan is reused as long as the index and the partition stay the same (a
static graph, or the backward of the same call): then only rows move."""

import itertools

import torch

import scatterkit as sk

from .. import _C
from . import _exchange as ex

_plan_ids = itertools.count(1)


class Plan:
    """What a call needs to move rows for one rank's index: `perm` (its
    positions grouped by owner, rank 0's first; positions set aside by mode
    "fill"/"drop" last), `send_counts[r]` ids for rank r, `recv_counts[r]`
    ids from rank r, and `recv_ids` (the local rows asked of this rank, rank
    0's requests first, each rank's in its own position order)."""

    def __init__(self, g, partition, length, mode, perm, send_counts, recv_counts, recv_ids):
        self.group = g.group
        self.nranks, self.rank = g.size, g.rank
        self.partition = partition
        self.length = length
        self.mode = mode
        self.perm = perm
        self.send_counts = send_counts
        self.recv_counts = recv_counts
        self.recv_ids = recv_ids
        self.kept = sum(send_counts)
        self.id = next(_plan_ids)
        self._inverse = None

    @property
    def sent(self):
        """Positions whose row goes to an owner, in bucket order."""
        return self.perm[:self.kept]

    @property
    def set_aside(self):
        """Positions an out-of-range id set aside (mode "fill" or "drop")."""
        return self.perm[self.kept:]

    @property
    def inverse(self):
        """For each position, its row among the rows returned in bucket
        order (`kept` for a position set aside: one fill row after them), so
        that un-permuting is a row gather, not a row scatter."""
        if self._inverse is None:
            n = self.perm.shape[0]
            inv = torch.empty(n, dtype=torch.int64, device=self.perm.device)
            pos = torch.arange(n, device=self.perm.device).clamp_(max=self.kept)
            if self.perm.device.type == "cpu":
                sk.index_scatter(inv, self.perm, pos, 0, out=inv)
            else:
                inv[self.perm] = pos
            self._inverse = inv
        return self._inverse

    def __repr__(self):
        return (f"Plan(rank={self.rank} of {self.nranks}, length={self.length}, "
                f"send={self.send_counts}, recv={self.recv_counts}, mode={self.mode!r})")


def as_partition(partition, g, op):
    """The P + 1 row offsets as a tuple of ints."""
    if isinstance(partition, torch.Tensor):
        partition = partition.tolist()
    try:
        part = tuple(int(v) for v in partition)
    except TypeError:
        raise TypeError(f"{op}: partition must be a sequence of {g.size + 1} row offsets") from None
    if len(part) != g.size + 1:
        raise ValueError(f"{op}: partition has {len(part)} row offsets; a group of {g.size} ranks "
                         f"needs {g.size + 1}")
    return part


def local_dtype(part):
    widest = max((b - a for a, b in zip(part, part[1:])), default=0)
    return torch.int32 if widest < 2 ** 31 else torch.int64


def bucketize(index, partition, mode="error", local_dtype=torch.int64):
    """sk_bucketize on a 1-d CPU index: (counts [P + 1], perm [L], local [L])
    as torch tensors. counts[P] counts the ids set aside by mode "fill" or
    "drop"; perm groups the positions by owner, in position order; local is
    each id minus its owner's first row (-1 when set aside)."""
    index = torch.as_tensor(index)
    part = torch.as_tensor(partition, dtype=torch.int64)
    n = index.shape[0] if index.ndim == 1 else 0
    counts = torch.empty(part.shape[0] if part.ndim == 1 else 0, dtype=torch.int64)
    perm = torch.empty(n, dtype=torch.int64)
    local = torch.empty(n, dtype=local_dtype)
    _C.bucketize(index, part, ex.MODES.index(mode), counts, perm, local)
    return counts, perm, local


def first_bad(index, total, mode):
    """(position, value) of the first id out of range, as sk_bucketize saw it."""
    v = index.to(torch.int64)
    bad = (v < -total) | (v >= total) if mode == "error" or total else torch.ones_like(v, dtype=bool)
    pos = int(bad.nonzero()[0, 0]) if bool(bad.any()) else 0
    return pos, int(v[pos]) if v.numel() else 0


def _check_plan(op, g, plan, index, part):
    if not isinstance(plan, Plan):
        raise TypeError(f"{op}: plan must be a scatterkit.distributed.Plan, got "
                        f"{type(plan).__name__}")
    if plan.length != index.numel() or plan.partition != part or plan.nranks != g.size:
        raise ValueError(f"{op}: the plan was made for another index length, partition or "
                         f"group ({plan!r})")


def _local_work(op, g, index, partition, mode, check, plan):
    """This rank's part before any communication: its argument check and its
    bucketing. Returns (part, status, bad, error, buckets); never raises."""
    part = (0,) * (g.size + 1)
    try:
        part = as_partition(partition, g, op)
        check(part)
        if plan is not None:
            _check_plan(op, g, plan, index, part)
            return part, ex.OK, (0, 0), None, None
        idx = index.reshape(-1).cpu()
        try:
            return part, ex.OK, (0, 0), None, bucketize(idx, part, mode, local_dtype(part))
        except IndexError:
            return part, ex.BAD_INDEX, first_bad(idx, part[-1], mode), None, None
    except (ValueError, TypeError, IndexError, RuntimeError, AttributeError) as e:
        return part, ex.BAD_ARGS, (0, 0), e, None


def prepare(op, g, index, partition, mode, sig, check, plan=None):
    """Everything before the rows move, with one collective (the headers)
    that every rank reaches: the local checks and bucketing, then the same
    error on every rank if any rank failed or the ranks disagree, then (no
    plan given) the ids exchange. Returns the plan."""
    part, status, bad, error, buckets = _local_work(op, g, index, partition, mode, check, plan)
    length = int(index.numel()) if isinstance(index, torch.Tensor) else 0
    counts = buckets[0] if buckets is not None else None
    rows = ex.header(g, counts, length, status, bad, sig + [getattr(plan, "id", -1) if plan else 0])
    recv = ex.exchange_headers(g, rows)
    ex.check_signatures(recv)
    ex.raise_failures(op, g, recv, str(error) if error else "", error, part[-1])
    if plan is not None:
        return plan
    counts, perm, local = buckets
    send_counts = counts[:g.size].tolist()
    recv_counts = recv[:, ex.COUNT].tolist()
    kept = sum(send_counts)
    recv_ids = ex.all_to_all(g, local[:kept], send_counts, recv_counts)
    return Plan(g, part, length, mode, perm.to(g.device), send_counts, recv_counts, recv_ids)

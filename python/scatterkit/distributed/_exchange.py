"""The collectives of scatterkit.distributed: the group, the header that
carries counts, error flags and the argument signature of every rank, and
the variable-split all_to_all_single of ids and rows."""

import hashlib
import math

import torch
import torch.distributed as dist

from .._args import _REDUCE, _choice

# The header one rank sends to each rank (int64): the count of ids for that
# rank, then what every rank sends alike (its index length, its status, its
# first bad position and value), then the signature of its arguments.
COUNT, LENGTH, STATUS, BAD_POS, BAD_VALUE = range(5)
SIGNATURE = ("operator", "reduce", "include_self", "mode", "dtype", "row shape", "partition",
             "plan")
HEADER = 5 + len(SIGNATURE)
OK, BAD_INDEX, BAD_ARGS = 0, 1, 2

OPERATORS = ("plan", "index_select", "index_scatter", "index_select_backward",
             "index_scatter_backward")
MODES = ("error", "clip", "drop", "fill")
_REDUCE_NAMES = {v: k for k, v in _REDUCE.items()}


class Group:
    """The process group of a call: its size, this rank, the device that
    collectives need (CUDA for NCCL) and an optional timeout."""

    def __init__(self, group):
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError("scatterkit.distributed: torch.distributed is not initialized; "
                               "call torch.distributed.init_process_group first")
        self.group = group
        self.size = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        backend = dist.get_backend(group)
        self.device = (torch.device("cuda", torch.cuda.current_device())
                       if backend == "nccl" else torch.device("cpu"))


def digest(value):
    """A 63-bit digest of a value's repr: equal on every rank for equal values."""
    h = hashlib.blake2b(repr(value).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") >> 1


def header(g, counts, length, status, bad, signature):
    """This rank's header row for each rank: [P, HEADER] int64."""
    rows = torch.zeros((g.size, HEADER), dtype=torch.int64)
    if counts is not None:
        rows[:, COUNT] = counts[:g.size]
    rows[:, LENGTH] = length
    rows[:, STATUS] = status
    rows[:, BAD_POS], rows[:, BAD_VALUE] = bad
    rows[:, 5:] = torch.tensor(signature, dtype=torch.int64)
    return rows


def exchange_headers(g, rows):
    """all_to_all_single of the headers: row i of the result came from rank i."""
    send = rows.to(g.device)
    recv = torch.empty_like(send)
    dist.all_to_all_single(recv, send, group=g.group)
    return recv.cpu()


def _describe(field, value):
    if field == "operator" and 0 <= value < len(OPERATORS):
        return OPERATORS[value]
    if field == "reduce":
        return repr(_REDUCE_NAMES.get(value, value))
    if field == "mode" and 0 <= value < len(MODES):
        return repr(MODES[value])
    if field == "include_self":
        return str(bool(value))
    return None


def check_signatures(recv):
    """Every rank passed the same arguments, else the same ValueError on all
    (named without the operator: the ranks may have called different ones)."""
    sig = recv[:, 5:]
    for k, field in enumerate(SIGNATURE):
        col = sig[:, k].tolist()
        other = next((r for r, v in enumerate(col) if v != col[0]), None)
        if other is None:
            continue
        a, b = _describe(field, col[0]), _describe(field, col[other])
        said = f" ({a} on rank 0, {b} on rank {other})" if a is not None else ""
        raise ValueError(f"scatterkit.distributed: the ranks passed different arguments: the "
                         f"{field} differs "
                         f"between rank 0 and rank {other}{said}; every rank of the group must "
                         f"make the same call")


def raise_failures(op, g, recv, message, error, total):
    """After the header exchange: a rank that refused its arguments, or a bad
    id on any rank, raises the same error on every rank (nothing written)."""
    status = recv[:, STATUS].tolist()
    if BAD_ARGS in status:
        msgs = [None] * g.size
        dist.all_gather_object(msgs, (type(error).__name__ if error else None, message),
                               group=g.group)
        r = status.index(BAD_ARGS)
        kind = {"TypeError": TypeError, "IndexError": IndexError}.get(msgs[r][0], ValueError)
        raise kind(f"{msgs[r][1]} (on rank {r} of {g.size})")
    if BAD_INDEX in status:
        r = status.index(BAD_INDEX)
        lengths = recv[:, LENGTH].tolist()
        pos, val = int(recv[r, BAD_POS]), int(recv[r, BAD_VALUE])
        raise IndexError(f"{op}: index[{sum(lengths[:r]) + pos}] = {val} is out of range for "
                         f"axis 0 of size {total} (position {pos} of rank {r}'s index)")


def _safe(fn, default=-2):
    try:
        return fn()
    except Exception:  # an argument this rank refuses: its check reports it
        return default


def signature(op, reduce, include_self, mode, shard, partition):
    """The arguments every rank must pass alike (prepare() adds the plan);
    computed from any arguments, valid or not, so that it never raises."""
    part = partition.tolist() if isinstance(partition, torch.Tensor) else partition
    return [OPERATORS.index(op), _safe(lambda: _REDUCE[reduce]),
            _safe(lambda: int(bool(include_self))), _safe(lambda: MODES.index(mode)),
            digest(str(getattr(shard, "dtype", None))),
            digest(_safe(lambda: tuple(shard.shape[1:]), None)),
            digest(_safe(lambda: tuple(int(v) for v in part), None))]


def check_mode(mode, op, gather):
    """index_select takes error, clip, fill; index_scatter error, clip, drop."""
    _choice({m: m for m in ("error", "clip", "fill" if gather else "drop")}, mode, op, "mode")


def all_to_all(g, send, send_counts, recv_counts):
    """Rows of `send` ([n, ...], grouped by destination) to their ranks;
    returns what each rank sent here, rank 0's rows first. Rows travel as
    bytes, so every dtype moves alike."""
    row = tuple(send.shape[1:])
    n_recv, elems = sum(recv_counts), math.prod(row)
    out = torch.empty((n_recv,) + row, dtype=send.dtype, device=g.device)
    if elems == 0 or g.size == 1:
        if elems:
            out.copy_(send)
        return out
    src = send.to(g.device).contiguous().reshape(send.shape[0], elems).view(torch.uint8)
    dst = out.view((n_recv, elems)).view(torch.uint8)
    dist.all_to_all_single(dst, src, output_split_sizes=list(recv_counts),
                           input_split_sizes=list(send_counts), group=g.group)
    return out

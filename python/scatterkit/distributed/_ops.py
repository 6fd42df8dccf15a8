"""The row-sharded operators on torch tensors, forward and backward, without
autograd (_autograd.py wraps them). Each owner runs scatterkit's own
single-process kernel on what it received: contributions arrive rank 0's
first, each rank's in its own position order, i.e. in the order of the
concatenated index, so the canonical order gives the single-process bits."""

import torch

import scatterkit as sk

from . import _exchange as ex
from .._args import _REDUCE, _choice
from ._plan import prepare


def _check_shard(op, g, shard, part):
    rows = part[g.rank + 1] - part[g.rank]
    if not isinstance(shard, torch.Tensor) or shard.ndim < 1:
        raise ValueError(f"{op}: table_shard must be a tensor of at least 1 dimension")
    if shard.shape[0] != rows:
        raise ValueError(f"{op}: rank {g.rank} owns rows [{part[g.rank]}, {part[g.rank + 1]}) "
                         f"of the partition ({rows} rows) but its table_shard has "
                         f"{shard.shape[0]}")


def _check_index(op, index):
    if not isinstance(index, torch.Tensor) or index.dtype not in (torch.int32, torch.int64):
        raise TypeError(f"{op}: index must be an int32 or int64 tensor")


def _rows_back(g, plan, rows, length, row_shape, fill):
    """Rows computed by the owners for plan's requests, back in the
    requester's position order; positions set aside get `fill` (None: 0)."""
    back = ex.all_to_all(g, rows, plan.recv_counts, plan.send_counts)
    if plan.kept < length:
        pad = torch.full((1,) + tuple(row_shape), 0 if fill is None else fill, dtype=rows.dtype,
                         device=back.device)
        back = torch.cat([back, pad])
    return _gather_rows(back, plan.inverse)


def _gather_rows(rows, index):
    if rows.device.type == "cpu":
        return sk.index_select(rows, index, 0)
    return rows[index]


def _rows_to_owners(g, plan, rows):
    """Rows of this rank's positions (first dimension L) to their owners."""
    return ex.all_to_all(g, _gather_rows(rows, plan.sent), plan.send_counts, plan.recv_counts)


def index_select(shard, index, part, g, plan=None, mode="error", fill_value=0):
    """This rank's rows of index_select(full_table, global_index, 0)."""
    op = "index_select"

    def check(part):
        ex.check_mode(mode, op, gather=True)
        _check_shard(op, g, shard, part)
        _check_index(op, index)

    sig = ex.signature(op, None, True, mode, shard, part)
    plan = prepare(op, g, index, part, mode, sig, check, plan)
    rows = sk.index_select(shard, plan.recv_ids, 0)
    out = _rows_back(g, plan, rows, plan.length, shard.shape[1:], fill_value)
    return out.reshape(tuple(index.shape) + tuple(shard.shape[1:])), plan


def index_scatter(shard, index, updates, part, g, plan=None, reduce=None, include_self=True,
                  mode="error", out=None):
    """This rank's shard of index_scatter(full_table, global_index,
    global_updates, 0, ...); also returns the rows it received (kept for
    the backward) and the plan."""
    op = "index_scatter"

    def check(part):
        ex.check_mode(mode, op, gather=False)
        _choice(_REDUCE, reduce, op, "reduce")
        _check_shard(op, g, shard, part)
        _check_index(op, index)
        row = tuple(shard.shape[1:])
        want = (row,) if index.ndim == 0 else ()
        want += ((index.numel(),) + row,)
        if not isinstance(updates, torch.Tensor) or updates.dtype != shard.dtype:
            raise TypeError(f"{op}: updates must be a tensor of table_shard's dtype "
                            f"{shard.dtype}")
        if tuple(updates.shape) not in want:
            raise ValueError(f"{op}: updates has shape {tuple(updates.shape)}; expected "
                             f"{want[-1]} (the index's length, then table_shard's row shape)")

    sig = ex.signature(op, reduce, include_self, mode, shard, part)
    plan = prepare(op, g, index, part, mode, sig, check, plan)
    flat = updates.reshape((plan.length,) + tuple(shard.shape[1:]))
    recv_rows = _rows_to_owners(g, plan, flat)
    result = sk.index_scatter(shard, plan.recv_ids, recv_rows, 0, reduce=reduce,
                              include_self=include_self, out=out)
    return result, recv_rows, plan


def index_select_backward(grad_out, shard, plan, g):
    """The gradient of this rank's shard: each rank's output gradients go
    to the owners of their rows, which sum them as the single-process
    backward does (its canonical order over the concatenated index)."""
    row = tuple(shard.shape[1:])
    flat = grad_out.reshape((plan.length,) + row)
    recv = _rows_to_owners(g, plan, flat)
    return sk.index_select_backward(recv, shard, plan.recv_ids, 0)


def index_scatter_backward(grad_out, shard, recv_rows, result, plan, g, reduce, include_self):
    """(grad of this rank's shard, grad of its updates): the owner holds
    every contributor of its targets, so ties, zeros of prod and the counts
    of mean are exact; the updates' gradients travel back to their ranks."""
    gx, gu = sk.index_scatter_backward(grad_out, shard, plan.recv_ids, recv_rows, 0,
                                       reduce=reduce, include_self=include_self, result=result)
    return gx, _rows_back(g, plan, gu, plan.length, shard.shape[1:], None)

"""scatterkit.distributed: index_select and index_scatter over a table whose
rows are sharded across the ranks of a torch.distributed process group
(Gloo for CPU tensors, NCCL for CUDA tensors), bit for bit equal to the
single-process call on the whole table and the concatenated index
(docs/distributed.md, SPEC section 8).

`partition` is the P + 1 row offsets: rank r owns the global rows
[partition[r], partition[r + 1]) (uneven shards allowed) and passes them as
`table_shard`. Each rank passes its own slice of the index (and of the
updates); the global index is the slices concatenated in rank order. Every
rank of the group must make the same calls in the same order.

    >>> import scatterkit.distributed as skd                  # doctest: +SKIP
    >>> rows = skd.index_select(shard, ids, partition=part)    # doctest: +SKIP
"""
import numpy as np
import torch
import torch.distributed as dist

from .._args import _choice
from . import _exchange as ex
from . import _ops
from ._autograd import IndexScatter, IndexSelect, wants_grad
from ._exchange import Group
from ._plan import Plan, prepare
from ._plan import bucketize as _bucketize

__all__ = ["index_select", "index_scatter", "plan", "Plan", "bucketize", "even_partition",
           "partition_from_local"]


def _torch(a):
    return (torch.from_numpy(np.ascontiguousarray(a)), True) if isinstance(a, np.ndarray) \
        else (a, False)


def index_select(table_shard, index, *, partition, group=None, plan=None, mode="error",
                 fill_value=0):
    """This rank's rows of index_select(full_table, global_index, 0): shape
    index.shape + table_shard.shape[1:]. mode "error" (a bad id raises the
    same IndexError on every rank, before any rank writes), "clip" or
    "fill". Differentiable with respect to table_shard (torch tensors)."""
    shard, was_np = _torch(table_shard)
    index, _ = _torch(index)
    if wants_grad(shard):
        out = IndexSelect.apply(shard, index, partition, group, plan, mode, fill_value)
    else:
        out, _ = _ops.index_select(shard, index, partition, Group(group), plan, mode,
                                   fill_value)
    return out.numpy() if was_np else out


def index_scatter(table_shard, index, updates, *, partition, reduce=None, include_self=True,
                  group=None, plan=None, mode="error", out=None):
    """This rank's shard of index_scatter(full_table, global_index,
    global_updates, 0, reduce=..., include_self=...): every reduction (None:
    assign, last wins by global position), mode "error", "clip" or "drop".
    Differentiable with respect to table_shard and updates (torch tensors)."""
    shard, was_np = _torch(table_shard)
    index, _ = _torch(index)
    updates, _ = _torch(updates)
    if out is None and (wants_grad(shard) or wants_grad(updates)):
        res = IndexScatter.apply(shard, updates, index, partition, group, plan, reduce,
                                 include_self, mode)
        return res
    torch_out = out if isinstance(out, torch.Tensor) else None
    res, _, _ = _ops.index_scatter(shard, index, updates, partition, Group(group), plan, reduce,
                                   include_self, mode, torch_out)
    if isinstance(out, np.ndarray):
        out[...] = res.numpy()
    return out if out is not None else res.numpy() if was_np else res


def plan(index, *, partition, group=None, mode="error"):
    """The bucketing of this rank's index and the counts and ids exchange,
    to reuse while the index stays the same (pass it as plan=): later calls
    then move only rows. A collective: every rank calls it."""
    g = Group(group)
    index, _ = _torch(index)

    def check(part):
        _choice({m: m for m in ex.MODES}, mode, "plan", "mode")
        if not isinstance(index, torch.Tensor) or index.dtype not in (torch.int32, torch.int64):
            raise TypeError("plan: index must be an int32 or int64 tensor")

    sig = ex.signature("plan", None, True, mode, None, partition)
    return prepare("plan", g, index, partition, mode, sig, check)


def bucketize(index, partition, *, mode="error"):
    """sk_bucketize (no communication): (counts [P + 1], perm [L], local
    [L]) for a 1-d index of global ids: counts per owner (counts[P]: ids set
    aside by mode "fill"/"drop"), the positions grouped by owner in position
    order (a stable counting sort), each id minus its owner's first row.
    NumPy in, NumPy out."""
    idx, was_np = _torch(index)
    res = _bucketize(idx, torch.as_tensor(partition, dtype=torch.int64), mode)
    return tuple(t.numpy() for t in res) if was_np else res


def even_partition(n_rows, group=None):
    """P + 1 offsets giving each rank ceil(n_rows / P) rows (the last ones fewer)."""
    size = Group(group).size
    per = -(-int(n_rows) // size)
    return tuple(min(r * per, int(n_rows)) for r in range(size + 1))


def partition_from_local(n_local, group=None):
    """P + 1 offsets from each rank's own row count (an all_gather)."""
    g = Group(group)
    mine = torch.tensor([int(n_local)], dtype=torch.int64, device=g.device)
    sizes = [torch.empty_like(mine) for _ in range(g.size)]
    dist.all_gather(sizes, mine, group=g.group)
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + int(s))
    return tuple(offsets)

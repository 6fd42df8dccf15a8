"""PyTorch's own names, signatures and spellings over scatterkit.torch, so
that swapping ``torch.`` for ``compat.`` is the whole port:

    from scatterkit.torch import compat
    y = compat.scatter_reduce(x, 0, index, src, "amax", include_self=False)

Differentiable, compilable and exportable as scatterkit.torch is. Where the
results differ from torch's (negative indices are allowed, duplicates are
deterministic, 16-bit types accumulate in float32, tied amax/amin share the
gradient): docs/torch.md."""

import torch

from . import (diagonal_scatter as _diagonal_scatter, gather as _gather,
               index_scatter as _index_scatter, index_select as _index_select,
               masked_scatter as _masked_scatter, masked_select as _masked_select,
               scatter as _scatter, scatter_nd as _scatter_nd, select_scatter as _select_scatter,
               slice_scatter as _slice_scatter)

__all__ = ["scatter", "scatter_add", "scatter_reduce", "gather", "take_along_dim", "index_add",
           "index_copy", "index_reduce", "index_select", "index_put", "masked_scatter",
           "masked_select", "slice_scatter", "diagonal_scatter", "select_scatter"]

# torch's spellings -> scatterkit's reductions
_REDUCE = {"sum": "sum", "add": "sum", "prod": "prod", "multiply": "prod", "amax": "amax",
           "max": "amax", "amin": "amin", "min": "amin", "mean": "mean"}


def _reduce(op, reduce, allowed):
    if reduce not in allowed:
        raise ValueError(f"{op}: reduce must be one of {', '.join(map(repr, allowed))}; "
                         f"got {reduce!r}")
    return _REDUCE[reduce]


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """torch.scatter(input, dim, index, src) or (..., value=v); reduce="add" |
    "multiply" is the old API (torch.Tensor.scatter_ with reduce): the updates
    are summed / multiplied into input. src may also be a number, as torch's
    scatter(input, dim, index, value) overload takes it positionally."""
    if (src is None) == (value is None):
        raise TypeError("scatter: give exactly one of src and value")
    src = value if src is None else src
    if reduce is not None:
        reduce = _reduce("scatter", reduce, ("add", "multiply"))
    return _scatter(input, index, src, dim, reduce=reduce)


def scatter_add(input, dim, index, src):
    """torch.scatter_add."""
    return _scatter(input, index, src, dim, reduce="sum")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """torch.scatter_reduce; reduce: "sum"|"add", "prod"|"multiply",
    "mean", "amax"|"max", "amin"|"min"."""
    r = _reduce("scatter_reduce", reduce, tuple(_REDUCE))
    return _scatter(input, index, src, dim, reduce=r, include_self=include_self)


def gather(input, dim, index, *, sparse_grad=False):
    """torch.gather (sparse_grad is accepted and has no effect: the gradient
    is dense)."""
    return _gather(input, index, dim)


def take_along_dim(input, indices, dim=None):
    """torch.take_along_dim: dim None takes from the flattened input;
    otherwise input and indices broadcast in every dimension but dim."""
    if dim is None:
        return _gather(input.reshape(-1), indices.reshape(-1), 0)
    nd = input.dim()
    d = dim + nd if dim < 0 else dim
    shape_i, shape_x = list(indices.shape), list(input.shape)
    shape_i[d] = shape_x[d] = 1
    common = list(torch.broadcast_shapes(tuple(shape_i), tuple(shape_x)))
    common[d] = input.shape[d]
    x = input.expand(common)
    common[d] = indices.shape[d]
    return _gather(x, indices.expand(common), d)


def _index_1d(index):
    """torch's index_* take a 0-d index as one of a single value (the
    dimension stays, of size 1); scatterkit's index_scatter/index_select
    drop it, as NumPy's take does."""
    if isinstance(index, torch.Tensor) and index.dim() == 0:
        return index.reshape(1)
    return index


def index_add(input, dim, index, source, *, alpha=1):
    """torch.index_add (alpha scales source)."""
    if alpha != 1:
        source = source * alpha
    return _index_scatter(input, _index_1d(index), source, dim, reduce="sum")


def index_copy(input, dim, index, source):
    """torch.index_copy (a repeated index: the last copy wins)."""
    return _index_scatter(input, _index_1d(index), source, dim)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """torch.index_reduce; reduce: "prod", "mean", "amax", "amin" (and the
    other spellings of scatter_reduce)."""
    r = _reduce("index_reduce", reduce, tuple(_REDUCE))
    return _index_scatter(input, _index_1d(index), source, dim, reduce=r,
                          include_self=include_self)


def index_select(input, dim, index):
    """torch.index_select."""
    return _index_select(input, _index_1d(index), dim)


def index_put(input, indices, values, accumulate=False):
    """torch.index_put with integer index tensors for the leading dimensions
    (broadcast together); accumulate=True sums repeated positions, False:
    the last write wins. None or bool entries in indices are refused."""
    if not isinstance(indices, (tuple, list)) or not indices:
        raise TypeError("index_put: indices must be a non-empty tuple of index tensors")
    for i in indices:
        if not isinstance(i, torch.Tensor) or i.dtype == torch.bool:
            raise TypeError("index_put: scatterkit takes integer index tensors only (no None, "
                            "bool masks or ints): use masked_scatter for a mask")
    parts = torch.broadcast_tensors(*indices)
    index = torch.stack([p.to(torch.int64) for p in parts], dim=-1)
    shape = (*parts[0].shape, *input.shape[len(indices):])
    if isinstance(values, torch.Tensor) and values.dim() > 0:
        values = values.expand(shape)
    return _scatter_nd(input, index, values, reduce="sum" if accumulate else None)


def masked_scatter(input, mask, source):
    """torch.masked_scatter (input and mask broadcast together, as torch's
    do; scatterkit.torch.masked_scatter broadcasts mask to input only)."""
    if isinstance(mask, torch.Tensor):
        common = torch.broadcast_shapes(input.shape, mask.shape)
        if common != input.shape:
            input = input.expand(common)
    return _masked_scatter(input, mask, source)


def masked_select(input, mask):
    """torch.masked_select."""
    return _masked_select(input, mask)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_scatter."""
    return _slice_scatter(input, src, dim, start, end, step)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """torch.diagonal_scatter."""
    return _diagonal_scatter(input, src, offset, dim1, dim2)


def select_scatter(input, src, dim, index):
    """torch.select_scatter."""
    return _select_scatter(input, src, dim, index)

"""Shared plumbing of scatterkit.torch_scatter: torch_scatter's index
broadcasting and output sizes, its out= rule (the result is written into
out and out is returned), and the arg outputs of max and min."""

import torch

from .. import torch as skt

# torch_scatter's spellings -> scatterkit's reductions
REDUCE = {"sum": "sum", "add": "sum", "mul": "prod", "mean": "mean", "min": "amin",
          "max": "amax"}


def wrap_dim(dim, ndim, op):
    """dim in [-ndim, ndim) as a non-negative int (IndexError otherwise)."""
    if not -ndim <= dim < ndim:
        raise IndexError(f"{op}: dim {dim} is out of range for a tensor of {ndim} dimensions")
    return dim % ndim


def expand_to(t, shape, lead, op, name):
    """t with `lead` leading size-1 dimensions and trailing ones up to
    len(shape), expanded (a view, no copy) to shape."""
    t = t.reshape((1,) * lead + tuple(t.shape) + (1,) * (len(shape) - lead - t.dim()))
    try:
        return t.expand(shape)
    except RuntimeError:
        raise ValueError(f"{op}: {name} of shape {tuple(t.shape)} cannot be broadcast to "
                         f"{tuple(shape)}") from None


def broadcast(index, src, dim, op):
    """torch_scatter's rule: a 1-d index lies along dim, a shorter index gets
    trailing dimensions, and the result is expanded to src's shape."""
    if index.dim() > src.dim():
        raise ValueError(f"{op}: index has {index.dim()} dimensions, more than src's "
                         f"{src.dim()}")
    return expand_to(index, src.shape, dim if index.dim() == 1 else 0, op, "index")


def check_index(index, op, name="index"):
    if not isinstance(index, torch.Tensor):
        raise TypeError(f"{op}: {name} must be a torch.Tensor, got {type(index).__name__}")
    if index.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"{op}: {name} must be int64 (or int32), got {index.dtype}")


def out_shape(src, index, dim, out, dim_size):
    """The result's shape: out's when given, else src's with dim_size (or
    index.max() + 1, 0 for an empty index) along dim."""
    if out is not None:
        return tuple(out.shape)
    size = list(src.shape)
    if dim_size is not None:
        size[dim] = int(dim_size)
    else:
        size[dim] = int(index.max()) + 1 if index.numel() else 0
    return tuple(size)


def tracks_grad(*tensors):
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def scatter_onto(out, index, src, dim, reduce):
    """skt.scatter of src into out's own values (include_self), written to
    out: in place when no gradient is tracked, else through a
    differentiable copy_ from a clone (whose values the backward of prod,
    amax and amin reads)."""
    if tracks_grad(out, src):
        return out.copy_(skt.scatter(out.clone(), index, src, dim, reduce=reduce))
    return skt.scatter(out, index, src, dim, reduce=reduce, out=out)


def write(out, result):
    """torch_scatter's out=: result written into out, out returned."""
    if out is None:
        return result
    return out.copy_(result)


def positions(n, dim, ndim, device, dtype=torch.int64):
    """arange(n) laid along dim of an ndim-d tensor (size 1 elsewhere)."""
    return torch.arange(n, dtype=dtype, device=device).reshape(
        (1,) * dim + (n,) + (1,) * (ndim - dim - 1))


def _same(a, b, nan):
    """a == b, NaN equal to NaN where `nan` (b may hold NaN)."""
    eq = a == b
    if nan:
        eq |= a.isnan() & b.isnan()
    return eq


def arg_of(result, index, src, dim, before=None, mode="error"):
    """torch_scatter's arg output of max/min: per target, the position along
    dim of the first src element (in position order) equal to the result
    (NaN matching NaN); src.size(dim) where there is none: an empty target,
    or one whose value in `before` (out's values, with out=) won. mode
    "drop": index values out of range are left out (segment_csr's)."""
    n = src.size(dim)
    with torch.no_grad():
        won = skt.gather(result, index, dim, mode="fill" if mode == "drop" else "error")
        # the NaN passes over src only where a result is NaN
        nan = result.is_floating_point() and (torch.compiler.is_compiling()
                                              or bool(result.isnan().any()))
        hit = _same(src, won, nan)
        if before is not None:
            hit &= ~_same(skt.gather(before, index, dim), won, nan)
        # int32 positions where they fit: half the bytes through the scatter
        dtype = torch.int32 if n < 2**31 - 1 else torch.int64
        cand = torch.where(hit, positions(n, dim, src.dim(), src.device, dtype), n)
        arg = torch.full(result.shape, n, dtype=dtype, device=src.device)
        return skt.scatter(arg, index, cand, dim, reduce="amin", mode=mode).long()

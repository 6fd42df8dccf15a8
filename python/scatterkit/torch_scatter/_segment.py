"""torch_scatter's segment operators. A CSR indptr becomes the index of
each position's segment (positions outside every segment get the number
of segments, one past the last: dropped by the scatter, filled by the
gather), and the reduction is scatterkit's scatter along dim = indptr.dim()
- 1, so a segment reduction has the bits of the same scatter (the canonical
order). segment_coo is scatter along dim = index.dim() - 1; its index need
not be sorted."""

from typing import Optional, Tuple

import torch

from .. import torch as skt
from ._scatter import check_out, reduce_along, reduce_with_arg
from ._utils import REDUCE, arg_of, check_index, expand_to, write

Tensor = torch.Tensor
_SEGMENT_REDUCE = ("sum", "add", "mean", "min", "max")


def _check(src, index, op, name):
    if not isinstance(src, torch.Tensor):
        raise TypeError(f"{op}: src must be a torch.Tensor, got {type(src).__name__}")
    check_index(index, op, name)
    if not 1 <= index.dim() <= src.dim():
        raise ValueError(f"{op}: {name} must have 1 to src.dim() = {src.dim()} dimensions, "
                         f"got {index.dim()}")
    return index.dim() - 1


def _choice(reduce, op):
    if reduce not in _SEGMENT_REDUCE:
        raise ValueError(f"{op}: reduce must be one of {', '.join(map(repr, _SEGMENT_REDUCE))}; "
                         f"got {reduce!r}")
    return REDUCE[reduce]


def segment_ids(indptr, n, op):
    """(ids, s): ids[..., e] the segment of position e < n (shape
    indptr.shape[:-1] + (n,)), s = indptr.size(-1) - 1 for positions in
    none. indptr must be non-decreasing with values in [0, n]."""
    s = max(indptr.size(-1) - 1, 0)
    if indptr.numel() and (int(indptr.min()) < 0 or int(indptr.max()) > n):
        raise IndexError(f"{op}: indptr has values outside [0, {n}] (the positions along dim)")
    if s == 0:
        return torch.zeros((*indptr.shape[:-1], n), dtype=torch.int64, device=indptr.device), 0
    if bool((indptr[..., 1:] < indptr[..., :-1]).any()):
        raise ValueError(f"{op}: indptr must be non-decreasing along its last dimension")
    # ids[..., e] = how many of indptr[..., 1:] are <= e: a cumsum over the
    # positions (int32 where it fits: half the bytes through the scatter)
    dtype = torch.int32 if n < 2**31 - 1 else torch.int64
    marks = torch.zeros((*indptr.shape[:-1], n + 1), dtype=dtype, device=indptr.device)
    ends = indptr[..., 1:].long()
    marks.scatter_add_(-1, ends, marks.new_ones(()).expand(ends.shape))
    ids = marks[..., :n].cumsum(-1, dtype=dtype)
    if indptr.dim() == 1:
        ids[:int(indptr[0])] = s
    else:
        pos = torch.arange(n, device=indptr.device)
        ids.masked_fill_(pos < indptr[..., :1], s)
    return ids, s


def _csr(src, indptr, out, reduce, op):
    """(result, ids broadcast to src, dim) of a segment_csr reduction."""
    dim = _check(src, indptr, op, "indptr")
    ids, s = segment_ids(indptr, src.size(dim), op)
    ids = expand_to(ids, src.shape, 0, op, "indptr")
    check_out(src, out, dim, op)
    shape = (*src.shape[:dim], s, *src.shape[dim + 1:])
    if out is not None and tuple(out.shape) != shape:
        raise ValueError(f"{op}: out has shape {tuple(out.shape)}, expected {shape}")
    res = skt.scatter(src.new_zeros(shape), ids, src, dim, reduce=reduce,
                      include_self=reduce == "sum", mode="drop")
    return write(out, res), ids, dim


def segment_csr(src: Tensor, indptr: Tensor, out: Optional[Tensor] = None,
                reduce: str = "sum") -> Tensor:
    """torch_scatter.segment_csr: reduce ("sum" | "add", "mean", "min",
    "max") the segments src[..., indptr[i]:indptr[i+1], ...] along dim =
    indptr.dim() - 1 (indptr's leading dimensions broadcast against src's).
    Empty segments are 0; elements outside [indptr[0], indptr[-1]) are
    ignored; out, when given, is overwritten.

    >>> from scatterkit.torch_scatter import segment_csr
    >>> segment_csr(torch.tensor([1., 2., 3., 4., 5.]), torch.tensor([0, 2, 2, 5]))
    tensor([ 3.,  0., 12.])
    """
    op = "segment_csr"
    return _csr(src, indptr, out, _choice(reduce, op), op)[0]


def _csr_arg(src, indptr, out, reduce, op):
    res, ids, dim = _csr(src, indptr, out, reduce, op)
    return res, arg_of(res, ids, src, dim, mode="drop")


def segment_sum_csr(src: Tensor, indptr: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """torch_scatter.segment_sum_csr: segment_csr(..., reduce="sum")."""
    return _csr(src, indptr, out, "sum", "segment_sum_csr")[0]


def segment_add_csr(src: Tensor, indptr: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """torch_scatter.segment_add_csr: segment_csr(..., reduce="sum")."""
    return _csr(src, indptr, out, "sum", "segment_add_csr")[0]


def segment_mean_csr(src: Tensor, indptr: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """torch_scatter.segment_mean_csr: segment_csr(..., reduce="mean")."""
    return _csr(src, indptr, out, "mean", "segment_mean_csr")[0]


def segment_min_csr(src: Tensor, indptr: Tensor,
                    out: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """torch_scatter.segment_min_csr: (values, argmin); argmin is the
    position along dim of the first minimal element, src.size(dim) for an
    empty segment (value 0). Tied elements share the gradient."""
    return _csr_arg(src, indptr, out, "amin", "segment_min_csr")


def segment_max_csr(src: Tensor, indptr: Tensor,
                    out: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """torch_scatter.segment_max_csr: (values, argmax), as segment_min_csr."""
    return _csr_arg(src, indptr, out, "amax", "segment_max_csr")


def gather_csr(src: Tensor, indptr: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """torch_scatter.gather_csr, the inverse of segment_csr: segment i's
    positions indptr[i]:indptr[i+1] along dim get src[..., i, ...]. The
    result has indptr[-1] positions along dim (out's size when given);
    positions in no segment are 0 (out's values are kept there).

    >>> from scatterkit.torch_scatter import gather_csr
    >>> gather_csr(torch.tensor([1., 2., 3.]), torch.tensor([0, 2, 2, 5]))
    tensor([1., 1., 3., 3., 3.])
    """
    op = "gather_csr"
    dim = _check(src, indptr, op, "indptr")
    s = max(indptr.size(-1) - 1, 0)
    if src.size(dim) not in (0, s):
        raise ValueError(f"{op}: src has {src.size(dim)} elements along dim {dim}, indptr "
                         f"{s} segments")
    if out is not None:
        n = out.size(dim)
    else:
        n = int(indptr.reshape(-1)[-1]) if src.numel() and indptr.numel() else 0
    ids, _ = segment_ids(indptr, n, op)
    shape = (*src.shape[:dim], n, *src.shape[dim + 1:])
    check_out(src.new_empty(shape), out, dim, op)
    ids = expand_to(ids, shape, 0, op, "indptr")
    res = skt.gather(src, ids, dim, mode="fill", fill_value=0)
    if out is not None:
        res = torch.where(ids < s, res, out)
    return write(out, res)


def _coo(src, index, op):
    dim = _check(src, index, op, "index")
    return expand_to(index, src.shape, 0, op, "index"), dim


def segment_coo(src: Tensor, index: Tensor, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None, reduce: str = "sum") -> Tensor:
    """torch_scatter.segment_coo: scatter along dim = index.dim() - 1 with
    an index sorted along that dimension (index's leading dimensions
    broadcast against src's, trailing ones are added). The output size is
    dim_size, else index.max() + 1; empty targets are 0; with out, out's
    values take part as in scatter. Any index order gives the same result.

    >>> from scatterkit.torch_scatter import segment_coo
    >>> segment_coo(torch.tensor([1., 2., 3., 4.]), torch.tensor([0, 0, 2, 2]), reduce="max")
    tensor([2., 0., 4.])
    """
    op = "segment_coo"
    reduce = _choice(reduce, op)
    idx, dim = _coo(src, index, op)
    check_out(src, out, dim, op)
    return reduce_along(src, idx, dim, out, dim_size, reduce)


def _coo_family(reduce, op):
    def fn(src: Tensor, index: Tensor, out: Optional[Tensor] = None,
           dim_size: Optional[int] = None):
        idx, dim = _coo(src, index, op)
        check_out(src, out, dim, op)
        if reduce in ("amax", "amin"):
            return reduce_with_arg(src, idx, dim, out, dim_size, reduce)
        return reduce_along(src, idx, dim, out, dim_size, reduce)
    fn.__name__ = fn.__qualname__ = op
    kind = {"amax": "(values, argmax) as scatter_max", "amin": "(values, argmin) as scatter_min"}
    fn.__doc__ = (f"torch_scatter.{op}: segment_coo with reduce={reduce!r}"
                  + (f", returning {kind[reduce]}." if reduce in kind else "."))
    return fn


segment_sum_coo = _coo_family("sum", "segment_sum_coo")
segment_add_coo = _coo_family("sum", "segment_add_coo")
segment_mean_coo = _coo_family("mean", "segment_mean_coo")
segment_min_coo = _coo_family("amin", "segment_min_coo")
segment_max_coo = _coo_family("amax", "segment_max_coo")


def gather_coo(src: Tensor, index: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """torch_scatter.gather_coo, the inverse of segment_coo: out[..., e, ...]
    = src[..., index[..., e], ...] along dim = index.dim() - 1.

    >>> from scatterkit.torch_scatter import gather_coo
    >>> gather_coo(torch.tensor([1., 2., 3.]), torch.tensor([0, 0, 2, 2]))
    tensor([1., 1., 3., 3.])
    """
    op = "gather_coo"
    dim = _check(src, index, op, "index")
    shape = (*src.shape[:dim], index.size(dim), *src.shape[dim + 1:])
    check_out(src.new_empty(shape), out, dim, op)
    idx = expand_to(index, shape, 0, op, "index")
    return write(out, skt.gather(src, idx, dim))

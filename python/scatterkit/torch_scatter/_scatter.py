"""torch_scatter's scatter family on scatterkit.torch.scatter: the index is
broadcast to src's shape as a view (zero strides, no copy) and the
reduction runs in C (the segments engine for message passing), in the
canonical order, float16/bfloat16 accumulating in float32."""

from typing import Optional, Tuple

import torch

from .. import torch as skt
from ._utils import (REDUCE, arg_of, broadcast, check_index, out_shape, scatter_onto, wrap_dim,
                     write)

Tensor = torch.Tensor


def _prepare(src, index, dim, out, op):
    """(index broadcast to src's shape, dim as a non-negative int)."""
    if not isinstance(src, torch.Tensor):
        raise TypeError(f"{op}: src must be a torch.Tensor, got {type(src).__name__}")
    check_index(index, op)
    dim = wrap_dim(dim, src.dim(), op)
    check_out(src, out, dim, op)
    return broadcast(index, src, dim, op), dim


def check_out(src, out, dim, op):
    if out is None:
        return
    if out.dtype != src.dtype or out.device != src.device:
        raise TypeError(f"{op}: out ({out.dtype}, {out.device}) must have src's dtype and "
                        f"device ({src.dtype}, {src.device})")
    if out.dim() != src.dim() or any(o != s for d, (o, s) in enumerate(zip(out.shape, src.shape))
                                     if d != dim):
        raise ValueError(f"{op}: out of shape {tuple(out.shape)} must have src's shape "
                         f"{tuple(src.shape)} except along dim {dim}")


def reduce_along(src, idx, dim, out, dim_size, reduce):
    """src reduced along dim by idx (src's shape), torch_scatter's way: into
    zeros (ones for mul) of out_shape, empty targets keeping them; with out,
    out's values take part (mean: added to the sum, not counted)."""
    shape = out_shape(src, idx, dim, out, dim_size)
    if reduce == "mean" and out is not None:
        return write(out, _mean_with_out(src, idx, dim, out))
    if out is not None:
        return scatter_onto(out, idx, src, dim, reduce)
    start = src.new_ones(shape) if reduce == "prod" else src.new_zeros(shape)
    # sum and prod fold from +0.0 and 1 as torch_scatter does; the others
    # leave an empty target at 0
    return skt.scatter(start, idx, src, dim, reduce=reduce,
                       include_self=reduce in ("sum", "prod"))


def _mean_with_out(src, idx, dim, out):
    total = skt.scatter(out, idx, src, dim, reduce="sum")
    count = skt.scatter(torch.zeros(out.shape, dtype=torch.int64, device=out.device), idx, 1, dim,
                        reduce="sum").clamp_(min=1)
    if total.is_floating_point():
        return total / count
    return total.div(count, rounding_mode="floor")


def reduce_with_arg(src, idx, dim, out, dim_size, reduce):
    """(values, arg) of max/min: arg as torch_scatter gives it (arg_of)."""
    before = None
    if out is not None:
        before = out.detach().clone()
    res = reduce_along(src, idx, dim, out, dim_size, reduce)
    return res, arg_of(res, idx, src, dim, before)


def scatter_sum(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_sum: out[..., index[j], ...] += src[..., j, ...]
    along dim (a 1-d index lies along dim and is broadcast over the other
    dimensions). Targets without updates are 0; with out, src is added to
    out's values in place and out is returned.

    >>> from scatterkit.torch_scatter import scatter_sum
    >>> scatter_sum(torch.tensor([1., 2., 3., 4.]), torch.tensor([0, 1, 0, 3]))
    tensor([4., 2., 0., 4.])
    """
    idx, dim = _prepare(src, index, dim, out, "scatter_sum")
    return reduce_along(src, idx, dim, out, dim_size, "sum")


def scatter_add(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_add: scatter_sum."""
    idx, dim = _prepare(src, index, dim, out, "scatter_add")
    return reduce_along(src, idx, dim, out, dim_size, "sum")


def scatter_mul(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_mul: the product of each target's updates;
    targets without updates are 1 (torch_scatter's start value). The
    gradient is exact where src has zeros (torch_scatter divides by src)."""
    idx, dim = _prepare(src, index, dim, out, "scatter_mul")
    return reduce_along(src, idx, dim, out, dim_size, "prod")


def scatter_mean(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                 dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_mean: the sum divided by the number of updates
    (rounded toward negative infinity for integers); targets without
    updates are 0. With out, out's value is added to the sum but not
    counted, as torch_scatter does."""
    idx, dim = _prepare(src, index, dim, out, "scatter_mean")
    return reduce_along(src, idx, dim, out, dim_size, "mean")


def scatter_min(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """torch_scatter.scatter_min: (values, argmin). argmin is the position
    along dim of the first src element equal to the minimum, src.size(dim)
    for targets without updates (whose value is 0) or where out's own value
    is the minimum. Tied elements share the gradient."""
    idx, dim = _prepare(src, index, dim, out, "scatter_min")
    return reduce_with_arg(src, idx, dim, out, dim_size, "amin")


def scatter_max(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """torch_scatter.scatter_max: (values, argmax), as scatter_min.

    >>> from scatterkit.torch_scatter import scatter_max
    >>> scatter_max(torch.tensor([1., 5., 3., 5.]), torch.tensor([0, 0, 2, 0]))
    (tensor([5., 0., 3.]), tensor([1, 4, 2]))
    """
    idx, dim = _prepare(src, index, dim, out, "scatter_max")
    return reduce_with_arg(src, idx, dim, out, dim_size, "amax")


def scatter(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
            dim_size: Optional[int] = None, reduce: str = "sum") -> Tensor:
    """torch_scatter.scatter: reduce ("sum" | "add", "mul", "mean", "min",
    "max") the values of src into a tensor of src's shape with dim_size
    (default index.max() + 1) along dim, or into out. A 1-d index lies
    along dim; a shorter one is broadcast over the trailing dimensions.

    >>> from scatterkit.torch_scatter import scatter
    >>> src = torch.arange(12.).reshape(2, 6)
    >>> scatter(src, torch.tensor([0, 1, 0, 1, 2, 1]), dim=1, reduce="mean")
    tensor([[ 1.,  3.,  4.],
            [ 7.,  9., 10.]])
    """
    if reduce not in REDUCE:
        raise ValueError(f"scatter: reduce must be one of {', '.join(map(repr, REDUCE))}; "
                         f"got {reduce!r}")
    idx, dim = _prepare(src, index, dim, out, "scatter")
    return reduce_along(src, idx, dim, out, dim_size, REDUCE[reduce])


__all__ = ["scatter_sum", "scatter_add", "scatter_mul", "scatter_mean", "scatter_min",
           "scatter_max", "scatter"]

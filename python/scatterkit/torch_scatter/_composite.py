"""torch_scatter's composite reductions, from scatterkit's scatter and
gather (in C) and elementwise torch. The per-target maximum that softmax,
log_softmax and logsumexp subtract is taken from src without a gradient:
the result does not depend on it, so the gradient is the exact one of the
function, with none of torch_scatter's argmax routing."""

from typing import Optional

import torch

from .. import torch as skt
from ._scatter import _prepare, reduce_along
from ._utils import expand_to, out_shape, write

Tensor = torch.Tensor


def _floating(src, op):
    if not (isinstance(src, torch.Tensor) and src.is_floating_point()):
        raise ValueError(f"`{op}` can only be computed over tensors with floating point data "
                         "types.")


def _shift(src, idx, dim, shape, skip_nan=False):
    """(src - m, m): m the maximum of each target over src (without its NaN
    when skip_nan: -inf for a target with none), no gradient. A NaN max
    makes its target NaN in softmax either way, so only logsumexp skips."""
    with torch.no_grad():
        s = src.detach()
        if skip_nan:
            s = s.masked_fill(s.isnan(), float("-inf"))
        m = skt.scatter(s.new_full(shape, float("-inf")), idx, s, dim, reduce="amax")
        at_src = skt.gather(m, idx, dim)
    return src - at_src, m


def scatter_softmax(src: Tensor, index: Tensor, dim: int = -1,
                    dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_softmax: the softmax of src over the elements
    that share a target (an edge softmax over each node's incoming edges).

    >>> from scatterkit.torch_scatter import scatter_softmax
    >>> scatter_softmax(torch.tensor([0., 0., 1., 5.]), torch.tensor([0, 0, 1, 2]))
    tensor([0.5000, 0.5000, 1.0000, 1.0000])
    """
    op = "scatter_softmax"
    _floating(src, op)
    idx, dim = _prepare(src, index, dim, None, op)
    shape = out_shape(src, idx, dim, None, dim_size)
    e = _shift(src, idx, dim, shape)[0].exp()
    total = reduce_along(e, idx, dim, None, dim_size, "sum")
    return e / skt.gather(total, idx, dim)


def scatter_log_softmax(src: Tensor, index: Tensor, dim: int = -1, eps: float = 1e-12,
                        dim_size: Optional[int] = None) -> Tensor:
    """torch_scatter.scatter_log_softmax: src minus the log of each target's
    sum of exponentials (plus eps), gathered back to src's positions."""
    op = "scatter_log_softmax"
    _floating(src, op)
    idx, dim = _prepare(src, index, dim, None, op)
    shape = out_shape(src, idx, dim, None, dim_size)
    centred = _shift(src, idx, dim, shape)[0]
    total = reduce_along(centred.exp(), idx, dim, None, dim_size, "sum")
    return centred - skt.gather((total + eps).log(), idx, dim)


def scatter_logsumexp(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                      dim_size: Optional[int] = None, eps: float = 1e-12) -> Tensor:
    """torch_scatter.scatter_logsumexp: log(sum(exp(src)) + eps) per target,
    computed around each target's maximum. NaN elements of src are left
    out; targets without updates are 0 (a +inf result becomes the largest
    finite value, torch_scatter's nan_to_num). With out, out's values take
    part, and out keeps its value where the result is not finite."""
    op = "scatter_logsumexp"
    _floating(src, op)
    idx, dim = _prepare(src, index, dim, out, op)
    shape = out_shape(src, idx, dim, out, dim_size)
    centred, m = _shift(src, idx, dim, shape, skip_nan=True)
    terms = centred.masked_fill(centred.isnan(), float("-inf")).exp()
    if out is None:
        total = skt.scatter(src.new_zeros(shape), idx, terms, dim, reduce="sum")
        return ((total + eps).log() + m).nan_to_num(neginf=0.0)
    # out keeps its value where m is not finite (no src, or +inf): m0 keeps
    # the branch not taken finite, so its gradient is 0, not NaN
    finite = m.isfinite()
    m0 = m.masked_fill(~finite, 0.0)
    total = skt.scatter((out - m0).exp(), idx, terms, dim, reduce="sum")
    res = (total + eps).log() + m0
    return write(out, torch.where(finite & res.isfinite(), res, out))


def scatter_std(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None, unbiased: bool = True) -> Tensor:
    """torch_scatter.scatter_std: the standard deviation of each target's
    updates, sqrt(sum((src - mean)^2) / (count - 1 + 1e-6)) (count with
    unbiased=False; count - 1 at least 1); 0 for targets without updates.
    With out, the squared deviations are added to out's values."""
    op = "scatter_std"
    idx, dim = _prepare(src, index, dim, out, op)
    if out is not None:
        dim_size = out.size(dim)
    count_dim = dim if index.dim() > dim else index.dim() - 1
    ones = torch.ones(index.shape, dtype=src.dtype, device=src.device)
    count = reduce_along(ones, index, count_dim, None, dim_size, "sum")
    total = reduce_along(src, idx, dim, None, dim_size, "sum")
    lead = dim if count.dim() == 1 else 0
    count = expand_to(count, total.shape, lead, op, "index").clamp(min=1)
    mean = total / count
    dev = src - skt.gather(mean, idx, dim)
    res = reduce_along(dev * dev, idx, dim, out, dim_size, "sum")
    if unbiased:
        count = (count - 1).clamp(min=1)
    return write(out, (res / (count + 1e-6)).sqrt())   # torch_scatter 2.1's divisor

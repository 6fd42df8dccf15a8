"""scatterkit.torch: the scatterkit operators as differentiable torch functions.

    import scatterkit.torch as skt
    y = skt.scatter(x, index, src, 0, reduce="amax")
    y.sum().backward()          # x.grad, src.grad

Every operator of scatterkit has a namesake here with the same arguments;
each is a ``torch.autograd.Function`` whose forward is the scatterkit
operator and whose backward calls the C backward functions (through
``scatterkit.<op>_backward``): the gradient rules are docs/CONTRACT.md's backward rules, no
gradient math is done with torch operations. Importing this module imports
torch; ``import scatterkit`` alone never does.

- Gradients exist for floating dtypes (float16, bfloat16, float32, float64);
  other dtypes run the forward and have no gradient. Only the gradients that
  autograd asks for are computed.
- Index tensors, masks, ``write_indices`` and ``fill_value`` get no gradient.
  A Python scalar ``src``/``updates``/``source`` has none either; a 0-d
  tensor one gets the sum over the positions it was broadcast to, and an
  expanded one (zero strides) is reduced by autograd through the expand.
- ``out=`` is not supported: in-place autograd is out of scope. Use
  ``scatterkit.<op>(..., out=...)`` on tensors that do not require grad.
- The backward is not itself differentiable (no double backward).
"""

import torch
from torch.autograd.function import once_differentiable

import scatterkit as _sk

from ._tensors import as_index, as_mask

__all__ = [
    "gather",
    "scatter",
    "index_select",
    "index_scatter",
    "gather_nd",
    "scatter_nd",
    "slice_scatter",
    "diagonal_scatter",
    "select_scatter",
    "masked_scatter",
    "masked_select",
    "tensor_scatter",
]

_AMAX_AMIN = ("amax", "amin")


# ---------------------------------------------------------------------------
# Plumbing
# ---------------------------------------------------------------------------
class _Saved:
    """Placeholder for a tensor kept through ctx.save_for_backward (so that
    autograd checks it was not modified in place before the backward)."""


def _save(ctx, *objs):
    """Saves tensors through save_for_backward, everything else (a NumPy
    index, a list mask, None) on ctx."""
    ctx.save_for_backward(*[o for o in objs if isinstance(o, torch.Tensor)])
    ctx.stash = [_Saved if isinstance(o, torch.Tensor) else o for o in objs]


def _load(ctx):
    tensors = iter(ctx.saved_tensors)
    return [next(tensors) if o is _Saved else o for o in ctx.stash]


def _shape_only(t):
    """A stand-in for an input whose values the backward does not read: its
    shape and dtype through zero strides, so the input itself is not kept
    alive by the graph."""
    if not isinstance(t, torch.Tensor):
        return t  # a scalar: the backward converts it, cheaply
    return t.new_zeros(()).expand(t.shape)


def _want(ctx, i):
    """None (allocate and compute) when autograd wants input i's gradient,
    False (skip) otherwise."""
    return None if ctx.needs_input_grad[i] else False


def _index(index, op):
    """Lists become int64 tensors once, so forward and backward share them."""
    if isinstance(index, (list, tuple, int)) and not isinstance(index, bool):
        return torch.from_numpy(as_index(index, op))
    return index


def _mask(mask, op):
    if isinstance(mask, (list, tuple, bool)):
        return torch.from_numpy(as_mask(mask, op))
    return mask


def _no_out(out, op):
    if out is not None:
        raise TypeError(f"scatterkit.torch.{op}: out= is not supported (in-place autograd is "
                        f"out of scope); use scatterkit.{op}(..., out=...) on tensors that do "
                        "not require grad")


# ---------------------------------------------------------------------------
# Gather-type operators
# ---------------------------------------------------------------------------
def _gather_function(name, forward, backward, arg_name):
    """The autograd Function of a gather-type operator whose arguments are
    (x, index, arg, mode, fill_value), arg being its axis or batch_dims."""
    def fwd(ctx, x, index, arg, mode, fill_value):
        out = forward(x, index, **{arg_name: arg}, mode=mode, fill_value=fill_value)
        _save(ctx, index)
        ctx.args = (tuple(x.shape), arg, mode)
        return out

    @once_differentiable
    def bwd(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        (index,) = _load(ctx)
        shape, arg, mode = ctx.args
        gx = backward(grad, shape, index, **{arg_name: arg}, mode=mode)
        return gx, None, None, None, None

    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


_Gather = _gather_function("_Gather", _sk.gather, _sk.gather_backward, "axis")
_IndexSelect = _gather_function("_IndexSelect", _sk.index_select, _sk.index_select_backward,
                                "axis")
_GatherNd = _gather_function("_GatherNd", _sk.gather_nd, _sk.gather_nd_backward, "batch_dims")


class _MaskedSelect(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mask):
        out = _sk.masked_select(x, mask)
        _save(ctx, mask)
        ctx.shape = tuple(x.shape)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        if not ctx.needs_input_grad[0]:
            return None, None
        (mask,) = _load(ctx)
        return _sk.masked_select_backward(grad, ctx.shape, mask), None


def gather(x, index, axis, *, mode="error", fill_value=0):
    """Differentiable scatterkit.gather (see its docstring). The gradient of x
    is grad scatter-summed back; filled positions (mode="fill") send nothing
    back, clipped ones send it to the clipped position; fill_value gets none."""
    index = _index(index, "gather")
    return _Gather.apply(x, index, axis, mode, fill_value)


def index_select(x, index, axis, *, mode="error", fill_value=0):
    """Differentiable scatterkit.index_select (see its docstring and gather's
    gradient rules)."""
    index = _index(index, "index_select")
    return _IndexSelect.apply(x, index, axis, mode, fill_value)


def gather_nd(x, index, *, batch_dims=0, mode="error", fill_value=0):
    """Differentiable scatterkit.gather_nd (see its docstring and gather's
    gradient rules)."""
    index = _index(index, "gather_nd")
    return _GatherNd.apply(x, index, batch_dims, mode, fill_value)


def masked_select(x, mask):
    """Differentiable scatterkit.masked_select; x's gradient is summed over
    the dimensions along which x was broadcast against mask."""
    return _MaskedSelect.apply(x, _mask(mask, "masked_select"))


# ---------------------------------------------------------------------------
# Indexed scatter operators: the saved tensors depend on the reduction
# ---------------------------------------------------------------------------
def _save_indexed(ctx, x, index, src, out, reduce, include_self):
    """prod/amax/amin read the values of src (and of x when include_self);
    amax/amin also read the forward result. Everything else only needs the
    shapes, so x and src are not kept alive for sum/mean/assign."""
    reads_values = reduce == "prod" or reduce in _AMAX_AMIN
    xs = x if reads_values and include_self else _shape_only(x)
    ss = src if reads_values else _shape_only(src)
    _save(ctx, xs, index, ss, out if reduce in _AMAX_AMIN else None)


def _axis_scatter_function(name, forward, backward, grad_name):
    """The autograd Function of a scatter-type operator whose arguments are
    (x, index, src, axis, reduce, include_self, mode): scatter, index_scatter."""
    def fwd(ctx, x, index, src, axis, reduce, include_self, mode):
        out = forward(x, index, src, axis, reduce=reduce, include_self=include_self, mode=mode)
        _save_indexed(ctx, x, index, src, out, reduce, include_self)
        ctx.args = (axis, reduce, include_self, mode)
        return out

    @once_differentiable
    def bwd(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        x, index, src, out = _load(ctx)
        axis, reduce, include_self, mode = ctx.args
        gx, gs = backward(grad, x, index, src, axis, reduce=reduce, include_self=include_self,
                          mode=mode, result=out, grad_x=_want(ctx, 0),
                          **{grad_name: _want(ctx, 2)})
        return gx, None, gs, None, None, None, None

    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


_Scatter = _axis_scatter_function("_Scatter", _sk.scatter, _sk.scatter_backward, "grad_src")
_IndexScatter = _axis_scatter_function("_IndexScatter", _sk.index_scatter,
                                       _sk.index_scatter_backward, "grad_updates")


class _ScatterNd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, index, updates, reduce, mode):
        out = _sk.scatter_nd(x, index, updates, reduce=reduce, mode=mode)
        _save_indexed(ctx, x, index, updates, out, reduce, True)
        ctx.args = (reduce, mode)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        x, index, updates, out = _load(ctx)
        reduce, mode = ctx.args
        gx, gu = _sk.scatter_nd_backward(grad, x, index, updates, reduce=reduce, mode=mode,
                                         result=out, grad_x=_want(ctx, 0),
                                         grad_updates=_want(ctx, 2))
        return gx, None, gu, None, None


def scatter(x, index, src, axis, *, reduce=None, include_self=True, mode="error", out=None):
    """Differentiable scatterkit.scatter (see its docstring); out= is not
    supported. Gradients (docs/CONTRACT.md, Backward): assign gives grad to the winning
    (last) update only and none to the overwritten x element; sum passes it
    through; mean divides by the count (+1 with include_self); prod multiplies
    by the product of the other contributors, exact with zeros; amax/amin
    split it evenly among all contributors equal to the result, x included
    when include_self. src elements that were not read or were dropped get 0."""
    _no_out(out, "scatter")
    index = _index(index, "scatter")
    return _Scatter.apply(x, index, src, axis, reduce, include_self, mode)


def index_scatter(x, index, updates, axis=0, *, reduce=None, include_self=True, mode="error",
                  out=None):
    """Differentiable scatterkit.index_scatter (see its docstring and
    scatter's gradient rules); out= is not supported."""
    _no_out(out, "index_scatter")
    index = _index(index, "index_scatter")
    return _IndexScatter.apply(x, index, updates, axis, reduce, include_self, mode)


def scatter_nd(x, index, updates, *, reduce=None, mode="error", out=None):
    """Differentiable scatterkit.scatter_nd (see its docstring and scatter's
    gradient rules); out= is not supported."""
    _no_out(out, "scatter_nd")
    index = _index(index, "scatter_nd")
    return _ScatterNd.apply(x, index, updates, reduce, mode)


# ---------------------------------------------------------------------------
# View-type scatter operators: only shapes are needed
# ---------------------------------------------------------------------------
def _shape_or_scalar(v):
    return tuple(v.shape) if isinstance(v, torch.Tensor) else v


class _SliceScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, src, axis, start, stop, step):
        out = _sk.slice_scatter(x, src, axis, start, stop, step)
        ctx.args = (tuple(x.shape), _shape_or_scalar(src), axis, start, stop, step)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        xs, ss, axis, start, stop, step = ctx.args
        gx, gs = _sk.slice_scatter_backward(grad, xs, ss, axis, start, stop, step,
                                            grad_x=_want(ctx, 0), grad_src=_want(ctx, 1))
        return gx, gs, None, None, None, None


class _DiagonalScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, src, offset, axis1, axis2):
        out = _sk.diagonal_scatter(x, src, offset, axis1, axis2)
        ctx.args = (tuple(x.shape), _shape_or_scalar(src), offset, axis1, axis2)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        xs, ss, offset, axis1, axis2 = ctx.args
        gx, gs = _sk.diagonal_scatter_backward(grad, xs, ss, offset, axis1, axis2,
                                               grad_x=_want(ctx, 0), grad_src=_want(ctx, 1))
        return gx, gs, None, None, None


class _SelectScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, src, axis, index):
        out = _sk.select_scatter(x, src, axis, index)
        ctx.args = (tuple(x.shape), _shape_or_scalar(src), axis, index)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        xs, ss, axis, index = ctx.args
        gx, gs = _sk.select_scatter_backward(grad, xs, ss, axis, index, grad_x=_want(ctx, 0),
                                             grad_src=_want(ctx, 1))
        return gx, gs, None, None


class _MaskedScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mask, source):
        out = _sk.masked_scatter(x, mask, source)
        _save(ctx, mask)
        ctx.args = (tuple(x.shape), _shape_or_scalar(source))
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        (mask,) = _load(ctx)
        xs, ss = ctx.args
        gx, gs = _sk.masked_scatter_backward(grad, xs, mask, ss, grad_x=_want(ctx, 0),
                                             grad_source=_want(ctx, 2))
        return gx, None, gs


class _TensorScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cache, update, write_indices, axis, mode):
        out = _sk.tensor_scatter(cache, update, write_indices, axis=axis, mode=mode)
        _save(ctx, write_indices)
        ctx.args = (tuple(cache.shape), tuple(update.shape), axis, mode)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        grad = grad.resolve_neg()  # DLPack drops the negative bit
        (write_indices,) = _load(ctx)
        cs, us, axis, mode = ctx.args
        gc, gu = _sk.tensor_scatter_backward(grad, cs, us, write_indices, axis=axis, mode=mode,
                                             grad_cache=_want(ctx, 0),
                                             grad_update=_want(ctx, 1))
        return gc, gu, None, None, None


def slice_scatter(x, src, axis=0, start=None, stop=None, step=1, *, out=None):
    """Differentiable scatterkit.slice_scatter (see its docstring); out= is
    not supported. x's gradient is grad with the slice zeroed; src's is the
    slice of grad, summed over the dimensions along which src was broadcast."""
    _no_out(out, "slice_scatter")
    return _SliceScatter.apply(x, src, axis, start, stop, step)


def diagonal_scatter(x, src, offset=0, axis1=0, axis2=1, *, out=None):
    """Differentiable scatterkit.diagonal_scatter (see its docstring); out=
    is not supported."""
    _no_out(out, "diagonal_scatter")
    return _DiagonalScatter.apply(x, src, offset, axis1, axis2)


def select_scatter(x, src, axis, index, *, out=None):
    """Differentiable scatterkit.select_scatter (see its docstring); out= is
    not supported."""
    _no_out(out, "select_scatter")
    return _SelectScatter.apply(x, src, axis, index)


def masked_scatter(x, mask, source, *, out=None):
    """Differentiable scatterkit.masked_scatter (see its docstring); out= is
    not supported. source elements beyond the number of True positions get 0."""
    _no_out(out, "masked_scatter")
    return _MaskedScatter.apply(x, _mask(mask, "masked_scatter"), source)


def tensor_scatter(cache, update, write_indices=None, *, axis=-2, mode="linear", out=None):
    """Differentiable scatterkit.tensor_scatter (see its docstring); out= is
    not supported. update elements that a later circular write overwrote get
    0; write_indices gets no gradient."""
    _no_out(out, "tensor_scatter")
    write_indices = None if write_indices is None else _index(write_indices, "tensor_scatter")
    return _TensorScatter.apply(cache, update, write_indices, axis, mode)

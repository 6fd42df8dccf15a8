"""The backward functions (docs/CONTRACT.md, Backward): the gradients of every operator's
inputs, computed by the C library. The package re-exports them."""

from . import _C
# The package imports this module after defining its forward functions.
from . import index_scatter, scatter, scatter_nd
from ._args import (_GATHER_MODES, _REDUCE, _SCATTER_MODES, _TENSOR_SCATTER_MODES, _choice, _flag,
                    _is_axes, _slice_args, _source_shape, _written_grads)
from ._grad_buffers import (_check_grad, _grad_buffer, _shape_arg, _source_grad, _view_input_grad,
                            _view_source)
from ._tensors import Like, as_index, as_input, as_mask, shape_of

# ---------------------------------------------------------------------------
# Backward (docs/CONTRACT.md, Backward)
#
# <op>_backward(grad_out, <the forward's arguments>, ..., result=None,
#               grad_<input>=None, ...) -> the gradients of the inputs.
# grad_out comes first (as in torch's own backward functions), followed by
# exactly the arguments of the forward call, with the same names and
# defaults, so `<op>_backward(g, *args, **kwargs)` works for a forward call
# `<op>(*args, **kwargs)` (out= aside). Gradients are allocated with
# grad_out's kind, dtype and device, unless given as grad_<input>=; pass
# grad_<input>=False to skip one (it is returned as None). A Python scalar
# src/updates/source has no gradient (None); a 0-d tensor one gets a 0-d
# gradient (the sum over every position it was broadcast to).
# ---------------------------------------------------------------------------


def _like_grad(grad_out, op):
    return Like(grad_out, op, "grad_out")


def _grad_x_buffer(grad_out, x, grad_x, op):
    """The gather-type backward's result and the buffer it writes: grad_x
    (checked) or a new tensor of x's shape (x may be given as its shape),
    of grad_out's kind."""
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    _check_grad(like, grad_x, xs, "grad_x")
    return _grad_buffer(like, grad_x, xs, "grad_x")


def gather_backward(grad_out, x, index, axis, *, mode="error", fill_value=0, grad_x=None):
    """The gradient of gather(x, index, axis, mode=mode) with respect to x:
    grad_out scatter-summed into x's shape. x may be given as its shape.
    mode "fill": filled positions send nothing back; "clip": the gradient
    goes to the clipped position. fill_value is accepted (so the forward's
    arguments can be passed unchanged) and gets no gradient.

    >>> import numpy as np, scatterkit as sk
    >>> index = np.array([[0, 0], [1, 0]])
    >>> sk.gather_backward(np.ones((2, 2)), (2, 2), index, 1).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    op = "gather_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    res, gx = _grad_x_buffer(grad_out, x, grad_x, op)
    gc, ic = as_input(grad_out, op, "grad_out"), as_index(index, op)
    if _is_axes(axis):
        _C.gather_axes_backward(gc, ic, axis, m, gx)
    else:
        _C.gather_backward(gc, ic, axis, m, gx)
    _written_grads(grad_x)
    return res


def index_select_backward(grad_out, x, index, axis, *, mode="error", fill_value=0, grad_x=None):
    """The gradient of index_select(x, index, axis) with respect to x (x may
    be given as its shape); the mode and fill_value rules of gather_backward.

    >>> import numpy as np, scatterkit as sk
    >>> sk.index_select_backward(np.ones((2, 3)), (2, 2), np.array([1, 1, 0]), 1).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    op = "index_select_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    res, gx = _grad_x_buffer(grad_out, x, grad_x, op)
    _C.index_select_backward(as_input(grad_out, op, "grad_out"), as_index(index, op), axis, m, gx)
    _written_grads(grad_x)
    return res


def gather_nd_backward(grad_out, x, index, *, batch_dims=0, mode="error", fill_value=0,
                       grad_x=None):
    """The gradient of gather_nd(x, index, batch_dims=...) with respect to x
    (x may be given as its shape); the mode and fill_value rules of
    gather_backward.

    >>> import numpy as np, scatterkit as sk
    >>> index = np.array([[0, 1], [0, 1]])
    >>> sk.gather_nd_backward(np.array([1.0, 2.0]), (2, 2), index).tolist()
    [[0.0, 3.0], [0.0, 0.0]]
    """
    op = "gather_nd_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    res, gx = _grad_x_buffer(grad_out, x, grad_x, op)
    _C.gather_nd_backward(as_input(grad_out, op, "grad_out"), as_index(index, op), batch_dims, m, gx)
    _written_grads(grad_x)
    return res


def masked_select_backward(grad_out, x, mask, *, grad_x=None):
    """The gradient of masked_select(x, mask) with respect to x (x may be
    given as its shape): grad_out (1-d) written back to the True positions,
    0 elsewhere, summed over the dimensions along which x was broadcast.

    >>> import numpy as np, scatterkit as sk
    >>> mask = np.array([True, False, True])
    >>> sk.masked_select_backward(np.array([5.0, 6.0]), (3,), mask).tolist()
    [5.0, 0.0, 6.0]
    """
    op = "masked_select_backward"
    if grad_x is False:
        return None
    res, gx = _grad_x_buffer(grad_out, x, grad_x, op)
    _C.masked_select_backward(as_input(grad_out, op, "grad_out"), as_mask(mask, op), gx)
    _written_grads(grad_x)
    return res


def _indexed_scatter_backward(op, like_x, grad_out, src, arg, shape_fn, reduce, result,
                              forward, grad_x, grad_src, call):
    """Shared body of scatter/index_scatter/scatter_nd backward. call(src_c,
    result_c, grad_x_c, grad_src_c) runs the C function."""
    like = _like_grad(grad_out, op)
    result_shape = None if result is None else shape_of(result, op, "result")
    if result_shape is not None and result_shape != like_x.shape:
        raise ValueError(f"{op}: result must have shape {list(like_x.shape)} (x's), got "
                         f"{list(result_shape)}")
    rx, gx = _grad_buffer(like, grad_x, like_x.shape, "grad_x")
    sc, rs, gs, finish = _source_grad(like_x, like, src, arg, shape_fn, grad_src,
                                      ((grad_x, "grad_x"), (grad_out, "grad_out"), (src, arg)))
    if result is None and reduce in (_C.REDUCE_AMAX, _C.REDUCE_AMIN):
        result = forward()  # amax/amin need the forward result to find the winners
    rc = None if result is None else as_input(result, op, "result")
    call(sc, rc, gx, gs)
    if finish is not None:
        finish()
    _written_grads(grad_x, grad_src)
    return rx, rs


def scatter_backward(grad_out, x, index, src, axis, *, reduce=None, include_self=True,
                     mode="error", result=None, grad_x=None, grad_src=None):
    """The gradients of scatter(x, index, src, axis, reduce=..., include_self=...,
    mode=...) with respect to x and src: returns (grad_x, grad_src).

    result: the forward's result; needed by amax/amin and recomputed when
    None. x and src are read for prod/amax/amin only (their shapes always).
    Rules (docs/CONTRACT.md, Backward): assign gives grad_out to the winning (last)
    update only and nothing to the overwritten x element; sum passes it
    through; mean divides by the count (+1 with include_self); prod
    multiplies by the product of the other contributors, exact with zeros;
    amax/amin split it evenly among every contributor equal to the result (x
    included when include_self). src elements that were not read, or were
    dropped, get 0; a target without updates passes grad_out to grad_x; with
    include_self=False a touched target gives x nothing.

    >>> import numpy as np, scatterkit as sk
    >>> x, src, index = np.zeros(3), np.array([1.0, 2.0, 3.0]), np.array([0, 0, 2])
    >>> g = np.array([1.0, 10.0, 100.0])
    >>> gx, gsrc = sk.scatter_backward(g, x, index, src, 0)  # assign: src[1] wins x[0]
    >>> gx.tolist(), gsrc.tolist()
    ([0.0, 10.0, 0.0], [0.0, 1.0, 100.0])
    >>> gx, gsrc = sk.scatter_backward(g, x, index, src, 0, reduce="sum")
    >>> gx.tolist(), gsrc.tolist()
    ([1.0, 10.0, 100.0], [1.0, 1.0, 100.0])
    """
    op = "scatter_backward"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    axes = _is_axes(axis)
    query = _C.scatter_axes_source_shape if axes else _C.scatter_source_shape

    def forward():
        return scatter(x, ic, src, axis, reduce=reduce, include_self=include_self, mode=mode)

    def call(sc, rc, gx, gs):
        f = _C.scatter_axes_backward if axes else _C.scatter_backward
        f(xc, ic, sc, axis, r, include_self, m, rc, as_input(grad_out, op, "grad_out"), gx, gs)

    return _indexed_scatter_backward(op, like_x, grad_out, src, "src",
                                     _source_shape(query, xc, ic, axis), r, result, forward,
                                     grad_x, grad_src, call)


def index_scatter_backward(grad_out, x, index, updates, axis=0, *, reduce=None,
                           include_self=True, mode="error", result=None, grad_x=None,
                           grad_updates=None):
    """The gradients of index_scatter(x, index, updates, axis, ...) with
    respect to x and updates: returns (grad_x, grad_updates). The rules and
    `result` as in scatter_backward.

    >>> import numpy as np, scatterkit as sk
    >>> g = np.arange(6.0).reshape(3, 2)
    >>> x, updates = np.zeros((3, 2)), np.ones((2, 2))
    >>> gx, gu = sk.index_scatter_backward(g, x, np.array([2, 0]), updates, 0, reduce="sum")
    >>> gu.tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    op = "index_scatter_backward"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    updates_shape = _source_shape(_C.index_scatter_source_shape, xc, ic, axis)

    def forward():
        return index_scatter(x, ic, updates, axis, reduce=reduce, include_self=include_self,
                             mode=mode)

    def call(uc, rc, gx, gu):
        _C.index_scatter_backward(xc, ic, uc, axis, r, include_self, m, rc, as_input(grad_out, op, "grad_out"),
                                  gx, gu)

    return _indexed_scatter_backward(op, like_x, grad_out, updates, "updates", updates_shape, r,
                                     result, forward, grad_x, grad_updates, call)


def scatter_nd_backward(grad_out, x, index, updates, *, reduce=None, mode="error", result=None,
                        grad_x=None, grad_updates=None):
    """The gradients of scatter_nd(x, index, updates, reduce=..., mode=...)
    with respect to x and updates: returns (grad_x, grad_updates). The rules
    and `result` as in scatter_backward (include_self is always True).

    >>> import numpy as np, scatterkit as sk
    >>> g = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> gx, gu = sk.scatter_nd_backward(g, np.zeros((2, 2)), np.array([[1]]), np.ones((1, 2)))
    >>> gx.tolist(), gu.tolist()
    ([[1.0, 2.0], [0.0, 0.0]], [[3.0, 4.0]])
    """
    op = "scatter_nd_backward"
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    updates_shape = _source_shape(_C.scatter_nd_source_shape, xc, ic)

    def forward():
        return scatter_nd(x, ic, updates, reduce=reduce, mode=mode)

    def call(uc, rc, gx, gu):
        _C.scatter_nd_backward(xc, ic, uc, r, m, rc, as_input(grad_out, op, "grad_out"), gx, gu)

    return _indexed_scatter_backward(op, like_x, grad_out, updates, "updates", updates_shape, r,
                                     result, forward, grad_x, grad_updates, call)


def slice_scatter_backward(grad_out, x, src, axis=0, start=None, stop=None, step=1, *,
                           grad_x=None, grad_src=None):
    """The gradients of slice_scatter(x, src, axis, start, stop, step) with
    respect to x and src: returns (grad_x, grad_src). grad_x is grad_out with
    the slice zeroed; grad_src is grad_out's slice, summed over the dimensions
    along which src was broadcast. x and src may be given as their shapes.

    >>> import numpy as np, scatterkit as sk
    >>> gx, gs = sk.slice_scatter_backward(np.arange(4.0), (4,), (2,), 0, None, None, 2)
    >>> gx.tolist(), gs.tolist()
    ([0.0, 1.0, 0.0, 3.0], [0.0, 2.0])
    """
    op = "slice_scatter_backward"
    axes, starts, stops, steps = _slice_args(op, axis, start, stop, step)
    like = _like_grad(grad_out, op)
    _, rx, gx = _view_input_grad(like, x, grad_x)
    rs, gs, _ = _view_source(like, src, None, grad_src, "src")
    _C.slice_scatter_backward(as_input(grad_out, op, "grad_out"), axes, starts, stops, steps, gx, gs)
    _written_grads(grad_x, grad_src)
    return rx, rs


def diagonal_scatter_backward(grad_out, x, src, offset=0, axis1=0, axis2=1, *, grad_x=None,
                              grad_src=None):
    """The gradients of diagonal_scatter(x, src, offset, axis1, axis2) with
    respect to x and src: returns (grad_x, grad_src). grad_x is grad_out with
    the diagonal zeroed, grad_src the diagonal of grad_out. x and src may be
    given as their shapes.

    >>> import numpy as np, scatterkit as sk
    >>> gx, gs = sk.diagonal_scatter_backward(np.arange(4.0).reshape(2, 2), (2, 2), (2,))
    >>> gx.tolist(), gs.tolist()
    ([[0.0, 1.0], [2.0, 0.0]], [0.0, 3.0])
    """
    op = "diagonal_scatter_backward"
    like = _like_grad(grad_out, op)
    xs, rx, gx = _view_input_grad(like, x, grad_x)
    shape_fn = _source_shape(_C.diagonal_scatter_source_shape, xs, offset, axis1, axis2)
    rs, gs, finish = _view_source(like, src, shape_fn, grad_src, "src",
                                   ((grad_x, "grad_x"), (grad_out, "grad_out")))
    _C.diagonal_scatter_backward(as_input(grad_out, op, "grad_out"), offset, axis1, axis2, gx, gs)
    if finish is not None:
        finish()
    _written_grads(grad_x, grad_src)
    return rx, rs


def select_scatter_backward(grad_out, x, src, axis, index, *, grad_x=None, grad_src=None):
    """The gradients of select_scatter(x, src, axis, index) with respect to x
    and src: returns (grad_x, grad_src). grad_x is grad_out with the selected
    slice zeroed, grad_src that slice of grad_out. x and src may be given as
    their shapes.

    >>> import numpy as np, scatterkit as sk
    >>> gx, gs = sk.select_scatter_backward(np.arange(4.0).reshape(2, 2), (2, 2), (2,), 0, 1)
    >>> gx.tolist(), gs.tolist()
    ([[0.0, 1.0], [0.0, 0.0]], [2.0, 3.0])
    """
    op = "select_scatter_backward"
    like = _like_grad(grad_out, op)
    xs, rx, gx = _view_input_grad(like, x, grad_x)
    shape_fn = _source_shape(_C.select_scatter_source_shape, xs, axis)
    rs, gs, finish = _view_source(like, src, shape_fn, grad_src, "src",
                                   ((grad_x, "grad_x"), (grad_out, "grad_out")))
    _C.select_scatter_backward(as_input(grad_out, op, "grad_out"), axis, index, gx, gs)
    if finish is not None:
        finish()
    _written_grads(grad_x, grad_src)
    return rx, rs


def masked_scatter_backward(grad_out, x, mask, source, *, grad_x=None, grad_source=None):
    """The gradients of masked_scatter(x, mask, source) with respect to x and
    source: returns (grad_x, grad_source). grad_x is grad_out with the True
    positions zeroed; source element k (row-major) gets grad_out at the k-th
    True position, elements beyond the number of True positions get 0. x and
    source may be given as their shapes.

    >>> import numpy as np, scatterkit as sk
    >>> mask = np.array([False, True, True])
    >>> gx, gs = sk.masked_scatter_backward(np.array([1.0, 2.0, 3.0]), (3,), mask, (4,))
    >>> gx.tolist(), gs.tolist()
    ([1.0, 0.0, 0.0], [2.0, 3.0, 0.0, 0.0])
    """
    op = "masked_scatter_backward"
    like = _like_grad(grad_out, op)
    xs, rx, gx = _view_input_grad(like, x, grad_x)
    mc = as_mask(mask, op)
    shape_fn = _source_shape(_C.masked_scatter_source_shape, xs, mc)
    rs, gs, finish = _view_source(like, source, shape_fn, grad_source, "source",
                                   ((grad_x, "grad_x"), (grad_out, "grad_out")))
    _C.masked_scatter_backward(as_input(grad_out, op, "grad_out"), mc, gx, gs)
    if finish is not None:
        finish()
    _written_grads(grad_x, grad_source)
    return rx, rs


def tensor_scatter_backward(grad_out, cache, update, write_indices=None, *, axis=-2,
                            mode="linear", grad_cache=None, grad_update=None):
    """The gradients of tensor_scatter(cache, update, write_indices, axis=...,
    mode=...) with respect to cache and update: returns (grad_cache,
    grad_update). grad_cache is grad_out with the written positions zeroed;
    grad_update reads grad_out where each element was written (0 for an
    element that a later circular write overwrote). cache and update may be
    given as their shapes. grad_update is always computed (its shape tells C
    the update length); grad_update=False only drops it from the result.

    >>> import numpy as np, scatterkit as sk
    >>> g = np.arange(8.0).reshape(2, 4, 1)
    >>> gc, gu = sk.tensor_scatter_backward(g, (2, 4, 1), (2, 1, 1), np.array([0, 3]))
    >>> gc[..., 0].tolist(), gu[..., 0].tolist()
    ([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 0.0]], [[0.0], [7.0]])
    """
    op = "tensor_scatter_backward"
    m = _choice(_TENSOR_SCATTER_MODES, mode, op, "mode")
    like = _like_grad(grad_out, op)
    _, rc, gc = _view_input_grad(like, cache, grad_cache, "cache")
    us = _shape_arg(update, op, "update")
    ru, gu = _grad_buffer(like, None if grad_update is False else grad_update, us, "grad_update")
    wc = None if write_indices is None else as_index(write_indices, op, "write_indices")
    _C.tensor_scatter_backward(as_input(grad_out, op, "grad_out"), wc, axis, m, gc, gu)
    _written_grads(grad_cache, grad_update)
    return rc, (None if grad_update is False else ru)

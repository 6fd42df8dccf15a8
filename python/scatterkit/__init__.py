"""scatterkit: the tensor scatter/gather operator family.

Tensors may be NumPy arrays, torch tensors or any other object that speaks
DLPack; inputs are never copied (any strides, including zero and negative
ones, are read in place). The result has the kind of ``x``: NumPy in, NumPy
out; torch in, torch out; any other DLPack producer gets a NumPy array.
Every function returns a new tensor unless ``out=`` is given; ``out=x`` is the
in-place form. Errors: ``TypeError`` (dtype), ``ValueError`` (shape, axis,
argument), ``IndexError`` (index out of range); on an error nothing has been
written. Index arguments may also be Python ints or lists (made int64).
"""

import operator

from . import _C
from ._tensors import (Like, as_index, as_input, as_mask, as_output, dtype_name, int_or_none,
                       is_scalar, mark_written, plain_scalar, shape_of, wrap_axis)

__version__ = _C.__version__

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
    "set_num_threads",
    "get_num_threads",
    "empty_cache",
    "set_buffer_cache_limit",
    "buffer_cache_info",
]

_REDUCE = {
    None: _C.REDUCE_NONE,
    "sum": _C.REDUCE_SUM,
    "prod": _C.REDUCE_PROD,
    "mean": _C.REDUCE_MEAN,
    "amax": _C.REDUCE_AMAX,
    "amin": _C.REDUCE_AMIN,
}
_GATHER_MODES = {"error": _C.MODE_ERROR, "clip": _C.MODE_CLIP, "fill": _C.MODE_FILL}
_SCATTER_MODES = {"error": _C.MODE_ERROR, "clip": _C.MODE_CLIP, "drop": _C.MODE_DROP}
_TENSOR_SCATTER_MODES = {
    "linear": _C.TENSOR_SCATTER_LINEAR,
    "circular": _C.TENSOR_SCATTER_CIRCULAR,
}


def _choice(table, value, op, arg):
    try:
        return table[value]
    except (KeyError, TypeError):  # TypeError: an unhashable value
        allowed = ", ".join(repr(k) for k in table)
        raise ValueError(f"{op}: {arg} must be one of {allowed}; got {value!r}") from None


def _flag(value, op, arg):
    """A bool argument (include_self): True/False or a NumPy bool, as PyTorch
    takes; anything else (a string "False" is truthy) is refused."""
    t = type(value)
    if isinstance(value, bool) or (t.__module__ == "numpy" and t.__name__ in ("bool", "bool_")):
        return bool(value)
    raise _C.ArgumentTypeError(f"{op}: {arg} must be a bool (True or False), got "
                               f"{type(value).__name__} {value!r}")


ArgumentTypeError = _C.ArgumentTypeError


def _is_axes(axis):
    return isinstance(axis, (tuple, list))


def _out(like, out, op):
    """(object returned to the caller, object handed to C)."""
    if out is None:
        out = like.empty(like.shape)
    return out, as_output(out, op)


def _written(res, out):
    """res, after telling torch's autograd that a caller's out tensor was
    written in place (its version counter; nothing for other kinds)."""
    if out is not None:
        mark_written(out)
    return res


def _written_grads(*given):
    """The same for the gradient buffers a caller gave (not None/False)."""
    for g in given:
        if g is not None and g is not False:
            mark_written(g)


# ---------------------------------------------------------------------------
# Gather-type operators
# ---------------------------------------------------------------------------
def gather(x, index, axis, *, mode="error", fill_value=0):
    """out[p] = x[p with p[axis] = index[p]] (torch.gather, take_along_axis).

    ``axis`` may be a tuple of M axes: then ``index.shape == out.shape + (M,)``
    and the k-th index component addresses ``axis[k]``.
    mode: "error" (IndexError), "clip", or "fill" (writes fill_value)."""
    op = "gather"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    fill = like.fill(fill_value, m)
    # out.shape follows from index.shape alone, so the shape helper (one more
    # conversion of every argument) is skipped; sk_gather validates it all.
    if _is_axes(axis):
        out = like.empty(shape_of(ic, op, "index")[:-1])
        _C.gather_axes(xc, ic, axis, m, fill, out, fresh_out=True)
    else:
        out = like.empty(shape_of(ic, op, "index"))
        _C.gather(xc, ic, axis, m, fill, out, fresh_out=True)
    return out


def index_select(x, index, axis, *, mode="error", fill_value=0):
    """out = x[:, ..., index, ...] along axis; index of any rank (0-d too):
    out.shape == x.shape[:axis] + index.shape + x.shape[axis+1:]."""
    op = "index_select"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    fill = like.fill(fill_value, m)
    out = like.empty(_C.index_select_shape(xc, ic, axis))
    _C.index_select(xc, ic, axis, m, fill, out, fresh_out=True)
    return out


def gather_nd(x, index, *, batch_dims=0, mode="error", fill_value=0):
    """Each k-tuple in the last dimension of index addresses x's k dimensions
    after batch_dims shared batch dimensions (ONNX GatherND):
    out.shape == index.shape[:-1] + x.shape[batch_dims + k:]."""
    op = "gather_nd"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    fill = like.fill(fill_value, m)
    out = like.empty(_C.gather_nd_shape(xc, ic, batch_dims))
    _C.gather_nd(xc, ic, batch_dims, m, fill, out, fresh_out=True)
    return out


def masked_select(x, mask):
    """The 1-d tensor of x's elements where the broadcast mask is True, in
    row-major order."""
    op = "masked_select"
    like = Like(x, op)
    xc, mc = as_input(x, op, "x"), as_mask(mask, op)
    out = like.empty((_C.masked_select_count(xc, mc),))
    _C.masked_select(xc, mc, out)
    return out


# ---------------------------------------------------------------------------
# Scatter-type operators
# ---------------------------------------------------------------------------
def scatter(x, index, src, axis, *, reduce=None, include_self=True, mode="error", out=None):
    """For every position p of index, out[t] = reduce(out[t], src[p]) with
    t = p where p[axis] = index[p]; axis may be a tuple (index then has the
    axis components in its last dimension). src: a tensor of x's dtype with
    src.shape[d] >= index.shape[d], or a scalar.
    reduce: None (assign, last update wins), "sum", "prod", "mean", "amax",
    "amin". mode: "error", "clip" or "drop"."""
    op = "scatter"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    axes = _is_axes(axis)

    def src_shape():
        shape = shape_of(ic, op, "index")
        return shape[:-1] if axes else shape

    sc = like.source(src, "src", src_shape)
    fresh = out is None
    res, oc = _out(like, out, op)
    if axes:
        _C.scatter_axes(xc, ic, sc, axis, r, include_self, m, oc)
    else:
        _C.scatter(xc, ic, sc, axis, r, include_self, m, oc, fresh_out=fresh)
    return _written(res, out)


def index_scatter(x, index, updates, axis=0, *, reduce=None, include_self=True, mode="error",
                  out=None):
    """index 1-d of length L (or 0-d): the slice updates[..., i, ...] along
    axis is reduced into out[..., index[i], ...] (index_copy / index_add /
    index_reduce, paddle.scatter)."""
    op = "index_scatter"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)

    def updates_shape():
        xs, ishape = like.shape, shape_of(ic, op, "index")
        a = wrap_axis(axis, len(xs))
        if a is None or len(ishape) > 1:
            return None
        if not xs:
            return ishape
        return xs[:a] + ishape + xs[a + 1:]

    uc = like.source(updates, "updates", updates_shape)
    res, oc = _out(like, out, op)
    _C.index_scatter(xc, ic, uc, axis, r, include_self, m, oc)
    return _written(res, out)


def scatter_nd(x, index, updates, *, reduce=None, mode="error", out=None):
    """The inverse of gather_nd without batch dims (ONNX ScatterND,
    index_put_): updates.shape == index.shape[:-1] + x.shape[k:]."""
    op = "scatter_nd"
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)

    def updates_shape():
        ishape = shape_of(ic, op, "index")
        if not ishape:
            return None
        return ishape[:-1] + like.shape[ishape[-1]:]

    uc = like.source(updates, "updates", updates_shape)
    res, oc = _out(like, out, op)
    _C.scatter_nd(xc, ic, uc, r, m, oc)
    return _written(res, out)


def _slice_args(op, axis, start, stop, step):
    if _is_axes(axis):
        n = len(axis)

        def spread(v, name):
            if _is_axes(v):
                if len(v) != n:
                    raise ValueError(f"{op}: {name} has {len(v)} entries but axis has {n}")
                return list(v)
            return [v] * n
    else:

        def spread(v, name):
            if _is_axes(v):
                raise ValueError(f"{op}: {name} is a sequence but axis is a single int; "
                                 "give axis as a sequence of the same length")
            return [v]

    axes = list(axis) if _is_axes(axis) else [axis]
    steps = [1 if s is None else s for s in spread(step, "step")]
    if any(int_or_none(s) == 0 for s in steps):
        raise ValueError(f"{op}: step must not be zero")
    return axes, spread(start, "start"), spread(stop, "stop"), steps


def slice_scatter(x, src, axis=0, start=None, stop=None, step=1, *, out=None):
    """out = x with x[start:stop:step] along axis replaced by src (Python
    slice rules). axis/start/stop/step may be equal-length sequences to slice
    several axes at once; src broadcasts to the slice's shape."""
    op = "slice_scatter"
    axes, starts, stops, steps = _slice_args(op, axis, start, stop, step)
    like = Like(x, op)
    xc = as_input(x, op, "x")
    sc = like.source(src, "src", lambda: None)
    res, oc = _out(like, out, op)
    _C.slice_scatter(xc, sc, axes, starts, stops, steps, oc)
    return _written(res, out)


def diagonal_scatter(x, src, offset=0, axis1=0, axis2=1, *, out=None):
    """out = x with numpy.diagonal(x, offset, axis1, axis2) replaced by src;
    src.shape must equal the diagonal's shape."""
    op = "diagonal_scatter"
    like = Like(x, op)
    xc = as_input(x, op, "x")

    def diagonal_shape():
        xs = like.shape
        a1, a2 = wrap_axis(axis1, len(xs)), wrap_axis(axis2, len(xs))
        k = int_or_none(offset)
        if a1 is None or a2 is None or a1 == a2 or len(xs) < 2 or k is None:
            return None
        n1, n2 = xs[a1], xs[a2]
        length = min(n1, n2 - k) if k >= 0 else min(n1 + k, n2)
        rest = tuple(s for d, s in enumerate(xs) if d not in (a1, a2))
        return rest + (max(length, 0),)

    sc = like.source(src, "src", diagonal_shape)
    res, oc = _out(like, out, op)
    _C.diagonal_scatter(xc, sc, offset, axis1, axis2, oc)
    return _written(res, out)


def select_scatter(x, src, axis, index, *, out=None):
    """out = x with x[..., index, ...] along axis replaced by src;
    src.shape == x.shape without axis; a negative index wraps."""
    op = "select_scatter"
    like = Like(x, op)
    xc = as_input(x, op, "x")

    def src_shape():
        xs = like.shape
        a = wrap_axis(axis, len(xs))
        if a is None or not xs:
            return None
        return xs[:a] + xs[a + 1:]

    sc = like.source(src, "src", src_shape)
    res, oc = _out(like, out, op)
    _C.select_scatter(xc, sc, axis, index, oc)
    return _written(res, out)


def masked_scatter(x, mask, source, *, out=None):
    """mask (bool) broadcasts to x.shape; walking x in row-major order, the
    k-th True position receives source.flatten()[k]. ValueError when source
    has fewer elements than mask has True values."""
    op = "masked_scatter"
    like = Like(x, op)
    xc, mc = as_input(x, op, "x"), as_mask(mask, op)
    sc = like.source(source, "source", lambda: like.shape)
    res, oc = _out(like, out, op)
    _C.masked_scatter(xc, mc, sc, oc)
    return _written(res, out)


def tensor_scatter(cache, update, write_indices=None, *, axis=-2, mode="linear", out=None):
    """ONNX TensorScatter: for each batch b (dimension 0), update[b] is
    written into cache[b] along axis starting at write_indices[b] (0 when
    None); mode "circular" wraps around the axis, "linear" does not."""
    op = "tensor_scatter"
    m = _choice(_TENSOR_SCATTER_MODES, mode, op, "mode")
    like = Like(cache, op, "cache")
    cc, uc = as_input(cache, op, "cache"), as_input(update, op, "update")
    wc = None if write_indices is None else as_index(write_indices, op, "write_indices")
    res, oc = _out(like, out, op)
    _C.tensor_scatter(cc, uc, wc, axis, m, oc)
    return _written(res, out)


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------
def set_num_threads(n):
    """Process-wide thread count; n < 1 resets to the default (the CPUs this
    process may use, or SCATTERKIT_NUM_THREADS); counts above 256 mean 256
    (get_num_threads then returns 256). Results do not depend on it.
    After a parallel call the threads poll for the next call for
    SCATTERKIT_SPIN_US microseconds (default 2000; 0: they sleep at once),
    yielding the CPU to any other runnable thread."""
    _C.set_num_threads(n)


def get_num_threads():
    return _C.get_num_threads()


def empty_cache():
    """Gives cached memory back to the system; returns the bytes freed.
    Results of 1 MiB and more are allocated from a cache of reused blocks
    (their pages are already there, so no page faults), and the C library
    keeps its large scratch (the reductions' partial results) for the next
    call the same way. Results still alive are not affected."""
    return _C.buffer_cache_clear() + _C.release_cached_memory()


def set_buffer_cache_limit(nbytes):
    """Most bytes of freed result buffers kept for reuse (default 1 GiB, or
    SCATTERKIT_BUFFER_CACHE_MB); 0 turns the cache off and empties it."""
    _C.buffer_cache_set_limit(operator.index(nbytes))


def buffer_cache_info():
    """{'blocks', 'bytes', 'limit'}: what the result cache holds now."""
    blocks, held, limit = _C.buffer_cache_info()
    return {"blocks": blocks, "bytes": held, "limit": limit}


# ---------------------------------------------------------------------------
# Backward (SPEC section 7)
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
__all__ += [
    "gather_backward",
    "index_select_backward",
    "gather_nd_backward",
    "masked_select_backward",
    "scatter_backward",
    "index_scatter_backward",
    "scatter_nd_backward",
    "slice_scatter_backward",
    "diagonal_scatter_backward",
    "select_scatter_backward",
    "masked_scatter_backward",
    "tensor_scatter_backward",
]


def _shape_arg(v, op, name):
    """The shape of a tensor argument that backward only needs the shape of
    (a tensor, or its shape as a tuple/list/torch.Size of ints)."""
    if isinstance(v, (tuple, list)):
        try:
            return tuple(operator.index(s) for s in v)
        except TypeError:
            raise TypeError(f"{op}: {name} must be a tensor or a shape (a sequence of ints), "
                            f"got {v!r}") from None
    return shape_of(v, op, name)


def _grad_buffer(like, given, shape, name="grad"):
    """(object returned, object handed to C) for one gradient output:
    False skips it, None allocates it, anything else is the caller's."""
    if given is False:
        return None, None
    if given is None:
        given = like.empty(shape)
    return given, as_output(given, like.op, name)


def _check_grad(like, given, shape, name):
    """A caller's gradient buffer (not None/False) must have grad_out's dtype
    and the shape of the input it is the gradient of; checked here so that
    the error names it (C would name grad_out or x)."""
    if given is None or given is False:
        return
    op = like.op
    want, got = dtype_name(like.x, op, "grad_out"), dtype_name(given, op, name)
    if got != want:
        raise TypeError(f"{op}: {name} must have dtype {want}, got {got}")
    got_shape = shape_of(given, op, name)
    if got_shape != tuple(shape):
        raise ValueError(f"{op}: {name} must have shape {list(shape)}, got {list(got_shape)}")


def _sum_into(full, dst):
    """dst (0-d) = the sum of every element of full, through the C library
    (16-bit types accumulate in float32 and round once)."""
    nd = len(shape_of(full, "backward", "grad"))
    if nd == 0:
        _C.copy(full, dst)
    else:
        # slice_scatter's backward sums a broadcast src: one slice over everything
        _C.slice_scatter_backward(full, list(range(nd)), [None] * nd, [None] * nd, [1] * nd,
                                  None, dst)


def _source_grad(like_x, like, src, arg, shape_fn, given):
    """The src/updates/source argument of an indexed scatter backward and its
    gradient buffer: (src for C, grad returned, grad for C, finish).

    A Python scalar has no gradient (None). A 0-d tensor read at many
    positions is broadcast as the forward does; its gradient is computed at
    full size and finish() sums it into the 0-d result. like_x converts
    scalars (x's dtype), like allocates gradients (grad_out's kind)."""
    src = plain_scalar(src)
    if is_scalar(src):
        return like_x.source(src, arg, shape_fn), None, None, None
    src = as_input(src, like.op, arg)
    if shape_of(src, like.op, arg) == () and given is not False:
        full_shape = shape_fn()
        if full_shape:  # None: C reports the error; (): nothing to broadcast
            res, dst = _grad_buffer(like, given, (), "grad_" + arg)
            full = like.empty(full_shape)
            return like_x.broadcast(src, full_shape), res, full, lambda: _sum_into(full, dst)
    res, gc = _grad_buffer(like, given, shape_of(src, like.op, arg), "grad_" + arg)
    return like_x.source(src, arg, shape_fn), res, gc, None


def _like_grad(grad_out, op):
    return Like(grad_out, op, "grad_out")


def gather_backward(grad_out, x, index, axis, *, mode="error", fill_value=0, grad_x=None):
    """The gradient of gather(x, index, axis, mode=mode) with respect to x:
    grad_out scatter-summed into x's shape. x may be given as its shape.
    mode "fill": filled positions send nothing back; "clip": the gradient
    goes to the clipped position. fill_value is accepted (so the forward's
    arguments can be passed unchanged) and gets no gradient."""
    op = "gather_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    _check_grad(like, grad_x, xs, "grad_x")
    res, gx = _grad_buffer(like, grad_x, xs, "grad_x")
    gc, ic = as_input(grad_out, op, "grad_out"), as_index(index, op)
    if _is_axes(axis):
        _C.gather_axes_backward(gc, ic, axis, m, gx)
    else:
        _C.gather_backward(gc, ic, axis, m, gx)
    _written_grads(grad_x)
    return res


def index_select_backward(grad_out, x, index, axis, *, mode="error", fill_value=0, grad_x=None):
    """The gradient of index_select(x, index, axis) with respect to x (x may
    be given as its shape); the mode and fill_value rules of gather_backward."""
    op = "index_select_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    _check_grad(like, grad_x, xs, "grad_x")
    res, gx = _grad_buffer(like, grad_x, xs, "grad_x")
    _C.index_select_backward(as_input(grad_out, op, "grad_out"), as_index(index, op), axis, m, gx)
    _written_grads(grad_x)
    return res


def gather_nd_backward(grad_out, x, index, *, batch_dims=0, mode="error", fill_value=0,
                       grad_x=None):
    """The gradient of gather_nd(x, index, batch_dims=...) with respect to x
    (x may be given as its shape); the mode and fill_value rules of
    gather_backward."""
    op = "gather_nd_backward"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    if grad_x is False:
        return None
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    _check_grad(like, grad_x, xs, "grad_x")
    res, gx = _grad_buffer(like, grad_x, xs, "grad_x")
    _C.gather_nd_backward(as_input(grad_out, op, "grad_out"), as_index(index, op), batch_dims, m, gx)
    _written_grads(grad_x)
    return res


def masked_select_backward(grad_out, x, mask, *, grad_x=None):
    """The gradient of masked_select(x, mask) with respect to x (x may be
    given as its shape): grad_out (1-d) written back to the True positions,
    0 elsewhere, summed over the dimensions along which x was broadcast."""
    op = "masked_select_backward"
    if grad_x is False:
        return None
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    _check_grad(like, grad_x, xs, "grad_x")
    res, gx = _grad_buffer(like, grad_x, xs, "grad_x")
    _C.masked_select_backward(as_input(grad_out, op, "grad_out"), as_mask(mask, op), gx)
    _written_grads(grad_x)
    return res


def _indexed_scatter_backward(op, like_x, grad_out, src, arg, shape_fn, reduce, result,
                              forward, grad_x, grad_src, call):
    """Shared body of scatter/index_scatter/scatter_nd backward. call(src_c,
    result_c, grad_x_c, grad_src_c) runs the C function."""
    like = _like_grad(grad_out, op)
    rx, gx = _grad_buffer(like, grad_x, like_x.shape, "grad_x")
    sc, rs, gs, finish = _source_grad(like_x, like, src, arg, shape_fn, grad_src)
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
    Rules (SPEC section 7): assign gives grad_out to the winning (last)
    update only and nothing to the overwritten x element; sum passes it
    through; mean divides by the count (+1 with include_self); prod
    multiplies by the product of the other contributors, exact with zeros;
    amax/amin split it evenly among every contributor equal to the result (x
    included when include_self). src elements that were not read, or were
    dropped, get 0; a target without updates passes grad_out to grad_x; with
    include_self=False a touched target gives x nothing."""
    op = "scatter_backward"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    axes = _is_axes(axis)

    def src_shape():
        shape = shape_of(ic, op, "index")
        return shape[:-1] if axes else shape

    def forward():
        return scatter(x, ic, src, axis, reduce=reduce, include_self=include_self, mode=mode)

    def call(sc, rc, gx, gs):
        f = _C.scatter_axes_backward if axes else _C.scatter_backward
        f(xc, ic, sc, axis, r, include_self, m, rc, as_input(grad_out, op, "grad_out"), gx, gs)

    return _indexed_scatter_backward(op, like_x, grad_out, src, "src", src_shape, r, result,
                                     forward, grad_x, grad_src, call)


def index_scatter_backward(grad_out, x, index, updates, axis=0, *, reduce=None,
                           include_self=True, mode="error", result=None, grad_x=None,
                           grad_updates=None):
    """The gradients of index_scatter(x, index, updates, axis, ...) with
    respect to x and updates: returns (grad_x, grad_updates). The rules and
    `result` as in scatter_backward."""
    op = "index_scatter_backward"
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)

    def updates_shape():
        xs, ishape = like_x.shape, shape_of(ic, op, "index")
        a = wrap_axis(axis, len(xs))
        if a is None or len(ishape) > 1:
            return None
        if not xs:
            return ishape
        return xs[:a] + ishape + xs[a + 1:]

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
    and `result` as in scatter_backward (include_self is always True)."""
    op = "scatter_nd_backward"
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like_x = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)

    def updates_shape():
        ishape = shape_of(ic, op, "index")
        if not ishape:
            return None
        return ishape[:-1] + like_x.shape[ishape[-1]:]

    def forward():
        return scatter_nd(x, ic, updates, reduce=reduce, mode=mode)

    def call(uc, rc, gx, gu):
        _C.scatter_nd_backward(xc, ic, uc, r, m, rc, as_input(grad_out, op, "grad_out"), gx, gu)

    return _indexed_scatter_backward(op, like_x, grad_out, updates, "updates", updates_shape, r,
                                     result, forward, grad_x, grad_updates, call)


def _view_source(like, src, shape_fn, given, op, arg):
    """src of a view-type scatter backward (tensor, shape or scalar) ->
    (grad returned, grad for C, finish)."""
    src = plain_scalar(src)
    if is_scalar(src):
        return None, None, None
    if isinstance(src, (tuple, list)):
        shape = _shape_arg(src, op, arg)
    else:
        shape = shape_of(src, op, arg)  # only its shape is read
    if shape == () and shape_fn is not None and given is not False:
        full_shape = shape_fn()
        if full_shape:
            res, dst = _grad_buffer(like, given, (), "grad_" + arg)
            full = like.empty(full_shape)
            return res, full, lambda: _sum_into(full, dst)
    res, gc = _grad_buffer(like, given, shape, "grad_" + arg)
    return res, gc, None


def slice_scatter_backward(grad_out, x, src, axis=0, start=None, stop=None, step=1, *,
                           grad_x=None, grad_src=None):
    """The gradients of slice_scatter(x, src, axis, start, stop, step) with
    respect to x and src: returns (grad_x, grad_src). grad_x is grad_out with
    the slice zeroed; grad_src is grad_out's slice, summed over the dimensions
    along which src was broadcast. x and src may be given as their shapes."""
    op = "slice_scatter_backward"
    axes, starts, stops, steps = _slice_args(op, axis, start, stop, step)
    like = _like_grad(grad_out, op)
    rx, gx = _grad_buffer(like, grad_x, _shape_arg(x, op, "x"), "grad_x")
    rs, gs, _ = _view_source(like, src, None, grad_src, op, "src")
    _C.slice_scatter_backward(as_input(grad_out, op, "grad_out"), axes, starts, stops, steps, gx, gs)
    _written_grads(grad_x, grad_src)
    return rx, rs


def diagonal_scatter_backward(grad_out, x, src, offset=0, axis1=0, axis2=1, *, grad_x=None,
                              grad_src=None):
    """The gradients of diagonal_scatter(x, src, offset, axis1, axis2) with
    respect to x and src: returns (grad_x, grad_src). grad_x is grad_out with
    the diagonal zeroed, grad_src the diagonal of grad_out. x and src may be
    given as their shapes."""
    op = "diagonal_scatter_backward"
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    rx, gx = _grad_buffer(like, grad_x, xs, "grad_x")

    def diagonal_shape():
        a1, a2 = wrap_axis(axis1, len(xs)), wrap_axis(axis2, len(xs))
        k = int_or_none(offset)
        if a1 is None or a2 is None or a1 == a2 or len(xs) < 2 or k is None:
            return None
        n1, n2 = xs[a1], xs[a2]
        length = min(n1, n2 - k) if k >= 0 else min(n1 + k, n2)
        rest = tuple(s for d, s in enumerate(xs) if d not in (a1, a2))
        return rest + (max(length, 0),)

    rs, gs, finish = _view_source(like, src, diagonal_shape, grad_src, op, "src")
    _C.diagonal_scatter_backward(as_input(grad_out, op, "grad_out"), offset, axis1, axis2, gx, gs)
    if finish is not None:
        finish()
    _written_grads(grad_x, grad_src)
    return rx, rs


def select_scatter_backward(grad_out, x, src, axis, index, *, grad_x=None, grad_src=None):
    """The gradients of select_scatter(x, src, axis, index) with respect to x
    and src: returns (grad_x, grad_src). grad_x is grad_out with the selected
    slice zeroed, grad_src that slice of grad_out. x and src may be given as
    their shapes."""
    op = "select_scatter_backward"
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    rx, gx = _grad_buffer(like, grad_x, xs, "grad_x")

    def src_shape():
        a = wrap_axis(axis, len(xs))
        if a is None or not xs:
            return None
        return xs[:a] + xs[a + 1:]

    rs, gs, finish = _view_source(like, src, src_shape, grad_src, op, "src")
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
    source may be given as their shapes."""
    op = "masked_scatter_backward"
    like = _like_grad(grad_out, op)
    xs = _shape_arg(x, op, "x")
    rx, gx = _grad_buffer(like, grad_x, xs, "grad_x")
    rs, gs, finish = _view_source(like, source, lambda: xs, grad_source, op, "source")
    _C.masked_scatter_backward(as_input(grad_out, op, "grad_out"), as_mask(mask, op), gx, gs)
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
    the update length); grad_update=False only drops it from the result."""
    op = "tensor_scatter_backward"
    m = _choice(_TENSOR_SCATTER_MODES, mode, op, "mode")
    like = _like_grad(grad_out, op)
    rc, gc = _grad_buffer(like, grad_cache, _shape_arg(cache, op, "cache"), "grad_cache")
    us = _shape_arg(update, op, "update")
    ru, gu = _grad_buffer(like, None if grad_update is False else grad_update, us, "grad_update")
    wc = None if write_indices is None else as_index(write_indices, op, "write_indices")
    _C.tensor_scatter_backward(as_input(grad_out, op, "grad_out"), wc, axis, m, gc, gu)
    _written_grads(grad_cache, grad_update)
    return rc, (None if grad_update is False else ru)

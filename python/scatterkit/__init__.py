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

from . import _C
from ._tensors import (Like, as_index, as_input, as_mask, as_output, int_or_none, shape_of,
                       wrap_axis)

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


def _is_axes(axis):
    return isinstance(axis, (tuple, list))


def _out(like, out, op):
    """(object returned to the caller, object handed to C)."""
    if out is None:
        out = like.empty(like.shape)
    return out, as_output(out, op)


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
    xc, ic = as_input(x), as_index(index, op)
    fill = like.fill(fill_value, m)
    # out.shape follows from index.shape alone, so the shape helper (one more
    # conversion of every argument) is skipped; sk_gather validates it all.
    if _is_axes(axis):
        out = like.empty(shape_of(ic, op, "index")[:-1])
        _C.gather_axes(xc, ic, axis, m, fill, out)
    else:
        out = like.empty(shape_of(ic, op, "index"))
        _C.gather(xc, ic, axis, m, fill, out)
    return out


def index_select(x, index, axis, *, mode="error", fill_value=0):
    """out = x[:, ..., index, ...] along axis; index of any rank (0-d too):
    out.shape == x.shape[:axis] + index.shape + x.shape[axis+1:]."""
    op = "index_select"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x), as_index(index, op)
    fill = like.fill(fill_value, m)
    out = like.empty(_C.index_select_shape(xc, ic, axis))
    _C.index_select(xc, ic, axis, m, fill, out)
    return out


def gather_nd(x, index, *, batch_dims=0, mode="error", fill_value=0):
    """Each k-tuple in the last dimension of index addresses x's k dimensions
    after batch_dims shared batch dimensions (ONNX GatherND):
    out.shape == index.shape[:-1] + x.shape[batch_dims + k:]."""
    op = "gather_nd"
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x), as_index(index, op)
    fill = like.fill(fill_value, m)
    out = like.empty(_C.gather_nd_shape(xc, ic, batch_dims))
    _C.gather_nd(xc, ic, batch_dims, m, fill, out)
    return out


def masked_select(x, mask):
    """The 1-d tensor of x's elements where the broadcast mask is True, in
    row-major order."""
    op = "masked_select"
    like = Like(x, op)
    xc, mc = as_input(x), as_mask(mask, op)
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
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x), as_index(index, op)
    axes = _is_axes(axis)

    def src_shape():
        shape = shape_of(ic, op, "index")
        return shape[:-1] if axes else shape

    sc = like.source(src, "src", src_shape)
    res, oc = _out(like, out, op)
    if axes:
        _C.scatter_axes(xc, ic, sc, axis, r, include_self, m, oc)
    else:
        _C.scatter(xc, ic, sc, axis, r, include_self, m, oc)
    return res


def index_scatter(x, index, updates, axis=0, *, reduce=None, include_self=True, mode="error",
                  out=None):
    """index 1-d of length L (or 0-d): the slice updates[..., i, ...] along
    axis is reduced into out[..., index[i], ...] (index_copy / index_add /
    index_reduce, paddle.scatter)."""
    op = "index_scatter"
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x), as_index(index, op)

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
    return res


def scatter_nd(x, index, updates, *, reduce=None, mode="error", out=None):
    """The inverse of gather_nd without batch dims (ONNX ScatterND,
    index_put_): updates.shape == index.shape[:-1] + x.shape[k:]."""
    op = "scatter_nd"
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x), as_index(index, op)

    def updates_shape():
        ishape = shape_of(ic, op, "index")
        if not ishape:
            return None
        return ishape[:-1] + like.shape[ishape[-1]:]

    uc = like.source(updates, "updates", updates_shape)
    res, oc = _out(like, out, op)
    _C.scatter_nd(xc, ic, uc, r, m, oc)
    return res


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
    xc = as_input(x)
    sc = like.source(src, "src", lambda: None)
    res, oc = _out(like, out, op)
    _C.slice_scatter(xc, sc, axes, starts, stops, steps, oc)
    return res


def diagonal_scatter(x, src, offset=0, axis1=0, axis2=1, *, out=None):
    """out = x with numpy.diagonal(x, offset, axis1, axis2) replaced by src;
    src.shape must equal the diagonal's shape."""
    op = "diagonal_scatter"
    like = Like(x, op)
    xc = as_input(x)

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
    return res


def select_scatter(x, src, axis, index, *, out=None):
    """out = x with x[..., index, ...] along axis replaced by src;
    src.shape == x.shape without axis; a negative index wraps."""
    op = "select_scatter"
    like = Like(x, op)
    xc = as_input(x)

    def src_shape():
        xs = like.shape
        a = wrap_axis(axis, len(xs))
        if a is None or not xs:
            return None
        return xs[:a] + xs[a + 1:]

    sc = like.source(src, "src", src_shape)
    res, oc = _out(like, out, op)
    _C.select_scatter(xc, sc, axis, index, oc)
    return res


def masked_scatter(x, mask, source, *, out=None):
    """mask (bool) broadcasts to x.shape; walking x in row-major order, the
    k-th True position receives source.flatten()[k]. ValueError when source
    has fewer elements than mask has True values."""
    op = "masked_scatter"
    like = Like(x, op)
    xc, mc = as_input(x), as_mask(mask, op)
    sc = like.source(source, "source", lambda: like.shape)
    res, oc = _out(like, out, op)
    _C.masked_scatter(xc, mc, sc, oc)
    return res


def tensor_scatter(cache, update, write_indices=None, *, axis=-2, mode="linear", out=None):
    """ONNX TensorScatter: for each batch b (dimension 0), update[b] is
    written into cache[b] along axis starting at write_indices[b] (0 when
    None); mode "circular" wraps around the axis, "linear" does not."""
    op = "tensor_scatter"
    m = _choice(_TENSOR_SCATTER_MODES, mode, op, "mode")
    like = Like(cache, op, "cache")
    cc, uc = as_input(cache), as_input(update)
    wc = None if write_indices is None else as_index(write_indices, op, "write_indices")
    res, oc = _out(like, out, op)
    _C.tensor_scatter(cc, uc, wc, axis, m, oc)
    return res


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------
def set_num_threads(n):
    """Process-wide thread count; n < 1 resets to the default (the CPUs this
    process may use, or SCATTERKIT_NUM_THREADS). Results do not depend on it."""
    _C.set_num_threads(n)


def get_num_threads():
    return _C.get_num_threads()

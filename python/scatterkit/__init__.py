"""scatterkit: the tensor scatter/gather operator family.

Tensors may be NumPy arrays, torch tensors or any other object that speaks
DLPack; inputs are never copied (any strides, including zero and negative
ones, are read in place). The result has the kind of ``x``: NumPy in, NumPy
out; torch in, torch out; any other DLPack producer gets a NumPy array.
Every function returns a new tensor unless ``out=`` is given; ``out=x`` is the
in-place form. Errors: ``TypeError`` (dtype), ``ValueError`` (shape, axis,
argument), ``IndexError`` (index out of range); on an error nothing has been
written. ``x`` may also be a Python scalar or (nested) list, read as
``numpy.asarray`` reads it; index arguments may be Python ints or lists (made
int64), masks Python bools or lists.

>>> import numpy as np, scatterkit as sk
>>> sk.scatter([0, 0, 0], [2, 0, 2], np.array([1, 2, 3]), 0, reduce="sum").tolist()
[2, 0, 4]
"""

import operator

from . import _C
from ._args import (OPERATORS, _GATHER_MODES, _REDUCE, _SCATTER_MODES, _TENSOR_SCATTER_MODES, _choice, _flag,
                    _is_axes, _out, _slice_args, _source_shape, _written)
from ._tensors import Like, as_index, as_input, as_mask, as_x, shape_of

__version__ = _C.__version__

__all__ = [
    *OPERATORS,
    "set_num_threads",
    "get_num_threads",
    "empty_cache",
    "set_buffer_cache_limit",
    "buffer_cache_info",
    "last_kernel",
]

ArgumentTypeError = _C.ArgumentTypeError


# ---------------------------------------------------------------------------
# Gather-type operators
# ---------------------------------------------------------------------------
def gather(x, index, axis, *, mode="error", fill_value=0):
    """out[p] = x[p with p[axis] = index[p]] (torch.gather, take_along_axis).

    ``axis`` may be a tuple of M axes: then ``index.shape == out.shape + (M,)``
    and the k-th index component addresses ``axis[k]``.
    mode: "error" (IndexError), "clip", or "fill" (writes fill_value).

    >>> import numpy as np, scatterkit as sk
    >>> x = np.array([[1, 2], [3, 4]])
    >>> sk.gather(x, np.array([[0, 0], [1, 0]]), 1).tolist()
    [[1, 1], [4, 3]]
    >>> sk.gather(x, np.array([[5], [-1]]), 1, mode="fill", fill_value=-9).tolist()
    [[-9], [4]]
    """
    op = "gather"
    x = as_x(x, op)
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
    out.shape == x.shape[:axis] + index.shape + x.shape[axis+1:].

    >>> import numpy as np, scatterkit as sk
    >>> x = np.arange(6).reshape(2, 3)
    >>> sk.index_select(x, np.array([2, 0]), 1).tolist()
    [[2, 0], [5, 3]]
    >>> sk.index_select(x, np.array([7, -1]), 1, mode="clip").tolist()
    [[2, 2], [5, 5]]
    """
    op = "index_select"
    x = as_x(x, op)
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
    out.shape == index.shape[:-1] + x.shape[batch_dims + k:].

    >>> import numpy as np, scatterkit as sk
    >>> x = np.arange(4).reshape(2, 2)
    >>> sk.gather_nd(x, np.array([[0, 1], [1, 0]])).tolist()
    [1, 2]
    >>> sk.gather_nd(x, np.array([[1]])).tolist()
    [[2, 3]]
    """
    op = "gather_nd"
    x = as_x(x, op)
    m = _choice(_GATHER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    fill = like.fill(fill_value, m)
    out = like.empty(_C.gather_nd_shape(xc, ic, batch_dims))
    _C.gather_nd(xc, ic, batch_dims, m, fill, out, fresh_out=True)
    return out


def masked_select(x, mask):
    """The 1-d tensor of x's elements where the broadcast mask is True, in
    row-major order.

    >>> import numpy as np, scatterkit as sk
    >>> sk.masked_select(np.array([[1, 2], [3, 4]]), np.array([True, False])).tolist()
    [1, 3]
    """
    op = "masked_select"
    x = as_x(x, op)
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
    "amin". mode: "error", "clip" or "drop". out=x writes in place.

    >>> import numpy as np, scatterkit as sk
    >>> x = np.zeros(4, np.float32)
    >>> src = np.array([1.0, 2.0, 3.0], np.float32)
    >>> sk.scatter(x, np.array([0, 1, 0]), src, 0, reduce="sum").tolist()
    [4.0, 2.0, 0.0, 0.0]
    >>> sk.scatter(x, np.array([0, 1, 0]), src, 0).tolist()  # assign: the last update wins
    [3.0, 2.0, 0.0, 0.0]
    >>> _ = sk.scatter(x, np.array([3]), 5.0, 0, out=x)       # in place, a scalar src
    >>> x.tolist()
    [0.0, 0.0, 0.0, 5.0]
    """
    op = "scatter"
    x = as_x(x, op)
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    axes = _is_axes(axis)
    query = _C.scatter_axes_source_shape if axes else _C.scatter_source_shape
    sc = like.source(src, "src", _source_shape(query, xc, ic, axis))
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
    index_reduce, paddle.scatter).

    >>> import numpy as np, scatterkit as sk
    >>> x = np.zeros((3, 2))
    >>> sk.index_scatter(x, np.array([2, 0, 2]), np.ones((3, 2)), 0, reduce="sum").tolist()
    [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    op = "index_scatter"
    x = as_x(x, op)
    include_self = _flag(include_self, op, "include_self")
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    shape_fn = _source_shape(_C.index_scatter_source_shape, xc, ic, axis)
    uc = like.source(updates, "updates", shape_fn)
    res, oc = _out(like, out, op)
    _C.index_scatter(xc, ic, uc, axis, r, include_self, m, oc)
    return _written(res, out)


def scatter_nd(x, index, updates, *, reduce=None, mode="error", out=None):
    """The inverse of gather_nd without batch dims (ONNX ScatterND,
    index_put_): updates.shape == index.shape[:-1] + x.shape[k:].

    >>> import numpy as np, scatterkit as sk
    >>> x = np.zeros((2, 2), np.int64)
    >>> index = np.array([[0, 1], [1, 0], [0, 1]])
    >>> sk.scatter_nd(x, index, np.array([5, 6, 7]), reduce="sum").tolist()
    [[0, 12], [6, 0]]
    """
    op = "scatter_nd"
    x = as_x(x, op)
    r = _choice(_REDUCE, reduce, op, "reduce")
    m = _choice(_SCATTER_MODES, mode, op, "mode")
    like = Like(x, op)
    xc, ic = as_input(x, op, "x"), as_index(index, op)
    uc = like.source(updates, "updates", _source_shape(_C.scatter_nd_source_shape, xc, ic))
    res, oc = _out(like, out, op)
    _C.scatter_nd(xc, ic, uc, r, m, oc)
    return _written(res, out)


def slice_scatter(x, src, axis=0, start=None, stop=None, step=1, *, out=None):
    """out = x with x[start:stop:step] along axis replaced by src (Python
    slice rules). axis/start/stop/step may be equal-length sequences to slice
    several axes at once; src broadcasts to the slice's shape.

    >>> import numpy as np, scatterkit as sk
    >>> sk.slice_scatter(np.zeros(6, np.int64), np.array([1, 2, 3]), 0, None, None, 2).tolist()
    [1, 0, 2, 0, 3, 0]
    >>> sk.slice_scatter(np.zeros((2, 3), np.int64), 9, (0, 1), (1, 1), (2, 3)).tolist()
    [[0, 0, 0], [0, 9, 9]]
    """
    op = "slice_scatter"
    x = as_x(x, op)
    axes, starts, stops, steps = _slice_args(op, axis, start, stop, step)
    like = Like(x, op)
    xc = as_input(x, op, "x")
    sc = like.source(src, "src", lambda: None)
    res, oc = _out(like, out, op)
    _C.slice_scatter(xc, sc, axes, starts, stops, steps, oc)
    return _written(res, out)


def diagonal_scatter(x, src, offset=0, axis1=0, axis2=1, *, out=None):
    """out = x with numpy.diagonal(x, offset, axis1, axis2) replaced by src;
    src.shape must equal the diagonal's shape.

    >>> import numpy as np, scatterkit as sk
    >>> sk.diagonal_scatter(np.zeros((2, 3), np.int64), np.array([7, 8])).tolist()
    [[7, 0, 0], [0, 8, 0]]
    >>> sk.diagonal_scatter(np.zeros((2, 3), np.int64), np.array([7, 8]), 1).tolist()
    [[0, 7, 0], [0, 0, 8]]
    """
    op = "diagonal_scatter"
    x = as_x(x, op)
    like = Like(x, op)
    xc = as_input(x, op, "x")
    shape_fn = _source_shape(_C.diagonal_scatter_source_shape, xc, offset, axis1, axis2)
    sc = like.source(src, "src", shape_fn)
    res, oc = _out(like, out, op)
    _C.diagonal_scatter(xc, sc, offset, axis1, axis2, oc)
    return _written(res, out)


def select_scatter(x, src, axis, index, *, out=None):
    """out = x with x[..., index, ...] along axis replaced by src;
    src.shape == x.shape without axis; a negative index wraps.

    >>> import numpy as np, scatterkit as sk
    >>> sk.select_scatter(np.zeros((2, 3), np.int64), np.array([1, 2]), 1, -1).tolist()
    [[0, 0, 1], [0, 0, 2]]
    """
    op = "select_scatter"
    x = as_x(x, op)
    like = Like(x, op)
    xc = as_input(x, op, "x")
    sc = like.source(src, "src", _source_shape(_C.select_scatter_source_shape, xc, axis))
    res, oc = _out(like, out, op)
    _C.select_scatter(xc, sc, axis, index, oc)
    return _written(res, out)


def masked_scatter(x, mask, source, *, out=None):
    """mask (bool) broadcasts to x.shape; walking x in row-major order, the
    k-th True position receives source.flatten()[k]. ValueError when source
    has fewer elements than mask has True values.

    >>> import numpy as np, scatterkit as sk
    >>> mask = np.array([True, False, True, False])
    >>> sk.masked_scatter(np.zeros(4, np.int64), mask, np.array([5, 6, 7])).tolist()
    [5, 0, 6, 0]
    """
    op = "masked_scatter"
    x = as_x(x, op)
    like = Like(x, op)
    xc, mc = as_input(x, op, "x"), as_mask(mask, op)
    sc = like.source(source, "source", _source_shape(_C.masked_scatter_source_shape, xc, mc))
    res, oc = _out(like, out, op)
    _C.masked_scatter(xc, mc, sc, oc)
    return _written(res, out)


def tensor_scatter(cache, update, write_indices=None, *, axis=-2, mode="linear", out=None):
    """ONNX TensorScatter: for each batch b (dimension 0), update[b] is
    written into cache[b] along axis starting at write_indices[b] (0 when
    None); mode "circular" wraps around the axis, "linear" does not.

    >>> import numpy as np, scatterkit as sk
    >>> cache = np.zeros((2, 4, 1), np.int64)          # 2 batches, 4 positions
    >>> update = np.array([[[1], [2]], [[3], [4]]])     # 2 new positions each
    >>> sk.tensor_scatter(cache, update, np.array([1, 3]), mode="circular")[..., 0].tolist()
    [[0, 1, 2, 0], [4, 0, 0, 3]]
    """
    op = "tensor_scatter"
    cache = as_x(cache, op, "cache")
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
    """Process-wide thread count; n < 1 resets to the default
    (SCATTERKIT_NUM_THREADS, else OMP_NUM_THREADS, else the CPUs this process
    may use: its affinity mask capped by its cgroup CPU quota, or
    SCATTERKIT_CPUS, a testing override); counts above
    256 mean 256 (get_num_threads then returns 256). Results do not depend on it.
    After a parallel call the threads poll for the next call for
    SCATTERKIT_SPIN_US microseconds (default 2000; 0: they sleep at once),
    yielding the CPU to any other runnable thread.

    >>> import scatterkit as sk
    >>> sk.set_num_threads(2)
    >>> sk.get_num_threads()
    2
    >>> sk.set_num_threads(0)  # back to the default
    """
    _C.set_num_threads(n)


def get_num_threads():
    """The process-wide thread count the operators use (see set_num_threads).

    >>> import scatterkit as sk
    >>> sk.get_num_threads() >= 1
    True
    """
    return _C.get_num_threads()


def last_kernel():
    """The name of the kernel path the last operator call on this thread ran,
    e.g. ``"cpu/scatter/segments"`` ("" before any). For tests and
    performance work: the path of a name is its file, ``src/<name>.c``.

    >>> import numpy as np, scatterkit as sk
    >>> _ = sk.index_select(np.ones((4, 8), np.float32), np.array([3, 0]), 0)
    >>> sk.last_kernel().startswith("cpu/gather/")
    True
    """
    return _C.last_kernel()


def empty_cache():
    """Gives cached memory back to the system; returns the bytes freed.
    Results of 1 MiB and more are allocated from a cache of reused blocks
    (their pages are already there, so no page faults), and the C library
    keeps its large scratch (the reductions' partial results) for the next
    call the same way. Results still alive are not affected.

    >>> import scatterkit as sk
    >>> sk.empty_cache() >= 0
    True
    """
    return _C.buffer_cache_clear() + _C.release_cached_memory()


def set_buffer_cache_limit(nbytes):
    """Most bytes of freed result buffers kept for reuse (default 1 GiB, or
    SCATTERKIT_BUFFER_CACHE_MB); 0 turns the cache off and empties it.

    >>> import scatterkit as sk
    >>> old = sk.buffer_cache_info()["limit"]
    >>> sk.set_buffer_cache_limit(256 << 20)
    >>> sk.buffer_cache_info()["limit"]
    268435456
    >>> sk.set_buffer_cache_limit(old)
    """
    _C.buffer_cache_set_limit(operator.index(nbytes))


def buffer_cache_info():
    """{'blocks', 'bytes', 'limit'}: what the result cache holds now.

    >>> import scatterkit as sk
    >>> sorted(sk.buffer_cache_info())
    ['blocks', 'bytes', 'limit']
    """
    blocks, held, limit = _C.buffer_cache_info()
    return {"blocks": blocks, "bytes": held, "limit": limit}


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

from ._backward import (  # noqa: E402  (they call the forward functions above)
    gather_backward,
    index_select_backward,
    gather_nd_backward,
    masked_select_backward,
    scatter_backward,
    index_scatter_backward,
    scatter_nd_backward,
    slice_scatter_backward,
    diagonal_scatter_backward,
    select_scatter_backward,
    masked_scatter_backward,
    tensor_scatter_backward,
)

# CUDA tensors: each operator runs on x's device and the caller's stream
# (stream=, or torch's / CuPy's current one): scatterkit/_device.py.
from . import _device  # noqa: E402

_device.install(globals())

# The plain functions given torch tensors that require grad run through
# scatterkit.torch (the backward functions refuse them): never a silent detach.
# Installed after _device, so that the functions it keeps (_route.PLAIN) are
# the device-aware ones.
from . import _route  # noqa: E402

_route.install(globals(), OPERATORS, [n for n in __all__ if n.endswith("_backward")])

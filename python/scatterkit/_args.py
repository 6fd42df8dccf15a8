"""Argument plumbing shared by the forward and backward functions: the
reduce and mode tables, bool and axis arguments, result buffers, and the
shapes a scalar source is broadcast to."""

import numpy as np

from . import _C
from ._tensors import as_output, int_or_none, mark_written

# The twelve operators, the one list the package, scatterkit.torch and the
# CUDA wrappers name them by.
OPERATORS = ("gather", "scatter", "index_select", "index_scatter", "gather_nd", "scatter_nd",
             "slice_scatter", "diagonal_scatter", "select_scatter", "masked_scatter",
             "masked_select", "tensor_scatter")

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


def _source_shape(query, x, *args):
    """shape_fn for Like.source: the shape a scalar or 0-d src/updates/source
    is broadcast to, by the C library's rule (_C.<op>_source_shape(x, ...)).
    x may be given as its shape (a backward's x). None when the arguments are
    invalid: the source is left 0-d and the operator reports the error."""

    def shape():
        try:
            return query(_shaped(x) if isinstance(x, tuple) else x, *args)
        except (TypeError, ValueError, IndexError):
            return None

    return shape


def _shaped(shape):
    """A tensor of that shape for a query that reads only shapes."""
    return np.broadcast_to(np.zeros((), np.uint8), shape)


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

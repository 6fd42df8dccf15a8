"""The gradient buffers of the backward functions (_backward.py): shapes given
as tuples, the caller's grad_<input>= buffers and the checks they get before
C writes anything (docs/CONTRACT.md, Errors: a failed call writes nothing),
and the 0-d source whose gradient is summed from a full-size one."""

import operator

import numpy as np

from . import _C
from ._tensors import as_input, as_output, dtype_name, is_scalar, plain_scalar, shape_of, torch_of

_INT64_MAX = 2**63 - 1


def _shape_arg(v, op, name):
    """The shape of a tensor argument that backward only needs the shape of
    (a tensor, or its shape as a tuple/list/torch.Size of ints)."""
    if not isinstance(v, (tuple, list)):
        return shape_of(v, op, name)
    try:
        shape = tuple(operator.index(s) for s in v)
    except TypeError:
        raise TypeError(f"{op}: {name} must be a tensor or a shape (a sequence of ints), "
                        f"got {v!r}") from None
    numel = 1
    for s in shape:
        if s < 0:
            raise ValueError(f"{op}: {name} = {list(shape)} has a negative dimension")
        numel *= s
        if s > _INT64_MAX or numel > _INT64_MAX:
            raise ValueError(f"{op}: {name} = {list(shape)} has more than 2**63 - 1 elements")
    return shape


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


def _view_input_grad(like, x, given, name="x"):
    """(x's shape, grad returned, grad for C) of the input of a view-type
    backward (x, or tensor_scatter's cache; a tensor or its shape). grad_out
    has that shape, checked here so that the error names grad_out (C would
    name the gradient it allocates from that shape)."""
    shape = _shape_arg(x, like.op, name)
    got = shape_of(like.x, like.op, "grad_out")
    if got != shape:
        raise ValueError(f"{like.op}: grad_out must have shape {list(shape)} ({name}'s), "
                         f"got {list(got)}")
    return (shape,) + _grad_buffer(like, given, shape, "grad_" + name)


def _byte_span(v):
    """(memory space, first byte, end byte) of what v's elements span, or None
    where that is not known here (an empty tensor, another kind)."""
    if isinstance(v, np.ndarray):
        if v.size == 0:
            return None
        space, lo, item, strides = "cpu", v.__array_interface__["data"][0], v.itemsize, v.strides
    else:
        if torch_of(v) is None or v.numel() == 0:
            return None
        space, lo, item = str(v.device), v.data_ptr(), v.element_size()
        strides = tuple(s * item for s in v.stride())
    hi = lo
    for n, st in zip(v.shape, strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return space, lo, hi + item


def _check_apart(op, a, name_a, b, name_b):
    """Refuses a caller's buffer a that shares memory with the caller's buffer
    b, as C does for the buffers it is handed itself."""
    if a is None or a is False or b is None or b is False:
        return
    sa, sb = _byte_span(a), _byte_span(b)
    if sa and sb and sa[0] == sb[0] and sa[1] < sb[2] and sb[1] < sa[2]:
        raise ValueError(f"{op}: {name_a} overlaps {name_b}; use a separate {name_a}")


def _check_point_grad(like, given, dst, name, others):
    """A caller's 0-d gradient buffer (dst: as handed to C) that is written
    last, from the sum of a full-size gradient: every check C would make,
    before anything is written. others: (buffer, name) pairs it must not
    overlap."""
    _check_grad(like, given, (), name)
    for other, other_name in others:
        _check_apart(like.op, given, name, other, other_name)
    try:
        _C.copy(dst, dst)  # its value onto itself: C's checks of a written buffer
    except (ValueError, TypeError) as e:
        raise type(e)(str(e).replace("copy: out", f"{like.op}: {name}", 1)) from None


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


def _point_source_grad(like, given, arg, full_shape, others):
    """(grad returned, full-size grad for C, finish) of a 0-d source read at
    every position of full_shape: C writes the full-size gradient, finish()
    sums it into the 0-d one."""
    given_by_caller = given is not None
    res, dst = _grad_buffer(like, given, (), "grad_" + arg)
    if given_by_caller:
        _check_point_grad(like, res, dst, "grad_" + arg, others)
    full = like.empty(full_shape)
    return res, full, lambda: _sum_into(full, dst)


def _source_grad(like_x, like, src, arg, shape_fn, given, others=()):
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
            res, full, finish = _point_source_grad(like, given, arg, full_shape, others)
            return like_x.broadcast(src, full_shape), res, full, finish
    res, gc = _grad_buffer(like, given, shape_of(src, like.op, arg), "grad_" + arg)
    return like_x.source(src, arg, shape_fn), res, gc, None


def _view_source(like, src, shape_fn, given, arg, others=()):
    """src of a view-type scatter backward (tensor, shape or scalar) ->
    (grad returned, grad for C, finish)."""
    src = plain_scalar(src)
    if is_scalar(src):
        return None, None, None
    shape = _shape_arg(src, like.op, arg)  # only its shape is read
    if shape == () and shape_fn is not None and given is not False:
        full_shape = shape_fn()
        if full_shape:
            return _point_source_grad(like, given, arg, full_shape, others)
    res, gc = _grad_buffer(like, given, shape, "grad_" + arg)
    return res, gc, None

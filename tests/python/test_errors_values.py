"""CONTRACT §4, ValueError: shape, axis and argument errors, out= that
is the wrong shape, overlaps an input or cannot be written; messages name
the operator and the argument. test_errors.py has the IndexError and
TypeError cases and the failed calls that must write nothing."""
import re

import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers_errors import OPS, call_op, op_in, valid_args


# --------------------------------------------------------------------------
# ValueError
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [2, -3, 100])
def test_axis_out_of_range(op, axis):
    x, idx, other, _ = valid_args(op)
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other)
    msg = str(ei.value)
    assert op_in(op, msg) and "axis" in msg, msg
    assert str(axis) in msg, f"given axis {axis} missing: {msg}"


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("reduce", ["max", "add", "", "multiply", "min"])
def test_bad_reduce(op, reduce):
    x, idx, other, axis = valid_args(op)
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other, reduce=reduce)
    msg = str(ei.value)
    assert op_in(op, msg) and "reduce" in msg, msg
    if reduce:
        assert reduce in msg, f"given reduce {reduce!r} missing: {msg}"


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mode", ["wrap", "raise", "", "clamp"])
def test_bad_mode(op, mode):
    x, idx, other, axis = valid_args(op)
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other, mode=mode)
    msg = str(ei.value)
    assert op_in(op, msg) and "mode" in msg, msg


@pytest.mark.parametrize("op", OPS)
def test_mode_of_the_other_family(op):
    """'drop' is for scatter-type ops, 'fill' for gather-type ops (CONTRACT
    Indices): the other one is an argument error."""
    x, idx, other, axis = valid_args(op)
    mode = "drop" if op in ("gather", "index_select") else "fill"
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other, mode=mode)
    assert "mode" in str(ei.value), str(ei.value)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("shape", [(5, 9), (10, 5), (5, 10, 1), (50,)])
def test_out_wrong_shape(op, shape):
    x, idx, other, axis = valid_args(op)
    out = np.zeros(shape, np.float32)
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other, out=out)
    msg = str(ei.value)
    assert op_in(op, msg) and "out" in msg, msg
    assert re.search(r"\D+".join(str(s) for s in shape), msg), f"given shape {shape} missing: {msg}"
    assert (out == 0).all()


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_partially_overlapping_x(op):
    _, idx, other, axis = valid_args(op)
    buf = np.arange(51, dtype=np.float32)
    x = buf[:50].reshape(5, 10)
    out = buf[1:].reshape(5, 10)
    before = buf.copy()
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, other, out=out)
    assert op_in(op, str(ei.value)) and "out" in str(ei.value), str(ei.value)
    np.testing.assert_array_equal(buf, before)


def test_out_overlapping_x_with_other_layout():
    """out and x cover the same memory with different strides: not the
    in-place form (that needs the same data and layout), so refused."""
    buf = np.arange(16, dtype=np.float32).reshape(4, 4)
    before = buf.copy()
    with pytest.raises(ValueError):
        sk.scatter(buf, np.zeros((1, 4), np.int64), np.ones((1, 4), np.float32), 0, out=buf.T)
    t = torch.arange(16.0).reshape(4, 4)
    with pytest.raises(ValueError):
        sk.scatter(t, torch.zeros(1, 4, dtype=torch.int64), torch.ones(1, 4), 0, out=t.t())
    np.testing.assert_array_equal(buf, before)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_overlapping_src(op):
    x, idx, _, axis = valid_args(op)
    shape = (4, 8) if op == "scatter" else (5, 8)
    n = int(np.prod(shape))
    buf = np.zeros(n + 50, np.float32)
    src = buf[:n].reshape(shape)
    out = buf[1:51].reshape(5, 10)
    with pytest.raises(ValueError) as ei:
        call_op(op, x, idx, axis, src, out=out)
    assert (buf == 0).all()
    msg = str(ei.value)
    # CONTRACT §4: the message names the operator and the argument(s) concerned
    arg = "src" if op == "scatter" else "updates"
    assert op_in(op, msg) and "out" in msg and arg in msg, msg


def test_out_overlapping_index():
    x = np.zeros((2, 4), np.int64)
    buf = np.zeros(12, np.int64)
    idx = buf[:8].reshape(2, 4)
    out = buf[4:].reshape(2, 4)
    with pytest.raises(ValueError) as ei:
        sk.scatter(x, idx, np.ones((2, 4), np.int64), 0, out=out)
    assert (buf == 0).all()
    msg = str(ei.value)
    assert "out" in msg and "index" in msg, msg


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_read_only_out_is_refused(op):
    """A read-only NumPy array must not be written: as out, or as x in place."""
    x, idx, other, axis = valid_args(op)
    out = np.zeros((5, 10), np.float32)
    out.flags.writeable = False
    with pytest.raises((ValueError, TypeError)) as ei:
        call_op(op, x, idx, axis, other, out=out)
    assert "out" in str(ei.value), str(ei.value)
    assert (out == 0).all()
    before = x.copy()
    x.flags.writeable = False
    with pytest.raises((ValueError, TypeError)):
        call_op(op, x, idx, axis, other, out=x)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_with_zero_strides(op):
    x, idx, other, axis = valid_args(op, "torch")
    out = torch.zeros(5, 1).expand(5, 10)
    with pytest.raises(ValueError):
        call_op(op, x, idx, axis, other, out=out)
    assert (out == 0).all()


def test_gather_shape_errors():
    x = np.zeros((5, 10), np.float32)
    for idx in (np.zeros((4,), np.int64),          # index.ndim != x.ndim
                np.zeros((4, 8, 1), np.int64),
                np.zeros((6, 8), np.int64)):       # index.shape[0] > x.shape[0], axis 1
        with pytest.raises(ValueError) as ei:
            sk.gather(x, idx, 1)
        assert op_in("gather", str(ei.value)), str(ei.value)


def test_scatter_shape_errors():
    x = np.zeros((5, 10), np.float32)
    idx = np.zeros((4, 8), np.int64)
    bad = [
        (idx, np.zeros((3, 8), np.float32)),       # src smaller than index
        (idx, np.zeros((4, 7), np.float32)),
        (idx, np.zeros((4, 8, 2), np.float32)),    # src.ndim != index.ndim
        (np.zeros((4,), np.int64), np.zeros((4,), np.float32)),      # index.ndim != x.ndim
        (np.zeros((6, 8), np.int64), np.zeros((6, 8), np.float32)),  # 6 > x.shape[0]
    ]
    for i, s in bad:
        with pytest.raises(ValueError) as ei:
            sk.scatter(x, i, s, 1)
        assert op_in("scatter", str(ei.value)), str(ei.value)


def test_index_scatter_shape_errors():
    x = np.zeros((5, 10), np.float32)
    bad = [
        (np.zeros((2, 3), np.int64), np.zeros((5, 6), np.float32)),  # 2-d index
        (np.zeros((3,), np.int64), np.zeros((5, 4), np.float32)),    # L mismatch
        (np.zeros((3,), np.int64), np.zeros((4, 3), np.float32)),    # other dim mismatch
        (np.zeros((3,), np.int64), np.zeros((5, 3, 1), np.float32)),
        (np.zeros((), np.int64), np.zeros((5, 10), np.float32)),     # 0-d: axis removed
    ]
    for i, u in bad:
        with pytest.raises(ValueError) as ei:
            sk.index_scatter(x, i, u, 1)
        assert op_in("index_scatter", str(ei.value)), str(ei.value)


def test_index_select_axis_error_names_axis():
    with pytest.raises(ValueError) as ei:
        sk.index_select(np.zeros((2, 3)), np.zeros(2, np.int64), -3)
    assert "axis" in str(ei.value)


def test_error_types_hierarchy():
    """The errors are the builtin types (or subclasses), as CONTRACT says."""
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(IndexError):
        sk.gather(x, np.full((2, 3), 3), 1)
    with pytest.raises(TypeError):
        sk.gather(x, np.zeros((2, 3), np.float32), 1)
    with pytest.raises(ValueError):
        sk.gather(x, np.zeros((2, 3), np.int64), 5)


@pytest.mark.parametrize("index", [10**30, -10**30, 2**63, -2**63 - 1])
def test_select_scatter_index_beyond_64_bits_is_an_index_error(index):
    # out of range of any axis, like any other out-of-range index; x untouched
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError, match=r"select_scatter: index = .* out of range"):
        sk.select_scatter(x, np.ones(4, np.float32), 0, index)
    with pytest.raises(IndexError, match=r"select_scatter_backward: index"):
        sk.select_scatter_backward(np.ones((3, 4), np.float32), (3, 4), (4,), 0, index)
    assert not x.any()


def test_gradient_buffers_are_named_in_errors():
    # a wrong gradient buffer is named as the caller passed it: grad_x,
    # grad_src or grad_updates (not "out" or "src")
    x = np.zeros((4, 3), np.float32)
    g = np.ones((4, 3), np.float32)
    i = np.array([0, 2])
    u = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"index_scatter_backward: grad_x .*shape"):
        sk.index_scatter_backward(g, x, i, u, 0, reduce="sum", grad_x=np.zeros((5, 3), np.float32))
    buf = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"index_scatter_backward: grad_updates overlaps grad_x"):
        sk.index_scatter_backward(g, x, i, u, 0, reduce="sum", grad_x=buf, grad_updates=buf[:2])
    with pytest.raises(ValueError, match=r"scatter_backward: grad_src overlaps grad_out"):
        sk.scatter_backward(g, x, i[:, None].repeat(3, 1), u, 0, reduce="sum", grad_src=g[:2])
    with pytest.raises(TypeError, match=r"slice_scatter_backward: grad_x must have dtype float32"):
        sk.slice_scatter_backward(g, (4, 3), (2, 3), 0, None, None, 2,
                                  grad_x=np.zeros((4, 3), np.float64))


def test_include_self_must_be_a_bool():
    """include_self="False" would be truthy: refused, as PyTorch refuses it;
    the error is both a ValueError (CONTRACT §4) and a TypeError."""
    x = torch.ones(3)
    for bad in ("False", None, [], 0, 1.0):
        for call in (lambda: sk.scatter(x, [0], torch.tensor([5.0]), 0, reduce="sum",
                                        include_self=bad),
                     lambda: sk.index_scatter(x, [0], torch.tensor([5.0]), 0, reduce="sum",
                                              include_self=bad),
                     lambda: sk.scatter_backward(torch.ones(3), x, [0], torch.tensor([5.0]), 0,
                                                 reduce="sum", include_self=bad)):
            with pytest.raises(ValueError, match="include_self") as e:
                call()
            assert isinstance(e.value, TypeError)
    assert float(sk.scatter(x, [0], torch.tensor([5.0]), 0, reduce="sum",
                            include_self=np.bool_(False))[0]) == 5.0


@pytest.mark.parametrize("call", [
    lambda x, i: sk.gather(x, i, 1.0),
    lambda x, i: sk.gather(x, i, None),
    lambda x, i: sk.slice_scatter(x, x, 0, 0.5),
    lambda x, i: sk.select_scatter(x, x[0], 0, 1.0),
    lambda x, i: sk.diagonal_scatter(x, x[0], 0.5),
    lambda x, i: sk.gather(None, i, 0),
], ids=["axis-float", "axis-none", "start-float", "index-float", "offset-float", "x-none"])
def test_argument_of_the_wrong_type_is_a_value_error_too(call):
    x, i = torch.zeros(4, 4), torch.zeros(4, 4, dtype=torch.int64)
    with pytest.raises(ValueError) as e:
        call(x, i)
    assert isinstance(e.value, TypeError) and isinstance(e.value, sk.ArgumentTypeError)


def test_zero_d_index_message_has_no_empty_position():
    with pytest.raises(IndexError) as e:
        sk.index_select(np.arange(4.0), np.array(9), 0)
    assert "index = 9 is out of range for axis 0 of size 4" in str(e.value)

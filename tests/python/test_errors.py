"""SPEC section 4: TypeError (dtype), ValueError (shape, axis, argument),
IndexError (index out of range); messages name the operator and the argument
(for an index: its position and value, the axis and its size); a failed call
writes nothing (out and, in place, x are exactly as before)."""
import re

import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import DTYPES, REDUCES, TORCH_DTYPE, bits_of, reduces_for, to_kind, values

OPS = ["gather", "scatter", "index_select", "index_scatter"]


def _op_in(op, msg):
    # "scatter" must name scatter itself, not only "index_scatter"
    return re.search(rf"(?<![A-Za-z0-9_]){op}(?![A-Za-z0-9_])", msg) is not None


def _call(op, x, idx, axis, other=None, **kw):
    if op == "gather":
        return sk.gather(x, idx, axis, **kw)
    if op == "index_select":
        return sk.index_select(x, idx, axis, **kw)
    if op == "scatter":
        return sk.scatter(x, idx, other, axis, **kw)
    return sk.index_scatter(x, idx, other, axis, **kw)


def _valid_args(op, kind="numpy", dtype="float32", index_dtype="int64"):
    """Valid (x, index, other, axis) for x of shape (5, 10), axis 1; the
    index position [3, 7] (or [7] for the 1-d index of index_scatter)."""
    rng = np.random.default_rng(0)
    x = values(rng, (5, 10), dtype)
    if op == "index_scatter":
        idx = torch.from_numpy(rng.integers(0, 10, (8,)))
        other = values(rng, (5, 8), dtype)
    else:
        idx = torch.from_numpy(rng.integers(0, 10, (4, 8)))
        other = values(rng, (4, 8), dtype) if op == "scatter" else None
    idx = idx.to(TORCH_DTYPE[index_dtype])
    conv = (lambda t: t) if (kind == "torch" or dtype == "bfloat16") else to_kind_np
    return conv(x), conv(idx), (None if other is None else conv(other)), 1


def to_kind_np(t):
    return to_kind(t, "numpy")


# --------------------------------------------------------------------------
# IndexError
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("bad", [12, 10, -11, 2**31 - 1])
def test_index_out_of_range_message(op, kind, index_dtype, bad):
    x, idx, other, axis = _valid_args(op, kind, index_dtype=index_dtype)
    pos = (7,) if op == "index_scatter" else (3, 7)
    idx[pos] = bad
    with pytest.raises(IndexError) as ei:
        _call(op, x, idx, axis, other)
    msg = str(ei.value)
    # SPEC example: "scatter: index[3, 7] = 12 is out of range for axis 1 of size 10"
    assert _op_in(op, msg), msg
    assert "index" in msg, msg
    if len(pos) == 2:
        assert re.search(r"\b3\D+7\b", msg), f"position [3, 7] missing: {msg}"
    else:
        assert re.search(r"\[\s*7\s*\]", msg), f"position [7] missing: {msg}"
    assert re.search(rf"(?<![\d]){re.escape(str(bad))}(?!\d)", msg), f"value {bad} missing: {msg}"
    assert re.search(r"\b10\b", msg), f"axis size 10 missing: {msg}"
    assert re.search(r"axis\D*1\b", msg), f"axis 1 missing: {msg}"


def test_index_error_spec_example():
    x = np.zeros((5, 10), np.float32)
    idx = np.zeros((4, 8), np.int64)
    idx[3, 7] = 12
    with pytest.raises(IndexError) as ei:
        sk.scatter(x, idx, np.ones((4, 8), np.float32), 1)
    msg = str(ei.value)
    for part in ("scatter", "index", "12", "axis 1", "10"):
        assert part in msg, msg
    assert re.search(r"index\s*\[\s*3\s*,\s*7\s*\]", msg), msg


def test_index_error_0d_index_select():
    with pytest.raises(IndexError) as ei:
        sk.index_select(np.zeros((3, 4)), np.array(9), 1)
    msg = str(ei.value)
    assert _op_in("index_select", msg) and "9" in msg and "4" in msg, msg


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("op,shape,idx,call", [
    ("index_select", (0, 5), [7], lambda x, i: sk.index_select(x, i, 1)),
    ("index_select", (3, 5, 0), [-6], lambda x, i: sk.index_select(x, i, 1)),
    ("gather_nd", (5, 0), [[7]], lambda x, i: sk.gather_nd(x, i)),
])
def test_index_error_with_an_empty_result(kind, op, shape, idx, call):
    # the result has no element, so no kernel reads the index: it is still
    # checked (PyTorch raises here too)
    x = to_kind(torch.zeros(shape), kind)
    i = to_kind(torch.tensor(idx), kind)
    with pytest.raises(IndexError) as ei:
        call(x, i)
    assert _op_in(op, str(ei.value)), str(ei.value)


@pytest.mark.parametrize("op", OPS)
def test_negative_index_beyond_minus_n(op):
    x, idx, other, axis = _valid_args(op)
    idx[...] = -10  # -n is valid
    _call(op, x, idx, axis, other)
    pos = (0,) if op == "index_scatter" else (0, 0)
    idx[pos] = -11
    with pytest.raises(IndexError):
        _call(op, x, idx, axis, other)


@pytest.mark.parametrize("op", OPS)
def test_out_of_range_with_non_error_modes_does_not_raise(op):
    x, idx, other, axis = _valid_args(op)
    pos = (7,) if op == "index_scatter" else (3, 7)
    idx[pos] = 12
    modes = ("clip", "fill") if op in ("gather", "index_select") else ("clip", "drop")
    for mode in modes:
        _call(op, x, idx, axis, other, mode=mode)


# --------------------------------------------------------------------------
# Nothing is written on failure
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", "bool"])
@pytest.mark.parametrize("where", ["last", "first"])
def test_failed_in_place_writes_nothing(op, dtype, where):
    """An index out of range at the LAST (or first) position of a large
    index: the call fails and x (out=x) is bitwise unchanged."""
    rng = np.random.default_rng(5)
    rows, cols = 4000, 64
    for reduce in reduces_for(dtype):
        x = values(rng, (rows, cols), dtype)
        if op == "scatter":
            idx = torch.from_numpy(rng.integers(0, rows, (3 * rows, cols)))
            src = values(rng, (3 * rows, cols), dtype)
            bad_pos = (-1, -1) if where == "last" else (0, 0)
        else:
            idx = torch.from_numpy(rng.integers(0, rows, (3 * rows,)))
            src = values(rng, (3 * rows, cols), dtype)
            bad_pos = (-1,) if where == "last" else (0,)
        idx[bad_pos] = rows
        before = bits_of(x)
        with pytest.raises(IndexError):
            if op == "scatter":
                sk.scatter(x, idx, src, 0, reduce=reduce, out=x)
            else:
                sk.index_scatter(x, idx, src, 0, reduce=reduce, out=x)
        assert torch.equal(bits_of(x), before), f"x was modified (reduce={reduce})"


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_failed_call_leaves_out_unchanged(op):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3000, 32)).astype(np.float32)
    out = np.full_like(x, 7.5)
    if op == "scatter":
        idx = rng.integers(0, 3000, (6000, 32))
        idx[-1, -1] = -3001
        src = rng.standard_normal((6000, 32)).astype(np.float32)
    else:
        idx = rng.integers(0, 3000, (6000,))
        idx[-1] = 3000
        src = rng.standard_normal((6000, 32)).astype(np.float32)
    x_before = x.copy()
    for reduce in REDUCES:
        with pytest.raises(IndexError):
            _call(op, x, idx, 0, src, reduce=reduce, out=out)
        assert (out == 7.5).all(), f"out was written (reduce={reduce})"
        np.testing.assert_array_equal(x, x_before)


def test_failed_type_and_value_errors_leave_x_unchanged():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((50, 8)).astype(np.float32)
    before = x.copy()
    idx = rng.integers(0, 50, (60, 8))
    src = rng.standard_normal((60, 8)).astype(np.float32)
    bad_calls = [
        (TypeError, lambda: sk.scatter(x, idx, src.astype(np.float64), 0, out=x)),
        (TypeError, lambda: sk.scatter(x, idx.astype(np.float32), src, 0, out=x)),
        (ValueError, lambda: sk.scatter(x, idx, src, 0, reduce="maximum", out=x)),
        (ValueError, lambda: sk.scatter(x, idx, src, 0, mode="wrap", out=x)),
        (ValueError, lambda: sk.scatter(x, idx, src[:, :4], 0, out=x)),
        (ValueError, lambda: sk.scatter(x, idx, src, 2, out=x)),
        (ValueError, lambda: sk.index_scatter(x, idx[:, 0], src[:, :5], 0, out=x)),
    ]
    for exc, fn in bad_calls:
        with pytest.raises(exc):
            fn()
        np.testing.assert_array_equal(x, before)


# --------------------------------------------------------------------------
# TypeError
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("index_dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_,
                                         np.uint32, np.uint64, np.complex64, ">i8"])
def test_bad_index_dtype(op, index_dtype):
    x, idx, other, axis = _valid_args(op)
    bad = idx.astype(index_dtype)
    with pytest.raises(TypeError) as ei:
        _call(op, x, bad, axis, other)
    msg = str(ei.value)
    assert _op_in(op, msg) and "index" in msg, msg
    assert bad.dtype.name in msg or bad.dtype.str in msg, f"given dtype missing: {msg}"
    assert "must be int32 or int64" in msg, f"expected dtypes missing: {msg}"
    assert "supported dtypes" not in msg, msg  # not the list of data dtypes


def test_bad_index_dtype_torch():
    x = torch.zeros(3, 4)
    for dt in (torch.float32, torch.int16, torch.int8, torch.bool, torch.uint16, torch.uint32,
               torch.uint64, torch.complex64):
        name = str(dt).replace("torch.", "")
        with pytest.raises(TypeError, match=f"index must be int32 or int64, got .*{name}"):
            sk.gather(x, torch.zeros(3, 4, dtype=dt), 0)
        with pytest.raises(TypeError, match="index must be int32 or int64"):
            sk.index_select(x, torch.zeros(2, dtype=dt), 0)
        with pytest.raises(TypeError, match="write_indices must be int32 or int64"):
            sk.tensor_scatter(torch.zeros(2, 4, 3), torch.zeros(2, 1, 3), torch.zeros(2, dtype=dt))


@pytest.mark.parametrize("mask_dtype", [np.uint8, np.int32, np.uint64, np.float16, np.complex64])
def test_bad_mask_dtype(mask_dtype):
    x = np.zeros((3, 4), np.float32)
    mask = np.ones((3, 4), mask_dtype)
    for call in (lambda: sk.masked_select(x, mask),
                 lambda: sk.masked_scatter(x, mask, np.ones(12, np.float32))):
        with pytest.raises(TypeError, match="mask must be bool"):
            call()


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("x_dtype,src_dtype", [("float32", "float64"), ("float16", "bfloat16"),
                                               ("int32", "int64"), ("uint8", "int8"),
                                               ("bool", "uint8"), ("int64", "float64")])
def test_src_dtype_mismatch(op, x_dtype, src_dtype):
    x, idx, other, axis = _valid_args(op, "torch", x_dtype)
    other = other.to(TORCH_DTYPE[src_dtype])
    with pytest.raises(TypeError) as ei:
        _call(op, x, idx, axis, other)
    msg = str(ei.value)
    arg = "src" if op == "scatter" else "updates"
    assert _op_in(op, msg) and arg in msg, msg
    # what was expected and what was given
    assert x_dtype in msg and src_dtype in msg, msg


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_bool_arithmetic_reduce_is_type_error(op, reduce):
    x, idx, other, axis = _valid_args(op, "torch", "bool")
    with pytest.raises(TypeError) as ei:
        _call(op, x, idx, axis, other, reduce=reduce)
    assert _op_in(op, str(ei.value)), str(ei.value)
    # bool supports assign, amax, amin
    for ok in (None, "amax", "amin"):
        _call(op, x, idx, axis, other, reduce=ok)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_dtype_mismatch(op):
    x, idx, other, axis = _valid_args(op)
    out = np.zeros(x.shape, np.float64)
    with pytest.raises(TypeError) as ei:
        _call(op, x, idx, axis, other, out=out)
    msg = str(ei.value)
    assert _op_in(op, msg) and "out" in msg, msg
    assert "float32" in msg and "float64" in msg, msg
    assert (out == 0).all()


# --------------------------------------------------------------------------
# ValueError
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [2, -3, 100])
def test_axis_out_of_range(op, axis):
    x, idx, other, _ = _valid_args(op)
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other)
    msg = str(ei.value)
    assert _op_in(op, msg) and "axis" in msg, msg
    assert str(axis) in msg, f"given axis {axis} missing: {msg}"


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("reduce", ["max", "add", "", "multiply", "min"])
def test_bad_reduce(op, reduce):
    x, idx, other, axis = _valid_args(op)
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other, reduce=reduce)
    msg = str(ei.value)
    assert _op_in(op, msg) and "reduce" in msg, msg
    if reduce:
        assert reduce in msg, f"given reduce {reduce!r} missing: {msg}"


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mode", ["wrap", "raise", "", "clamp"])
def test_bad_mode(op, mode):
    x, idx, other, axis = _valid_args(op)
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other, mode=mode)
    msg = str(ei.value)
    assert _op_in(op, msg) and "mode" in msg, msg


@pytest.mark.parametrize("op", OPS)
def test_mode_of_the_other_family(op):
    """'drop' is for scatter-type ops, 'fill' for gather-type ops (SPEC
    Indices): the other one is an argument error."""
    x, idx, other, axis = _valid_args(op)
    mode = "drop" if op in ("gather", "index_select") else "fill"
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other, mode=mode)
    assert "mode" in str(ei.value), str(ei.value)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("shape", [(5, 9), (10, 5), (5, 10, 1), (50,)])
def test_out_wrong_shape(op, shape):
    x, idx, other, axis = _valid_args(op)
    out = np.zeros(shape, np.float32)
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other, out=out)
    msg = str(ei.value)
    assert _op_in(op, msg) and "out" in msg, msg
    assert re.search(r"\D+".join(str(s) for s in shape), msg), f"given shape {shape} missing: {msg}"
    assert (out == 0).all()


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_partially_overlapping_x(op):
    _, idx, other, axis = _valid_args(op)
    buf = np.arange(51, dtype=np.float32)
    x = buf[:50].reshape(5, 10)
    out = buf[1:].reshape(5, 10)
    before = buf.copy()
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, other, out=out)
    assert _op_in(op, str(ei.value)) and "out" in str(ei.value), str(ei.value)
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
    x, idx, _, axis = _valid_args(op)
    shape = (4, 8) if op == "scatter" else (5, 8)
    n = int(np.prod(shape))
    buf = np.zeros(n + 50, np.float32)
    src = buf[:n].reshape(shape)
    out = buf[1:51].reshape(5, 10)
    with pytest.raises(ValueError) as ei:
        _call(op, x, idx, axis, src, out=out)
    assert (buf == 0).all()
    msg = str(ei.value)
    # SPEC 4: the message names the operator and the argument(s) concerned
    arg = "src" if op == "scatter" else "updates"
    assert _op_in(op, msg) and "out" in msg and arg in msg, msg


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
    x, idx, other, axis = _valid_args(op)
    out = np.zeros((5, 10), np.float32)
    out.flags.writeable = False
    with pytest.raises((ValueError, TypeError)) as ei:
        _call(op, x, idx, axis, other, out=out)
    assert "out" in str(ei.value), str(ei.value)
    assert (out == 0).all()
    before = x.copy()
    x.flags.writeable = False
    with pytest.raises((ValueError, TypeError)):
        _call(op, x, idx, axis, other, out=x)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_with_zero_strides(op):
    x, idx, other, axis = _valid_args(op, "torch")
    out = torch.zeros(5, 1).expand(5, 10)
    with pytest.raises(ValueError):
        _call(op, x, idx, axis, other, out=out)
    assert (out == 0).all()


def test_gather_shape_errors():
    x = np.zeros((5, 10), np.float32)
    for idx in (np.zeros((4,), np.int64),          # index.ndim != x.ndim
                np.zeros((4, 8, 1), np.int64),
                np.zeros((6, 8), np.int64)):       # index.shape[0] > x.shape[0], axis 1
        with pytest.raises(ValueError) as ei:
            sk.gather(x, idx, 1)
        assert _op_in("gather", str(ei.value)), str(ei.value)


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
        assert _op_in("scatter", str(ei.value)), str(ei.value)


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
        assert _op_in("index_scatter", str(ei.value)), str(ei.value)


def test_index_select_axis_error_names_axis():
    with pytest.raises(ValueError) as ei:
        sk.index_select(np.zeros((2, 3)), np.zeros(2, np.int64), -3)
    assert "axis" in str(ei.value)


def test_error_types_hierarchy():
    """The errors are the builtin types (or subclasses), as SPEC says."""
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
    the error is both a ValueError (SPEC section 4) and a TypeError."""
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

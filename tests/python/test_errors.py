"""CONTRACT §4: TypeError (dtype), ValueError (shape, axis, argument),
IndexError (index out of range); messages name the operator and the argument
(for an index: its position and value, the axis and its size); a failed call
writes nothing (out and, in place, x are exactly as before).

This file: IndexError, failed calls writing nothing, TypeError;
test_errors_values.py: ValueError."""
import re

import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import REDUCES, TORCH_DTYPE, bits_of, reduces_for, to_kind, values
from helpers_errors import OPS, call_op, op_in, valid_args


# --------------------------------------------------------------------------
# IndexError
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("bad", [12, 10, -11, 2**31 - 1])
def test_index_out_of_range_message(op, kind, index_dtype, bad):
    x, idx, other, axis = valid_args(op, kind, index_dtype=index_dtype)
    pos = (7,) if op == "index_scatter" else (3, 7)
    idx[pos] = bad
    with pytest.raises(IndexError) as ei:
        call_op(op, x, idx, axis, other)
    msg = str(ei.value)
    # CONTRACT example: "scatter: index[3, 7] = 12 is out of range for axis 1 of size 10"
    assert op_in(op, msg), msg
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
    assert op_in("index_select", msg) and "9" in msg and "4" in msg, msg


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
    assert op_in(op, str(ei.value)), str(ei.value)


@pytest.mark.parametrize("op", OPS)
def test_negative_index_beyond_minus_n(op):
    x, idx, other, axis = valid_args(op)
    idx[...] = -10  # -n is valid
    call_op(op, x, idx, axis, other)
    pos = (0,) if op == "index_scatter" else (0, 0)
    idx[pos] = -11
    with pytest.raises(IndexError):
        call_op(op, x, idx, axis, other)


@pytest.mark.parametrize("op", OPS)
def test_out_of_range_with_non_error_modes_does_not_raise(op):
    x, idx, other, axis = valid_args(op)
    pos = (7,) if op == "index_scatter" else (3, 7)
    idx[pos] = 12
    modes = ("clip", "fill") if op in ("gather", "index_select") else ("clip", "drop")
    for mode in modes:
        call_op(op, x, idx, axis, other, mode=mode)


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
            call_op(op, x, idx, 0, src, reduce=reduce, out=out)
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
    x, idx, other, axis = valid_args(op)
    bad = idx.astype(index_dtype)
    with pytest.raises(TypeError) as ei:
        call_op(op, x, bad, axis, other)
    msg = str(ei.value)
    assert op_in(op, msg) and "index" in msg, msg
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
    x, idx, other, axis = valid_args(op, "torch", x_dtype)
    other = other.to(TORCH_DTYPE[src_dtype])
    with pytest.raises(TypeError) as ei:
        call_op(op, x, idx, axis, other)
    msg = str(ei.value)
    arg = "src" if op == "scatter" else "updates"
    assert op_in(op, msg) and arg in msg, msg
    # what was expected and what was given
    assert x_dtype in msg and src_dtype in msg, msg


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_bool_arithmetic_reduce_is_type_error(op, reduce):
    x, idx, other, axis = valid_args(op, "torch", "bool")
    with pytest.raises(TypeError) as ei:
        call_op(op, x, idx, axis, other, reduce=reduce)
    assert op_in(op, str(ei.value)), str(ei.value)
    # bool supports assign, amax, amin
    for ok in (None, "amax", "amin"):
        call_op(op, x, idx, axis, other, reduce=ok)


@pytest.mark.parametrize("op", ["scatter", "index_scatter"])
def test_out_dtype_mismatch(op):
    x, idx, other, axis = valid_args(op)
    out = np.zeros(x.shape, np.float64)
    with pytest.raises(TypeError) as ei:
        call_op(op, x, idx, axis, other, out=out)
    msg = str(ei.value)
    assert op_in(op, msg) and "out" in msg, msg
    assert "float32" in msg and "float64" in msg, msg
    assert (out == 0).all()

"""Edge cases: extreme index values in every mode, high rank, fill values
that need rounding, byte-swapped NumPy arrays, overlap of torch views."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (TORCH_DTYPE, assert_same, ref_gather, ref_index_scatter, ref_index_select,
                     ref_scatter, values)

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)
EXTREMES = {"int64": [I64.min, I64.min + 1, I64.max, -(2**32), 2**32, -6, 5],
            "int32": [I32.min, I32.min + 1, I32.max, -6, 5]}


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("op", ["gather", "index_select", "scatter", "index_scatter"])
def test_extreme_index_values(op, index_dtype):
    """Index values far outside [-n, n-1] (down to INT64_MIN, where i + n
    would overflow if computed first): 'error' raises IndexError naming the
    value; 'clip' clamps; 'drop' skips; 'fill' fills."""
    n = 5
    x = torch.arange(1, 2 * n + 1, dtype=torch.float32).reshape(2, n)
    for v in EXTREMES[index_dtype]:
        idx = torch.tensor([[v, 1], [2, v]], dtype=TORCH_DTYPE[index_dtype])
        idx1 = torch.tensor([v, 1, 2], dtype=TORCH_DTYPE[index_dtype])
        if op == "gather":
            call = lambda **kw: sk.gather(x, idx, 1, **kw)  # noqa: E731
            ref = lambda mode: ref_gather(x, idx, 1, mode, -1.0)  # noqa: E731
            modes = ("clip", "fill")
        elif op == "index_select":
            call = lambda **kw: sk.index_select(x, idx1, 1, **kw)  # noqa: E731
            ref = lambda mode: ref_index_select(x, idx1, 1, mode, -1.0)  # noqa: E731
            modes = ("clip", "fill")
        elif op == "scatter":
            src = torch.full((2, 2), 100.0)
            call = lambda **kw: sk.scatter(x, idx, src, 1, reduce="sum", **kw)  # noqa: E731
            ref = lambda mode: ref_scatter(x, idx, src, 1, "sum", True, mode)  # noqa: E731
            modes = ("clip", "drop")
        else:
            upd = torch.full((2, 3), 100.0)
            call = lambda **kw: sk.index_scatter(x, idx1, upd, 1, reduce="sum", **kw)  # noqa: E731
            ref = lambda mode: ref_index_scatter(x, idx1, upd, 1, "sum", True, mode)  # noqa: E731
            modes = ("clip", "drop")
        if -n <= v < n:
            assert_same(call(), ref("error"), "torch")
            continue
        with pytest.raises(IndexError) as ei:
            call()
        assert str(v) in str(ei.value), (v, str(ei.value))
        for mode in modes:
            kw = {"mode": mode}
            if mode == "fill":
                kw["fill_value"] = -1.0
            assert_same(call(**kw), ref(mode), "torch")


def test_clip_extremes_explicit():
    x = np.array([10, 20, 30], np.int16)
    idx = np.array([I64.min, -4, -3, -1, 3, I64.max])
    np.testing.assert_array_equal(sk.index_select(x, idx, 0, mode="clip"),
                                  [10, 10, 10, 30, 30, 30])
    np.testing.assert_array_equal(sk.gather(x, idx, 0, mode="fill", fill_value=-1),
                                  [-1, -1, 10, 30, -1, -1])


@pytest.mark.parametrize("nd", [6, 8, 12])
def test_high_rank(nd, rng):
    shape = tuple(2 if d % 2 == 0 else 1 for d in range(nd))
    shape = shape[:-1] + (3,)
    for axis in (0, nd - 1, -2):
        xr = values(rng, shape, "float64")
        ir = torch.from_numpy(rng.integers(-shape[axis], shape[axis], shape))
        assert_same(sk.gather(xr, ir, axis), ref_gather(xr, ir, axis), "torch")
        assert_same(sk.scatter(xr, ir, xr, axis, reduce="sum"),
                    ref_scatter(xr, ir, xr, axis, "sum"), "torch")
        i1 = torch.from_numpy(rng.integers(0, shape[axis], (4,)))
        assert_same(sk.index_select(xr, i1, axis), ref_index_select(xr, i1, axis), "torch")


@pytest.mark.parametrize("dtype,fill", [("float16", 0.1), ("bfloat16", 0.1), ("float32", 0.1),
                                        ("bfloat16", float("inf")), ("float16", -65504.0),
                                        ("int8", -128), ("uint8", 255), ("int64", I64.min),
                                        ("bool", False), ("float64", float("-inf"))])
def test_fill_value_is_converted_to_x_dtype(dtype, fill):
    td = TORCH_DTYPE[dtype]
    x = torch.ones(2, 3, dtype=td)
    idx = torch.tensor([[0, 9], [-9, 2]])
    got = sk.gather(x, idx, 1, mode="fill", fill_value=fill)
    exp = torch.where(torch.tensor([[True, False], [False, True]]), torch.ones(2, 2, dtype=td),
                      torch.full((2, 2), fill, dtype=td))
    assert_same(got, exp, "torch")
    got = sk.index_select(x, torch.tensor([5, 1]), 1, mode="fill", fill_value=fill)
    exp = torch.stack([torch.full((2,), fill, dtype=td), torch.ones(2, dtype=td)], dim=1)
    assert_same(got, exp, "torch")


@pytest.mark.parametrize("op", ["gather", "scatter", "index_select"])
def test_byteswapped_numpy_is_correct_or_refused(op):
    """A non-native byte order NumPy array must never be read as if it were
    native: either the right answer or a TypeError/ValueError."""
    x = np.arange(1, 7, dtype=">f4").reshape(2, 3)
    idx = np.array([[2, 0, 1], [1, 1, 0]], dtype=">i8")
    native_x = x.astype("<f4")
    native_i = idx.astype("<i8")
    for xx, ii in ((x, native_i), (native_x, idx)):
        try:
            if op == "gather":
                got, exp = sk.gather(xx, ii, 1), np.take_along_axis(native_x, native_i, 1)
            elif op == "index_select":
                got, exp = sk.index_select(xx, ii[0], 1), native_x[:, native_i[0]]
            else:
                got = sk.scatter(xx, ii, xx, 1, reduce="sum")
                exp = ref_scatter(torch.from_numpy(native_x), torch.from_numpy(native_i),
                                  torch.from_numpy(native_x), 1, "sum").numpy()
        except (TypeError, ValueError):
            continue
        np.testing.assert_array_equal(np.asarray(got, dtype="<f4"), exp)


def test_out_partially_overlapping_x_torch():
    buf = torch.arange(51, dtype=torch.float32)
    x = buf[:50].view(5, 10)
    out = buf[1:].view(5, 10)
    before = buf.clone()
    with pytest.raises(ValueError):
        sk.scatter(x, torch.zeros(1, 10, dtype=torch.int64), torch.ones(1, 10), 0, out=out)
    with pytest.raises(ValueError):
        sk.index_scatter(x, torch.zeros(1, dtype=torch.int64), torch.ones(5, 1), 1, out=out)
    assert torch.equal(buf, before)


def test_out_internal_overlap_numpy():
    base = np.zeros((5, 1), np.float32)
    out = np.lib.stride_tricks.as_strided(base, shape=(5, 10), strides=(4, 0))
    x = np.zeros((5, 10), np.float32)
    with pytest.raises(ValueError):
        sk.scatter(x, np.zeros((1, 10), np.int64), np.ones((1, 10), np.float32), 0, out=out)
    assert (base == 0).all()


def test_in_place_expanded_x_is_refused():
    """out=x with x expanded (zero strides): out has internal overlap."""
    x = torch.zeros(4, 1).expand(4, 3)
    with pytest.raises(ValueError):
        sk.scatter(x, torch.zeros(1, 3, dtype=torch.int64), torch.ones(1, 3), 0, out=x)


def test_scatter_into_size_one_axis_many_updates(rng):
    """Every update lands on the same target (n = 1), with negative -1."""
    for dtype in ("float32", "int64", "bfloat16", "bool"):
        xr = values(rng, (1, 4), dtype)
        ir = torch.from_numpy(rng.integers(-1, 1, (50, 4)))
        sr = values(rng, (50, 4), dtype)
        for reduce in ((None, "amax", "amin") if dtype == "bool" else
                       (None, "sum", "mean", "amax", "amin")):
            assert_same(sk.scatter(xr, ir, sr, 0, reduce=reduce),
                        ref_scatter(xr, ir, sr, 0, reduce), "torch")


def test_masked_select_broadcast_count_overflow():
    """x [2^32, 1] and mask [1, 2^32] (expanded, one element each) broadcast
    to 2^64 True positions: refused, not a count that wrapped to 0."""
    x = torch.ones(1, 1, dtype=torch.bool).expand(2**32, 1)
    m = torch.ones(1, 1, dtype=torch.bool).expand(1, 2**32)
    with pytest.raises(ValueError, match="masked_select"):
        sk.masked_select(x, m)


def test_tensor_scatter_empty_cache_many_batches():
    """2^36 batches of an empty cache, one broadcast write index: the index
    is read once (reading it 2^36 times took about 27 s); the result is the
    empty cache."""
    b = 2**36
    cache = torch.empty(b, 0, 4)
    idx = torch.zeros(1, dtype=torch.int64).expand(b)
    out = sk.tensor_scatter(cache, torch.empty(b, 0, 4), idx, axis=1)
    assert tuple(out.shape) == (b, 0, 4)

"""index_add-style scatters along the last axis (W6's pattern) take a path of
the scatter engine that claims whole target rows one at a time and copies
each row of x just before updating it. Sizes here are above its threshold
(1024 updates per row). Results must match the reference and be bitwise
identical for every thread count."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (assert_close, assert_same, index_values, ref_index_scatter,
                     same_for_all_threads, values)

ROWS, N, L = 24, 700, 3000
THREADS = (1, 2, 3, 5)


def _all_threads(fn):
    return same_for_all_threads(fn, THREADS)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
def test_inner_axis_matches_reference(dtype, reduce, restore_threads):
    rng = np.random.default_rng(hash((dtype, reduce)) % 2**32)
    flavor = "prod" if reduce == "prod" else "general"
    x = values(rng, (ROWS, N), dtype, flavor)
    u = values(rng, (ROWS, L), dtype, flavor)
    i = index_values(rng, (L,), N, "error", "int64")
    i[:5] = -1  # negative indices, several updates into one target
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 1, reduce=reduce))
    exp = ref_index_scatter(x, i, u, 1, reduce)
    if reduce in ("sum", "prod"):
        # the reference folds in the same order; float64 references may round differently
        assert_close(got, exp, rtol=1e-5, atol=1e-6)
    else:
        assert_same(got, exp)
    untouched = torch.ones(N, dtype=torch.bool)
    untouched[torch.where(i < 0, i + N, i)] = False
    assert torch.equal(got[:, untouched], x[:, untouched])  # copied rows keep x


def test_inner_axis_against_torch_index_add(restore_threads):
    rng = np.random.default_rng(1)
    x = values(rng, (ROWS, N), "float32")
    u = values(rng, (ROWS, L), "float32")
    i = index_values(rng, (L,), N, "error", "int64")
    i = torch.where(i < 0, i + N, i)
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 1, reduce="sum"))
    # torch adds in index order per target as well: the same float32 bits
    assert_same(got, x.index_add(1, i, u))


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_inner_axis_modes_and_int32(mode, restore_threads):
    rng = np.random.default_rng(2)
    x = values(rng, (ROWS, N), "float32")
    u = values(rng, (ROWS, L), "float32")
    i = index_values(rng, (L,), N, mode, "int32")
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 1, reduce="amax", mode=mode))
    assert_same(got, ref_index_scatter(x, i.long(), u, 1, "amax", mode=mode))


def test_inner_axis_in_place_and_strided(restore_threads):
    rng = np.random.default_rng(3)
    x0 = values(rng, (ROWS, N), "float64")
    u = values(rng, (ROWS, L), "float64")
    i = index_values(rng, (L,), N, "error", "int64")
    exp = ref_index_scatter(x0, i, u, 1, "sum")

    def in_place():
        x = x0.clone()
        r = sk.index_scatter(x, i, u, 1, reduce="sum", out=x)
        assert r.data_ptr() == x.data_ptr()
        return x
    assert_close(_all_threads(in_place), exp, 1e-12, 1e-12)
    # x with a row stride wider than its rows: copied up front, not per row
    wide = torch.zeros(ROWS, 2 * N, dtype=torch.float64)
    wide[:, :N] = x0
    got = _all_threads(lambda: sk.index_scatter(wide[:, :N], i, u, 1, reduce="sum"))
    assert_close(got, exp, 1e-12, 1e-12)
    # into a strided out
    def strided_out():
        o = torch.full((ROWS, 2 * N), 7.0, dtype=torch.float64)
        sk.index_scatter(x0, i, u, 1, reduce="sum", out=o[:, ::2])
        assert torch.all(o[:, 1::2] == 7.0)
        return o[:, ::2].contiguous()
    assert_close(_all_threads(strided_out), exp, 1e-12, 1e-12)


def test_inner_axis_three_dims(restore_threads):
    # a leading batch dimension: rows are (batch, row) pairs
    rng = np.random.default_rng(4)
    x = values(rng, (3, 8, N), "float32")
    u = values(rng, (3, 8, L), "float32")
    i = index_values(rng, (L,), N, "error", "int64")
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 2, reduce="amin"))
    assert_same(got, ref_index_scatter(x, i, u, 2, "amin"))


def test_inner_axis_fewer_index_rows(restore_threads):
    """scatter along the last axis with an index broadcast over 6 of x's 9
    rows, float32 sum (the four-row buffers read the plan's rows from x;
    rows 6-8 of out are plain copies of x, made by the claim loop) and the
    same with out given and with x's rows strided."""
    rng = np.random.default_rng(6)
    x = torch.as_tensor(values(rng, (9, N), "float32"))
    src = torch.as_tensor(values(rng, (6, L), "float32"))
    i = torch.as_tensor(index_values(rng, (L,), N, "error", "int64"))
    ie = i[None, :].expand(6, L)
    want = x.clone()
    want[:6].index_add_(1, i % N, src)  # the same adds in index order
    got = _all_threads(lambda: sk.scatter(x, ie, src, 1, reduce="sum"))
    assert_same(got, want)
    out = torch.full_like(x, 7.0)
    _all_threads(lambda: sk.scatter(x, ie, src, 1, reduce="sum", out=out))
    assert_same(out, want)
    xs = torch.as_tensor(values(rng, (18, N), "float32"))[::2]
    want = xs.clone()
    want[:6].index_add_(1, i % N, src)
    assert_same(_all_threads(lambda: sk.scatter(xs, ie, src, 1, reduce="sum")), want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "uint8", "int8", "int16", "int32",
                                   "int64"])
@pytest.mark.parametrize("rows", [3, 23])
def test_inner_axis_sum_other_dtypes(dtype, rows, restore_threads):
    """index_add along the last axis in 16-bit floats (a float32 copy of each
    row, or of four rows interleaved, rounded once) and integers (wrapping):
    bitwise the float32 index-order sum rounded once, and torch's wrapping
    index_add; rows 3 (one row at a time) and 23 (groups of four and a
    remainder). In place, into a strided out, and a signalling NaN in x."""
    from helpers import ref_index_scatter_torch
    rng = np.random.default_rng(hash((dtype, rows)) % 2**32)
    x = torch.as_tensor(values(rng, (rows, N), dtype))
    u = torch.as_tensor(values(rng, (rows, L), dtype))
    i = torch.as_tensor(index_values(rng, (L,), N, "error", "int64"))
    i = torch.where(i < 0, i + N, i)
    i[:40] = 5  # one target with many updates: integer wrap, float rounding
    want = ref_index_scatter_torch(x, i, u, 1, "sum", True)
    assert_same(_all_threads(lambda: sk.index_scatter(x, i, u, 1, reduce="sum")), want)

    def in_place():
        xc = x.clone()
        sk.index_scatter(xc, i, u, 1, reduce="sum", out=xc)
        return xc
    assert_same(_all_threads(in_place), want)

    def strided_out():
        o = torch.zeros((rows, 2 * N), dtype=x.dtype)
        sk.index_scatter(x, i, u, 1, reduce="sum", out=o[:, ::2])
        assert torch.all(o[:, 1::2] == 0)
        return o[:, ::2].contiguous()
    assert_same(_all_threads(strided_out), want)
    if dtype in ("float16", "bfloat16"):
        snan = 0x7c01 if dtype == "float16" else 0x7f81
        xn = x.clone()
        xn.view(torch.int16)[1, 5] = snan  # 5 receives updates; the NaN keeps its bits
        got = _all_threads(lambda: sk.index_scatter(xn, i, u, 1, reduce="sum"))
        assert got.view(torch.int16)[1, 5] == snan
        want[1, 5] = got[1, 5]
        assert_same(got, want)

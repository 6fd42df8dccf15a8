"""Kernels added for element gathers and scatters that are not the standard
workloads: column tiles (gather/scatter of elements along a leading axis,
packed a tile of columns at a time), the last-axis element scatter claimed
by rows, the vectorised index check, and the blocked rows with a single
float32 partial (16-bit index_add whose budget holds one). Each case is big
enough to take the path it names, and is checked against PyTorch and at 1
and 2 threads for the same bits."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import assert_close, assert_same, normalize_index, ref_scatter, same_for_all_threads


def _values(rng, shape, dtype):
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(shape) < 0.5)
    if dtype.is_floating_point:
        return torch.from_numpy(rng.standard_normal(shape)).to(dtype)
    return torch.from_numpy(rng.integers(-50, 50, shape)).to(dtype)


def _threads(fn):
    return same_for_all_threads(fn, (1, 2))


# (rows of x, rows of index, columns): tiles of 128 float32 columns for 512
# target rows, several tiles, a last partial tile
SHAPES = [(512, 300, 700), (300, 64, 4100)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int8,
                                   torch.int64, torch.bool])
@pytest.mark.parametrize("n,rows,cols", SHAPES)
def test_gather_leading_axis(dtype, n, rows, cols, rng, restore_threads):
    x = _values(rng, (n, cols + 5), dtype)  # x wider than index: rows apart by cols + 5
    i = torch.from_numpy(rng.integers(-n, n, (rows, cols)))
    b = _threads(lambda: sk.gather(x, i, 0))
    assert_same(b, torch.gather(x, 0, i % n))
    i32 = i.to(torch.int32)
    assert_same(sk.gather(x, i32, 0), b)


def test_gather_leading_axis_modes(rng, restore_threads):
    n, rows, cols = 512, 200, 900
    x = _values(rng, (n, cols), torch.float32)
    i = torch.from_numpy(rng.integers(-2 * n, 2 * n, (rows, cols)))
    b = _threads(lambda: sk.gather(x, i, 0, mode="clip"))
    assert_same(b, torch.gather(x, 0, normalize_index(i, n, "clip")[0]))
    b = _threads(lambda: sk.gather(x, i, 0, mode="fill", fill_value=-7.0))
    ok = (i >= -n) & (i < n)
    ref = torch.where(ok, torch.gather(x, 0, (i % n)), torch.tensor(-7.0))
    assert_same(b, ref)
    with pytest.raises(IndexError, match="gather"):
        sk.gather(x, i, 0)


def test_gather_leading_axis_strided(rng, restore_threads):
    # a transposed index and a column-sliced x: strides other than packed
    n, cols = 600, 800
    x = _values(rng, (n, 2 * cols), torch.float32)[:, ::2]
    i = torch.from_numpy(rng.integers(0, n, (cols, 300))).t()
    b = _threads(lambda: sk.gather(x, i, 0))
    assert_same(b, torch.gather(x, 0, i))


@pytest.mark.parametrize("reduce", [None, "sum", "prod", "amax", "amin"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int8])
@pytest.mark.parametrize("n,rows,cols", SHAPES)
def test_scatter_leading_axis(reduce, dtype, n, rows, cols, rng, restore_threads):
    x = _values(rng, (n, cols + 3), dtype)
    i = torch.from_numpy(rng.integers(-n, n, (rows, cols)))
    if reduce == "prod" and dtype.is_floating_point:
        src = (torch.from_numpy(rng.random((rows, cols))) * 0.2 + 0.9).to(dtype)
    else:
        src = _values(rng, (rows, cols), dtype)
    b = _threads(lambda: sk.scatter(x, i, src, 0, reduce=reduce))
    if reduce is None:
        ref = ref_scatter(x, i, src, 0)
    else:
        ref = x.clone().scatter_reduce_(0, i % n, src, reduce)
    if dtype.is_floating_point and reduce in ("sum", "prod"):
        assert_close(b, ref, rtol=1e-5, atol=1e-5)
    else:
        assert_same(b, ref)


def test_scatter_leading_axis_modes_and_nan(rng, restore_threads):
    n, rows, cols = 512, 300, 700
    x = _values(rng, (n, cols), torch.float32)
    i = torch.from_numpy(rng.integers(-2 * n, 2 * n, (rows, cols)))
    src = _values(rng, (rows, cols), torch.float32)
    src[5, 7] = float("nan")
    b = _threads(lambda: sk.scatter(x, i, src, 0, reduce="amax", mode="clip"))
    assert_same(b, x.clone().scatter_reduce_(0, normalize_index(i, n, "clip")[0], src, "amax"))
    b = _threads(lambda: sk.scatter(x, i, src, 0, reduce="sum", mode="drop"))
    keep = (i >= -n) & (i < n)
    ref = x.clone().scatter_add_(0, torch.where(keep, i % n, 0), torch.where(keep, src, 0.0))
    assert_close(b, ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(IndexError, match="scatter"):
        sk.scatter(x, i, src, 0)
    # in place: out is x
    y = x.clone()
    j = i.clamp(-n, n - 1)
    sk.scatter(y, j, src, 0, reduce="amax", out=y)
    assert_same(y, x.clone().scatter_reduce_(0, j % n, src, "amax"))


@pytest.mark.parametrize("reduce", [None, "sum", "amax"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.uint8])
def test_scatter_last_axis_rows(reduce, dtype, rng, restore_threads):
    # element scatter along the last axis: chunks of whole out rows, each
    # pass restricted to the index rows that reach the chunk
    rows, n = 300, 2048
    x = _values(rng, (rows, n), dtype) if dtype != torch.uint8 else \
        torch.from_numpy(rng.integers(0, 200, (rows, n)).astype(np.uint8))
    i = torch.from_numpy(rng.integers(-n, n, (rows, 3000)))
    src = _values(rng, (rows, 3000), dtype) if dtype != torch.uint8 else \
        torch.from_numpy(rng.integers(0, 200, (rows, 3000)).astype(np.uint8))
    b = _threads(lambda: sk.scatter(x, i, src, 1, reduce=reduce))
    if reduce is None:
        ref = ref_scatter(x, i, src, 1)
    else:
        ref = x.clone().scatter_reduce_(1, i % n, src, reduce)
    assert_same(b, ref)


@pytest.mark.parametrize("is64", [True, False])
def test_index_check_reports_first_bad(is64, rng, restore_threads):
    # the check tests blocks of values without a branch each; the value
    # reported is still the first bad one in row-major order
    x = torch.zeros(100, 5000)
    i = torch.from_numpy(rng.integers(-100, 100, (100, 5000)))
    i[37, 4321] = 100
    i[37, 4999] = -101
    i[80, 3] = 10 ** 6
    i = i if is64 else i.to(torch.int32)
    src = torch.ones(100, 5000)
    for nt in (1, 2):
        sk.set_num_threads(nt)
        with pytest.raises(IndexError, match=r"index\[37, 4321\] = 100 "):
            sk.scatter(x, i, src, 0)
        with pytest.raises(IndexError, match=r"index\[37, 4321\] = 100 "):
            sk.gather(x, i, 0)
    assert torch.equal(x, torch.zeros(100, 5000))  # nothing written


@pytest.mark.parametrize("layout", ["contiguous", "int32", "transposed"])
def test_scatter_last_axis_checked_in_kernel(layout, rng, restore_threads):
    # with a fresh out, the last-axis element scatter checks each run of
    # index values inside the kernel; a bad value is still reported as the
    # first in row-major order, whichever chunk met it, and x is not written
    rows, n = 200, 1500
    x = torch.from_numpy(rng.standard_normal((rows, n)))
    x0 = x.clone()
    if layout == "transposed":
        i = torch.from_numpy(rng.integers(-n, n, (n, rows))).t()  # index stride != 1
    else:
        i = torch.from_numpy(rng.integers(-n, n, (rows, n)))
    if layout == "int32":
        i = i.to(torch.int32)
    src = torch.from_numpy(rng.standard_normal((rows, n)))
    good = _threads(lambda: sk.scatter(x, i, src, 1))
    assert_same(good, ref_scatter(x, i, src, 1))
    i[150, 7] = n  # met by a later chunk than the first bad value below
    i[20, 1499] = -n - 1
    i[20, 1400] = 10 ** 6
    out = torch.full((rows, n), 7.0, dtype=x.dtype)
    for nt in (1, 2, 3):
        sk.set_num_threads(nt)
        for reduce in (None, "sum", "amax", "prod"):
            with pytest.raises(IndexError, match=r"index\[20, 1400\] = 1000000 "):
                sk.scatter(x, i, src, 1, reduce=reduce)
            with pytest.raises(IndexError, match=r"index\[20, 1400\] = 1000000 "):
                sk.scatter(x, i, src, 1, reduce=reduce, out=out)
    assert torch.equal(x, x0)
    assert torch.equal(out, torch.full((rows, n), 7.0, dtype=x.dtype))


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax"])
def test_index_scatter_16bit_single_partial(dtype, reduce, rng, restore_threads):
    # a 1-d index of L rows: 16 bytes per index element hold one float32
    # partial of out, not two; threads split the keys of the one block
    n, L, w = 1200, 12000, 32  # partial 150 KB, budget 188 KB
    x = _values(rng, (n, w), dtype)
    i = torch.from_numpy(rng.integers(-n, n, L))
    u = _values(rng, (L, w), dtype)
    b = _threads(lambda: sk.index_scatter(x, i, u, 0, reduce=reduce))
    sk.set_num_threads(4)  # more threads than keys' halves: still the same bits
    assert_same(sk.index_scatter(x, i, u, 0, reduce=reduce), b)
    if reduce == "sum":
        ref = x.float().index_add(0, i % n, u.float())
    else:
        ref = x.float().index_reduce(0, i % n, u.float(), reduce)
    assert_close(b.float(), ref.to(dtype).float(), rtol=1e-2, atol=1e-2)

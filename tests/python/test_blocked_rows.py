"""Large row scatters take the blocked path of the scatter engine (update rows
cut into a fixed number of blocks, each reduced into its own partial, merged in
block order; docs/DESIGN.md). The sizes here are above its threshold (8192
update rows). Results are checked against the reference and must be bitwise
identical for every thread count, including more threads than blocks (threads
then split a block's targets)."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (TORCH_DTYPE, assert_close, assert_same, index_values, ref_scatter,
                     same_for_all_threads, values)

ROWS, T, C = 20000, 3000, 8
THREADS = (1, 2, 3, 4)

CASES = [(d, r) for d in ("float32", "float64", "float16", "bfloat16", "int32", "int64",
                          "uint8")
         for r in ("sum", "prod", "mean", "amax", "amin")]
CASES += [("bool", "amax"), ("bool", "amin")]


def _all_threads(fn):
    return same_for_all_threads(fn, THREADS)


def _check(got, exp, dtype, reduce):
    if dtype in ("float32", "float64") and reduce in ("sum", "prod", "mean"):
        # another association of the same float operations than the reference
        assert_close(got, exp, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)
    elif dtype in ("float16", "bfloat16") and reduce in ("sum", "prod", "mean"):
        assert_close(got, exp, rtol=1e-2, atol=1e-2)
    else:
        assert_same(got, exp)


@pytest.mark.parametrize("dtype,reduce", CASES)
@pytest.mark.parametrize("include_self", [True, False])
def test_rows_match_reference_and_threads(dtype, reduce, include_self, restore_threads):
    rng = np.random.default_rng(hash((dtype, reduce, include_self)) % 2**32)
    flavor = "prod" if reduce == "prod" else "general"
    x = values(rng, (T, C), dtype, flavor)
    src = values(rng, (ROWS, C), dtype, flavor)
    i1 = index_values(rng, (ROWS,), T, "error", "int64")
    i1[: T // 2] = torch.arange(T // 2)  # some targets touched once
    i1[-5:] = T - 1                       # a target whose updates span both blocks
    i1[:3] = T - 1
    i1 = torch.where(i1 == T - 2, -2, i1)  # negative indices
    idx = i1[:, None].expand(ROWS, C)
    got = _all_threads(lambda: sk.scatter(x, idx, src, 0, reduce=reduce,
                                          include_self=include_self))
    exp = ref_scatter(x, idx.contiguous(), src, 0, reduce, include_self)
    _check(got, exp, dtype, reduce)
    assert not torch.equal(got, x) or reduce in ("amax", "amin")  # the call did something


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("mode", ["error", "clip", "drop"])
def test_rows_index_dtype_and_modes(index_dtype, mode, restore_threads):
    rng = np.random.default_rng(7)
    x = values(rng, (T, C), "float32")
    src = values(rng, (ROWS, C), "float32")
    i1 = index_values(rng, (ROWS,), T, mode, index_dtype)
    idx = i1[:, None].expand(ROWS, C)
    got = _all_threads(lambda: sk.scatter(x, idx, src, 0, reduce="amax", mode=mode))
    assert_same(got, ref_scatter(x, idx.contiguous(), src, 0, "amax", True, mode))


def test_rows_batched_and_narrow_index(restore_threads):
    # rows under a batch dimension (the general walk), and an index row that
    # covers only part of each target row: the other columns keep x
    rng = np.random.default_rng(3)
    B = 3
    x = values(rng, (B, T, 2 * C), "float32")
    src = values(rng, (B, ROWS // 2, C), "float32")
    i = index_values(rng, (B, ROWS // 2, 1), T, "error", "int64")
    idx = i.expand(B, ROWS // 2, C)
    for red in ("sum", "amin"):
        got = _all_threads(lambda: sk.scatter(x, idx, src, 1, reduce=red, include_self=False))
        exp = ref_scatter(x, idx.contiguous(), src, 1, red, False)
        _check(got, exp, "float32", red)
        assert torch.equal(got[..., C:], x[..., C:])


def test_index_scatter_and_scatter_nd_rows(restore_threads):
    rng = np.random.default_rng(5)
    x = values(rng, (T, C), "float32")
    u = values(rng, (ROWS, C), "float32")
    i = index_values(rng, (ROWS,), T, "error", "int64")
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 0, reduce="sum"))
    assert_close(got, x.clone().index_add_(0, torch.where(i < 0, i + T, i), u), 1e-5, 1e-5)
    got = _all_threads(lambda: sk.scatter_nd(x, i[:, None], u, reduce="sum"))
    exp = x.clone().index_put_((torch.where(i < 0, i + T, i),), u, accumulate=True)
    assert_close(got, exp, 1e-5, 1e-5)
    # bfloat16 rows: every block reduces into a float32 partial, rounded once
    xb, ub = x.to(torch.bfloat16), u.to(torch.bfloat16)
    got = _all_threads(lambda: sk.index_scatter(xb, i, ub, 0, reduce="mean", include_self=False))
    exp = ref_scatter(xb, i[:, None].expand(ROWS, C).contiguous(), ub, 0, "mean", False)
    assert_close(got, exp, 1e-2, 1e-2)


def test_rows_in_place(restore_threads):
    rng = np.random.default_rng(9)
    x0 = values(rng, (T, C), "float64")
    src = values(rng, (ROWS, C), "float64")
    idx = index_values(rng, (ROWS,), T, "error", "int64")[:, None].expand(ROWS, C)

    def run():
        x = x0.clone()
        r = sk.scatter(x, idx, src, 0, reduce="sum", out=x)
        assert r.data_ptr() == x.data_ptr()
        return x
    got = _all_threads(run)
    assert_close(got, ref_scatter(x0, idx.contiguous(), src, 0, "sum"), 1e-12, 1e-12)


def test_rows_into_a_strided_out(restore_threads):
    # out's rows are contiguous but rows are 2C apart (a column slice of a
    # wider buffer): the merge must place each row by out's strides
    rng = np.random.default_rng(11)
    x = values(rng, (T, C), "float32")
    src = values(rng, (ROWS, C), "float32")
    idx = index_values(rng, (ROWS,), T, "error", "int64")[:, None].expand(ROWS, C)
    exp = ref_scatter(x, idx.contiguous(), src, 0, "amax", False)

    def run():
        wide = torch.full((T, 2 * C), float("nan"))
        out = wide[:, C:]
        r = sk.scatter(x, idx, src, 0, reduce="amax", include_self=False, out=out)
        assert r.data_ptr() == out.data_ptr()
        assert torch.isnan(wide[:, :C]).all()  # nothing written outside out
        return out.clone()
    assert_same(_all_threads(run), exp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_rows_block_zero_into_out(dtype, reduce, include_self, restore_threads):
    # a 1-d index with a tight scratch budget (16 bytes x 9000 index values):
    # one partial fits but not two, so block 0 reduces into out itself and
    # only block 1 has a partial (with a roomier budget every block has one)
    rng = np.random.default_rng(hash((dtype, reduce, include_self)) % 2**32)
    rows, keys, width = 9000, 5000, 4
    x = values(rng, (keys, width), dtype)
    u = values(rng, (rows, width), dtype)
    i = index_values(rng, (rows,), keys, "error", "int64")
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 0, reduce=reduce,
                                                include_self=include_self))
    exp = ref_scatter(x, i[:, None].expand(rows, width).contiguous(), u, 0, reduce, include_self)
    _check(got, exp, dtype, reduce)


def _strided_layouts(src):
    """src's values in layouts whose rows are not contiguous: the transpose of
    a [C, rows] tensor (each element of a row in a line of its own), every
    other column of a wider tensor, and the transpose of every other row of a
    [2C, rows] tensor."""
    rows, cols = src.shape
    wide = torch.zeros((rows, 2 * cols), dtype=src.dtype)
    wide[:, ::2] = src
    tall = torch.zeros((2 * cols, rows), dtype=src.dtype)
    tall[::2] = src.t()
    return {"transposed": src.t().contiguous().t(), "step2": wide[:, ::2],
            "transposed_step2": tall[::2].t()}


@pytest.mark.parametrize("dtype,reduce", CASES + [("float32", None), ("int16", None)])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("rows", [ROWS, 700])
def test_rows_from_strided_src_same_bits(dtype, reduce, include_self, rows, restore_threads):
    # rows of src that are not contiguous are packed a group at a time (blocked
    # path) or walked with their stride (owner-computes): the updates reach each
    # target in the same order, so the bits equal those of a contiguous src
    rng = np.random.default_rng(hash((dtype, reduce, include_self, rows)) % 2**32)
    flavor = "prod" if reduce == "prod" else "general"
    x = values(rng, (T, C), dtype, flavor)
    src = values(rng, (rows, C), dtype, flavor)
    i = index_values(rng, (rows,), T, "error", "int64")
    i[:3] = T - 1
    i[-5:] = T - 1
    exp = sk.index_scatter(x, i, src, 0, reduce=reduce, include_self=include_self)
    for name, s in _strided_layouts(src).items():
        assert torch.equal(s, src) and not s.is_contiguous()
        got = _all_threads(lambda: sk.index_scatter(x, i, s, 0, reduce=reduce,
                                                    include_self=include_self))
        assert_same(got, exp), name
        idx = i[:, None].expand(rows, C)
        got = _all_threads(lambda: sk.scatter(x, idx, s, 0, reduce=reduce,
                                              include_self=include_self))
        assert_same(got, exp), name
    if reduce is None:
        last = {}
        for r, v in enumerate(i.tolist()):
            last[v % T] = r
        ref = x.clone()
        for t, r in last.items():
            ref[t] = src[r]
        assert_same(exp, ref)
    else:
        _check(exp, ref_scatter(x, i[:, None].expand(rows, C).contiguous(), src, 0, reduce,
                                include_self), dtype, reduce)


@pytest.mark.parametrize("dtype,snan", [(torch.float16, 0x7c01), (torch.bfloat16, 0x7f81)])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_16bit_nan_in_x_keeps_its_bits_on_every_path(dtype, snan, reduce, restore_threads):
    # a NaN of x in a target whose result is NaN keeps its bits (a signalling
    # one too, which the float32 accumulator would quiet), whether the rows take
    # owner-computes (8191 rows) or the blocked path (8192): same bits on both
    for rows in (8191, 8192):
        raw = torch.zeros(4, 2, dtype=torch.int16)
        raw[0, :] = snan                   # touched by every update
        raw[3, 0] = (snan | 0x8000) - 0x10000  # -sNaN, untouched
        x = raw.view(dtype)
        index = torch.zeros(rows, dtype=torch.int64)
        index[-1] = 1
        updates = torch.ones(rows, 2, dtype=dtype)
        got = _all_threads(lambda: sk.index_scatter(x, index, updates, 0, reduce=reduce))
        bits = got.view(torch.int16)
        assert torch.equal(bits[0], raw[0]) and bits[3, 0] == raw[3, 0], (rows, bits)
        assert float(got[1, 0]) == {"sum": 1.0, "prod": 0.0, "mean": 0.5, "amax": 1.0,
                                    "amin": 0.0}[reduce]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_rows_one_block_into_out(dtype, reduce, include_self, restore_threads):
    # a 1-d index of 9000 rows into 20000 target rows: the budget (16 bytes x
    # 9000) holds the counts but no partial, so a single block reduces into out
    # itself, its threads splitting the keys
    rng = np.random.default_rng(hash((dtype, reduce, include_self, 1)) % 2**32)
    rows, keys, width = 9000, 20000, 4
    flavor = "prod" if reduce == "prod" else "general"
    x = values(rng, (keys, width), dtype, flavor)
    u = values(rng, (rows, width), dtype, flavor)
    i = index_values(rng, (rows,), keys // 4, "error", "int64") * 4  # duplicates
    got = _all_threads(lambda: sk.index_scatter(x, i, u, 0, reduce=reduce,
                                                include_self=include_self))
    exp = ref_scatter(x, i[:, None].expand(rows, width).contiguous(), u, 0, reduce, include_self)
    _check(got, exp, dtype, reduce)
    ts = _strided_layouts(u)["transposed"]
    got_t = _all_threads(lambda: sk.index_scatter(x, i, ts, 0, reduce=reduce,
                                                  include_self=include_self))
    assert_same(got_t, got)

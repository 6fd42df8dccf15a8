"""gather(x, index, axis, *, mode="error", fill_value=0)   (axis an int)

Reference: torch.gather on the normalised index; 'clip' by clamping and
'fill' with torch.where (torch has no index modes) -- see helpers.ref_gather.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, GATHER_MODES, INDEX_DTYPES, TORCH_DTYPE, Failures, assert_same,
                     fill_value_for, index_values, kinds_for, layouts_for, make_tensor,
                     ref_gather, to_kind, values)

X_SHAPE = (4, 5, 3)
DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _case(rng, dtype, kind, layouts, axis, index_dtype, mode, x_shape=X_SHAPE, pass_fill=True):
    xl, il = layouts
    nd = len(x_shape)
    ax = axis % nd
    n = x_shape[ax]
    idx_shape = [int(rng.integers(1, s + 1)) for s in x_shape]
    idx_shape[ax] = int(rng.integers(1, 8))
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, index_dtype), idx_shape, il,
                          kind, rng)
    if mode == "fill" and pass_fill:
        fv = fill_value_for(dtype)
        got = sk.gather(x, idx, axis, mode=mode, fill_value=fv)
    else:
        fv = 0
        got = sk.gather(x, idx, axis, mode=mode)
    exp = ref_gather(xr, ir, axis, mode, fv)
    assert_same(got, exp, kind)
    assert_same(x, xr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_gather_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x axis x index dtype x mode."""
    f = Failures()
    for layout in layouts_for(kind):
        for axis in (0, 1, 2, -1, -3):
            for index_dtype in INDEX_DTYPES:
                for mode in GATHER_MODES:
                    desc = f"{layout} axis={axis} index={index_dtype} mode={mode}"
                    f.run(desc, lambda: _case(rng, dtype, kind, (layout, layout), axis,
                                              index_dtype, mode))
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_gather_mixed_layouts(kind, rng):
    f = Failures()
    lays = layouts_for(kind)
    for dtype in ["float64", "uint8", "bool", "float16", "int64"]:
        for _ in range(30):
            layouts = (str(rng.choice(lays)), str(rng.choice(lays)))
            axis = int(rng.integers(-3, 3))
            mode = str(rng.choice(GATHER_MODES))
            idt = str(rng.choice(INDEX_DTYPES))
            f.run(f"{dtype} {layouts} axis={axis} {mode} {idt}",
                  lambda: _case(rng, dtype, kind, layouts, axis, idt, mode))
    f.check()


def test_gather_fill_default_zero(rng):
    f = Failures()
    for dtype in DTYPES:
        f.run(dtype, lambda: _case(rng, dtype, "torch", ("contiguous", "contiguous"), 1,
                                   "int64", "fill", pass_fill=False))
    f.check()


def test_gather_fill_nan():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = sk.gather(x, np.array([[0, 3], [-1, -4]]), 1, mode="fill", fill_value=float("nan"))
    assert got[0, 0] == 0 and np.isnan(got[0, 1]) and got[1, 0] == 5 and np.isnan(got[1, 1])


def test_gather_explicit():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    idx = np.array([[2, 0, -1], [-3, 1, 1]])
    np.testing.assert_array_equal(sk.gather(x, idx, 1), [[3, 1, 3], [4, 5, 5]])
    np.testing.assert_array_equal(sk.gather(x, np.array([[1, 0, 1]]), 0), [[4, 2, 6]])
    # index smaller than x in the other dimension
    np.testing.assert_array_equal(sk.gather(x, np.array([[1]]), 1), [[2]])
    # clip: -5 -> 0, 7 -> 2
    np.testing.assert_array_equal(sk.gather(x, np.array([[-5, 7]]), 1, mode="clip"), [[1, 3]])
    np.testing.assert_array_equal(
        sk.gather(x, np.array([[-5, 7, 1]]), 1, mode="fill", fill_value=-9), [[-9, -9, 2]])


def test_gather_torch_take_along_dim_equivalence(rng):
    x = torch.from_numpy(rng.standard_normal((6, 7, 2)).astype(np.float32))
    idx = torch.from_numpy(rng.integers(0, 7, (6, 11, 2)))
    assert_same(sk.gather(x, idx, 1), torch.take_along_dim(x, idx, 1), "torch")
    xn, idn = x.numpy(), idx.numpy()
    assert_same(sk.gather(xn, idn, -2), torch.from_numpy(np.take_along_axis(xn, idn, -2)),
                "numpy")


def test_gather_zero_size(rng):
    f = Failures()
    cases = [((3, 0, 2), (2, 0, 2), 0), ((3, 0, 2), (3, 0, 1), 2), ((0, 4), (0, 4), 0),
             ((3, 4), (0, 4), 0), ((3, 4), (3, 0), 1), ((0, 4), (0, 0), 1), ((0,), (0,), 0),
             ((5,), (0,), 0)]
    for dtype in ["float32", "bfloat16", "int8", "bool"]:
        for xs, ishape, axis in cases:
            def run():
                xr = values(rng, xs, dtype)
                ir = index_values(rng, ishape, xs[axis], "error", "int32")
                got = sk.gather(xr, ir, axis)
                assert_same(got, ref_gather(xr, ir, axis), "torch")
            f.run(f"{dtype} x{xs} index{ishape} axis={axis}", run)
    # fill mode from an empty axis: every element is the fill value
    got = sk.gather(np.zeros((2, 0), np.float32), np.array([[0, 1], [-1, 5]]), 1, mode="fill",
                    fill_value=4.0)
    np.testing.assert_array_equal(got, np.full((2, 2), 4.0, np.float32))
    f.check()


def test_gather_zero_d():
    """0-d x and index: torch treats a 0-d tensor as shape (1,) for axis 0/-1;
    NumPy refuses the axis. Accept torch's result or a ValueError."""
    for axis in (0, -1):
        try:
            got = sk.gather(torch.tensor(5.0), torch.tensor(0), axis)
        except ValueError:
            continue
        assert_same(got, torch.tensor(5.0), "torch")
        got = sk.gather(torch.tensor(5.0), torch.tensor(-1), axis)
        assert_same(got, torch.tensor(5.0), "torch")


def test_gather_result_is_new(rng):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    idx = np.zeros((3, 4), np.int64)
    got = sk.gather(x, idx, 1)
    assert not np.shares_memory(got, x)
    got[...] = -1
    np.testing.assert_array_equal(x, np.arange(12, dtype=np.float64).reshape(3, 4))


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.bool, torch.int16,
                                   torch.float16, torch.bfloat16])
@pytest.mark.parametrize("spoil", ["none", "negative", "too_big", "tail_negative"])
def test_gather_last_axis_small_elements_long_rows(dtype, spoil, rng):
    """1- and 2-byte elements along a long last axis (the fused blocks of 16
    checked values): every value right, negatives wrapped; a value out of
    range anywhere (a block's middle, the tail past the last 16) refused."""
    R, C, L = 3, 700, 1043
    x = torch.from_numpy(rng.integers(-100, 100, (R, C))).to(dtype)
    i = torch.from_numpy(rng.integers(0, C, (R, L)))
    at = {"negative": (1, 517), "too_big": (2, 300), "tail_negative": (0, L - 2)}.get(spoil)
    if at:
        i[at] = -C + 5 if spoil != "too_big" else C
    if spoil == "too_big":
        with pytest.raises(IndexError, match="gather"):
            sk.gather(x, i, 1)
        return
    assert torch.equal(sk.gather(x, i, 1), torch.gather(x, 1, i % C))

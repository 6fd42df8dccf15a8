"""index_select(x, index, axis, *, mode="error", fill_value=0)

index of any rank (0-d allowed); out.shape = x.shape[:axis] + index.shape +
x.shape[axis+1:]. Reference: torch.index_select on the flattened index,
reshaped (torch only takes a 1-d index) -- helpers.ref_index_select.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, GATHER_MODES, INDEX_DTYPES, Failures, assert_same, fill_value_for,
                     index_values, kinds_for, layouts_for, make_tensor, ref_index_select, values)

X_SHAPE = (4, 5, 3)
DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]
INDEX_SHAPES = [(), (6,), (2, 3), (0,), (1, 2, 2)]


def _case(rng, dtype, kind, layouts, axis, index_dtype, mode, idx_shape, x_shape=X_SHAPE):
    xl, il = layouts
    n = x_shape[axis]
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, index_dtype), idx_shape, il,
                          kind, rng)
    if mode == "fill":
        fv = fill_value_for(dtype)
        got = sk.index_select(x, idx, axis, mode=mode, fill_value=fv)
    else:
        fv = 0
        got = sk.index_select(x, idx, axis, mode=mode)
    exp = ref_index_select(xr, ir, axis, mode, fv)
    assert_same(got, exp, kind)
    assert_same(x, xr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_index_select_matrix(dtype, kind, rng):
    """dtype x kind x layout x index rank x index dtype x mode, random axis."""
    f = Failures()
    for layout in layouts_for(kind):
        for idx_shape in INDEX_SHAPES:
            for index_dtype in INDEX_DTYPES:
                for mode in GATHER_MODES:
                    axis = int(rng.choice([0, 1, 2, -1, -2, -3]))
                    desc = f"{layout} index{idx_shape} axis={axis} {index_dtype} mode={mode}"
                    f.run(desc, lambda: _case(rng, dtype, kind, (layout, layout), axis,
                                              index_dtype, mode, idx_shape))
    f.check()


def test_index_select_explicit():
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    np.testing.assert_array_equal(sk.index_select(x, np.array([2, 0, -1]), 0),
                                  x[[2, 0, 2]])
    np.testing.assert_array_equal(sk.index_select(x, np.array([[3, 0], [1, 1]]), 1),
                                  x[:, [[3, 0], [1, 1]]])
    got = sk.index_select(x, np.array(1), 1)  # 0-d index removes the axis
    assert got.shape == (3,)
    np.testing.assert_array_equal(got, x[:, 1])
    got = sk.index_select(x, np.array(-1, np.int32), 0)
    np.testing.assert_array_equal(got, x[2])
    np.testing.assert_array_equal(sk.index_select(x, np.array([5, -9]), 0, mode="clip"),
                                  x[[2, 0]])
    np.testing.assert_array_equal(
        sk.index_select(x, np.array([5, 1, -4]), 0, mode="fill", fill_value=-1),
        np.stack([np.full(4, -1), x[1], np.full(4, -1)]).astype(np.int16))
    # default fill_value is 0
    np.testing.assert_array_equal(sk.index_select(x, np.array([7]), 1, mode="fill"),
                                  np.zeros((3, 1), np.int16))
    # same as np.take
    np.testing.assert_array_equal(sk.index_select(x, np.array([[1, 2]]), 1),
                                  np.take(x, [[1, 2]], axis=1))


def test_index_select_torch_equivalence(rng):
    for dtype in (torch.float32, torch.bfloat16, torch.int64, torch.bool):
        x = torch.from_numpy(rng.integers(-100, 100, (5, 6, 7))).to(dtype)
        idx = torch.from_numpy(rng.integers(0, 6, (9,)))
        assert_same(sk.index_select(x, idx, 1), torch.index_select(x, 1, idx), "torch")
        assert_same(sk.index_select(x, idx.to(torch.int32), -1),
                    torch.index_select(x, -1, idx.to(torch.int32)), "torch")


def test_index_select_zero_size(rng):
    f = Failures()
    cases = [((3, 0, 2), (4,), 0), ((3, 0, 2), (0,), 1), ((3, 0, 2), (2, 2), 2),
             ((0, 4), (3,), 1), ((3, 4), (0,), 0), ((3, 4), (2, 0), 1), ((0,), (0,), 0),
             ((5,), (0, 3), 0)]
    for dtype in ["float32", "bfloat16", "int16", "bool"]:
        for xs, ishape, axis in cases:
            def run():
                xr = values(rng, xs, dtype)
                ir = index_values(rng, ishape, xs[axis], "error", "int64")
                got = sk.index_select(xr, ir, axis)
                assert_same(got, ref_index_select(xr, ir, axis), "torch")
            f.run(f"{dtype} x{xs} index{ishape} axis={axis}", run)
    f.check()


def test_index_select_1d_x_0d_index():
    x = torch.arange(5, dtype=torch.float64)
    got = sk.index_select(x, torch.tensor(3), 0)
    assert_same(got, torch.tensor(3.0, dtype=torch.float64), "torch")
    got = sk.index_select(x.numpy(), np.array(-2), 0)
    assert isinstance(got, np.ndarray) and got.shape == () and got == 3.0

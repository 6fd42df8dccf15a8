"""index_scatter(x, index, updates, axis=0, *, reduce=None, include_self=True, mode="error", out=None)

index 1-d of length L (or 0-d); updates.shape == x.shape with axis replaced by
L (removed for a 0-d index); updates[..., i, ...] is reduced into
out[..., index[i], ...].
Reference: helpers.ref_index_scatter (the index broadcast along the axis and
handed to the scatter reference) and, cross-checked, torch's index_copy /
index_add / index_reduce (ref_index_scatter_torch).
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, INDEX_DTYPES, SCATTER_MODES, TORCH_DTYPE, Failures, assert_same,
                     index_values, kinds_for, layouts_for, make_tensor, reduces_for,
                     ref_index_scatter, ref_index_scatter_torch, values)

X_SHAPE = (4, 5, 3)
DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _case(rng, dtype, kind, layouts, axis, reduce, include_self, index_dtype, mode, L,
          x_shape=X_SHAPE, pass_axis=True):
    """L: length of the 1-d index, or None for a 0-d index."""
    xl, il, ul = layouts
    nd = len(x_shape)
    ax = axis % nd
    n = x_shape[ax]
    flavor = "prod" if reduce == "prod" else "general"
    upd_shape = list(x_shape)
    if L is None:
        del upd_shape[ax]
        idx_shape = ()
    else:
        upd_shape[ax] = L
        idx_shape = (L,)
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, index_dtype), idx_shape, il,
                          kind, rng)
    upd, ur = make_tensor(lambda s: values(rng, s, dtype, flavor), upd_shape, ul, kind, rng)
    if pass_axis:
        got = sk.index_scatter(x, idx, upd, axis, reduce=reduce, include_self=include_self,
                               mode=mode)
    else:
        got = sk.index_scatter(x, idx, upd, reduce=reduce, include_self=include_self, mode=mode)
    exp = ref_index_scatter(xr, ir, ur, axis, reduce, include_self, mode)
    assert_same(got, exp, kind)
    assert_same(x, xr)
    assert_same(upd, ur)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_index_scatter_matrix(dtype, kind, rng):
    """dtype x kind x layout x reduce x include_self x index dtype x mode,
    random axis and index length (0-d, empty, duplicates)."""
    f = Failures()
    for layout in layouts_for(kind):
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                for index_dtype in INDEX_DTYPES:
                    for mode in SCATTER_MODES:
                        axis = int(rng.choice([0, 1, 2, -1, -2, -3]))
                        L = [None, 0, 1, 3, 7, 9][int(rng.integers(6))]
                        desc = (f"{layout} axis={axis} L={L} reduce={reduce} "
                                f"include_self={include_self} {index_dtype} mode={mode}")
                        f.run(desc, lambda: _case(rng, dtype, kind, (layout,) * 3, axis, reduce,
                                                  include_self, index_dtype, mode, L))
    f.check()


def test_index_scatter_default_axis_0(rng):
    f = Failures()
    for dtype in ["float32", "int8", "bfloat16"]:
        for reduce in reduces_for(dtype):
            f.run(f"{dtype} {reduce}", lambda: _case(rng, dtype, "torch", ("contiguous",) * 3, 0,
                                                     reduce, True, "int64", "error", 6,
                                                     pass_axis=False))
    f.check()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32",
                                   "int64", "uint8"])
def test_index_scatter_vs_torch_index_ops(dtype, rng):
    """Cross-check against torch.index_copy (no duplicates: torch leaves them
    undefined), index_add (sum) and index_reduce (prod/mean/amax/amin)."""
    f = Failures()
    for axis in (0, 1, 2):
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                def run():
                    n = X_SHAPE[axis]
                    if reduce is None:
                        ir = torch.from_numpy(rng.permutation(n)[: max(n - 1, 1)])
                    else:
                        ir = torch.from_numpy(rng.integers(0, n, 8))
                    shp = list(X_SHAPE)
                    shp[axis] = ir.shape[0]
                    flavor = "prod" if reduce == "prod" else "general"
                    if dtype == "uint8" or dtype in ("int32", "int64"):
                        # small values: torch's int index ops give plain results
                        xr = torch.from_numpy(rng.integers(0, 5, X_SHAPE)).to(TORCH_DTYPE[dtype])
                        ur = torch.from_numpy(rng.integers(0, 5, shp)).to(TORCH_DTYPE[dtype])
                    else:
                        xr = values(rng, X_SHAPE, dtype, flavor)
                        ur = values(rng, shp, dtype, flavor)
                    got = sk.index_scatter(xr, ir, ur, axis, reduce=reduce,
                                           include_self=include_self)
                    exp = ref_index_scatter_torch(xr, ir, ur, axis, reduce, include_self)
                    assert_same(got, exp, "torch")
                f.run(f"axis={axis} reduce={reduce} include_self={include_self}", run)
    f.check()


def test_index_scatter_explicit():
    x = np.zeros((3, 2), np.float32)
    upd = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    idx = np.array([2, 0, 2, -1])
    # assign: index[3] = -1 -> row 2, the last update to row 2 wins
    np.testing.assert_array_equal(sk.index_scatter(x, idx, upd, 0), [[3, 4], [0, 0], [7, 8]])
    np.testing.assert_array_equal(sk.index_scatter(x, idx, upd, 0, reduce="sum"),
                                  [[3, 4], [0, 0], [13, 16]])
    # Paddle's scatter(overwrite=False): sum with include_self=False
    x1 = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(
        sk.index_scatter(x1, idx, upd, 0, reduce="sum", include_self=False),
        [[3, 4], [1, 1], [13, 16]])
    # axis 1, 0-d index: updates has the axis removed
    got = sk.index_scatter(x, np.array(1), np.array([9, 8, 7], np.float32), 1)
    np.testing.assert_array_equal(got, [[0, 9], [0, 8], [0, 7]])
    # drop and clip
    got = sk.index_scatter(x, np.array([5, 1, -4]), upd[:3], 0, reduce="sum", mode="drop")
    np.testing.assert_array_equal(got, [[0, 0], [3, 4], [0, 0]])
    got = sk.index_scatter(x, np.array([5, 1, -4]), upd[:3], 0, reduce="sum", mode="clip")
    np.testing.assert_array_equal(got, [[5, 6], [3, 4], [1, 2]])


def test_index_scatter_mean_amax_include_self():
    x = torch.tensor([[10, 10], [20, 20]], dtype=torch.int64)
    upd = torch.tensor([[1, 2], [3, -9]], dtype=torch.int64)
    idx = torch.tensor([1, 1])
    got = sk.index_scatter(x, idx, upd, 0, reduce="mean")  # (20+1+3)/3, (20+2-9)/3 floor
    assert torch.equal(got, torch.tensor([[10, 10], [8, 4]]))
    got = sk.index_scatter(x, idx, upd, 0, reduce="mean", include_self=False)  # 4/2, -7/2
    assert torch.equal(got, torch.tensor([[10, 10], [2, -4]]))
    got = sk.index_scatter(x, idx, upd, 0, reduce="amin", include_self=False)
    assert torch.equal(got, torch.tensor([[10, 10], [1, -9]]))


def test_index_scatter_zero_size(rng):
    f = Failures()
    cases = [((3, 0, 2), 4, 0), ((3, 0, 2), 0, 1), ((3, 0, 2), 2, 2), ((0, 4), 3, 1),
             ((3, 4), 0, 0), ((0,), 0, 0)]
    for dtype in ["float32", "bfloat16", "int16", "bool"]:
        for xs, L, axis in cases:
            for reduce in reduces_for(dtype):
                def run():
                    xr = values(rng, xs, dtype)
                    shp = list(xs)
                    shp[axis] = L
                    ir = index_values(rng, (L,), xs[axis], "error", "int64")
                    ur = values(rng, shp, dtype)
                    got = sk.index_scatter(xr, ir, ur, axis, reduce=reduce)
                    assert_same(got, ref_index_scatter(xr, ir, ur, axis, reduce), "torch")
                f.run(f"{dtype} x{xs} L={L} axis={axis} reduce={reduce}", run)
    f.check()


@pytest.mark.parametrize("reduce", [None, "sum", "prod", "amax", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_0d_x_with_a_1d_index(reduce, include_self):
    # a 0-d x is one element along axis 0 (as index_select takes it), so a
    # 1-d index of length L asks for updates of shape [L]; the result is 0-d
    x = torch.tensor(1.5, dtype=torch.float64)
    index = torch.tensor([0, -1, 0])
    updates = torch.tensor([2.0, -3.0, 4.0], dtype=torch.float64)
    for axis in (0, -1):
        got = sk.index_scatter(x, index, updates, axis, reduce=reduce, include_self=include_self)
        if reduce is None:
            want = x.reshape(1).index_copy(0, index % 1, updates).reshape(())
        elif reduce == "sum":
            want = (x if include_self else 0) + updates.sum()
        else:
            want = x.reshape(1).index_reduce(0, index % 1, updates, reduce,
                                             include_self=include_self).reshape(())
        assert got.shape == () and torch.allclose(got, want), (got, want)
    got = sk.index_scatter(x.numpy(), index.numpy(), 5.0, 0)  # a scalar: broadcast to [3]
    assert got.shape == () and got == 5.0
    with pytest.raises(ValueError, match=r"updates must have shape \[3\]"):
        sk.index_scatter(x, index, updates[:2], 0)
    with pytest.raises(IndexError, match=r"index\[1\] = 1 "):
        sk.index_scatter(x, torch.tensor([0, 1]), updates[:2], 0)

"""gather_nd(x, index, *, batch_dims=0, mode, fill_value) and
scatter_nd(x, index, updates, *, reduce, mode, out).

References: PyTorch advanced indexing x[tuple(idx.T)] (gather_nd) and
index_put_ (scatter_nd assign with unique indices, sum with
accumulate=True, float16/bfloat16 in float32 rounded once); plain NumPy flat
positions (test_family_common) for batch_dims, modes, every reduction and the
deterministic last-wins assign.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, FLOAT_DTYPES, INDEX_DTYPES, LOW_FLOAT_DTYPES, SCATTER_MODES,
                     TORCH_DTYPE, Failures, assert_same, bits_of, fill_value_for, index_values,
                     kinds_for, layouts_for, make_tensor, reduces_for, to_kind, to_torch,
                     values, writable_layout)
from test_family_common import (assert_unchanged, raises_with, ref_gather_nd, ref_scatter_nd)

DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _nd_index_gen(rng, sizes, mode, index_dtype):
    """gen(shape) for make_tensor; the last dimension holds the k-tuples
    (when a layout expands it to 1, one value serves every component)."""
    k = len(sizes)

    def gen(shape):
        m = shape[-1]
        comps = [index_values(rng, shape[:-1], sizes[j] if m == k else min(sizes), mode,
                              "int64") for j in range(m)]
        t = torch.stack(comps, -1) if comps else torch.zeros(shape, dtype=torch.int64)
        return t.to(TORCH_DTYPE[index_dtype])
    return gen


def _rand_shape(rng, nd, lo=1, hi=4):
    return tuple(int(s) for s in rng.integers(lo, hi + 1, nd))


def _gather_nd_case(rng, dtype, kind, layouts, index_dtype, mode):
    xl, il = layouts
    b = int(rng.integers(0, 3))
    k = int(rng.integers(0 if rng.random() < 0.15 else 1, 3))
    r = int(rng.integers(0, 2))
    x_shape = _rand_shape(rng, b + k + r)
    mshape = _rand_shape(rng, int(rng.integers(0, 3)))
    ishape = x_shape[:b] + mshape + (k,)
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    sizes = list(x_shape[b:b + k])
    idx, ir = make_tensor(_nd_index_gen(rng, sizes, mode, index_dtype), ishape, il, kind, rng)
    fv = fill_value_for(dtype)
    got = sk.gather_nd(x, idx, batch_dims=b, mode=mode, fill_value=fv)
    assert_same(got, ref_gather_nd(xr, ir, b, mode, fv), kind)
    if b == 0 and k >= 1 and mode == "error":
        # PyTorch advanced indexing (negative indices wrap there too)
        assert_same(got, xr[tuple(ir.long().unbind(-1))], kind)
    assert_same(x, xr)


def _scatter_nd_case(rng, dtype, kind, layouts, reduce, index_dtype, mode, x_shape=None):
    xl, il, ul = layouts
    flavor = "prod" if reduce == "prod" else "general"
    if x_shape is None:
        x_shape = _rand_shape(rng, int(rng.integers(1, 4)), 1, 5)
    k = int(rng.integers(0 if rng.random() < 0.1 else 1, len(x_shape) + 1))
    mshape = _rand_shape(rng, int(rng.integers(1, 3)), 1, 6)
    ishape = mshape + (k,)
    ushape = mshape + tuple(x_shape[k:])
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(_nd_index_gen(rng, list(x_shape[:k]), mode, index_dtype), ishape,
                          il, kind, rng)
    upd, ur = make_tensor(lambda s: values(rng, s, dtype, flavor), ushape, ul, kind, rng)
    got = sk.scatter_nd(x, idx, upd, reduce=reduce, mode=mode)
    assert_same(got, ref_scatter_nd(xr, ir, ur, reduce, mode), kind)
    assert_same(x, xr)
    assert_same(upd, ur)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_gather_nd_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x index dtype x mode x 2 random
    shapes (batch_dims 0-2, k 0-2, rest 0-1 dims, 0-2 index dims)."""
    f = Failures()
    for layout in layouts_for(kind):
        for index_dtype in INDEX_DTYPES:
            for mode in ["error", "clip", "fill"]:
                for _ in range(2):
                    f.run(f"{layout} {index_dtype} {mode}",
                          lambda: _gather_nd_case(rng, dtype, kind, (layout, layout),
                                                  index_dtype, mode))
    f.check()


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_scatter_nd_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x reduce x index dtype (looped),
    random mode and shape (k from 0 to x.ndim; duplicate targets)."""
    f = Failures()
    for layout in layouts_for(kind):
        for reduce in reduces_for(dtype):
            for index_dtype in INDEX_DTYPES:
                mode = str(rng.choice(SCATTER_MODES))
                f.run(f"{layout} {reduce} {index_dtype} {mode}",
                      lambda: _scatter_nd_case(rng, dtype, kind, (layout,) * 3, reduce,
                                               index_dtype, mode))
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_nd_mixed_layouts(kind, rng):
    f = Failures()
    lays = layouts_for(kind)
    for dtype in ["float64", "uint8", "bool", "bfloat16" if kind == "torch" else "float16"]:
        for _ in range(15):
            lay = tuple(str(rng.choice(lays)) for _ in range(3))
            reds = reduces_for(dtype)
            reduce = reds[int(rng.integers(len(reds)))]
            mode = str(rng.choice(SCATTER_MODES))
            idt = str(rng.choice(INDEX_DTYPES))
            f.run(f"scatter_nd {dtype} {lay} {reduce} {mode} {idt}",
                  lambda: _scatter_nd_case(rng, dtype, kind, lay, reduce, idt, mode))
            gmode = str(rng.choice(["error", "clip", "fill"]))
            f.run(f"gather_nd {dtype} {lay[:2]} {gmode} {idt}",
                  lambda: _gather_nd_case(rng, dtype, kind, lay[:2], idt, gmode))
    f.check()


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_nd_vs_torch_index_put(dtype, rng):
    """Assign with unique index tuples: index_put_; sum with duplicates:
    index_put_(accumulate=True) (float16/bfloat16 in float32, rounded once)."""
    t = TORCH_DTYPE[dtype]
    f = Failures()
    for trial in range(6):
        x_shape = _rand_shape(rng, 3, 2, 5)
        k = int(rng.integers(1, 4))
        cells = int(np.prod(x_shape[:k]))
        m = int(rng.integers(1, cells + 1))
        flat = rng.permutation(cells)[:m]
        idx = torch.from_numpy(np.stack(np.unravel_index(flat, x_shape[:k]), -1).astype(np.int64))
        idx = torch.where(torch.from_numpy(rng.random(idx.shape) < 0.3),
                          idx - torch.tensor(x_shape[:k]), idx)  # negative spellings
        x = values(rng, x_shape, dtype)
        u = values(rng, (m,) + x_shape[k:], dtype)
        for idt in INDEX_DTYPES:
            i = idx.to(TORCH_DTYPE[idt])

            def run():
                exp = x.clone().index_put_(tuple(idx.unbind(-1)), u)
                assert_same(sk.scatter_nd(x, i, u), exp)
                if dtype == "bool":
                    return
                # duplicates for sum
                dup = torch.cat([idx, idx[: max(1, m // 2)]], 0)
                ud = values(rng, (dup.shape[0],) + x_shape[k:], dtype)
                if dtype in LOW_FLOAT_DTYPES:
                    exp = x.float().index_put_(tuple(dup.unbind(-1)), ud.float(),
                                               accumulate=True).to(t)
                else:
                    exp = x.clone().index_put_(tuple(dup.unbind(-1)), ud, accumulate=True)
                assert_same(sk.scatter_nd(x, dup.to(TORCH_DTYPE[idt]), ud, reduce="sum"), exp)
            f.run(f"trial {trial} {x_shape} k={k} {idt}", run)
    f.check()


def test_scatter_nd_last_wins_worked_example():
    x = np.zeros((3, 4), np.int64)
    idx = np.array([[1], [1], [0], [1]])
    upd = np.arange(16).reshape(4, 4)
    np.testing.assert_array_equal(sk.scatter_nd(x, idx, upd),
                                  [[8, 9, 10, 11], [12, 13, 14, 15], [0, 0, 0, 0]])
    np.testing.assert_array_equal(sk.scatter_nd(x, idx, upd, reduce="sum"),
                                  [[8, 9, 10, 11], [16, 19, 22, 25], [0, 0, 0, 0]])
    # mean (include_self always): (0 + 0 + 4 + 12) / 4 = 4, ... ; floors
    np.testing.assert_array_equal(sk.scatter_nd(x, idx, upd, reduce="mean"),
                                  [[4, 4, 5, 5], [4, 4, 5, 6], [0, 0, 0, 0]])
    # drop skips the whole tuple when one component is out of range; clip clamps
    x2 = np.zeros((3, 4), np.int64)
    i2 = np.array([[1, 5], [1, -1], [-4, 0]])
    np.testing.assert_array_equal(sk.scatter_nd(x2, i2, np.array([7, 8, 9]), mode="drop"),
                                  [[0, 0, 0, 0], [0, 0, 0, 8], [0, 0, 0, 0]])
    np.testing.assert_array_equal(sk.scatter_nd(x2, i2, np.array([7, 8, 9]), mode="clip"),
                                  [[9, 0, 0, 0], [0, 0, 0, 8], [0, 0, 0, 0]])
    # gather_nd fill fills the whole slice
    xg = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(sk.gather_nd(xg, np.array([[5], [1]]), mode="fill",
                                               fill_value=-9), [[-9] * 4, [4, 5, 6, 7]])
    np.testing.assert_array_equal(sk.gather_nd(xg, np.array([[1], [0], [-1]]), batch_dims=1),
                                  [1, 4, 11])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_scatter_nd_nan_and_low_float(dtype):
    t = TORCH_DTYPE[dtype]
    x = torch.tensor([1.0, float("nan"), 3.0], dtype=t)
    idx = torch.tensor([[0], [0], [1], [2]])
    u = torch.tensor([float("nan"), 2.0, 5.0, 4.0], dtype=t)
    for reduce in ("amax", "amin"):
        r = sk.scatter_nd(x, idx, u, reduce=reduce)
        assert torch.isnan(r[0]) and torch.isnan(r[1]), (reduce, r)
        assert r[2].item() == (4.0 if reduce == "amax" else 3.0)
    if dtype in LOW_FLOAT_DTYPES:
        big = 2048.0 if dtype == "float16" else 256.0
        r = sk.scatter_nd(torch.tensor([big], dtype=t), torch.zeros((4, 1), dtype=torch.int64),
                          torch.ones(4, dtype=t), reduce="sum")
        assert r.item() == big + 4, r


def test_scatter_nd_integer_wrap_mean_floor_bool():
    x = np.array([127, -128, 0], np.int8)
    r = sk.scatter_nd(x, np.array([[0], [1], [2], [2]]), np.array([1, -1, -1, -1], np.int8),
                      reduce="sum")
    np.testing.assert_array_equal(r, [-128, 127, -2])
    r = sk.scatter_nd(np.array([0], np.int64), np.array([[0], [0]]), np.array([-1, -1]),
                      reduce="mean")
    np.testing.assert_array_equal(r, [-1])  # -2/3 floors to -1
    for reduce in ("sum", "prod", "mean"):
        with raises_with(TypeError, "scatter_nd", "reduce"):
            sk.scatter_nd(np.zeros(3, bool), np.array([[0]]), np.array([True]), reduce=reduce)
    r = sk.scatter_nd(np.array([False, True]), np.array([[0], [1], [0]]),
                      np.array([True, False, False]), reduce="amin")
    np.testing.assert_array_equal(r, [False, False])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_nd_zero_d_and_zero_size(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    x0 = K(np.array(5, np.int32))
    assert_same(sk.gather_nd(x0, K(np.zeros((0,), np.int64))), torch.tensor(5, dtype=torch.int32))
    assert_same(sk.gather_nd(x0, K(np.zeros((3, 0), np.int64))),
                torch.full((3,), 5, dtype=torch.int32))
    assert_same(sk.scatter_nd(x0, K(np.zeros((0,), np.int64)), K(np.array(3, np.int32))),
                torch.tensor(3, dtype=torch.int32))
    assert_same(sk.scatter_nd(x0, K(np.zeros((2, 0), np.int64)), K(np.array([3, 4], np.int32)),
                              reduce="sum"), torch.tensor(12, dtype=torch.int32))
    assert_same(sk.scatter_nd(x0, K(np.zeros((2, 0), np.int64)), K(np.array([3, 4], np.int32))),
                torch.tensor(4, dtype=torch.int32))  # last wins
    # k = 0 on a 2-d x: every tuple addresses the whole x
    x = K(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert_same(sk.gather_nd(x, K(np.zeros((2, 0), np.int64))),
                torch.arange(6, dtype=torch.float32).reshape(1, 2, 3).expand(2, 2, 3))
    # empty index -> empty result, x unchanged by scatter
    assert tuple(sk.gather_nd(x, K(np.zeros((0, 2), np.int64))).shape) == (0,)
    assert tuple(sk.gather_nd(x, K(np.zeros((0, 1), np.int32))).shape) == (0, 3)
    assert_same(sk.scatter_nd(x, K(np.zeros((0, 1), np.int64)),
                              K(np.zeros((0, 3), np.float32)), reduce="prod"), to_torch(x))
    # zero-size x
    xe = K(np.zeros((0, 3), np.float64))
    assert tuple(sk.gather_nd(xe, K(np.zeros((0, 1), np.int64))).shape) == (0, 3)
    assert_same(sk.gather_nd(xe, K(np.array([[0], [1]])), mode="fill", fill_value=2.0),
                torch.full((2, 3), 2.0, dtype=torch.float64))
    with pytest.raises(IndexError):
        sk.gather_nd(xe, K(np.array([[0]])), mode="clip")
    with pytest.raises(IndexError):
        sk.gather_nd(xe, K(np.array([[0]])))
    assert_same(sk.scatter_nd(xe, K(np.array([[0]])), K(np.ones((1, 3))), mode="drop"),
                torch.zeros((0, 3), dtype=torch.float64))
    # batch_dims equal to x.ndim is allowed when index has one more dim and k = 0
    xb = K(np.arange(6, dtype=np.int16).reshape(2, 3))
    assert_same(sk.gather_nd(xb, K(np.zeros((2, 3, 0), np.int64)), batch_dims=2),
                torch.arange(6, dtype=torch.int16).reshape(2, 3))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_scatter_nd_out_and_in_place(kind, rng):
    f = Failures()
    dts = ["float64", "int8", "bool", "float16"] + (["bfloat16"] if kind == "torch" else [])
    for dtype in dts:
        for reduce in reduces_for(dtype):
            flavor = "prod" if reduce == "prod" else "general"
            xr = values(rng, (5, 4, 3), dtype, flavor)
            ir = torch.stack([index_values(rng, (9,), 5, "error", "int32"),
                              index_values(rng, (9,), 4, "error", "int32")], -1)
            ur = values(rng, (9, 3), dtype, flavor)
            exp = ref_scatter_nd(xr, ir, ur, reduce)

            def run():
                for lay in [lay for lay in layouts_for(kind) if writable_layout(lay)]:
                    out, _ = make_tensor(lambda s: values(rng, s, dtype), (5, 4, 3), lay, kind,
                                         rng)
                    r = sk.scatter_nd(to_kind(xr, kind), to_kind(ir, kind), to_kind(ur, kind),
                                      reduce=reduce, out=out)
                    assert r is out
                    assert_same(out, exp, kind)
                    xi, _ = make_tensor(lambda s: xr.clone(), (5, 4, 3), lay, kind, rng)
                    r = sk.scatter_nd(xi, to_kind(ir, kind), to_kind(ur, kind), reduce=reduce,
                                      out=xi)
                    assert r is xi
                    assert_same(xi, exp, kind)
                sc = False if dtype == "bool" else 3
                assert_same(sk.scatter_nd(to_kind(xr, kind), to_kind(ir, kind), sc,
                                          reduce=reduce),
                            ref_scatter_nd(xr, ir, sc, reduce), kind)
            f.run(f"{dtype} {reduce}", run)
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_nd_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    x = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    with raises_with(ValueError, "gather_nd", "index"):
        sk.gather_nd(x, K(np.zeros((2, 3), np.int64)))  # k = 3 > x.ndim
    with raises_with(ValueError, "gather_nd", "index"):
        sk.gather_nd(x, K(np.array(0)))
    with raises_with(ValueError, "gather_nd", "batch_dims", "2"):
        sk.gather_nd(x, K(np.zeros((3, 1), np.int64)), batch_dims=2)
    with raises_with(ValueError, "gather_nd", "batch_dims", "-1"):
        sk.gather_nd(x, K(np.zeros((3, 1), np.int64)), batch_dims=-1)
    with raises_with(ValueError, "gather_nd", "batch"):
        sk.gather_nd(x, K(np.zeros((2, 1), np.int64)), batch_dims=1)
    with raises_with(ValueError, "gather_nd", "mode"):
        sk.gather_nd(x, K(np.zeros((3, 1), np.int64)), mode="drop")
    with raises_with(TypeError, "gather_nd", "index", "float"):
        sk.gather_nd(x, K(np.zeros((3, 1), np.float64)))
    with raises_with(IndexError, "gather_nd", "index[1, 1] = 9", "axis 1", "size 4"):
        sk.gather_nd(x, K(np.array([[0, 0], [0, 9]])))
    with raises_with(IndexError, "gather_nd", "index[0, 0] = -4", "axis 0", "size 3"):
        sk.gather_nd(x, K(np.array([[-4, 0]])))
    with raises_with(IndexError, "gather_nd", "index[1, 0] = 4", "axis 1", "size 4"):
        sk.gather_nd(x, K(np.array([[2], [4], [0]])), batch_dims=1)
    # scatter_nd: failing in-place calls write nothing (bad index last)
    idx = np.array([[0, 0], [1, 1], [2, 2], [2, 4]])
    for reduce in reduces_for("float32"):
        xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
        before = bits_of(xi)
        with raises_with(IndexError, "scatter_nd", "index[3, 1] = 4", "axis 1", "size 4"):
            sk.scatter_nd(xi, K(idx), K(np.ones(4, np.float32)), reduce=reduce, out=xi)
        assert_unchanged(xi, before)
        out = K(np.full((3, 4), 7.0, np.float32))
        ob = bits_of(out)
        with pytest.raises(IndexError):
            sk.scatter_nd(x, K(idx), 1.0, reduce=reduce, out=out)
        assert_unchanged(out, ob, "out")
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    with raises_with(ValueError, "scatter_nd", "updates", "[1, 4]", "[1, 3]"):
        sk.scatter_nd(xi, K(np.array([[0]])), K(np.zeros((1, 3), np.float32)), out=xi)
    with raises_with(TypeError, "scatter_nd", "updates", "float32", "int32"):
        sk.scatter_nd(xi, K(np.array([[0]])), K(np.zeros((1, 4), np.int32)), out=xi)
    with raises_with(ValueError, "scatter_nd", "mode"):
        sk.scatter_nd(xi, K(np.array([[0]])), 1.0, mode="fill", out=xi)
    with raises_with(ValueError, "scatter_nd", "reduce"):
        sk.scatter_nd(xi, K(np.array([[0]])), 1.0, reduce="add", out=xi)
    with raises_with(ValueError, "scatter_nd", "index"):
        sk.scatter_nd(xi, K(np.array([[0, 0, 0]])), 1.0, out=xi)
    with raises_with(TypeError, "scatter_nd", "index"):
        sk.scatter_nd(xi, K(np.array([[0.0]])), 1.0, out=xi)
    with raises_with(ValueError, "scatter_nd", "out"):
        sk.scatter_nd(xi, K(np.array([[0]])), 1.0, out=K(np.zeros((3, 5), np.float32)))
    with raises_with(TypeError, "scatter_nd", "out"):
        sk.scatter_nd(xi, K(np.array([[0]])), 1.0, out=K(np.zeros((3, 4), np.float64)))
    assert_unchanged(xi, before)


def test_scatter_nd_overlap_refused():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    before = bits_of(base)
    with raises_with(ValueError, "scatter_nd", "out"):
        sk.scatter_nd(base[:, :4], np.array([[0]]), 1.0, out=base[:, 2:])
    with raises_with(ValueError, "scatter_nd", "out"):
        sk.scatter_nd(np.zeros((4, 3)), np.array([[0]]), base[:1, :3], out=base[:, ::2])
    assert_unchanged(base, before, "base")


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_extreme_index_values(index_dtype):
    """Index values at the ends of the index dtype: no overflow in the
    negative rule or the range check; fill/clip/drop/error as CONTRACT says."""
    info = np.iinfo(index_dtype)
    x = np.arange(5, dtype=np.int64)
    for v in [int(info.max), int(info.min), int(info.max) - 1, int(info.min) + 5]:
        i = np.array([[v]], index_dtype)
        expect_clip = 4 if v > 0 else 0
        np.testing.assert_array_equal(sk.gather_nd(x, i, mode="fill", fill_value=-1), [-1])
        np.testing.assert_array_equal(sk.gather_nd(x, i, mode="clip"), [expect_clip])
        np.testing.assert_array_equal(sk.gather(x, i, (0,), mode="fill", fill_value=-1), [-1])
        np.testing.assert_array_equal(sk.scatter_nd(x, i, np.array([9]), mode="drop"), x)
        exp = x.copy()
        exp[expect_clip] = 9
        np.testing.assert_array_equal(sk.scatter_nd(x, i, np.array([9]), mode="clip"), exp)
        np.testing.assert_array_equal(sk.scatter(x, i, np.array([9]), (0,), mode="clip"), exp)
        with raises_with(IndexError, "gather_nd", f"= {v}", "size 5"):
            sk.gather_nd(x, i)
        with raises_with(IndexError, "scatter_nd", f"= {v}", "size 5"):
            sk.scatter_nd(x, i, np.array([9]))
        with raises_with(IndexError, "tensor_scatter", f"write_indices[1] = {v}"):
            sk.tensor_scatter(np.zeros((2, 5)), np.ones((2, 2)), np.array([0, v], index_dtype),
                              axis=1)
        if v < 0:
            with raises_with(IndexError, "tensor_scatter", f"write_indices[1] = {v}"):
                sk.tensor_scatter(np.zeros((2, 5)), np.ones((2, 2)),
                                  np.array([0, v], index_dtype), axis=1, mode="circular")
        else:  # circular: the write index is taken modulo the axis (ONNX), no overflow
            r = sk.tensor_scatter(np.zeros((2, 5)), np.ones((2, 2)),
                                  np.array([0, v], index_dtype), axis=1, mode="circular")
            want = np.zeros((2, 5))
            want[0, :2] = 1
            want[1, [v % 5, (v + 1) % 5]] = 1
            np.testing.assert_array_equal(r, want)

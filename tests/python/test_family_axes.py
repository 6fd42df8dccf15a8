"""gather / scatter with axis a tuple (CINN gather_nd / scatter_nd with dims).

CONTRACT §3: index.shape == out.shape + (M,), out.ndim == x.ndim;
out[p] = x[p with p[axis[k]] = index[p + (k,)]]; scatter is the inverse
(src.shape[d] >= index.shape[d] for the leading block, or a scalar).
References: plain NumPy flat positions (helpers_family) reduced with
helpers.ref_scatter -- no framework has this operator.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, FLOAT_DTYPES, INDEX_DTYPES, SCATTER_MODES, TORCH_DTYPE, Failures,
                     assert_same, bits_of, fill_value_for, index_values,
                     kinds_for, layouts_for, make_tensor, reduces_for, to_kind, to_torch,
                     values, writable_layout)
from helpers_family import (assert_unchanged, raises_with, ref_gather_axes,
                            ref_scatter_axes)

X_SHAPE = (4, 5, 3)
DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _pick_axes(rng, nd):
    m = int(rng.integers(1, nd + 1))
    axes = [int(a) for a in rng.permutation(nd)[:m]]
    # some negative spellings
    return tuple(a - nd if rng.random() < 0.3 else a for a in axes)


def _index_gen(rng, x_shape, axes, mode, index_dtype):
    """gen(shape) for make_tensor: shape = P + (M,) (or P' + (1,) when the
    layout expands the last dimension: then one value for every axis)."""
    nd = len(x_shape)
    sizes = [x_shape[a % nd] for a in axes]

    def gen(shape):
        m = shape[-1]
        comps = []
        for k in range(m):
            n = sizes[k] if m == len(sizes) else min(sizes)
            comps.append(index_values(rng, shape[:-1], n, mode, "int64"))
        t = torch.stack(comps, -1) if comps else torch.zeros(shape, dtype=torch.int64)
        return t.to(TORCH_DTYPE[index_dtype])
    return gen


def _out_shape(rng, x_shape, axes, scatter):
    nd = len(x_shape)
    ax = {a % nd for a in axes}
    shape = []
    for d, s in enumerate(x_shape):
        if d in ax:
            shape.append(int(rng.integers(1, 7)))  # may exceed s: duplicates
        else:
            shape.append(int(rng.integers(1, s + 1)))
    return tuple(shape)


def _gather_case(rng, dtype, kind, layouts, axes, index_dtype, mode, x_shape=X_SHAPE):
    xl, il = layouts
    oshape = _out_shape(rng, x_shape, axes, False)
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    idx, ir = make_tensor(_index_gen(rng, x_shape, axes, mode, index_dtype),
                          oshape + (len(axes),), il, kind, rng)
    fv = fill_value_for(dtype)
    got = sk.gather(x, idx, axes, mode=mode, fill_value=fv)
    assert_same(got, ref_gather_axes(xr, ir, axes, mode, fv), kind)
    assert_same(x, xr)


def _scatter_case(rng, dtype, kind, layouts, axes, reduce, include_self, index_dtype, mode,
                  bigger_src, x_shape=X_SHAPE):
    xl, il, sl = layouts
    flavor = "prod" if reduce == "prod" else "general"
    ushape = _out_shape(rng, x_shape, axes, True)
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(_index_gen(rng, x_shape, axes, mode, index_dtype),
                          ushape + (len(axes),), il, kind, rng)
    sshape = tuple(s + (int(rng.integers(0, 3)) if bigger_src else 0) for s in ushape)
    src, sr = make_tensor(lambda s: values(rng, s, dtype, flavor), sshape, sl, kind, rng)
    got = sk.scatter(x, idx, src, axes, reduce=reduce, include_self=include_self, mode=mode)
    exp = ref_scatter_axes(xr, ir, sr, axes, reduce, include_self, mode)
    assert_same(got, exp, kind)
    assert_same(x, xr)
    assert_same(src, sr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_gather_axes_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x index dtype x mode (looped),
    random axis tuples (1 to 3 axes, any order, negative spellings)."""
    f = Failures()
    for layout in layouts_for(kind):
        for index_dtype in INDEX_DTYPES:
            for mode in ["error", "clip", "fill"]:
                axes = _pick_axes(rng, 3)
                f.run(f"{layout} axes={axes} {index_dtype} {mode}",
                      lambda: _gather_case(rng, dtype, kind, (layout, layout), axes,
                                           index_dtype, mode))
    f.check()


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_scatter_axes_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x reduce x index dtype (looped);
    include_self, mode, src size and axes random per case; duplicates."""
    f = Failures()
    for layout in layouts_for(kind):
        for reduce in reduces_for(dtype):
            for index_dtype in INDEX_DTYPES:
                axes = _pick_axes(rng, 3)
                include_self = bool(rng.random() < 0.5)
                mode = str(rng.choice(SCATTER_MODES))
                bigger = bool(rng.random() < 0.5)
                desc = (f"{layout} axes={axes} reduce={reduce} self={include_self} "
                        f"{index_dtype} {mode} bigger={bigger}")
                f.run(desc, lambda: _scatter_case(rng, dtype, kind, (layout,) * 3, axes, reduce,
                                                  include_self, index_dtype, mode, bigger))
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_axes_mixed_layouts_and_ranks(kind, rng):
    """x, index, src each in its own layout; x of 1 to 4 dimensions."""
    f = Failures()
    lays = layouts_for(kind)
    shapes = [(6,), (3, 4), (2, 3, 4), (2, 3, 2, 3)]
    for dtype in ["float32", "int16", "bool", "float16", "int64"]:
        for _ in range(12):
            xs = shapes[int(rng.integers(len(shapes)))]
            axes = _pick_axes(rng, len(xs))
            lay = tuple(str(rng.choice(lays)) for _ in range(3))
            reds = reduces_for(dtype)
            reduce = reds[int(rng.integers(len(reds)))]
            inc = bool(rng.random() < 0.5)
            mode = str(rng.choice(SCATTER_MODES))
            idt = str(rng.choice(INDEX_DTYPES))
            f.run(f"scatter {dtype} {xs} {axes} {lay} {reduce} {inc} {mode} {idt}",
                  lambda: _scatter_case(rng, dtype, kind, lay, axes, reduce, inc, idt, mode, True,
                                        xs))
            gmode = str(rng.choice(["error", "clip", "fill"]))
            f.run(f"gather {dtype} {xs} {axes} {lay[:2]} {gmode} {idt}",
                  lambda: _gather_case(rng, dtype, kind, lay[:2], axes, idt, gmode, xs))
    f.check()


def test_axes_worked_example():
    """A hand-checked example (2-d x, both axes = a point gather/scatter)."""
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    idx = np.array([[[0, 0], [2, 3]], [[1, -1], [-3, 1]]])
    np.testing.assert_array_equal(sk.gather(x, idx, (0, 1)), [[0, 11], [7, 1]])
    # axes in the other order: component 0 addresses axis 1
    np.testing.assert_array_equal(sk.gather(x, idx[..., ::-1], (1, 0)), [[0, 11], [7, 1]])
    z = np.zeros((3, 4), np.int64)
    r = sk.scatter(z, np.array([[[0, 0], [0, 0]], [[1, 1], [2, 3]]]), np.array([[1, 2], [3, 4]]),
                   (0, 1))
    np.testing.assert_array_equal(r, [[2, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 4]])  # last wins
    # only one axis in the tuple: the other coordinate is the position
    x3 = np.arange(24).reshape(2, 3, 4)
    i1 = np.array([[[[2], [0]], [[1], [1]]]])  # shape (1, 2, 2, 1) -> out (1, 2, 2)
    exp = np.array([[[x3[0, 2, 0], x3[0, 0, 1]], [x3[0, 1, 0], x3[0, 1, 1]]]])
    np.testing.assert_array_equal(sk.gather(x3, i1, (1,)), exp)


def test_axes_single_axis_matches_int_axis(rng):
    """axis=(a,) with index[..., None] is gather/scatter with axis=a."""
    for dtype in ["float32", "int8", "bool"]:
        x = values(rng, (4, 5, 3), dtype)
        idx = index_values(rng, (3, 6, 2), 5, "error", "int64")
        src = values(rng, (3, 6, 2), dtype)
        assert_same(sk.gather(x, idx[..., None], (1,)), sk.gather(x, idx, 1))
        for reduce in reduces_for(dtype):
            assert_same(sk.scatter(x, idx[..., None], src, (-2,), reduce=reduce),
                        sk.scatter(x, idx, src, 1, reduce=reduce))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_scatter_axes_nan_propagates(dtype):
    """amax/amin propagate NaN (from src or from x with include_self)."""
    t = TORCH_DTYPE[dtype]
    x = torch.tensor([[1.0, 2.0], [3.0, float("nan")]], dtype=t)
    idx = torch.tensor([[[0, 0], [0, 0]], [[1, 1], [1, 1]]])
    src = torch.tensor([[float("nan"), 5.0], [7.0, 8.0]], dtype=t)
    for reduce in ("amax", "amin"):
        r = sk.scatter(x, idx, src, (0, 1), reduce=reduce)
        assert torch.isnan(r[0, 0]) and torch.isnan(r[1, 1]), (reduce, r)
        assert r[0, 1] == 2.0 and r[1, 0] == 3.0
        r = sk.scatter(x, idx, src, (0, 1), reduce=reduce, include_self=False)
        assert torch.isnan(r[0, 0]), (reduce, r)
        assert r[1, 1] == (8.0 if reduce == "amax" else 7.0), (reduce, r)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_scatter_axes_low_float_rounds_once(dtype):
    """float16/bfloat16 accumulate in float32: 2048 + 1+1+1+1 = 2052 in
    float16 (stepwise float16 would stay at 2048); 256 + 4 * 1 = 260 in
    bfloat16. mean: (2048 + 1*4) / 5 computed in float32, rounded once."""
    t = TORCH_DTYPE[dtype]
    big = 2048.0 if dtype == "float16" else 256.0
    x = torch.tensor([[big, 0.0]], dtype=t)
    idx = torch.zeros((1, 4, 2), dtype=torch.int64)
    src = torch.ones((1, 4), dtype=t)
    r = sk.scatter(x, idx, src, (0, 1), reduce="sum")
    assert r[0, 0].item() == big + 4, r
    r = sk.scatter(x, idx, src, (0, 1), reduce="mean")
    assert r[0, 0].item() == torch.tensor((big + 4) / 5, dtype=torch.float32).to(t).item(), r


def test_scatter_axes_integer_wrap_and_floor_mean():
    x = np.array([[127, 0], [-128, 0]], np.int8)
    idx = np.array([[[0, 0], [1, 0]]])
    src = np.array([[1, -1]], np.int8)
    np.testing.assert_array_equal(sk.scatter(x, idx, src, (0, 1), reduce="sum"),
                                  [[-128, 0], [127, 0]])
    np.testing.assert_array_equal(sk.scatter(x, idx, np.array([[2, 2]], np.int8), (0, 1),
                                             reduce="prod"), [[-2, 0], [0, 0]])
    # mean floors: (0 + -1 + -1) / 3 = -2/3 -> -1 (truncation would give 0)
    z = np.zeros((1, 2), np.int32)
    i2 = np.zeros((1, 2, 2), np.int64)
    np.testing.assert_array_equal(sk.scatter(z, i2, np.array([[-1, -1]], np.int32), (0, 1),
                                             reduce="mean"), [[-1, 0]])
    # include_self=False: -2 / 2 = -1; 5 / 2 = 2
    np.testing.assert_array_equal(sk.scatter(z, i2, np.array([[-1, -1]], np.int32), (0, 1),
                                             reduce="mean", include_self=False), [[-1, 0]])
    np.testing.assert_array_equal(sk.scatter(z, i2, np.array([[2, 3]], np.int32), (0, 1),
                                             reduce="mean", include_self=False), [[2, 0]])
    # uint8 wraps too
    u = np.array([[250]], np.uint8)
    np.testing.assert_array_equal(sk.scatter(u, np.zeros((1, 2, 2), np.int64),
                                             np.array([[3, 4]], np.uint8), (0, 1), reduce="sum"),
                                  [[1]])


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_scatter_axes_bool_only_assign_amax_amin(reduce):
    x = np.zeros((2, 3), bool)
    before = bits_of(x)
    with raises_with(TypeError, "scatter", "reduce"):
        sk.scatter(x, np.zeros((1, 1, 2), np.int64), np.ones((1, 1), bool), (0, 1),
                   reduce=reduce, out=x)
    assert_unchanged(x, before)
    r = sk.scatter(x, np.array([[[0, 1], [0, 1]]]), np.array([[True, False]]), (0, 1),
                   reduce="amax")
    assert r[0, 1] and r.sum() == 1
    r = sk.scatter(~x, np.array([[[0, 1], [0, 1]]]), np.array([[True, False]]), (0, 1),
                   reduce="amin")
    assert not r[0, 1] and r.sum() == 5


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_axes_zero_d_and_zero_size(kind):
    """0-d x (CHOICES: axis 0 / -1, one element) and zero-size tensors."""
    def K(a):
        return to_kind(torch.as_tensor(a), kind)
    x0 = K(np.array(5.0, np.float32))
    assert_same(sk.gather(x0, K(np.array([0])), (0,)), torch.tensor(5.0))
    assert_same(sk.gather(x0, K(np.array([-1])), (-1,)), torch.tensor(5.0))
    assert_same(sk.gather(x0, K(np.array([1])), (0,), mode="fill", fill_value=2.5),
                torch.tensor(2.5))
    assert_same(sk.scatter(x0, K(np.array([0])), K(np.array(3.0, np.float32)), (0,),
                           reduce="sum"), torch.tensor(8.0))
    assert_same(sk.scatter(x0, K(np.array([1])), 3.0, (0,), mode="drop"), torch.tensor(5.0))
    with pytest.raises(IndexError):
        sk.gather(x0, K(np.array([1])), (0,))
    # empty index: empty result / x unchanged
    x = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    e = sk.gather(x, K(np.zeros((0, 4, 2), np.int64)), (0, 1))
    assert tuple(e.shape) == (0, 4)
    r = sk.scatter(x, K(np.zeros((3, 0, 2), np.int64)), 1.0, (0, 1), reduce="prod")
    assert_same(r, to_torch(x))
    # zero-size x: only an empty index fits an axis of size 0
    xe = K(np.zeros((0, 4), np.int16))
    assert tuple(sk.gather(xe, K(np.zeros((0, 3, 2), np.int64)), (0, 1)).shape) == (0, 3)
    assert tuple(sk.scatter(xe, K(np.zeros((0, 3, 2), np.int64)), 1, (0, 1)).shape) == (0, 4)
    # mode fill into a size-0 axis works; clip is an IndexError (CHOICES)
    xz = K(np.zeros((2, 0), np.float32))
    g = sk.gather(xz, K(np.zeros((2, 3, 1), np.int64)), (1,), mode="fill", fill_value=-1.0)
    assert_same(g, torch.full((2, 3), -1.0))
    with pytest.raises(IndexError):
        sk.gather(xz, K(np.zeros((2, 3, 1), np.int64)), (1,), mode="clip")
    assert_same(sk.scatter(xz, K(np.zeros((2, 3, 1), np.int64)), 1.0, (1,), mode="drop"),
                torch.zeros((2, 0)))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_scatter_axes_out_and_in_place(kind, rng):
    """out= (fresh, in every writable layout) and out=x for every reduction
    and include_self; a scalar src."""
    f = Failures()
    dts = ["float32", "int32", "bool", "float16"] + (["bfloat16"] if kind == "torch" else [])
    for dtype in dts:
        for reduce in reduces_for(dtype):
            for inc in (True, False):
                flavor = "prod" if reduce == "prod" else "general"
                xr = values(rng, (4, 5, 3), dtype, flavor)
                ir = torch.stack([index_values(rng, (4, 8, 3), 5, "error", "int64"),
                                  index_values(rng, (4, 8, 3), 3, "error", "int64")], -1)
                sr = values(rng, (4, 8, 3), dtype, flavor)
                exp = ref_scatter_axes(xr, ir, sr, (1, 2), reduce, inc)

                def run():
                    for lay in [lay for lay in layouts_for(kind) if writable_layout(lay)]:
                        out, _ = make_tensor(lambda s: values(rng, s, dtype), (4, 5, 3), lay,
                                             kind, rng)
                        r = sk.scatter(to_kind(xr, kind), to_kind(ir, kind), to_kind(sr, kind),
                                       (1, 2), reduce=reduce, include_self=inc, out=out)
                        assert r is out
                        assert_same(out, exp, kind)
                        xi, _ = make_tensor(lambda s: xr.clone(), (4, 5, 3), lay, kind, rng)
                        r = sk.scatter(xi, to_kind(ir, kind), to_kind(sr, kind), (1, 2),
                                       reduce=reduce, include_self=inc, out=xi)
                        assert r is xi
                        assert_same(xi, exp, kind)
                    sc = True if dtype == "bool" else 2
                    exp_s = ref_scatter_axes(xr, ir, sc, (1, 2), reduce, inc)
                    assert_same(sk.scatter(to_kind(xr, kind), to_kind(ir, kind), sc, (1, 2),
                                           reduce=reduce, include_self=inc), exp_s, kind)
                f.run(f"{dtype} {reduce} include_self={inc}", run)
    f.check()


def _as_kind(a, kind):
    return to_kind(torch.as_tensor(np.asarray(a)), kind)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_axes_errors(kind):
    """TypeError / ValueError / IndexError naming the operator and argument."""
    def K(a):
        return _as_kind(a, kind)
    x = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    idx = K(np.zeros((3, 4, 2), np.int64))
    src = K(np.ones((3, 4), np.float32))
    with raises_with(ValueError, "gather", "axis"):
        sk.gather(x, idx, (0, 0))
    with raises_with(ValueError, "gather", "axis"):
        sk.gather(x, idx, (1, -1))
    with raises_with(ValueError, "gather", "axis"):
        sk.gather(x, idx, (0, 2))
    with raises_with(ValueError, "gather", "axis"):
        sk.gather(x, idx, ())
    with raises_with(ValueError, "gather", "index", "2"):
        sk.gather(x, K(np.zeros((3, 4, 3), np.int64)), (0, 1))
    with raises_with(ValueError, "gather", "index"):
        sk.gather(x, K(np.zeros((4, 4, 1), np.int64)), (1,))  # index.shape[0] > x.shape[0]
    with raises_with(TypeError, "gather", "index", "float32"):
        sk.gather(x, K(np.zeros((3, 4, 2), np.float32)), (0, 1))
    with raises_with(ValueError, "gather", "mode"):
        sk.gather(x, idx, (0, 1), mode="drop")
    bad = np.zeros((3, 4, 2), np.int64)
    bad[2, 1, 1] = 9
    with raises_with(IndexError, "gather", "index[2, 1, 1] = 9", "axis 1", "size 4"):
        sk.gather(x, K(bad), (0, 1))
    bad2 = np.zeros((3, 4, 2), np.int64)
    bad2[1, 3, 0] = -4
    with raises_with(IndexError, "scatter", "index[1, 3, 0] = -4", "axis 0", "size 3"):
        sk.scatter(x, K(bad2), src, (0, 1))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_axes_failed_scatter_writes_nothing(kind):
    """x and out unchanged after a failed call (the bad index is the last one)."""
    def K(a):
        return _as_kind(a, kind)
    x = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    src = K(np.ones((3, 4), np.float32))
    bad3 = np.zeros((3, 4, 2), np.int64)
    bad3[..., 1] = np.arange(4)
    bad3[2, 3, 1] = 4
    for reduce in reduces_for("float32"):
        xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
        before = bits_of(xi)
        with raises_with(IndexError, "scatter", "index[2, 3, 1] = 4"):
            sk.scatter(xi, K(bad3), src, (0, 1), reduce=reduce, out=xi)
        assert_unchanged(xi, before)
        out = K(np.full((3, 4), 9.0, np.float32))
        ob = bits_of(out)
        with pytest.raises(IndexError):
            sk.scatter(x, K(bad3), src, (0, 1), reduce=reduce, out=out)
        assert_unchanged(out, ob, "out")


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_axes_scatter_argument_errors(kind):
    """src / mode / reduce / axis / out errors of an in-place scatter, which
    leave x unchanged; clip into an axis of size 0 is an IndexError."""
    def K(a):
        return _as_kind(a, kind)
    idx = K(np.zeros((3, 4, 2), np.int64))
    src = K(np.ones((3, 4), np.float32))
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    with raises_with(TypeError, "scatter", "src", "float32"):
        sk.scatter(xi, idx, K(np.ones((3, 4), np.float64)), (0, 1), out=xi)
    with raises_with(ValueError, "scatter", "src"):
        sk.scatter(xi, idx, K(np.ones((2, 4), np.float32)), (0, 1), out=xi)
    with raises_with(ValueError, "scatter", "mode"):
        sk.scatter(xi, idx, src, (0, 1), mode="fill", out=xi)
    with raises_with(ValueError, "scatter", "reduce"):
        sk.scatter(xi, idx, src, (0, 1), reduce="max", out=xi)
    with raises_with(ValueError, "scatter", "axis"):
        sk.scatter(xi, idx, src, (1, 1), out=xi)
    with raises_with(ValueError, "scatter", "out"):
        sk.scatter(xi, idx, src, (0, 1), out=K(np.zeros((3, 5), np.float32)))
    with raises_with(TypeError, "scatter", "out"):
        sk.scatter(xi, idx, src, (0, 1), out=K(np.zeros((3, 4), np.float64)))
    assert_unchanged(xi, before)
    with pytest.raises(IndexError):
        sk.scatter(K(np.zeros((2, 0), np.float32)), K(np.zeros((2, 1, 1), np.int64)), 1.0, (1,),
                   mode="clip")


def test_axes_out_overlap_refused():
    base = np.zeros((4, 8), np.float32)
    x = base[:, :4]
    out = base[:, 2:6]  # partly overlaps x
    before = bits_of(base)
    with raises_with(ValueError, "scatter", "out"):
        sk.scatter(x, np.zeros((1, 1, 2), np.int64), 1.0, (0, 1), out=out)
    src = base[:1, 4:5]
    with raises_with(ValueError, "scatter", "out"):
        sk.scatter(np.zeros((4, 4), np.float32), np.zeros((1, 1, 2), np.int64), src, (0, 1),
                   out=base[:, 3:7])
    assert_unchanged(base, before, "base")


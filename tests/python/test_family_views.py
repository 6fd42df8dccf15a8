"""slice_scatter, diagonal_scatter, select_scatter.

References: torch.slice_scatter (one axis, positive step), NumPy slicing on a
copy of the raw bits for several axes and negative steps (torch has none),
torch.diagonal_scatter, torch.select_scatter.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, Failures, assert_same, bits_of, kinds_for,
                     layouts_for, make_tensor, to_kind, values, writable_layout)
from test_family_common import assert_unchanged, raises_with, ref_slice_scatter

DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _check_out_forms(call, x, xr, exp, kind, layout, rng):
    """The result of call(x) / call(x, out=...) / call(xi, out=xi) is exp."""
    got = call(x)
    assert_same(got, exp, kind)
    assert_same(x, xr)  # x not modified
    if not writable_layout(layout):
        return
    out, _ = make_tensor(lambda s: torch.zeros(s, dtype=xr.dtype), tuple(xr.shape), layout,
                         kind, rng)
    r = call(x, out=out)
    assert r is out, "out= did not return out"
    assert_same(out, exp, kind)
    xi, _ = make_tensor(lambda s: xr.clone(), tuple(xr.shape), layout, kind, rng)
    r = call(xi, out=xi)
    assert r is xi, "out=x did not return x"
    assert_same(xi, exp, kind)


# --------------------------------------------------------------------------
# slice_scatter
# --------------------------------------------------------------------------
def _bound(rng, n):
    r = rng.random()
    if r < 0.2:
        return None
    if r < 0.27:
        return int(rng.choice([10**20, -10**20, 2**63 - 1, -2**63]))
    return int(rng.integers(-n - 3, n + 4))


def _slice_spec(rng, nd, shape):
    m = int(rng.integers(1, nd + 1))
    axes = [int(a) for a in rng.permutation(nd)[:m]]
    axes = [a - nd if rng.random() < 0.3 else a for a in axes]
    starts = [_bound(rng, shape[a]) for a in axes]
    stops = [_bound(rng, shape[a]) for a in axes]
    steps = [int(rng.choice([1, 1, 2, 3, -1, -2, -3])) if rng.random() < 0.9 else None
             for _ in axes]
    if m == 1 and rng.random() < 0.5:
        return axes[0], starts[0], stops[0], steps[0]
    return axes, starts, stops, steps


def _as_lists(axis, start, stop, step):
    if isinstance(axis, list):
        return axis, start, stop, step
    return [axis], [start], [stop], [step]


def _slice_shape(shape, axes, starts, stops, steps):
    sl = [slice(None)] * len(shape)
    for a, s, e, st in zip(axes, starts, stops, steps):
        sl[a % len(shape)] = slice(s, e, 1 if st is None else st)
    return np.empty(shape, np.int8)[tuple(sl)].shape


def _broadcastable_src_shape(rng, shape):
    """A shape that broadcasts to `shape`: some dims set to 1, maybe fewer
    leading dims."""
    s = [1 if (rng.random() < 0.3) else d for d in shape]
    drop = int(rng.integers(0, len(s) + 1)) if rng.random() < 0.3 else 0
    return tuple(s[drop:])


def _slice_case(rng, dtype, kind, layouts, x_shape):
    xl, sl = layouts
    axis, start, stop, step = _slice_spec(rng, len(x_shape), x_shape)
    axes, starts, stops, steps = _as_lists(axis, start, stop, step)
    sshape = _slice_shape(x_shape, axes, starts, stops, steps)
    broadcast = rng.random() < 0.4
    src_shape = _broadcastable_src_shape(rng, sshape) if broadcast else sshape
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    src, sr = make_tensor(lambda s: values(rng, s, dtype), src_shape, sl, kind, rng)
    exp = ref_slice_scatter(xr, sr, axes, starts, stops, steps)
    small = all(b is None or abs(b) < 2**62 for b in starts + stops)
    if len(axes) == 1 and (steps[0] or 1) > 0 and small:
        # cross-check the NumPy reference against PyTorch (whose bounds must
        # fit in int64)
        full = sr.expand(sshape).contiguous()
        assert_same(exp, torch.slice_scatter(xr, full, axes[0], starts[0], stops[0],
                                             steps[0] or 1))
    _check_out_forms(lambda xx, out=None: sk.slice_scatter(xx, src, axis, start, stop, step,
                                                           out=out),
                     x, xr, exp, kind, xl, rng)
    assert_same(src, sr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_slice_scatter_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x x-layout x src-layout (looped) x random
    slice specs: 1-3 axes, negative axes, None / negative / out-of-range /
    beyond-int64 bounds, negative steps, src broadcast; out=, out=x."""
    f = Failures()
    lays = layouts_for(kind)
    for xl in lays:
        for sl in lays:
            for x_shape in [(5, 4, 6), (7,)]:
                f.run(f"{xl}/{sl} {x_shape}",
                      lambda: _slice_case(rng, dtype, kind, (xl, sl), x_shape))
    f.check()


def test_slice_scatter_worked_examples():
    x = np.zeros((4, 5), np.int32)
    r = sk.slice_scatter(x, np.int32(7), axis=(0, 1), start=(None, -2), stop=(None, None),
                         step=(-2, 1))
    exp = np.zeros((4, 5), np.int32)
    exp[::-2, -2:] = 7
    np.testing.assert_array_equal(r, exp)
    # scalar start/stop/step apply to every axis of a sequence
    r = sk.slice_scatter(x, np.arange(2, dtype=np.int32), axis=[0, 1], start=1, stop=None,
                         step=2)
    exp = np.zeros((4, 5), np.int32)
    exp[1::2, 1::2] = np.arange(2)
    np.testing.assert_array_equal(r, exp)
    # NumPy / torch integer scalars as bounds; step=None is 1
    r = sk.slice_scatter(x, np.int32(1), 1, np.int64(-3), np.int32(10**9), None)
    exp = np.zeros((4, 5), np.int32)
    exp[:, -3:] = 1
    np.testing.assert_array_equal(r, exp)
    r = sk.slice_scatter(x, 5, 0, torch.tensor(3), torch.tensor(0), -1)
    exp = np.zeros((4, 5), np.int32)
    exp[3:0:-1] = 5
    np.testing.assert_array_equal(r, exp)
    # an empty slice writes nothing (src of size 0, or a broadcast scalar)
    np.testing.assert_array_equal(sk.slice_scatter(x, np.zeros((0, 5), np.int32), 0, 3, 1), x)
    np.testing.assert_array_equal(sk.slice_scatter(x, 9, 0, 3, 1), x)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_slice_scatter_zero_d_and_zero_size(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    x0 = K(np.array(2.0))
    assert_same(sk.slice_scatter(x0, K(np.array(5.0)), axis=()), torch.tensor(5.0,
                                                                             dtype=torch.float64))
    with raises_with(ValueError, "slice_scatter", "0-d"):
        sk.slice_scatter(x0, 1.0, 0)
    xe = K(np.zeros((0, 3), np.float32))
    assert_same(sk.slice_scatter(xe, 1.0, 1, 1), torch.zeros((0, 3)))
    assert_same(sk.slice_scatter(xe, K(np.zeros((0, 2), np.float32)), 1, 1), torch.zeros((0, 3)))
    # axis=() on a tensor: the whole tensor is the slice
    x = K(np.zeros((2, 3), np.int16))
    assert_same(sk.slice_scatter(x, K(np.array([1, 2, 3], np.int16)), axis=()),
                torch.tensor([[1, 2, 3], [1, 2, 3]], dtype=torch.int16))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_slice_scatter_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    with raises_with(ValueError, "slice_scatter", "step"):
        sk.slice_scatter(xi, 1.0, 0, step=0, out=xi)
    with raises_with(ValueError, "slice_scatter", "step"):
        sk.slice_scatter(xi, 1.0, (0, 1), step=(1, 0), out=xi)
    with raises_with(ValueError, "slice_scatter", "axis", "2"):
        sk.slice_scatter(xi, 1.0, 2, out=xi)
    with raises_with(ValueError, "slice_scatter", "axis"):
        sk.slice_scatter(xi, 1.0, (0, -2), out=xi)
    with raises_with(ValueError, "slice_scatter", "start"):
        sk.slice_scatter(xi, 1.0, (0, 1), start=(1, 2, 3), out=xi)
    with raises_with(ValueError, "slice_scatter", "stop"):
        sk.slice_scatter(xi, 1.0, 0, stop=(1, 2), out=xi)
    with raises_with(TypeError, "slice_scatter", "start"):
        sk.slice_scatter(xi, 1.0, 0, start=1.5, out=xi)
    with raises_with(TypeError, "slice_scatter", "src", "float32", "float64"):
        sk.slice_scatter(xi, K(np.zeros(4, np.float64)), 0, out=xi)
    with raises_with(ValueError, "slice_scatter", "src", "[3]", "[2, 4]"):
        sk.slice_scatter(xi, K(np.zeros(3, np.float32)), 0, 1, out=xi)
    with raises_with(ValueError, "slice_scatter", "src"):
        sk.slice_scatter(xi, K(np.zeros((2, 3, 4), np.float32)), 0, out=xi)  # more dims
    with raises_with(ValueError, "slice_scatter", "out"):
        sk.slice_scatter(xi, 1.0, 0, out=K(np.zeros((3, 5), np.float32)))
    with raises_with(TypeError, "slice_scatter", "out"):
        sk.slice_scatter(xi, 1.0, 0, out=K(np.zeros((3, 4), np.int32)))
    assert_unchanged(xi, before)
    base = np.zeros((3, 8), np.float32)
    bb = bits_of(base)
    with raises_with(ValueError, "slice_scatter", "out"):
        sk.slice_scatter(base[:, :4], 1.0, 0, out=base[:, 1:5])
    with raises_with(ValueError, "slice_scatter", "out"):  # src overlaps out
        sk.slice_scatter(np.zeros((3, 4), np.float32), base[:1, 4:], 0, out=base[:, 4:])
    assert_unchanged(base, bb, "base")


# --------------------------------------------------------------------------
# diagonal_scatter
# --------------------------------------------------------------------------
def _diag_case(rng, dtype, kind, layouts, x_shape):
    xl, sl = layouts
    nd = len(x_shape)
    a1, a2 = (int(a) for a in rng.permutation(nd)[:2])
    s1 = a1 - nd if rng.random() < 0.4 else a1
    s2 = a2 - nd if rng.random() < 0.4 else a2
    offset = int(rng.integers(-x_shape[a1] - 1, x_shape[a2] + 2))
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    dshape = tuple(torch.diagonal(xr, offset, a1, a2).shape)
    src, sr = make_tensor(lambda s: values(rng, s, dtype), dshape, sl, kind, rng)
    exp = torch.diagonal_scatter(xr, sr, offset, a1, a2)
    _check_out_forms(lambda xx, out=None: sk.diagonal_scatter(xx, src, offset, s1, s2, out=out),
                     x, xr, exp, kind, xl, rng)
    assert_same(src, sr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_diagonal_scatter_matrix(dtype, kind, rng):
    """dtype x kind x x-layout x src-layout x shape (2-d, batched 3-d and
    4-d, square and not), random axes (negative spellings, axis1 > axis2)
    and offsets (beyond the size too: empty diagonal); out=, out=x."""
    f = Failures()
    lays = layouts_for(kind)
    for xl in lays:
        for sl in lays:
            for x_shape in [(4, 6), (3, 4, 4), (2, 3, 2, 4)]:
                f.run(f"{xl}/{sl} {x_shape}", lambda: _diag_case(rng, dtype, kind, (xl, sl),
                                                                 x_shape))
    f.check()


def test_diagonal_scatter_worked_examples():
    z = np.zeros((3, 4), np.int64)
    np.testing.assert_array_equal(sk.diagonal_scatter(z, np.array([1, 2, 3]), offset=1),
                                  [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]])
    np.testing.assert_array_equal(sk.diagonal_scatter(z, np.array([1, 2]), offset=-1),
                                  [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0]])
    # axis1 > axis2 transposes the meaning of the offset (as numpy.diagonal)
    np.testing.assert_array_equal(sk.diagonal_scatter(z, np.array([1, 2]), 1, 1, 0),
                                  [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0]])
    np.testing.assert_array_equal(sk.diagonal_scatter(z, np.zeros(0, np.int64), offset=10), z)
    # a scalar src is broadcast to the diagonal
    np.testing.assert_array_equal(sk.diagonal_scatter(z, 5, offset=2),
                                  [[0, 0, 5, 0], [0, 0, 0, 5], [0, 0, 0, 0]])
    # batched: the diagonal is the last dimension of src
    x = np.zeros((2, 3, 3), np.float32)
    src = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    r = sk.diagonal_scatter(x, src, 0, -2, -1)
    for b in range(2):
        np.testing.assert_array_equal(np.diagonal(r[b]), src[b])
    src2 = np.arange(6, dtype=np.float32).reshape(3, 2)  # rest dim (axis 1) first
    r = sk.diagonal_scatter(x, src2, 0, 0, 2)
    np.testing.assert_array_equal(np.diagonal(r, 0, 0, 2), src2)
    assert r.sum() == src2.sum()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_diagonal_scatter_zero_size_and_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    assert tuple(sk.diagonal_scatter(K(np.zeros((0, 3))), K(np.zeros(0))).shape) == (0, 3)
    assert tuple(sk.diagonal_scatter(K(np.zeros((2, 0, 3))), K(np.zeros((0, 2))), 0, 0,
                                     2).shape) == (2, 0, 3)
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    with raises_with(ValueError, "diagonal_scatter", "x", "2"):
        sk.diagonal_scatter(K(np.zeros(3, np.float32)), K(np.zeros(1, np.float32)))
    with raises_with(ValueError, "diagonal_scatter", "axis1", "axis2"):
        sk.diagonal_scatter(xi, K(np.zeros(3, np.float32)), 0, 1, -1, out=xi)
    with raises_with(ValueError, "diagonal_scatter", "axis2", "5"):
        sk.diagonal_scatter(xi, K(np.zeros(3, np.float32)), 0, 0, 5, out=xi)
    with raises_with(ValueError, "diagonal_scatter", "src", "[3]", "[2]"):
        sk.diagonal_scatter(xi, K(np.zeros(2, np.float32)), out=xi)
    with raises_with(ValueError, "diagonal_scatter", "src"):
        sk.diagonal_scatter(xi, K(np.zeros((1, 3), np.float32)), out=xi)  # exact shape only
    with raises_with(TypeError, "diagonal_scatter", "src", "float32", "float64"):
        sk.diagonal_scatter(xi, K(np.zeros(3, np.float64)), out=xi)
    with raises_with(ValueError, "diagonal_scatter", "out"):
        sk.diagonal_scatter(xi, K(np.zeros(3, np.float32)), out=K(np.zeros((4, 3), np.float32)))
    with raises_with(TypeError, "diagonal_scatter", "offset"):
        sk.diagonal_scatter(xi, K(np.zeros(3, np.float32)), 0.5, out=xi)
    assert_unchanged(xi, before)


# --------------------------------------------------------------------------
# select_scatter
# --------------------------------------------------------------------------
_INDEX_FORMS = [int, np.int32, np.int64]


def _select_case(rng, dtype, kind, layouts, x_shape):
    xl, sl = layouts
    nd = len(x_shape)
    a = int(rng.integers(0, nd))
    s = a - nd if rng.random() < 0.4 else a
    n = x_shape[a]
    index = int(rng.integers(-n, n))
    form = _INDEX_FORMS[int(rng.integers(len(_INDEX_FORMS)))]
    x, xr = make_tensor(lambda sh: values(rng, sh, dtype), x_shape, xl, kind, rng)
    sshape = x_shape[:a] + x_shape[a + 1:]
    src, sr = make_tensor(lambda sh: values(rng, sh, dtype), sshape, sl, kind, rng)
    exp = torch.select_scatter(xr, sr, a, index)
    _check_out_forms(lambda xx, out=None: sk.select_scatter(xx, src, s, form(index), out=out),
                     x, xr, exp, kind, xl, rng)
    assert_same(src, sr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_select_scatter_matrix(dtype, kind, rng):
    """dtype x kind x x-layout x src-layout x shape (1-d to 3-d); random axis
    (negative spellings), index (negative too; Python int / np.int32 /
    np.int64); out=, out=x."""
    f = Failures()
    lays = layouts_for(kind)
    for xl in lays:
        for sl in lays:
            for x_shape in [(5,), (4, 6), (3, 4, 2)]:
                f.run(f"{xl}/{sl} {x_shape}", lambda: _select_case(rng, dtype, kind, (xl, sl),
                                                                   x_shape))
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_select_scatter_edges_and_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    # 1-d x: src is 0-d (or a scalar)
    x = K(np.arange(4, dtype=np.int8))
    assert_same(sk.select_scatter(x, K(np.array(9, np.int8)), 0, -1),
                torch.tensor([0, 1, 2, 9], dtype=torch.int8))
    assert_same(sk.select_scatter(x, 7, 0, 1), torch.tensor([0, 7, 2, 3], dtype=torch.int8))
    # zero-size other dims
    xe = K(np.zeros((3, 0), np.float32))
    assert tuple(sk.select_scatter(xe, K(np.zeros(0, np.float32)), 0, 2).shape) == (3, 0)
    with raises_with(ValueError, "select_scatter", "x"):
        sk.select_scatter(K(np.array(1.0)), K(np.array(2.0)), 0, 0)
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    with raises_with(IndexError, "select_scatter", "index = 3", "axis 0", "size 3"):
        sk.select_scatter(xi, K(np.zeros(4, np.float32)), 0, 3, out=xi)
    with raises_with(IndexError, "select_scatter", "index = -5", "axis 1", "size 4"):
        sk.select_scatter(xi, K(np.zeros(3, np.float32)), 1, -5, out=xi)
    with raises_with(ValueError, "select_scatter", "src", "[4]", "[3]"):
        sk.select_scatter(xi, K(np.zeros(3, np.float32)), 0, 1, out=xi)
    with raises_with(ValueError, "select_scatter", "axis", "2"):
        sk.select_scatter(xi, K(np.zeros(4, np.float32)), 2, 1, out=xi)
    with raises_with(TypeError, "select_scatter", "src", "float32", "int64"):
        sk.select_scatter(xi, K(np.zeros(4, np.int64)), 0, 1, out=xi)
    with raises_with(TypeError, "select_scatter", "index"):
        sk.select_scatter(xi, K(np.zeros(4, np.float32)), 0, 1.0, out=xi)
    with raises_with(ValueError, "select_scatter", "out"):
        sk.select_scatter(xi, K(np.zeros(4, np.float32)), 0, 1,
                          out=K(np.zeros((3, 3), np.float32)))
    assert_unchanged(xi, before)


"""scatterkit.<op>_backward (the NumPy-facing backward functions) and the
float16/bfloat16 rule: a 16-bit gradient is the float32 computation rounded
once.

Signatures: <op>_backward(grad_out, <the forward's arguments>, ...,
result=None, grad_<input>=None, ...). The values are checked against
PyTorch's gradients where torch defines them, and against scatterkit.torch
(the same C functions, reached through autograd) for the rest; the
gradient rules themselves are tested in test_backward.py.
"""
import math

import numpy as np
import pytest
import torch

import scatterkit as sk
import scatterkit.torch as skt

F64 = torch.float64


def torch_grads(fn, inputs, g):
    leaves = [torch.from_numpy(np.array(a)).requires_grad_(True) for a in inputs]
    fn(*leaves).backward(torch.from_numpy(np.array(g)))
    return [t.grad.numpy() for t in leaves]


def assert_np(a, b):
    assert isinstance(a, np.ndarray) and a.dtype == np.asarray(b).dtype
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------
# NumPy in, NumPy out; the values equal torch's where it defines them
# --------------------------------------------------------------------------
def test_gather_type_numpy(rng):
    x = rng.standard_normal((4, 5))
    index = rng.integers(0, 4, (6, 5))
    g = rng.standard_normal((6, 5))
    (want,) = torch_grads(lambda x: torch.gather(x, 0, torch.from_numpy(index)), [x], g)
    assert_np(sk.gather_backward(g, x, index, 0), want)
    assert_np(sk.gather_backward(g, x.shape, index, 0), want)  # x given by its shape
    assert_np(sk.gather_backward(g, list(x.shape), index.tolist(), 0), want)
    i1 = rng.integers(0, 5, 7)
    g1 = rng.standard_normal((4, 7))
    (want,) = torch_grads(lambda x: torch.index_select(x, 1, torch.from_numpy(i1)), [x], g1)
    assert_np(sk.index_select_backward(g1, x, i1, 1), want)
    ind = np.stack([rng.integers(0, 4, 6), rng.integers(0, 5, 6)], -1)
    g2 = rng.standard_normal(6)
    (want,) = torch_grads(lambda x: x[torch.from_numpy(ind[:, 0]), torch.from_numpy(ind[:, 1])],
                          [x], g2)
    assert_np(sk.gather_nd_backward(g2, x, ind), want)
    mask = rng.random(5) < 0.5
    g3 = rng.standard_normal(int(mask.sum()) * 4)
    (want,) = torch_grads(lambda x: torch.masked_select(x, torch.from_numpy(mask)), [x], g3)
    assert_np(sk.masked_select_backward(g3, x, mask), want)


def test_gather_modes_numpy():
    """fill: filled positions send nothing; clip: to the clipped position.
    fill_value is accepted so that the forward's arguments pass unchanged."""
    g = np.array([1.0, 2.0, 4.0, 8.0])
    index = np.array([0, 7, -9, 2])
    assert sk.gather_backward(g, (3,), index, 0, mode="fill", fill_value=5).tolist() == \
        [1.0, 0.0, 8.0]
    assert sk.gather_backward(g, (3,), index, 0, mode="clip").tolist() == [5.0, 0.0, 10.0]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_backward_numpy(reduce, include_self, rng):
    x = rng.uniform(0.5, 1.5, (4, 5))
    index = rng.integers(0, 4, (6, 5))
    src = rng.uniform(0.5, 1.5, (6, 5))
    g = rng.standard_normal((4, 5))
    want = torch_grads(lambda x, s: torch.scatter_reduce(x, 0, torch.from_numpy(index), s, reduce,
                                                         include_self=include_self), [x, src], g)
    kw = dict(reduce=reduce, include_self=include_self)
    gx, gs = sk.scatter_backward(g, x, index, src, 0, **kw)
    assert_np(gx, want[0])
    assert_np(gs, want[1])
    # result= given (amax/amin need it; computed when left out) gives the same
    res = sk.scatter(x, index, src, 0, **kw)
    gx2, gs2 = sk.scatter_backward(g, x, index, src, 0, result=res, **kw)
    assert np.array_equal(gx, gx2) and np.array_equal(gs, gs2)


def test_index_scatter_and_scatter_nd_backward_numpy(rng):
    x = rng.standard_normal((4, 5))
    index = rng.integers(0, 5, 7)
    upd = rng.standard_normal((4, 7))
    g = rng.standard_normal((4, 5))
    want = torch_grads(lambda x, u: torch.index_add(x, 1, torch.from_numpy(index), u), [x, upd], g)
    gx, gu = sk.index_scatter_backward(g, x, index, upd, 1, reduce="sum")
    assert_np(gx, want[0])
    assert_np(gu, want[1])
    ind = np.stack([rng.integers(0, 4, 6), rng.integers(0, 5, 6)], -1)
    u2 = rng.standard_normal(6)
    want = torch_grads(lambda x, u: torch.index_put(
        x, (torch.from_numpy(ind[:, 0]), torch.from_numpy(ind[:, 1])), u, accumulate=True),
        [x, u2], g)
    gx, gu = sk.scatter_nd_backward(g, x, ind, u2, reduce="sum")
    assert_np(gx, want[0])
    assert_np(gu, want[1])


def test_view_scatter_backward_numpy(rng):
    x = rng.standard_normal((4, 5))
    g = rng.standard_normal((4, 5))
    src = rng.standard_normal((2, 5))
    want = torch_grads(lambda x, s: torch.slice_scatter(x, s, 0, 1, 4, 2), [x, src], g)
    for xa, sa in [(x, src), (x.shape, src.shape)]:  # tensors or their shapes
        gx, gs = sk.slice_scatter_backward(g, xa, sa, 0, 1, 4, 2)
        assert_np(gx, want[0])
        assert_np(gs, want[1])
    d = rng.standard_normal(4)
    want = torch_grads(lambda x, s: torch.diagonal_scatter(x, s, 1), [x, d], g)
    gx, gs = sk.diagonal_scatter_backward(g, x, d, 1)
    assert_np(gx, want[0])
    assert_np(gs, want[1])
    r = rng.standard_normal(4)
    want = torch_grads(lambda x, s: torch.select_scatter(x, s, 1, -2), [x, r], g)
    gx, gs = sk.select_scatter_backward(g, x, r, 1, -2)
    assert_np(gx, want[0])
    assert_np(gs, want[1])
    mask = rng.random((4, 5)) < 0.5
    source = rng.standard_normal(25)
    want = torch_grads(lambda x, s: torch.masked_scatter(x, torch.from_numpy(mask), s),
                       [x, source], g)
    gx, gs = sk.masked_scatter_backward(g, x, mask, source)
    assert_np(gx, want[0])
    assert_np(gs, want[1])


def test_tensor_scatter_backward_numpy(rng):
    cache = rng.standard_normal((2, 5, 3))
    upd = rng.standard_normal((2, 2, 3))
    g = rng.standard_normal((2, 5, 3))
    gc, gu = sk.tensor_scatter_backward(g, cache, upd, [1, 3], axis=1)
    want_c = g.copy()
    want_c[0, 1:3] = 0
    want_c[1, 3:5] = 0
    want_u = np.stack([g[0, 1:3], g[1, 3:5]])
    assert_np(gc, want_c)
    assert_np(gu, want_u)
    # circular, wrapping: an element overwritten by a later write gets 0
    gc, gu = sk.tensor_scatter_backward(g[:, :2], (2, 2, 3), (2, 3, 3), [1, 0], axis=1,
                                        mode="circular")
    assert gc.tolist() == np.zeros((2, 2, 3)).tolist()
    assert_np(gu[0], np.stack([np.zeros(3), g[0, 0], g[0, 1]]))
    assert_np(gu[1], np.stack([np.zeros(3), g[1, 1], g[1, 0]]))


# --------------------------------------------------------------------------
# allocation, skipping, scalars, errors
# --------------------------------------------------------------------------
def test_given_and_skipped_gradients(rng):
    x = rng.standard_normal((3, 4))
    index = rng.integers(0, 3, (5, 4))
    src = rng.standard_normal((5, 4))
    g = rng.standard_normal((3, 4))
    gx_all, gs_all = sk.scatter_backward(g, x, index, src, 0, reduce="mean")
    gx, gs = sk.scatter_backward(g, x, index, src, 0, reduce="mean", grad_x=False)
    assert gx is None and np.array_equal(gs, gs_all)
    gx, gs = sk.scatter_backward(g, x, index, src, 0, reduce="mean", grad_src=False)
    assert gs is None and np.array_equal(gx, gx_all)
    bx, bs = np.full((3, 4), np.nan), np.full((5, 4), np.nan)
    gx, gs = sk.scatter_backward(g, x, index, src, 0, reduce="mean", grad_x=bx, grad_src=bs)
    assert gx is bx and gs is bs
    assert np.array_equal(bx, gx_all) and np.array_equal(bs, gs_all)
    out = np.full((3, 4), np.nan)
    assert sk.gather_backward(src[:3], x, index[:3], 0, grad_x=out) is out
    gx, gs = sk.slice_scatter_backward(g, x, src[:1], 0, 0, 1, grad_x=False)
    assert gx is None and gs.shape == (1, 4)
    gc, gu = sk.tensor_scatter_backward(g[None], (1, 3, 4), (1, 1, 4), [2], axis=1,
                                        grad_update=False)
    assert gu is None and gc.shape == (1, 3, 4)


def test_scalar_and_0d_sources(rng):
    """A Python scalar has no gradient (None); a 0-d tensor gets the sum of
    the gradient over every position it was broadcast to."""
    x = rng.standard_normal((3, 4))
    index = rng.integers(0, 3, (5, 4))
    g = rng.standard_normal((3, 4))
    gx, gs = sk.scatter_backward(g, x, index, 2.5, 0, reduce="sum")
    assert gs is None
    gx0, gs0 = sk.scatter_backward(g, x, index, np.array(2.5), 0, reduce="sum")
    assert np.array_equal(gx, gx0)
    _, gfull = sk.scatter_backward(g, x, index, np.full((5, 4), 2.5), 0, reduce="sum")
    assert gs0.shape == () and gs0 == pytest.approx(gfull.sum(), rel=1e-12)
    _, gu = sk.index_scatter_backward(g, x, [2, 0], np.array(1.0), 0, reduce="sum")
    assert gu == pytest.approx(g[[2, 0]].sum(), rel=1e-12)
    _, gd = sk.diagonal_scatter_backward(g, x, np.array(1.0))
    assert gd == pytest.approx(np.trace(g), rel=1e-12)
    _, gd = sk.diagonal_scatter_backward(g, x, 1.0)
    assert gd is None
    mask = rng.random((3, 4)) < 0.5
    _, gm = sk.masked_scatter_backward(g, x, mask, np.array(1.0))
    assert gm == pytest.approx(g[mask].sum(), rel=1e-12)
    _, gsl = sk.slice_scatter_backward(g, x, np.array(1.0), 1, 1, 3)
    assert gsl == pytest.approx(g[:, 1:3].sum(), rel=1e-12)


def test_torch_in_torch_out():
    g = torch.randn(3, 4, dtype=F64)
    gx, gs = sk.scatter_backward(g, torch.zeros(3, 4, dtype=F64), torch.tensor([[0, 1, 2, 0]]),
                                 torch.ones(1, 4, dtype=F64), 0, reduce="sum")
    assert isinstance(gx, torch.Tensor) and isinstance(gs, torch.Tensor)
    assert torch.equal(gx, g) and torch.equal(gs, g[[0, 1, 2, 0], [0, 1, 2, 3]][None])


def test_backward_errors(rng):
    x = rng.standard_normal((3, 4))
    index = rng.integers(0, 3, (5, 4))
    with pytest.raises(TypeError, match="floating"):
        sk.scatter_backward(np.ones((3, 4), np.int32), np.ones((3, 4), np.int32), index,
                            np.ones((5, 4), np.int32), 0)
    with pytest.raises(ValueError, match="grad_out"):
        sk.scatter_backward(np.ones((2, 4)), x, index, np.ones((5, 4)), 0, reduce="sum")
    with pytest.raises(ValueError, match="reduce"):
        sk.scatter_backward(np.ones((3, 4)), x, index, np.ones((5, 4)), 0, reduce="max")
    with pytest.raises(ValueError, match="mode"):
        sk.gather_backward(np.ones((5, 4)), x, index, 0, mode="drop")
    with pytest.raises(IndexError):
        sk.gather_backward(np.ones((5, 4)), x, index + 5, 0)
    with pytest.raises(TypeError, match="shape"):
        sk.gather_backward(np.ones((5, 4)), ["a"], index, 0)


# --------------------------------------------------------------------------
# float16 / bfloat16: the float32 computation rounded once
# --------------------------------------------------------------------------
def _ulps(a, b):
    """Distance in units of the last place between two 16-bit tensors."""
    def key(t):
        i = t.view(torch.int16).to(torch.int32)
        return torch.where(i < 0, -32768 - i, i)  # monotonic in the value
    return (key(a) - key(b)).abs().max().item() if a.numel() else 0


def _cases(rng, dtype, reduce, include_self):
    """(name, fn, inputs) for every operator at a 16-bit dtype."""
    def r(*shape):
        if reduce == "prod":
            v = rng.uniform(0.8, 1.25, shape) * rng.choice([-1, 1], shape)
        else:
            v = rng.standard_normal(shape)
        return torch.tensor(v, dtype=torch.float32).to(dtype)

    i2 = torch.from_numpy(rng.integers(0, 3, (7, 4)))
    i1 = torch.from_numpy(rng.integers(0, 3, 7))
    kw = dict(reduce=reduce, include_self=include_self)
    yield "scatter", lambda x, s: skt.scatter(x, i2, s, 0, **kw), [r(3, 4), r(7, 4)]
    yield "index_scatter", lambda x, u: skt.index_scatter(x, i1, u, 0, **kw), [r(3, 4), r(7, 4)]
    if include_self:
        yield "scatter_nd", lambda x, u: skt.scatter_nd(x, i1[:, None], u, reduce=reduce), \
            [r(3, 4), r(7, 4)]
    if reduce == "sum" and include_self:  # the pass-through operators, once
        yield "gather", lambda x: skt.gather(x, i2, 0), [r(3, 4)]
        yield "index_select", lambda x: skt.index_select(x, i1, 0), [r(3, 4)]
        yield "gather_nd", lambda x: skt.gather_nd(x, i1[:, None]), [r(3, 4)]
        m = torch.from_numpy(rng.random((3, 4)) < 0.5)
        yield "masked_select", lambda x: skt.masked_select(x, m), [r(3, 4)]
        yield "masked_scatter", lambda x, s: skt.masked_scatter(x, m, s), [r(3, 4), r(13)]
        yield "slice_scatter", lambda x, s: skt.slice_scatter(x, s, 1, 0, 4, 2), [r(3, 4), r(3, 1)]
        yield "diagonal_scatter", lambda x, s: skt.diagonal_scatter(x, s), [r(3, 4), r(3)]
        yield "select_scatter", lambda x, s: skt.select_scatter(x, s, 0, 1), [r(3, 4), r(4)]
        yield "tensor_scatter", lambda c, u: skt.tensor_scatter(c, u, torch.tensor([1, 0])), \
            [r(2, 4, 3), r(2, 2, 3)]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", [None, "sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16bit_is_float32_rounded_once(dtype, reduce, include_self, rng):
    """Same 16-bit inputs and grad_out, once in the 16-bit dtype and once
    upcast to float32: the 16-bit gradient is the float32 one rounded once
    (exactly for pass-through operators, within 1 ulp for mean and prod)."""
    for name, fn, inputs in _cases(rng, dtype, reduce, include_self):
        with torch.no_grad():
            y = fn(*inputs)
        g = torch.randn(tuple(y.shape)).to(dtype)
        l16 = [t.clone().requires_grad_(True) for t in inputs]
        l32 = [t.float().requires_grad_(True) for t in inputs]
        fn(*l16).backward(g)
        fn(*l32).backward(g.float())
        for a, b in zip(l16, l32):
            assert a.grad.dtype == dtype
            want = b.grad.to(dtype)
            if reduce in ("mean", "prod"):
                assert _ulps(a.grad, want) <= 1, name
            else:
                assert torch.equal(a.grad, want), name


def test_16bit_numpy_float16(rng):
    x = rng.standard_normal((3, 4)).astype(np.float16)
    index = rng.integers(0, 3, (6, 4))
    g = rng.standard_normal((6, 4)).astype(np.float16)
    gx = sk.gather_backward(g, x, index, 0)
    want = sk.gather_backward(g.astype(np.float32), x.shape, index, 0).astype(np.float16)
    assert gx.dtype == np.float16 and np.array_equal(gx, want)
    # a grad_out with negative strides (NumPy) is read in place
    gx = sk.gather_backward(g[::-1], x, index[::-1], 0)
    assert np.array_equal(gx, want)


# --------------------------------------------------------------------------
# layouts of grad_out, thread counts
# --------------------------------------------------------------------------
def _layouts(g):
    """grad_out contiguous, transposed, strided, and (for a constant row)
    expanded with zero strides."""
    yield g
    yield g.t().contiguous().t()
    big = torch.zeros(g.shape[0], 2 * g.shape[1], dtype=g.dtype)
    big[:, ::2] = g
    yield big[:, ::2]


def test_grad_out_layouts(rng):
    """The C backward reads grad_out with any strides: the same gradients."""
    x = torch.tensor(rng.standard_normal((4, 6)))
    index = torch.from_numpy(rng.integers(0, 4, (7, 6)))
    src = torch.tensor(rng.standard_normal((7, 6)))
    mask = torch.from_numpy(rng.random((4, 6)) < 0.5)
    calls = [
        lambda g: sk.scatter_backward(g, x, index, src, 0, reduce="amax"),
        lambda g: sk.scatter_backward(g, x, index, src, 0, reduce="prod", include_self=False),
        lambda g: sk.index_scatter_backward(g, x, index[:, 0], src, 0, reduce="mean"),
        lambda g: (sk.gather_backward(g[:4], x, index[:4], 0),),
        lambda g: sk.masked_scatter_backward(g, x, mask, src),
        lambda g: sk.slice_scatter_backward(g, x, src[:2, :1], 0, 1, 3, 1),
        lambda g: sk.tensor_scatter_backward(g[None], (1, 4, 6), (1, 2, 6), [1], axis=1),
    ]
    g = torch.tensor(rng.standard_normal((4, 6)))
    for call in calls:
        want = call(g)
        for gl in _layouts(g):
            for a, b in zip(call(gl), want):
                assert torch.equal(a, b)
        row = g[:1].expand(4, 6)  # zero strides, as autograd hands them out
        for a, b in zip(call(row), call(row.contiguous())):
            assert torch.equal(a, b)


@pytest.mark.usefixtures("restore_threads")
@pytest.mark.parametrize("reduce", [None, "sum", "prod", "mean", "amax"])
def test_backward_same_bits_for_every_thread_count(reduce, rng):
    """CONTRACT: bitwise identical for every thread count (the backward too)."""
    x = torch.tensor(rng.uniform(0.9, 1.1, (300, 40)), dtype=torch.float32)
    index = torch.from_numpy(rng.integers(0, 300, (3000, 40)))
    src = torch.tensor(rng.uniform(0.9, 1.1, (3000, 40)), dtype=torch.float32)
    src[::7] = 1.0  # ties for amax
    g = torch.randn(300, 40)
    results = []
    for n in (1, 2, 3, 8):
        sk.set_num_threads(n)
        gx, gs = sk.scatter_backward(g, x, index, src, 0, reduce=reduce)
        gg = sk.gather_backward(src, x, index, 0)
        results.append((gx, gs, gg))
    for r in results[1:]:
        for a, b in zip(r, results[0]):
            assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gather_type_backward_along_a_long_last_axis(dtype, rng):
    """Rows of 1024 and more along the last axis take the scatter engine's
    claimed inner-axis chunks; grad_x starts from a broadcast zero there,
    never read as if it were a whole row."""
    cases = [((2000,), rng.integers(-2000, 2000, 1024), 0),
             ((4, 100), rng.integers(0, 100, (4, 1024)), 1),
             ((8, 3000), rng.integers(0, 3000, (8, 5000)), 1)]
    for shape, index, axis in cases:
        g = rng.standard_normal(index.shape).astype(dtype)
        x = np.zeros(shape, dtype)
        (want,) = torch_grads(lambda t: torch.gather(t, axis, torch.from_numpy(index % shape[axis])),
                              [x], g)
        got = sk.gather_backward(g, shape, index, axis)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    i1 = rng.integers(0, 3000, 5000)
    g1 = rng.standard_normal((8, 5000)).astype(dtype)
    x = np.zeros((8, 3000), dtype)
    (want,) = torch_grads(lambda t: torch.index_select(t, 1, torch.from_numpy(i1)), [x], g1)
    np.testing.assert_allclose(sk.index_select_backward(g1, x.shape, i1, 1), want,
                               rtol=1e-5, atol=1e-5)
    t = torch.zeros(100000, dtype=torch.from_numpy(x).dtype, requires_grad=True)
    skt.index_select(t, torch.arange(1024), 0).sum().backward()
    assert torch.equal(t.grad, (torch.arange(100000) < 1024).to(t.dtype))


def _exact_product(values):
    """The exact product (docs/CONTRACT.md section 7): NaN with a NaN or with
    a zero beside an infinity, else 0 with a zero, else the signed product."""
    if any(math.isnan(v) for v in values):
        return math.nan
    zeros = sum(v == 0 for v in values)
    infs = sum(math.isinf(v) for v in values)
    if zeros and infs:
        return math.nan
    return 0.0 if zeros else math.prod(values)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
@pytest.mark.parametrize("include_self", [True, False])
def test_prod_backward_zero_beside_nan_or_inf(bad, include_self):
    """prod: each contributor's gradient is g times the exact product of the
    other contributors: NaN when they hold a NaN, or a zero and an infinity;
    0 when they hold a zero (PyTorch's g * result / v gives NaN there, a
    documented difference); equal to PyTorch wherever PyTorch gives a
    number."""
    index = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    x = torch.tensor([bad, 3.0], dtype=F64)
    src = torch.tensor([0.0, 2.0, bad, 0.0, 0.0, 5.0, bad], dtype=F64)
    g = torch.tensor([1.0, 1.0], dtype=F64)
    gx, gs = sk.scatter_backward(g, x, index, src, 0, reduce="prod", include_self=include_self)
    tx, ts = torch_grads(lambda a, b: a.scatter_reduce(0, index, b, "prod",
                                                       include_self=include_self),
                         [x.numpy(), src.numpy()], g.numpy())
    members = [[j for j in range(7) if index[j] == t] for t in range(2)]
    want_s = []
    for j in range(7):
        t = int(index[j])
        others = [float(src[k]) for k in members[t] if k != j]
        want_s.append(_exact_product(others + ([float(x[t])] if include_self else [])))
    np.testing.assert_array_equal(gs.numpy(), np.array(want_s))
    finite = ~np.isnan(ts)
    np.testing.assert_array_equal(gs.numpy()[finite], ts[finite])
    if include_self:
        want_x = [_exact_product([float(src[k]) for k in members[t]]) for t in range(2)]
        np.testing.assert_array_equal(gx.numpy(), np.array(want_x))
    else:
        np.testing.assert_array_equal(gx.numpy(), tx)


@pytest.mark.parametrize("dtype, ulps", [(np.float32, 1), (np.float64, 4)])
def test_prod_backward_is_near_the_exact_product(dtype, ulps):
    """prod's gradient (docs/CONTRACT.md section 7): the product of the other
    contributors in double, rounded to the dtype at the end. Against the
    exact product (fractions) rounded once: float32 within an ulp and
    nearly always equal; float64 within a few ulps (the double products
    and the division round too)."""
    from fractions import Fraction
    rng = np.random.default_rng(7)
    n_targets = 400
    index = rng.integers(0, n_targets, 1600)
    src = rng.uniform(0.5, 2.0, 1600).astype(dtype)
    x = rng.uniform(0.5, 2.0, n_targets).astype(dtype)
    g = np.ones(n_targets, dtype)
    _, gs = sk.scatter_backward(g, x, index, src, 0, reduce="prod", include_self=True)
    gs = np.asarray(gs)
    want = np.empty_like(src)
    for j in range(len(src)):
        t = index[j]
        p = Fraction(float(x[t]))
        for k in np.flatnonzero(index == t):
            if k != j:
                p *= Fraction(float(src[k]))
        want[j] = dtype(float(p)) if dtype is np.float64 else np.float32(float(p))
    dist = np.abs(gs.view(np.int64 if dtype is np.float64 else np.int32).astype(np.int64)
                  - want.view(np.int64 if dtype is np.float64 else np.int32).astype(np.int64))
    assert dist.max() <= ulps
    if dtype is np.float32:
        assert (dist == 0).mean() >= 0.99

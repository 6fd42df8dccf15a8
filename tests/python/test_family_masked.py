"""masked_scatter(x, mask, source, *, out) and masked_select(x, mask).

References: torch.Tensor.masked_scatter and torch.masked_select (mask
broadcast; masked_select broadcasts x and mask against each other).
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, Failures, assert_same, bits_of, kinds_for, layouts_for, make_tensor,
                     to_kind, to_torch, values, writable_layout)
from test_family_common import assert_unchanged, raises_with

DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _mask_gen(rng, p):
    return lambda s: torch.from_numpy(np.asarray(rng.random(s) < p))


def _bcast_shape(rng, shape):
    s = [1 if rng.random() < 0.35 else d for d in shape]
    drop = int(rng.integers(0, len(s) + 1)) if rng.random() < 0.3 else 0
    return tuple(s[drop:])


def _masked_scatter_case(rng, dtype, kind, layouts, x_shape):
    xl, ml, sl = layouts
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    mshape = _bcast_shape(rng, x_shape) if rng.random() < 0.6 else x_shape
    p = float(rng.choice([0.0, 0.3, 0.7, 1.0]))
    mask, mr = make_tensor(_mask_gen(rng, p), mshape, ml, kind, rng)
    count = int(mr.expand(x_shape).sum())
    extra = int(rng.integers(0, 4)) if rng.random() < 0.5 else 0
    n = count + extra
    if rng.random() < 0.4 and n > 0:
        sshape = (1, n) if rng.random() < 0.5 else (n, 1)  # any shape: flattened
    else:
        sshape = (n,)
    src, sr = make_tensor(lambda s: values(rng, s, dtype), sshape, sl, kind, rng)
    exp = xr.masked_scatter(mr, sr)
    got = sk.masked_scatter(x, mask, src)
    assert_same(got, exp, kind)
    assert_same(x, xr)
    assert_same(mask, mr)
    assert_same(src, sr)
    if writable_layout(xl):
        out, _ = make_tensor(lambda s: torch.zeros(s, dtype=xr.dtype), x_shape, xl, kind, rng)
        r = sk.masked_scatter(x, mask, src, out=out)
        assert r is out
        assert_same(out, exp, kind)
        xi, _ = make_tensor(lambda s: xr.clone(), x_shape, xl, kind, rng)
        r = sk.masked_scatter(xi, mask, src, out=xi)
        assert r is xi
        assert_same(xi, exp, kind)


def _masked_select_case(rng, dtype, kind, layouts, shape):
    xl, ml = layouts
    # x and mask broadcast against each other
    xshape = _bcast_shape(rng, shape)
    mshape = _bcast_shape(rng, shape)
    x, xr = make_tensor(lambda s: values(rng, s, dtype), xshape, xl, kind, rng)
    mask, mr = make_tensor(_mask_gen(rng, float(rng.choice([0.0, 0.5, 1.0]))), mshape, ml, kind,
                           rng)
    got = sk.masked_select(x, mask)
    assert_same(got, torch.masked_select(xr, mr), kind)
    assert_same(x, xr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_masked_scatter_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x x-layout x mask-layout (looped, src layout
    random) x shapes; broadcast masks, all-False / all-True masks, source
    exactly as long as needed or longer, of any shape; out=, out=x."""
    f = Failures()
    lays = layouts_for(kind)
    for xl in lays:
        for ml in lays:
            for x_shape in [(3, 4, 5), (6,)]:
                sl = str(rng.choice(lays))
                f.run(f"{xl}/{ml}/{sl} {x_shape}",
                      lambda: _masked_scatter_case(rng, dtype, kind, (xl, ml, sl), x_shape))
    f.check()


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_masked_select_matrix(dtype, kind, rng):
    f = Failures()
    lays = layouts_for(kind)
    for xl in lays:
        for ml in lays:
            for shape in [(3, 4, 5), (7,)]:
                f.run(f"{xl}/{ml} {shape}",
                      lambda: _masked_select_case(rng, dtype, kind, (xl, ml), shape))
    f.check()


def test_masked_worked_examples():
    m = np.array([True, False, True, True, False])
    np.testing.assert_array_equal(sk.masked_scatter(np.zeros((2, 5), np.int64), m, np.arange(10)),
                                  [[0, 0, 1, 2, 0], [3, 0, 4, 5, 0]])
    np.testing.assert_array_equal(sk.masked_select(np.arange(10).reshape(2, 5), m),
                                  [0, 2, 3, 5, 7, 8])
    # a list mask; a column mask
    np.testing.assert_array_equal(sk.masked_select(np.arange(6).reshape(2, 3),
                                                   [[False], [True]]), [3, 4, 5])
    np.testing.assert_array_equal(
        sk.masked_scatter(np.zeros((2, 3), np.int8), [[True], [False]],
                          np.array([7, 8, 9], np.int8)),
        [[7, 8, 9], [0, 0, 0]])
    # masked_select broadcasts x to the mask's shape too
    np.testing.assert_array_equal(sk.masked_select(np.array([1, 2]), np.array([[True, False],
                                                                              [True, True]])),
                                  [1, 1, 2])
    # a scalar / 0-d source fills every True position
    np.testing.assert_array_equal(sk.masked_scatter(np.zeros(4), np.array([1, 0, 1, 1], bool), 2.5),
                                  [2.5, 0, 2.5, 2.5])
    np.testing.assert_array_equal(sk.masked_scatter(np.zeros(4), np.array([1, 0, 1, 1], bool),
                                                    np.array(1.5)), [1.5, 0, 1.5, 1.5])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_masked_zero_d_and_zero_size(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    x0 = K(np.array(5.0, np.float32))
    assert_same(sk.masked_scatter(x0, K(np.array(True)), K(np.array([7.0], np.float32))),
                torch.tensor(7.0))
    assert_same(sk.masked_scatter(x0, K(np.array(False)), K(np.zeros(0, np.float32))),
                torch.tensor(5.0))
    assert_same(sk.masked_select(x0, K(np.array(True))), torch.tensor([5.0]))
    assert_same(sk.masked_select(x0, K(np.array(False))), torch.zeros(0))
    assert_same(sk.masked_select(x0, K(np.array([True, False, True]))), torch.tensor([5.0, 5.0]))
    xe = K(np.zeros((2, 0), np.int16))
    assert_same(sk.masked_scatter(xe, K(np.zeros((2, 0), bool)), K(np.zeros(0, np.int16))),
                torch.zeros((2, 0), dtype=torch.int16))
    assert_same(sk.masked_select(xe, K(np.ones((1, 0), bool))), torch.zeros(0, dtype=torch.int16))
    # mask all False: an empty source is enough, nothing changes
    x = K(np.arange(6, dtype=np.float64).reshape(2, 3))
    assert_same(sk.masked_scatter(x, K(np.zeros((2, 3), bool)), K(np.zeros(0))), to_torch(x))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_masked_scatter_source_too_small_writes_nothing(kind, rng):
    """source.size < mask.sum() -> ValueError naming source; x (in place) and
    out unchanged, in every layout and dtype."""
    f = Failures()
    for dtype in ["bool", "uint8", "int64", "float16", "float32"] + (
            ["bfloat16"] if kind == "torch" else []):
        for layout in [lay for lay in layouts_for(kind) if writable_layout(lay)]:
            def run():
                xi, xr = make_tensor(lambda s: values(rng, s, dtype), (4, 5), layout, kind, rng)
                mask = torch.from_numpy(rng.random((1, 5)) < 0.6)
                mask[0, -1] = True
                need = int(mask.expand(4, 5).sum())
                src = to_kind(values(rng, (need - 1,), dtype), kind)
                before = bits_of(xi)
                with raises_with(ValueError, "masked_scatter", "source", str(need - 1),
                                 str(need)):
                    sk.masked_scatter(xi, to_kind(mask, kind), src, out=xi)
                assert_unchanged(xi, before)
                out = to_kind(values(rng, (4, 5), dtype), kind)
                ob = bits_of(out)
                with pytest.raises(ValueError):
                    sk.masked_scatter(xr, to_kind(mask, kind), src, out=out)
                assert_unchanged(out, ob, "out")
            f.run(f"{dtype} {layout}", run)
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_masked_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    xi = K(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = bits_of(xi)
    src = K(np.zeros(12, np.float32))
    with raises_with(TypeError, "masked_scatter", "mask", "uint8"):
        sk.masked_scatter(xi, K(np.ones(4, np.uint8)), src, out=xi)
    with raises_with(ValueError, "masked_scatter", "mask", "[3]", "[3, 4]"):
        sk.masked_scatter(xi, K(np.ones(3, bool)), src, out=xi)
    with raises_with(ValueError, "masked_scatter", "mask", "[2, 3, 4]"):
        sk.masked_scatter(xi, K(np.ones((2, 3, 4), bool)), src, out=xi)  # must fit x's shape
    with raises_with(ValueError, "masked_scatter", "mask"):
        sk.masked_scatter(xi, K(np.ones((2, 1), bool)), src, out=xi)
    with raises_with(TypeError, "masked_scatter", "source", "float32", "float64"):
        sk.masked_scatter(xi, K(np.ones(4, bool)), K(np.zeros(12, np.float64)), out=xi)
    with raises_with(ValueError, "masked_scatter", "out"):
        sk.masked_scatter(xi, K(np.ones(4, bool)), src, out=K(np.zeros((3, 5), np.float32)))
    with raises_with(TypeError, "masked_scatter", "out"):
        sk.masked_scatter(xi, K(np.ones(4, bool)), src, out=K(np.zeros((3, 4), np.int32)))
    assert_unchanged(xi, before)
    with raises_with(TypeError, "masked_select", "mask", "int32"):
        sk.masked_select(xi, K(np.ones(4, np.int32)))
    with raises_with(ValueError, "masked_select", "mask", "[5]", "[3, 4]"):
        sk.masked_select(xi, K(np.ones(5, bool)))
    base = np.zeros((3, 8), np.float32)
    bb = bits_of(base)
    with raises_with(ValueError, "masked_scatter", "out"):
        sk.masked_scatter(base[:, :4], np.ones(4, bool), np.zeros(12, np.float32),
                          out=base[:, 2:6])
    with raises_with(ValueError, "masked_scatter", "out"):
        sk.masked_scatter(np.zeros((3, 4), np.float32), np.ones(4, bool), base.reshape(-1),
                          out=base[:, 4:])
    assert_unchanged(base, bb, "base")


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.bfloat16, torch.float32,
                                   torch.int64, torch.float64])
def test_masked_random_element_mask_large(dtype, restore_threads):
    """A random element mask over contiguous tensors takes the typed loops
    without a branch per element (masked.c): forward, in place, out=, both
    backwards, blocks of the select buffer and chunk edges, 1 to 3 threads."""
    g = torch.Generator().manual_seed(31)
    shape = (301, 1027)
    def make(s):
        if dtype == torch.bool:
            return torch.rand(s, generator=g) < 0.5
        return (torch.randn(s, generator=g) * 50).to(dtype)
    x, source = make(shape), make((shape[0] * shape[1] + 5,))
    for p in (0.5, 0.02, 0.98):
        mask = torch.rand(shape, generator=g) < p
        want_sc, want_sel = x.masked_scatter(mask, source), torch.masked_select(x, mask)
        for threads in (1, 2, 3):
            sk.set_num_threads(threads)
            assert torch.equal(sk.masked_scatter(x, mask, source), want_sc)
            assert torch.equal(sk.masked_select(x, mask), want_sel)
            out = make(shape)
            assert sk.masked_scatter(x, mask, source, out=out) is not None
            assert torch.equal(out, want_sc)
            y = x.clone()
            sk.masked_scatter(y, mask, source, out=y)
            assert torch.equal(y, want_sc)
    if dtype.is_floating_point:
        mask = torch.rand(shape, generator=g) < 0.5
        xg = x.double().requires_grad_()
        sg = source.double().requires_grad_()
        go = torch.randn(shape, generator=g, dtype=torch.float64)
        xg.masked_scatter(mask, sg).backward(go)
        gx, gs = sk.masked_scatter_backward(go, shape, mask, source.shape)
        assert torch.equal(gx, xg.grad) and torch.equal(gs, sg.grad)
        gsel = torch.randn(int(mask.sum()), generator=g, dtype=torch.float64)
        xg.grad = None
        torch.masked_select(xg, mask).backward(gsel)
        assert torch.equal(sk.masked_select_backward(gsel, shape, mask), xg.grad)

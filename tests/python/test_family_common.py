"""Tests that cut across the whole "rest of the family" (tuple-axis
gather/scatter, gather_nd/scatter_nd, slice/diagonal/select scatter,
masked_scatter/masked_select, tensor_scatter): result kind, out= / in-place,
thread-count independence. The references the test_family_* files share
are in helpers_family.py, re-exported here.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (TORCH_DTYPE, assert_close, assert_same, bits_of,
                     check_kind, index_values, to_kind, values)
from helpers_family import (  # noqa: F401
    assert_unchanged, from_bits, raises_with, ref_gather_axes, ref_gather_nd,
    ref_scatter_axes, ref_scatter_nd, ref_slice_scatter, ref_tensor_scatter, to_bits)


# --------------------------------------------------------------------------
# cross-cutting tests
# --------------------------------------------------------------------------
def _every_op_call(rng, kind, dtype="float32"):
    """(name, callable(out=None) -> result, expected torch) for one call of
    every operator of the family, on random inputs of `kind`."""
    s = 1  # size multiplier of the batch dimension
    mk = lambda shape: values(rng, shape, dtype)  # noqa: E731
    conv = lambda t: to_kind(t, kind)  # noqa: E731
    cases = []

    x = mk((4 * s, 5, 6))
    ia = index_values(rng, (4 * s, 5, 7, 2), 6, "error", "int64")
    ia[..., 0] = index_values(rng, (4 * s, 5, 7), 5, "error", "int64")
    xs, ias = conv(x), conv(ia)
    cases.append(("gather axes", lambda out=None: sk.gather(xs, ias, (1, 2)),
                  ref_gather_axes(x, ia, (1, 2)), False))
    src = mk((4 * s, 5, 7))
    srcs = conv(src)
    cases.append(("scatter axes", lambda out=None: sk.scatter(xs, ias, srcs, (1, -1),
                                                              reduce="sum", out=out),
                  ref_scatter_axes(x, ia, src, (1, 2), "sum"), True))
    ind = torch.stack([index_values(rng, (9 * s,), 4 * s, "error", "int64"),
                       index_values(rng, (9 * s,), 5, "error", "int64")], -1)
    inds = conv(ind)
    cases.append(("gather_nd", lambda out=None: sk.gather_nd(xs, inds),
                  ref_gather_nd(x, ind), False))
    upd = mk((9 * s, 6))
    upds = conv(upd)
    cases.append(("scatter_nd", lambda out=None: sk.scatter_nd(xs, inds, upds, out=out),
                  ref_scatter_nd(x, ind, upd), True))
    ssrc = mk((2 * s, 1, 3))
    ssrcs = conv(ssrc)
    cases.append(("slice_scatter", lambda out=None: sk.slice_scatter(
        xs, ssrcs, (0, 2), (None, -1), (None, None), (2, -2), out=out),
        ref_slice_scatter(x, ssrc, (0, 2), (None, -1), (None, None), (2, -2)), True))
    dsrc = mk((4 * s, 5))
    dsrcs = conv(dsrc)
    cases.append(("diagonal_scatter", lambda out=None: sk.diagonal_scatter(
        xs, dsrcs, 1, -2, 2, out=out), torch.diagonal_scatter(x, dsrc, 1, 1, 2), True))
    selsrc = mk((4 * s, 6))
    selsrcs = conv(selsrc)
    cases.append(("select_scatter", lambda out=None: sk.select_scatter(xs, selsrcs, 1, -2,
                                                                       out=out),
                  torch.select_scatter(x, selsrc, 1, -2), True))
    mask = torch.from_numpy(rng.random((5, 1)) < 0.5)
    msrc = mk((4 * s * 5 * 6,))
    masks, msrcs = conv(mask), conv(msrc)
    cases.append(("masked_scatter", lambda out=None: sk.masked_scatter(xs, masks, msrcs,
                                                                       out=out),
                  x.masked_scatter(mask, msrc), True))
    cases.append(("masked_select", lambda out=None: sk.masked_select(xs, masks),
                  torch.masked_select(x, mask), False))
    tu = mk((4 * s, 3, 6))
    wi = torch.from_numpy(rng.integers(0, 3, 4 * s))
    tus, wis = conv(tu), conv(wi)
    cases.append(("tensor_scatter", lambda out=None: sk.tensor_scatter(xs, tus, wis,
                                                                       out=out),
                  ref_tensor_scatter(x, tu, wi.numpy(), -2, "linear"), True))
    return x, xs, cases


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_every_family_op_result_kind_and_out(kind, rng):
    """NumPy in -> NumPy out, torch in -> torch out; out= returns out itself
    holding the result; out=x is the in-place form; inputs are not modified."""
    x, xs, cases = _every_op_call(rng, kind)
    before = bits_of(xs)
    for name, call, exp, has_out in cases:
        got = call()
        check_kind(got, kind)
        assert_same(got, exp)
        assert torch.equal(bits_of(xs), before), f"{name} modified x"
        if has_out:
            out = to_kind(torch.zeros_like(x), kind)
            r = call(out=out)
            assert r is out, f"{name}: out= did not return out"
            assert_same(out, exp)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_every_family_op_in_place(kind, rng):
    """out=x: every scatter-type operator writes into x and returns it."""
    x = values(rng, (4, 5, 6), "float32")
    # explicit in-place calls (out is x itself)
    checks = []
    xi = to_kind(x, kind)
    ind = torch.tensor([[0, 1], [3, 4], [0, 1]])
    upd = values(rng, (3, 6), "float32")
    r = sk.scatter_nd(xi, to_kind(ind, kind), to_kind(upd, kind), reduce="sum", out=xi)
    checks.append(("scatter_nd", r, xi, ref_scatter_nd(x, ind, upd, "sum")))
    xi = to_kind(x, kind)
    ia = torch.zeros((4, 5, 6, 2), dtype=torch.int64)
    ia[..., 0] = torch.arange(5).reshape(1, 5, 1)
    ia[..., 1] = torch.arange(6).flip(0)
    src = values(rng, (4, 5, 6), "float32")
    r = sk.scatter(xi, to_kind(ia, kind), to_kind(src, kind), (1, 2), reduce="amax", out=xi)
    checks.append(("scatter axes", r, xi, ref_scatter_axes(x, ia, src, (1, 2), "amax")))
    xi = to_kind(x, kind)
    ssrc = values(rng, (2, 5, 1), "float32")
    r = sk.slice_scatter(xi, to_kind(ssrc, kind), (0, 2), (-1, 1), (None, 6), (-2, 3), out=xi)
    checks.append(("slice_scatter", r, xi,
                   ref_slice_scatter(x, ssrc, (0, 2), (-1, 1), (None, 6), (-2, 3))))
    xi = to_kind(x, kind)
    dsrc = values(rng, (6, 3), "float32")
    r = sk.diagonal_scatter(xi, to_kind(dsrc, kind), -1, 0, 1, out=xi)
    checks.append(("diagonal_scatter", r, xi, torch.diagonal_scatter(x, dsrc, -1, 0, 1)))
    xi = to_kind(x, kind)
    ssrc = values(rng, (5, 6), "float32")
    r = sk.select_scatter(xi, to_kind(ssrc, kind), 0, 3, out=xi)
    checks.append(("select_scatter", r, xi, torch.select_scatter(x, ssrc, 0, 3)))
    xi = to_kind(x, kind)
    mask = torch.from_numpy(rng.random((4, 1, 6)) < 0.5)
    msrc = values(rng, (200,), "float32")
    r = sk.masked_scatter(xi, to_kind(mask, kind), to_kind(msrc, kind), out=xi)
    checks.append(("masked_scatter", r, xi, x.masked_scatter(mask, msrc)))
    xi = to_kind(x, kind)
    tu = values(rng, (4, 2, 6), "float32")
    wi = torch.tensor([0, 3, 2, 1])
    r = sk.tensor_scatter(xi, to_kind(tu, kind), to_kind(wi, kind), axis=1, mode="circular",
                          out=xi)
    checks.append(("tensor_scatter", r, xi, ref_tensor_scatter(x, tu, wi.numpy(), 1,
                                                               "circular")))
    for name, r, xi, exp in checks:
        assert r is xi, f"{name}: out=x did not return x"
        assert_same(xi, exp, kind)


def _threads_cases(rng):
    """Mid-size cases for every operator, with ordinary random floats (not
    exact sums) and many duplicate targets, so that a thread-dependent
    summation order would show."""
    f32 = lambda shape: torch.from_numpy(rng.standard_normal(shape).astype(np.float32))  # noqa
    f16 = lambda shape: f32(shape).to(torch.float16)  # noqa: E731
    cases = []
    x = f32((64, 48, 32))
    ia = torch.from_numpy(rng.integers(0, 4, (64, 48, 32, 2)))
    src = f32((64, 48, 32))
    for red in ["sum", "prod", "mean", "amax", None]:
        cases.append((f"scatter axes {red}",
                      lambda red=red: sk.scatter(x, ia, src, (0, 2), reduce=red)))
    xh = f16((64, 48, 32))
    srch = f16((64, 48, 32))
    cases.append(("scatter axes f16 sum", lambda: sk.scatter(xh, ia, srch, (0, 2), reduce="sum",
                                                             include_self=False)))
    ind = torch.from_numpy(rng.integers(-8, 8, (20000, 2)))
    upd = f32((20000, 32))
    xs = f32((8, 8, 32))
    for red in ["sum", "mean", "prod", "amin", None]:
        cases.append((f"scatter_nd {red}", lambda red=red: sk.scatter_nd(xs, ind, upd,
                                                                         reduce=red)))
    cases.append(("scatter_nd f16 sum", lambda: sk.scatter_nd(xs.half(), ind, upd.half(),
                                                              reduce="sum")))
    gi = torch.from_numpy(rng.integers(0, 48, (64, 5000, 1)))
    cases.append(("gather_nd", lambda: sk.gather_nd(x, gi, batch_dims=1)))
    cases.append(("gather axes", lambda: sk.gather(x, ia, (0, 2))))
    ssrc = f32((32, 24, 16))
    cases.append(("slice_scatter", lambda: sk.slice_scatter(x, ssrc, (0, 1, 2), (None, 1, -1),
                                                            (None, None, None), (-2, 2, -2))))
    big = f32((16, 300, 300))
    dsrc, selsrc = f32((16, 299)), f32((16, 300))
    cases.append(("diagonal_scatter", lambda: sk.diagonal_scatter(big, dsrc, 1, 1, 2)))
    cases.append(("select_scatter", lambda: sk.select_scatter(big, selsrc, 2, 7)))
    mask = torch.from_numpy(rng.random((300, 300)) < 0.5)
    msrc = f32((16 * 300 * 300,))
    cases.append(("masked_scatter", lambda: sk.masked_scatter(big, mask, msrc)))
    cases.append(("masked_select", lambda: sk.masked_select(big, mask)))
    tu = f32((16, 450, 300))
    wi = torch.from_numpy(rng.integers(0, 300, 16))
    cases.append(("tensor_scatter", lambda: sk.tensor_scatter(big, tu, wi, axis=1,
                                                              mode="circular")))
    return cases


def test_every_family_op_threads_1_vs_2(rng, restore_threads):
    """CONTRACT: results are bitwise identical for every thread count."""
    cases = _threads_cases(rng)
    results = {}
    for nt in (1, 2):
        sk.set_num_threads(nt)
        assert sk.get_num_threads() == nt
        for name, call in cases:
            results.setdefault(name, []).append(bits_of(call()))
    bad = [name for name, (a, b) in results.items() if not torch.equal(a, b)]
    assert not bad, f"results depend on the thread count: {bad}"


def test_threads_results_are_right_too(rng, restore_threads):
    """The mid-size float cases also agree with the references (within
    float32 rounding for the non-exact random sums)."""
    sk.set_num_threads(2)
    x = torch.from_numpy(rng.standard_normal((64, 48, 32)).astype(np.float32))
    ia = torch.from_numpy(rng.integers(0, 4, (64, 48, 32, 2)))
    src = torch.from_numpy(rng.standard_normal((64, 48, 32)).astype(np.float32))
    got = sk.scatter(x, ia, src, (0, 2), reduce="sum")
    exp = ref_scatter_axes(x.double(), ia, src.double(), (0, 2), "sum").float()
    assert_close(got, exp, rtol=1e-5, atol=1e-4)
    ind = torch.from_numpy(rng.integers(-8, 8, (20000, 2)))
    upd = torch.from_numpy(rng.standard_normal((20000, 32)).astype(np.float32))
    xs = torch.from_numpy(rng.standard_normal((8, 8, 32)).astype(np.float32))
    got = sk.scatter_nd(xs, ind, upd, reduce="mean")
    exp = ref_scatter_nd(xs.double(), ind, upd.double(), "mean").float()
    assert_close(got, exp, rtol=1e-4, atol=1e-5)


def test_every_family_op_refuses_out_overlapping_another_input():
    """out=x is the in-place form, but another input (src, updates, source,
    index, mask, write_indices, update) that is a view of x must not be
    written while it is read: ValueError naming out; x unchanged."""
    def fresh():
        return np.array([[0, 1, 2, 0], [1, 1, 1, 1], [2, 2, 2, 2]], np.int64)
    cases = [
        ("slice_scatter", "src", lambda a: sk.slice_scatter(a, a[::-1], 0, out=a)),
        ("select_scatter", "src", lambda a: sk.select_scatter(a, a[2], 0, 0, out=a)),
        ("diagonal_scatter", "src", lambda a: sk.diagonal_scatter(a, a[0, :3], out=a)),
        ("masked_scatter", "source", lambda a: sk.masked_scatter(a, np.ones(4, bool),
                                                                 a.reshape(-1)[::-1], out=a)),
        ("scatter_nd", "updates", lambda a: sk.scatter_nd(a, np.array([[0], [1]]), a[1:],
                                                          out=a)),
        ("scatter_nd", "index", lambda a: sk.scatter_nd(a, a[:, :1], np.int64(7), out=a)),
        ("scatter", "src", lambda a: sk.scatter(a, np.zeros((1, 1, 2), np.int64), a, (0, 1),
                                                out=a)),
        ("scatter", "index", lambda a: sk.scatter(a, a[:1, :2].reshape(1, 1, 2), np.int64(7),
                                                  (0, 1), out=a)),
        ("tensor_scatter", "update", lambda a: sk.tensor_scatter(a, a[:, :1], [0, 1, 2],
                                                                 axis=1, out=a)),
        ("tensor_scatter", "write_indices", lambda a: sk.tensor_scatter(
            a, np.zeros((3, 1), np.int64), a[:, 0], axis=1, out=a)),
    ]
    for op, arg, call in cases:
        a = fresh()
        before = bits_of(a)
        with raises_with(ValueError, op, "out", arg):
            call(a)
        assert_unchanged(a, before)
    b = np.array([True, False, True, True])
    before = bits_of(b)
    with raises_with(ValueError, "masked_scatter", "out", "mask"):
        sk.masked_scatter(b, b, np.zeros(3, bool), out=b)
    assert_unchanged(b, before)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_zero_d_tensor_and_scalar_sources_broadcast(kind, rng):
    """A 0-d tensor src/updates/source (of either kind) and a Python scalar
    give the same result as the full-size tensor of that value; mixed kinds:
    the result follows x."""
    other = "torch" if kind == "numpy" else "numpy"
    for dtype in ["float32", "int16", "bool"]:
        v = True if dtype == "bool" else 3
        xr = values(rng, (3, 4), dtype)
        x = to_kind(xr, kind)
        full = lambda shape: torch.full(shape, v, dtype=TORCH_DTYPE[dtype])  # noqa: E731
        zero_d = [v, to_kind(full(()), kind), to_kind(full(()), other)]
        ind = torch.tensor([[2], [0]])
        ia = torch.tensor([[[0, 3], [1, 1]]])
        mask = torch.tensor([True, False, False, True])
        checks = [
            (lambda s: sk.scatter_nd(x, to_kind(ind, other), s),
             ref_scatter_nd(xr, ind, full((2, 4)))),
            (lambda s: sk.scatter(x, ia, s, (0, 1)),
             ref_scatter_axes(xr, ia, full((1, 2)), (0, 1))),
            (lambda s: sk.slice_scatter(x, s, 1, None, None, -3),
             ref_slice_scatter(xr, full(()), 1, None, None, -3)),
            (lambda s: sk.diagonal_scatter(x, s, 1), torch.diagonal_scatter(xr, full((3,)), 1)),
            (lambda s: sk.select_scatter(x, s, 1, -1), torch.select_scatter(xr, full((3,)), 1, -1)),
            (lambda s: sk.masked_scatter(x, to_kind(mask, other), s),
             xr.masked_scatter(mask, full((6,)))),
        ]
        for i, (call, exp) in enumerate(checks):
            for s in zero_d:
                got = call(s)
                check_kind(got, kind)
                assert_same(got, exp)


def test_numpy_bfloat16_via_ml_dtypes(rng):
    """NumPy bfloat16 arrays (ml_dtypes) give NumPy bfloat16 results with the
    same bits as the torch bfloat16 call (the torch-only matrices cover the
    values)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf = np.dtype(ml_dtypes.bfloat16)

    def np_bf16(t):
        return to_bits(t).view(bf)

    x = values(rng, (4, 5, 6), "bfloat16")
    xn = np_bf16(x)
    ind = torch.tensor([[0, 1], [3, 4], [0, 1], [2, -1]])
    upd = values(rng, (4, 6), "bfloat16")
    got = sk.scatter_nd(xn, ind.numpy(), np_bf16(upd), reduce="sum")
    assert isinstance(got, np.ndarray) and got.dtype == bf
    assert_same(from_bits(got.view(np.int16), "bfloat16"), ref_scatter_nd(x, ind, upd, "sum"))
    got = sk.gather_nd(xn, ind.numpy())
    assert got.dtype == bf
    assert_same(from_bits(got.view(np.int16), "bfloat16"), ref_gather_nd(x, ind))
    src = values(rng, (2, 5, 3), "bfloat16")
    got = sk.slice_scatter(xn, np_bf16(src), (0, 2), (None, -1), None, (-2, -2))
    assert_same(from_bits(got.view(np.int16), "bfloat16"),
                ref_slice_scatter(x, src, (0, 2), (None, -1), (None, None), (-2, -2)))
    mask = rng.random((5, 6)) < 0.5
    got = sk.masked_select(xn, mask)
    assert got.dtype == bf
    assert_same(from_bits(got.view(np.int16), "bfloat16"),
                torch.masked_select(x, torch.from_numpy(mask)))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_every_family_op_refuses_out_with_internal_overlap(kind):
    """An out (or in-place x) with a zero stride cannot be written element by
    element: ValueError naming out, nothing written."""
    base = to_kind(torch.arange(4, dtype=torch.float32), kind)
    if kind == "torch":
        x = base.expand(3, 4)
    else:
        x = np.lib.stride_tricks.as_strided(base, shape=(3, 4), strides=(0, 4))
    before = bits_of(base)
    m = to_kind(torch.tensor([True, False, False, False]), kind)
    calls = [
        ("scatter_nd", lambda o: sk.scatter_nd(x, [[0]], 1.0, out=o)),
        ("scatter", lambda o: sk.scatter(x, [[[0, 1]]], 1.0, (0, 1), out=o)),
        ("slice_scatter", lambda o: sk.slice_scatter(x, 1.0, 0, 0, 1, out=o)),
        ("select_scatter", lambda o: sk.select_scatter(x, 1.0, 0, 0, out=o)),
        ("diagonal_scatter", lambda o: sk.diagonal_scatter(x, 1.0, out=o)),
        ("masked_scatter", lambda o: sk.masked_scatter(x, m, 1.0, out=o)),
        ("tensor_scatter", lambda o: sk.tensor_scatter(
            x, to_kind(torch.ones(3, 1), kind), None, axis=1, out=o)),
    ]
    for op, call in calls:
        with raises_with(ValueError, op, "out"):
            call(x)  # in place on an expanded x
        other = to_kind(torch.zeros(4), kind)
        o = other.expand(3, 4) if kind == "torch" else \
            np.lib.stride_tricks.as_strided(other, shape=(3, 4), strides=(0, 4))
        with raises_with(ValueError, op, "out"):
            call(o)
        assert not bits_of(other).any(), f"{op} wrote into a refused out"
    assert_unchanged(base, before, "x")

"""Backward (CONTRACT §7) through scatterkit.torch: gradcheck and a plain reference.

Every case is checked twice, in float64:
- torch.autograd.gradcheck (finite differences against our C backward);
- against a *plain reference*: the forward rebuilt element by element from
  torch indexing, torch.stack and the reductions torch.sum / prod / mean /
  amax / amin over each target's contributors, differentiated by torch
  autograd. That reference follows CONTRACT §7 by construction: assign
  keeps the last writer only (the overwritten values never reach the output),
  torch.amax/amin split the gradient evenly among tied values, torch.prod is
  exact with zeros, unread src elements never reach the output.
  It is used where gradcheck cannot be (ties: amax/amin are not
  differentiable there, CONTRACT defines the split) and where CONTRACT departs from
  torch's own scatter gradients (assign with duplicates, src.shape !=
  index.shape); test_backward_torch.py compares with torch where torch
  defines the gradient.

amax/amin cases use well-separated values (no winner changes within
gradcheck's eps) unless a test builds ties on purpose.

This file: scatter, index_scatter and scatter_nd; test_backward_gather.py:
the gather-type operators and the view scatters. The reference and the
checks are in helpers_backward.py.
"""
import numpy as np
import pytest
import torch

import scatterkit.torch as skt
from helpers_backward import (F64, REDUCES, as_index, check, check_against,
                              index_scatter_pairs, leaf, ref_reduce, scatter_nd_pairs,
                              scatter_pairs, values_for)


# --------------------------------------------------------------------------
# scatter: every reduce x include_self x scenario
# --------------------------------------------------------------------------
SCATTER_CASES = {
    # name: (x shape, index, axis, src shape, mode)
    "duplicates": ((3, 4), [[0, 2, 1], [2, 2, 0], [0, 2, 1], [1, 0, 0], [0, 0, 2]], 0, (5, 3),
                   "error"),
    "negative_axis_and_index": ((3, 4), [[-1, 0, 3, -4, 1, -1], [2, 2, -3, 0, 1, 3]], -1, (2, 6),
                                "error"),
    "clip": ((3, 4), [[-7, 6, 2, 9, -1], [0, 4, -5, 3, 3], [1, -9, 8, 0, 2]], 1, (3, 5), "clip"),
    "drop": ((3, 4), [[-7, 6, 2, 9, -1], [0, 4, -5, 3, 3], [1, -9, 8, 0, 2]], 1, (3, 5), "drop"),
    "src_bigger_than_index": ((3, 4), [[0, 2], [2, 2], [1, 0], [0, 0]], 0, (5, 4), "error"),
    "x_0d": ((), 0, 0, (), "error"),
    "x_0d_index_minus_1": ((), -1, -1, (), "error"),
    "x_0d_dropped": ((), 3, 0, (), "drop"),
    "index_zero_size": ((3, 4), np.zeros((0, 4), np.int64), 0, (0, 4), "error"),
    "x_zero_size": ((3, 0), np.zeros((2, 0), np.int64), 0, (2, 0), "error"),
    "three_dims": ((2, 3, 2), [[[0, 1], [1, 1], [0, 0]], [[1, 0], [0, 1], [1, 1]],
                               [[1, 1], [0, 0], [0, 1]]], 0, (3, 3, 2), "error"),
    "tuple_axes": ((3, 4, 2), np.stack([np.array([[[0, 1, 2], [2, 2, 0]], [[1, 1, 0], [0, 2, 2]]]),
                                        np.array([[[0, 1, 1], [1, 1, 0]], [[0, 0, 1], [1, 0, 1]]])],
                                       -1).transpose(0, 2, 1, 3), (0, 2), (2, 3, 2), "error"),
}


@pytest.mark.parametrize("case", sorted(SCATTER_CASES))
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_gradcheck(reduce, include_self, case, rng):
    xs, index, axis, ss, mode = SCATTER_CASES[case]
    x, src = values_for(rng, reduce, [xs, ss])
    index = as_index(index)
    kw = dict(reduce=reduce, include_self=include_self, mode=mode)
    pairs = scatter_pairs(xs, index, axis, mode)

    def fn(x, src):
        return skt.scatter(x, index, src, axis, **kw)

    def ref(x, src):
        return ref_reduce(x, src, pairs, reduce, include_self)

    check(fn, ref, [x, src], rng)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_broadcast_src(reduce, include_self, rng):
    """A 0-d src tensor (broadcast to index.shape by scatter) gets the sum of
    its per-position gradients; an expanded src (zero strides) gets the sum
    through torch's expand; a Python scalar src has no gradient."""
    index = as_index([[0, 2, 1], [2, 2, 0], [1, 1, 1], [0, 2, 2]])
    (x,) = values_for(rng, reduce, [(3, 3)])
    kw = dict(reduce=reduce, include_self=include_self)
    pairs = scatter_pairs((3, 3), index, 0, "error")
    if reduce in ("amax", "amin"):  # a broadcast src ties with itself: no gradcheck
        s0 = torch.tensor(0.05, dtype=F64)
        check_against(lambda x, s: skt.scatter(x, index, s, 0, **kw),
                      lambda x, s: ref_reduce(x, s.expand(4, 3), pairs, reduce, include_self),
                      [x, s0], rng)
        return
    s0 = torch.tensor(0.7, dtype=F64)
    check(lambda x, s: skt.scatter(x, index, s, 0, **kw),
          lambda x, s: ref_reduce(x, s.expand(4, 3), pairs, reduce, include_self), [x, s0], rng)
    s1 = torch.tensor([[0.7, -1.2, 0.9]], dtype=F64)
    check(lambda x, s: skt.scatter(x, index, s.expand(4, 3), 0, **kw),
          lambda x, s: ref_reduce(x, s.expand(4, 3), pairs, reduce, include_self), [x, s1], rng)
    check(lambda x: skt.scatter(x, index, 1.25, 0, **kw),
          lambda x: ref_reduce(x, torch.full((4, 3), 1.25, dtype=F64), pairs, reduce,
                               include_self), [x], rng)


@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_strided_inputs(reduce, rng):
    """Transposed x, strided src and grad_out of any layout reach C as they are."""
    index = as_index([[0, 2, 1], [2, 2, 0], [1, 1, 1], [0, 2, 2]])
    xt, src = values_for(rng, reduce, [(3, 3), (4, 6)])
    pairs = scatter_pairs((3, 3), index, 0, "error")

    def fn(xt, src):
        return skt.scatter(xt.t(), index, src[:, ::2], 0, reduce=reduce)

    def ref(xt, src):
        return ref_reduce(xt.t(), src[:, ::2], pairs, reduce, True)

    check(fn, ref, [xt, src], rng)


# --------------------------------------------------------------------------
# prod with zeros: exact, no division by zero
# --------------------------------------------------------------------------
PROD_ZERO_CASES = {
    # name: (x, index, src); targets 0, 1, 2
    "one_zero_in_src": ([2.0, -1.5, 0.5], [0, 0, 1, 2, 2], [0.0, 3.0, 1.25, -0.75, 1.5]),
    "two_zeros_in_src": ([2.0, -1.5, 0.5], [0, 0, 0, 1, 2], [0.0, 3.0, 0.0, 1.25, 0.0]),
    "zero_in_x": ([0.0, -1.5, 0.5], [0, 0, 1, 2, 2], [2.5, 3.0, 1.25, -0.75, 1.5]),
    "zero_in_x_and_src": ([0.0, 0.0, 0.5], [0, 0, 1, 1, 2], [2.5, 0.0, 0.0, 0.0, 1.5]),
    "all_zero": ([0.0, 0.0, 0.0], [0, 0, 1, 2, 2], [0.0, 0.0, 0.0, 0.0, 0.0]),
}


@pytest.mark.parametrize("case", sorted(PROD_ZERO_CASES))
@pytest.mark.parametrize("include_self", [True, False])
def test_prod_with_zeros(case, include_self, rng):
    xv, iv, sv = PROD_ZERO_CASES[case]
    x, src = torch.tensor(xv, dtype=F64), torch.tensor(sv, dtype=F64)
    index = as_index(iv)
    pairs = scatter_pairs((3,), index, 0, "error")
    kw = dict(reduce="prod", include_self=include_self)

    def fn(x, src):
        return skt.scatter(x, index, src, 0, **kw)

    def ref(x, src):
        return ref_reduce(x, src, pairs, "prod", include_self)

    check(fn, ref, [x, src], rng)
    # the same through index_scatter and scatter_nd
    check(lambda x, u: skt.index_scatter(x, index, u, 0, **kw), ref, [x, src], rng)
    if include_self:
        check(lambda x, u: skt.scatter_nd(x, index[:, None], u, reduce="prod"), ref, [x, src],
              rng)


def test_prod_zero_gradients_by_hand():
    """x=[0], src=[3, 4]: the zero's gradient is 12, the others' 0; with two
    zeros every gradient is 0."""
    x, s = leaf(torch.tensor([0.0], dtype=F64)), leaf(torch.tensor([3.0, 4.0], dtype=F64))
    skt.scatter(x, as_index([0, 0]), s, 0, reduce="prod").sum().backward()
    assert x.grad.tolist() == [12.0] and s.grad.tolist() == [0.0, 0.0]
    x, s = leaf(torch.tensor([0.0], dtype=F64)), leaf(torch.tensor([3.0, 0.0], dtype=F64))
    skt.scatter(x, as_index([0, 0]), s, 0, reduce="prod").sum().backward()
    assert x.grad.tolist() == [0.0] and s.grad.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------
# amax/amin ties: CONTRACT's even split (gradcheck does not apply)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_ties_by_hand(reduce):
    """x=[1], src=[1, 1] include_self: each of the three gets 1/3; without
    include_self each src gets 1/2 and x nothing (torch.scatter_reduce gives
    each src 1/3 there: it counts x among the ties even when x is not a
    contributor, so 1/3 of the gradient is lost)."""
    for include_self, gx, gs in [(True, [1 / 3], [1 / 3, 1 / 3]), (False, [0.0], [0.5, 0.5])]:
        x, s = leaf(torch.tensor([1.0], dtype=F64)), leaf(torch.tensor([1.0, 1.0], dtype=F64))
        skt.scatter(x, as_index([0, 0]), s, 0, reduce=reduce, include_self=include_self).backward(
            torch.ones(1, dtype=F64))
        assert x.grad.tolist() == gx and s.grad.tolist() == gs
    # x alone wins: it gets everything, the src nothing
    x, s = leaf(torch.tensor([5.0 if reduce == "amax" else -5.0], dtype=F64)), leaf(
        torch.tensor([1.0, 1.0], dtype=F64))
    skt.scatter(x, as_index([0, 0]), s, 0, reduce=reduce).backward(torch.ones(1, dtype=F64))
    assert x.grad.tolist() == [1.0] and s.grad.tolist() == [0.0, 0.0]


def test_ties_nan():
    """NaN propagates through amax and counts as equal to NaN: x=[nan],
    src=[1, nan] -> x and src[1] share the gradient, src[0] gets 0."""
    x, s = leaf(torch.tensor([float("nan")], dtype=F64)), leaf(
        torch.tensor([1.0, float("nan")], dtype=F64))
    y = skt.scatter(x, as_index([0, 0]), s, 0, reduce="amax")
    assert torch.isnan(y).all()
    y.backward(torch.ones(1, dtype=F64))
    assert x.grad.tolist() == [0.5] and s.grad.tolist() == [0.0, 0.5]


def _tied_values(rng, shape):
    return torch.tensor(rng.integers(0, 3, shape), dtype=F64)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_ties_random(reduce, include_self, rng):
    """Values from {0, 1, 2}: many ties between updates and with x; the split
    equals the plain reference's (torch.amax/amin split ties evenly)."""
    for _ in range(4):
        x, src = _tied_values(rng, (3, 4)), _tied_values(rng, (6, 4))
        index = as_index(rng.integers(0, 3, (6, 4)))
        pairs = scatter_pairs((3, 4), index, 0, "error")
        kw = dict(reduce=reduce, include_self=include_self)
        check_against(lambda x, s: skt.scatter(x, index, s, 0, **kw),
                      lambda x, s: ref_reduce(x, s, pairs, reduce, include_self), [x, src], rng)
        i1 = as_index(rng.integers(-3, 3, 6))
        pairs = index_scatter_pairs((3, 4), i1, 0, "error")
        check_against(lambda x, u: skt.index_scatter(x, i1, u, 0, **kw),
                      lambda x, u: ref_reduce(x, u, pairs, reduce, include_self), [x, src], rng)
        if include_self:
            pairs = scatter_nd_pairs((3, 4), i1[:, None], "error")
            check_against(lambda x, u: skt.scatter_nd(x, i1[:, None], u, reduce=reduce),
                          lambda x, u: ref_reduce(x, u, pairs, reduce, True), [x, src], rng)


# --------------------------------------------------------------------------
# index_scatter and scatter_nd
# --------------------------------------------------------------------------
INDEX_SCATTER_CASES = {
    # name: (x shape, index, axis, updates shape, mode)
    "duplicates": ((4, 3), [1, 3, 1, -1, 0], 0, (5, 3), "error"),
    "axis1": ((3, 4), [2, 0, 2], 1, (3, 3), "error"),
    "index_0d": ((4, 3), 2, 0, (3,), "error"),
    "clip": ((4, 3), [5, -9, 1, 1], 0, (4, 3), "clip"),
    "drop": ((4, 3), [5, -9, 1, 1, -4], 0, (5, 3), "drop"),
    "empty_index": ((4, 3), np.zeros(0, np.int64), 0, (0, 3), "error"),
    "x_1d": ((5,), [4, 0, 4, 2], 0, (4,), "error"),
}


@pytest.mark.parametrize("case", sorted(INDEX_SCATTER_CASES))
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_index_scatter_gradcheck(reduce, include_self, case, rng):
    xs, index, axis, us, mode = INDEX_SCATTER_CASES[case]
    x, upd = values_for(rng, reduce, [xs, us])
    index = as_index(index)
    kw = dict(reduce=reduce, include_self=include_self, mode=mode)
    pairs = index_scatter_pairs(xs, index, axis, mode)
    check(lambda x, u: skt.index_scatter(x, index, u, axis, **kw),
          lambda x, u: ref_reduce(x, u, pairs, reduce, include_self), [x, upd], rng)


SCATTER_ND_CASES = {
    # name: (x shape, index, updates shape, mode)
    "rows_duplicates": ((4, 3), [[1], [3], [1], [-1], [0]], (5, 3), "error"),
    "elements": ((4, 3), [[1, 2], [3, 0], [1, 2], [-1, -1]], (4,), "error"),
    "batched_index": ((4, 3), [[[0], [2]], [[2], [1]]], (2, 2, 3), "error"),
    "clip": ((4, 3), [[5, 1], [-9, 0], [1, 7], [0, 0]], (4,), "clip"),
    "drop": ((4, 3), [[5, 1], [-9, 0], [1, 7], [0, 0], [1, 1]], (5,), "drop"),
    "empty_index": ((4, 3), np.zeros((0, 1), np.int64), (0, 3), "error"),
    "k0_whole_x": ((2, 3), np.zeros((3, 0), np.int64), (3, 2, 3), "error"),
}


@pytest.mark.parametrize("case", sorted(SCATTER_ND_CASES))
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_nd_gradcheck(reduce, case, rng):
    xs, index, us, mode = SCATTER_ND_CASES[case]
    x, upd = values_for(rng, reduce, [xs, us])
    index = as_index(index)
    pairs = scatter_nd_pairs(xs, index, mode)
    check(lambda x, u: skt.scatter_nd(x, index, u, reduce=reduce, mode=mode),
          lambda x, u: ref_reduce(x, u, pairs, reduce, True), [x, upd], rng)


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
def test_index_scatter_and_scatter_nd_0d_updates(reduce, rng):
    """A 0-d updates tensor is broadcast by the forward; it gets the summed gradient."""
    (x,) = values_for(rng, reduce, [(4, 3)])
    u0 = torch.tensor(0.8, dtype=F64)
    index = as_index([1, 3, 1])
    pairs = index_scatter_pairs((4, 3), index, 0, "error")
    check(lambda x, u: skt.index_scatter(x, index, u, 0, reduce=reduce),
          lambda x, u: ref_reduce(x, u.expand(3, 3), pairs, reduce, True), [x, u0], rng)
    pairs = scatter_nd_pairs((4, 3), index[:, None], "error")
    check(lambda x, u: skt.scatter_nd(x, index[:, None], u, reduce=reduce),
          lambda x, u: ref_reduce(x, u.expand(3, 3), pairs, reduce, True), [x, u0], rng)


# --------------------------------------------------------------------------
# amax/amin over rows (message passing): the backward's pass over update rows
# --------------------------------------------------------------------------
def _rows_reference(x, u, rows_target, res, g, reduce, include_self):
    """CONTRACT's rules written out in NumPy (float64 arithmetic, shares rounded
    once to the dtype): rows_target[i] is update row i's target row (-1:
    dropped). amax/amin split among ties, NaN ties with NaN; mean divides by
    the contributors. 16-bit floats work in float32 (the caller rounds the
    result once). Returns (grad_x, grad_u) as NumPy arrays."""
    def same(a, b):
        return (a == b) | (np.isnan(a) & np.isnan(b))
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xn, un, rn, gn = (t.to(work).numpy() for t in (x, u, res, g))
    ok = rows_target >= 0
    t = np.where(ok, rows_target, 0)
    amx = reduce in ("amax", "amin")
    hit = (same(un, rn[t]) if amx else np.ones(un.shape, bool)) & ok[:, None]
    cnt = np.zeros(rn.shape, np.int64)
    if include_self and amx:
        cnt += same(xn, rn)
    np.add.at(cnt, t[ok], hit[ok].astype(np.int64))
    g64 = gn.astype(np.float64)
    if amx:
        share = np.where(cnt > 0, g64 / np.maximum(cnt, 1), g64).astype(xn.dtype)
    elif reduce == "mean":
        share = (g64 / (cnt + (1 if include_self else 0))).astype(xn.dtype)
    else:
        share = gn
    gu = np.where(hit, share[t], 0).astype(xn.dtype)
    if include_self:
        gx = np.where(same(xn, rn), share, 0).astype(xn.dtype) if amx else share
    else:
        gx = np.where(cnt > 0, 0, gn).astype(xn.dtype)
    return gx, gu


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("mode", ["error", "clip", "drop"])
def test_rows_backward(dtype, reduce, include_self, mode, rng, restore_threads):
    """index_scatter on axis 0 and scatter with an expanded 1-d index (the
    backward's passes over rows), many update rows into 7 target rows of 3
    (a row of targets straddles the split between threads), values from
    {0, 1, 2} with NaNs (ties everywhere), out-of-range values for
    clip/drop: the gradients equal the written-out rules exactly, with the
    same bits at 1 and 2 threads."""
    import scatterkit as sk
    T, C, N = 7, 3, 30001
    x = torch.tensor(rng.integers(0, 3, (T, C)), dtype=dtype)
    u = torch.tensor(rng.integers(0, 3, (N, C)), dtype=dtype)
    if reduce in ("amax", "amin"):
        u[rng.integers(0, N, 50), rng.integers(0, C, 50)] = float("nan")
        x[1, 2] = float("nan")
    lo, hi = (-T, T) if mode == "error" else (-T - 3, T + 3)
    i1 = torch.from_numpy(rng.integers(lo, hi, N))
    raw = i1.numpy()
    wrapped = np.where(raw < 0, raw + T, raw)
    if mode == "clip":
        rows_target = np.clip(wrapped, 0, T - 1)
    else:
        rows_target = np.where((wrapped >= 0) & (wrapped < T), wrapped, -1)
    g = torch.tensor(rng.standard_normal((T, C)), dtype=dtype)
    kw = dict(reduce=reduce, include_self=include_self, mode=mode)
    for name, fn in [("index_scatter", lambda a, b: skt.index_scatter(a, i1, b, 0, **kw)),
                     ("scatter", lambda a, b: skt.scatter(a, i1[:, None].expand(N, C), b, 0, **kw))]:
        grads_by_threads = []
        for threads in (1, 2):
            sk.set_num_threads(threads)
            a, b = x.clone().requires_grad_(), u.clone().requires_grad_()
            y = fn(a, b)
            y.backward(g)
            grads_by_threads.append((y.detach(), a.grad, b.grad))
        (y, gx, gu), (y2, gx2, gu2) = grads_by_threads
        for p, q in [(gx, gx2), (gu, gu2)]:
            assert torch.equal(p.view(torch.uint8), q.view(torch.uint8)), name
        want_x, want_u = (torch.from_numpy(w).to(dtype) for w in
                          _rows_reference(x, u, rows_target, y, g, reduce, include_self))
        for got, want in [(gx, want_x), (gu, want_u)]:
            assert torch.equal(got.view(torch.uint8), want.view(torch.uint8)), name

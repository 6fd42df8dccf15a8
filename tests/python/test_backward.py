"""Backward (SPEC section 7) through scatterkit.torch: gradcheck and a plain reference.

Every case is checked twice, in float64:
- torch.autograd.gradcheck (finite differences against our C backward);
- against a *plain reference*: the forward rebuilt element by element from
  torch indexing, torch.stack and the reductions torch.sum / prod / mean /
  amax / amin over each target's contributors, differentiated by torch
  autograd. That reference follows SPEC section 7 by construction: assign
  keeps the last writer only (the overwritten values never reach the output),
  torch.amax/amin split the gradient evenly among tied values, torch.prod is
  exact with zeros, unread src elements never reach the output.
  It is used where gradcheck cannot be (ties: amax/amin are not
  differentiable there, SPEC defines the split) and where SPEC departs from
  torch's own scatter gradients (assign with duplicates, src.shape !=
  index.shape); test_backward_torch.py compares with torch where torch
  defines the gradient.

amax/amin cases use well-separated values (no winner changes within
gradcheck's eps) unless a test builds ties on purpose.
"""
import itertools

import numpy as np
import pytest
import torch

import scatterkit.torch as skt

F64 = torch.float64
REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------
def distinct_values(rng, shapes):
    """Tensors of the given shapes whose values are all distinct and at
    least 0.3 apart (no ties anywhere, and none appear under +-eps)."""
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    n = sum(sizes)
    v = rng.permutation(n) * 0.5 - n / 4 + rng.uniform(-0.1, 0.1, n)
    out, k = [], 0
    for s, m in zip(shapes, sizes):
        out.append(torch.tensor(v[k:k + m], dtype=F64).reshape(s))
        k += m
    return out


def values_for(rng, reduce, shapes):
    if reduce in ("amax", "amin"):
        return distinct_values(rng, shapes)
    if reduce == "prod":  # away from 0 and of either sign
        return [torch.tensor(rng.uniform(0.5, 1.5, s) * rng.choice([-1, 1], s), dtype=F64)
                for s in shapes]
    return [torch.tensor(rng.standard_normal(s), dtype=F64) for s in shapes]


def leaf(t):
    """A fresh contiguous leaf (gradcheck refuses zero strides, which NumPy's
    zero-size arrays can carry into torch)."""
    return torch.empty(tuple(t.shape), dtype=t.dtype).copy_(t).requires_grad_(True)


# --------------------------------------------------------------------------
# the plain reference
# --------------------------------------------------------------------------
def resolve(i, n, mode):
    """An index value per SPEC/CHOICES: negative wraps, then clip/drop/error."""
    i = int(i)
    if -n <= i < n:
        return i + n if i < 0 else i
    if mode == "clip":
        return min(max(i + n if i < 0 else i, 0), n - 1)
    if mode in ("drop", "fill"):
        return None
    raise IndexError(i)


def positions(shape):
    return list(itertools.product(*[range(s) for s in shape]))


def ref_reduce(x, src, pairs, reduce, include_self):
    """The scatter-type forward from (target, src position) pairs in update
    order: each target's contributors are reduced with torch operations."""
    groups = {}
    for t, p in pairs:
        groups.setdefault(t, []).append(src[p])
    if x.numel() == 0:
        return x * 1
    flat = []
    for t in positions(x.shape):
        if t not in groups:
            flat.append(x[t])
            continue
        vals = groups[t]
        if reduce is None:  # last writer wins; x and earlier writers are gone
            flat.append(vals[-1])
            continue
        if include_self:
            vals = [x[t]] + vals
        v = torch.stack(vals)
        flat.append({"sum": torch.sum, "prod": torch.prod, "mean": torch.mean,
                     "amax": torch.amax, "amin": torch.amin}[reduce](v))
    return torch.stack(flat).reshape(x.shape)


def ref_map(x, src, mapping):
    """out[t] = src[mapping[t]] where mapped, x[t] elsewhere."""
    if x.numel() == 0:
        return x * 1
    flat = [src[mapping[t]] if t in mapping else x[t] for t in positions(x.shape)]
    return torch.stack(flat).reshape(x.shape)


def ref_take(x, out_shape, sources):
    """out[p] = x[sources[p]] (sources[p] None: a filled constant 0)."""
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return x.new_zeros(out_shape) + 0 * x.sum()
    zero = x.new_zeros(())
    flat = [zero if sources[p] is None else x[sources[p]] for p in positions(out_shape)]
    return torch.stack(flat).reshape(out_shape)


def scatter_pairs(x_shape, index, axis, mode):
    index = np.asarray(index)
    pairs = []
    if isinstance(axis, tuple):
        nd = len(x_shape)
        axes = [a % nd for a in axis]
        for p in positions(index.shape[:-1]):
            t = list(p)
            for k, a in enumerate(axes):
                t[a] = resolve(index[p + (k,)], x_shape[a], mode)
            if None not in t:
                pairs.append((tuple(t), p))
        return pairs
    nd = len(x_shape)
    if nd == 0:
        i = resolve(index[()], 1, mode)
        return [] if i is None else [((), ())]
    a = axis % nd
    for p in positions(index.shape):
        i = resolve(index[p], x_shape[a], mode)
        if i is not None:
            pairs.append((p[:a] + (i,) + p[a + 1:], p))
    return pairs


def index_scatter_pairs(x_shape, index, axis, mode):
    index = np.asarray(index)
    nd = len(x_shape)
    a = axis % nd
    rest = positions(x_shape[:a] + x_shape[a + 1:])
    pairs = []
    for j, raw in enumerate(index.reshape(-1)):
        i = resolve(raw, x_shape[a], mode)
        if i is None:
            continue
        for q in rest:
            t = q[:a] + (i,) + q[a:]
            pairs.append((t, q if index.ndim == 0 else q[:a] + (j,) + q[a:]))
    return pairs


def scatter_nd_pairs(x_shape, index, mode):
    index = np.asarray(index)
    k = index.shape[-1]
    pairs = []
    for p in positions(index.shape[:-1]):
        t = tuple(resolve(index[p + (j,)], x_shape[j], mode) for j in range(k))
        if None in t:
            continue
        for q in positions(x_shape[k:]):
            pairs.append((t + q, p + q))
    return pairs


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------
def gradcheck(fn, inputs):
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5)


def grads(fn, inputs, grad_out):
    inputs = [leaf(t) for t in inputs]
    y = fn(*inputs)
    y.backward(grad_out)
    return y.detach(), [t.grad for t in inputs]


def check_against(fn, ref, inputs, rng, exact=False):
    """Our forward and gradients equal the reference's (random grad_out)."""
    y = fn(*[t.detach() for t in inputs])
    g = torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=y.dtype)
    ours, gours = grads(fn, inputs, g)
    theirs, gtheirs = grads(ref, inputs, g)
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)
    for a, b in zip(gours, gtheirs):
        if b is None:  # the reference never read it: its gradient is 0
            b = torch.zeros_like(a)
        if exact:
            torch.testing.assert_close(a, b, rtol=0, atol=0)
        else:
            torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def check(fn, ref, inputs, rng):
    gradcheck(fn, [leaf(t) for t in inputs])
    check_against(fn, ref, inputs, rng)


# --------------------------------------------------------------------------
# scatter: every reduce x include_self x scenario
# --------------------------------------------------------------------------
def _idx(a):
    return torch.tensor(np.asarray(a), dtype=torch.int64)


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
    index = _idx(index)
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
    index = _idx([[0, 2, 1], [2, 2, 0], [1, 1, 1], [0, 2, 2]])
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
    index = _idx([[0, 2, 1], [2, 2, 0], [1, 1, 1], [0, 2, 2]])
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
    index = _idx(iv)
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
    skt.scatter(x, _idx([0, 0]), s, 0, reduce="prod").sum().backward()
    assert x.grad.tolist() == [12.0] and s.grad.tolist() == [0.0, 0.0]
    x, s = leaf(torch.tensor([0.0], dtype=F64)), leaf(torch.tensor([3.0, 0.0], dtype=F64))
    skt.scatter(x, _idx([0, 0]), s, 0, reduce="prod").sum().backward()
    assert x.grad.tolist() == [0.0] and s.grad.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------
# amax/amin ties: SPEC's even split (gradcheck does not apply)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_ties_by_hand(reduce):
    """x=[1], src=[1, 1] include_self: each of the three gets 1/3; without
    include_self each src gets 1/2 and x nothing (torch.scatter_reduce gives
    each src 1/3 there: it counts x among the ties even when x is not a
    contributor, so 1/3 of the gradient is lost)."""
    for include_self, gx, gs in [(True, [1 / 3], [1 / 3, 1 / 3]), (False, [0.0], [0.5, 0.5])]:
        x, s = leaf(torch.tensor([1.0], dtype=F64)), leaf(torch.tensor([1.0, 1.0], dtype=F64))
        skt.scatter(x, _idx([0, 0]), s, 0, reduce=reduce, include_self=include_self).backward(
            torch.ones(1, dtype=F64))
        assert x.grad.tolist() == gx and s.grad.tolist() == gs
    # x alone wins: it gets everything, the src nothing
    x, s = leaf(torch.tensor([5.0 if reduce == "amax" else -5.0], dtype=F64)), leaf(
        torch.tensor([1.0, 1.0], dtype=F64))
    skt.scatter(x, _idx([0, 0]), s, 0, reduce=reduce).backward(torch.ones(1, dtype=F64))
    assert x.grad.tolist() == [1.0] and s.grad.tolist() == [0.0, 0.0]


def test_ties_nan():
    """NaN propagates through amax and counts as equal to NaN: x=[nan],
    src=[1, nan] -> x and src[1] share the gradient, src[0] gets 0."""
    x, s = leaf(torch.tensor([float("nan")], dtype=F64)), leaf(
        torch.tensor([1.0, float("nan")], dtype=F64))
    y = skt.scatter(x, _idx([0, 0]), s, 0, reduce="amax")
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
        index = _idx(rng.integers(0, 3, (6, 4)))
        pairs = scatter_pairs((3, 4), index, 0, "error")
        kw = dict(reduce=reduce, include_self=include_self)
        check_against(lambda x, s: skt.scatter(x, index, s, 0, **kw),
                      lambda x, s: ref_reduce(x, s, pairs, reduce, include_self), [x, src], rng)
        i1 = _idx(rng.integers(-3, 3, 6))
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
    index = _idx(index)
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
    index = _idx(index)
    pairs = scatter_nd_pairs(xs, index, mode)
    check(lambda x, u: skt.scatter_nd(x, index, u, reduce=reduce, mode=mode),
          lambda x, u: ref_reduce(x, u, pairs, reduce, True), [x, upd], rng)


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
def test_index_scatter_and_scatter_nd_0d_updates(reduce, rng):
    """A 0-d updates tensor is broadcast by the forward; it gets the summed gradient."""
    (x,) = values_for(rng, reduce, [(4, 3)])
    u0 = torch.tensor(0.8, dtype=F64)
    index = _idx([1, 3, 1])
    pairs = index_scatter_pairs((4, 3), index, 0, "error")
    check(lambda x, u: skt.index_scatter(x, index, u, 0, reduce=reduce),
          lambda x, u: ref_reduce(x, u.expand(3, 3), pairs, reduce, True), [x, u0], rng)
    pairs = scatter_nd_pairs((4, 3), index[:, None], "error")
    check(lambda x, u: skt.scatter_nd(x, index[:, None], u, reduce=reduce),
          lambda x, u: ref_reduce(x, u.expand(3, 3), pairs, reduce, True), [x, u0], rng)


# --------------------------------------------------------------------------
# gather-type operators
# --------------------------------------------------------------------------
def gather_sources(x_shape, index, axis, mode):
    index = np.asarray(index)
    src = {}
    if isinstance(axis, tuple):
        axes = [a % len(x_shape) for a in axis]
        for p in positions(index.shape[:-1]):
            t = list(p)
            for k, a in enumerate(axes):
                t[a] = resolve(index[p + (k,)], x_shape[a], mode)
            src[p] = None if None in t else tuple(t)
        return index.shape[:-1], src
    if len(x_shape) == 0:
        i = resolve(index[()], 1, mode)
        return (), {(): None if i is None else ()}
    a = axis % len(x_shape)
    for p in positions(index.shape):
        i = resolve(index[p], x_shape[a], mode)
        src[p] = None if i is None else p[:a] + (i,) + p[a + 1:]
    return index.shape, src


GATHER_CASES = {
    # name: (x shape, index, axis, mode)
    "duplicates": ((3, 4), [[0, 2, 2, 1], [2, 2, 0, 0], [1, 1, 1, 1], [0, 2, 1, 0]], 0, "error"),
    "negative": ((3, 4), [[-1, 0, 3, -4, -1], [2, 2, -3, 0, 1]], -1, "error"),
    "clip": ((3, 4), [[-9, 5, 1, 7], [0, -1, 12, 2]], 0, "clip"),
    "fill": ((3, 4), [[-9, 5, 1, 7], [0, -1, 12, 2]], 0, "fill"),
    "x_0d": ((), -1, 0, "error"),
    "zero_size": ((3, 4), np.zeros((0, 4), np.int64), 0, "error"),
    "tuple_axes": ((3, 2, 4), np.stack([np.array([[0, 2, 1], [2, 2, 0]]),
                                        np.array([[3, 0, 3], [1, 3, 3]])], -1)[:, None],
                   (0, 2), "error"),
}


@pytest.mark.parametrize("case", sorted(GATHER_CASES))
def test_gather_gradcheck(case, rng):
    xs, index, axis, mode = GATHER_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    index = _idx(index)
    if case == "tuple_axes":
        index = index.expand(2, 2, 3, 2)
    shape, src = gather_sources(xs, index, axis, mode)
    check(lambda x: skt.gather(x, index, axis, mode=mode, fill_value=0.0),
          lambda x: ref_take(x, shape, src), [x], rng)


INDEX_SELECT_CASES = {
    "duplicates": ((4, 3), [1, 3, 1, -1, 0, 1], 0, "error"),
    "index_2d_axis1": ((3, 4), [[2, 0], [2, 3]], 1, "error"),
    "index_0d": ((4, 3), -2, 0, "error"),
    "clip": ((4, 3), [5, -9, 1, 1], 0, "clip"),
    "fill": ((4, 3), [5, -9, 1, 1], -2, "fill"),
    "empty": ((4, 3), np.zeros(0, np.int64), 1, "error"),
}


@pytest.mark.parametrize("case", sorted(INDEX_SELECT_CASES))
def test_index_select_gradcheck(case, rng):
    xs, index, axis, mode = INDEX_SELECT_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    index = _idx(index)
    a = axis % len(xs)
    shape = xs[:a] + tuple(index.shape) + xs[a + 1:]
    src = {}
    for p in positions(shape):
        i = resolve(index[p[a:a + index.ndim]], xs[a], mode)
        src[p] = None if i is None else p[:a] + (i,) + p[a + index.ndim:]
    check(lambda x: skt.index_select(x, index, axis, mode=mode),
          lambda x: ref_take(x, shape, src), [x], rng)


GATHER_ND_CASES = {
    # name: (x shape, index, batch_dims, mode)
    "rows": ((4, 3), [[1], [3], [1], [-1]], 0, "error"),
    "elements": ((4, 3), [[[1, 2], [3, 0]], [[1, 2], [-1, -1]]], 0, "error"),
    "batch_dims": ((2, 4, 3), [[[1], [3], [1]], [[0], [0], [2]]], 1, "error"),
    "clip": ((4, 3), [[5, 1], [-9, 0], [1, 7]], 0, "clip"),
    "fill": ((4, 3), [[5, 1], [-9, 0], [1, 7], [1, 1]], 0, "fill"),
    "empty": ((4, 3), np.zeros((0, 2), np.int64), 0, "error"),
}


@pytest.mark.parametrize("case", sorted(GATHER_ND_CASES))
def test_gather_nd_gradcheck(case, rng):
    xs, index, bd, mode = GATHER_ND_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    index = _idx(index)
    k = index.shape[-1]
    shape = tuple(index.shape[:-1]) + xs[bd + k:]
    src = {}
    for p in positions(shape):
        ip = p[:index.ndim - 1]
        t = tuple(resolve(index[ip + (j,)], xs[bd + j], mode) for j in range(k))
        src[p] = None if None in t else ip[:bd] + t + p[index.ndim - 1:]
    check(lambda x: skt.gather_nd(x, index, batch_dims=bd, mode=mode),
          lambda x: ref_take(x, shape, src), [x], rng)


MASKED_SELECT_CASES = {
    # name: (x shape, mask)
    "same_shape": ((3, 4), [[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]]),
    "mask_broadcasts": ((3, 4), [1, 0, 1, 1]),
    "x_broadcasts": ((1, 4), [[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]),
    "none": ((3, 4), np.zeros((3, 4))),
    "x_0d": ((), True),
}


@pytest.mark.parametrize("case", sorted(MASKED_SELECT_CASES))
def test_masked_select_gradcheck(case, rng):
    xs, mask = MASKED_SELECT_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    mask = torch.tensor(np.asarray(mask, dtype=bool))
    shape = torch.broadcast_shapes(tuple(xs), tuple(mask.shape))

    def ref(x):
        xb, mb = x.expand(shape), mask.expand(shape)
        picked = [xb[p] for p in positions(shape) if mb[p]]
        return torch.stack(picked) if picked else xb.reshape(-1)[:0]

    check(lambda x: skt.masked_select(x, mask), ref, [x], rng)


# --------------------------------------------------------------------------
# slice / diagonal / select / masked scatter, tensor_scatter
# --------------------------------------------------------------------------
def slice_positions(n, start, stop, step):
    return list(range(*slice(start, stop, step).indices(n)))


SLICE_CASES = {
    # name: (x shape, src shape, axis, start, stop, step)
    "rows": ((4, 3), (2, 3), 0, 1, 3, 1),
    "negative_step": ((5, 3), (3, 3), 0, None, None, -2),
    "two_axes": ((4, 5), (2, 2), (0, 1), (-1, 0), (None, 5), (-2, 3)),
    "src_broadcasts": ((4, 3), (1, 3), 0, 0, 4, 2),
    "src_0d": ((4, 3), (), 1, 1, None, 1),
    "empty_slice": ((4, 3), (0, 3), 0, 3, 1, 1),
}


@pytest.mark.parametrize("case", sorted(SLICE_CASES))
def test_slice_scatter_gradcheck(case, rng):
    xs, ss, axis, start, stop, step = SLICE_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    src = torch.tensor(rng.standard_normal(ss), dtype=F64)
    axes = list(axis) if isinstance(axis, tuple) else [axis]
    n = len(axes)
    starts = list(start) if isinstance(start, tuple) else [start] * n
    stops = list(stop) if isinstance(stop, tuple) else [stop] * n
    steps = list(step) if isinstance(step, tuple) else [step] * n
    per_axis = [list(range(s)) for s in xs]
    for a, b, e, st in zip(axes, starts, stops, steps):
        per_axis[a] = slice_positions(xs[a], b, e, st)
    slice_shape = tuple(len(v) for v in per_axis)
    mapping = {}
    for q in positions(slice_shape):
        mapping[tuple(per_axis[d][q[d]] for d in range(len(xs)))] = q
    check(lambda x, s: skt.slice_scatter(x, s, axis, start, stop, step),
          lambda x, s: ref_map(x, s.expand(slice_shape), mapping), [x, src], rng)


DIAGONAL_CASES = {
    # name: (x shape, offset, axis1, axis2)
    "main": ((3, 4), 0, 0, 1),
    "above": ((3, 4), 2, 0, 1),
    "below": ((4, 3), -1, 0, 1),
    "axes_2_0": ((3, 2, 4), 1, 2, 0),
    "empty": ((3, 4), 5, 0, 1),
}


@pytest.mark.parametrize("case", sorted(DIAGONAL_CASES))
def test_diagonal_scatter_gradcheck(case, rng):
    xs, offset, a1, a2 = DIAGONAL_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    dshape = tuple(np.diagonal(np.zeros(xs), offset, a1, a2).shape)
    src = torch.tensor(rng.standard_normal(dshape), dtype=F64)
    idx = np.arange(int(np.prod(xs))).reshape(xs)
    dflat = np.diagonal(idx, offset, a1, a2)
    mapping = {np.unravel_index(int(dflat[q]), xs): q for q in positions(dshape)}
    mapping = {tuple(int(v) for v in k): q for k, q in mapping.items()}
    check(lambda x, s: skt.diagonal_scatter(x, s, offset, a1, a2),
          lambda x, s: ref_map(x, s, mapping), [x, src], rng)
    if dshape and dshape[-1] > 0:  # a 0-d src is broadcast to the diagonal
        s0 = torch.tensor(0.3, dtype=F64)
        check(lambda x, s: skt.diagonal_scatter(x, s, offset, a1, a2),
              lambda x, s: ref_map(x, s.expand(dshape), mapping), [x, s0], rng)


@pytest.mark.parametrize("xs,axis,index", [((3, 4), 0, 1), ((3, 4), -1, -1), ((2, 3, 2), 1, 2),
                                           ((4,), 0, -4), ((3, 0), 0, 2)])
def test_select_scatter_gradcheck(xs, axis, index, rng):
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    a = axis % len(xs)
    ss = xs[:a] + xs[a + 1:]
    src = torch.tensor(rng.standard_normal(ss), dtype=F64)
    i = index % xs[a]
    mapping = {q[:a] + (i,) + q[a:]: q for q in positions(ss)}
    check(lambda x, s: skt.select_scatter(x, s, axis, index),
          lambda x, s: ref_map(x, s, mapping), [x, src], rng)


MASKED_SCATTER_CASES = {
    # name: (x shape, mask, source shape)
    "exact": ((3, 4), [[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]], (7,)),
    "source_bigger_2d": ((3, 4), [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 1]], (3, 4)),
    "mask_broadcasts": ((3, 4), [0, 1, 1, 0], (2, 5)),
    "none": ((3, 4), np.zeros(4), (2,)),
    "source_0d": ((3, 4), [0, 1, 1, 0], ()),
}


@pytest.mark.parametrize("case", sorted(MASKED_SCATTER_CASES))
def test_masked_scatter_gradcheck(case, rng):
    xs, mask, ss = MASKED_SCATTER_CASES[case]
    x = torch.tensor(rng.standard_normal(xs), dtype=F64)
    src = torch.tensor(rng.standard_normal(ss), dtype=F64)
    mask = torch.tensor(np.asarray(mask, dtype=bool))
    mb = mask.expand(xs)
    trues = [t for t in positions(xs) if mb[t]]
    if ss == ():
        mapping = {t: () for t in trues}
    else:
        mapping = {t: tuple(int(v) for v in np.unravel_index(k, ss)) for k, t in enumerate(trues)}
    check(lambda x, s: skt.masked_scatter(x, mask, s), lambda x, s: ref_map(x, s, mapping),
          [x, src], rng)


TENSOR_SCATTER_CASES = {
    # name: (cache shape, update shape, write_indices, axis, mode)
    "linear": ((2, 5, 3), (2, 2, 3), [1, 3], -2, "linear"),
    "none_indices": ((2, 5, 3), (2, 2, 3), None, 1, "linear"),
    "circular": ((2, 4, 3), (2, 3, 3), [3, 1], 1, "circular"),
    "circular_wraps_twice": ((2, 3, 2), (2, 7, 2), [2, 0], 1, "circular"),
    "last_axis": ((2, 3, 5), (2, 3, 2), [0, 3], -1, "linear"),
    "empty_update": ((2, 4, 3), (2, 0, 3), [1, 4], 1, "linear"),
}


@pytest.mark.parametrize("case", sorted(TENSOR_SCATTER_CASES))
def test_tensor_scatter_gradcheck(case, rng):
    cs, us, wi, axis, mode = TENSOR_SCATTER_CASES[case]
    cache = torch.tensor(rng.standard_normal(cs), dtype=F64)
    upd = torch.tensor(rng.standard_normal(us), dtype=F64)
    wt = None if wi is None else _idx(wi)
    a = axis % len(cs)
    n, length = cs[a], us[a]
    mapping = {}
    for b in range(cs[0]):
        w = 0 if wi is None else wi[b]
        for j in range(length):  # in order: a later write overwrites
            pos = (w + j) % n if mode == "circular" else w + j
            for q in positions(cs[1:a] + cs[a + 1:]):
                rest = (b,) + q[:a - 1]
                mapping[rest + (pos,) + q[a - 1:]] = rest + (j,) + q[a - 1:]
    check(lambda c, u: skt.tensor_scatter(c, u, wt, axis=axis, mode=mode),
          lambda c, u: ref_map(c, u, mapping), [cache, upd], rng)


# --------------------------------------------------------------------------
# amax/amin over rows (message passing): the backward's pass over update rows
# --------------------------------------------------------------------------
def _rows_reference(x, u, rows_target, res, g, reduce, include_self):
    """SPEC's rules written out in NumPy (float64 arithmetic, shares rounded
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

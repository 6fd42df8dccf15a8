"""Hypothesis property tests over random shapes for the rest of the family.

Shapes, axes, bounds, reductions, modes and dtypes are drawn by hypothesis
(and shrink); tensor values come from a NumPy generator seeded by a drawn
integer. Each property is checked against an independent formulation: the
references of test_family_common, round trips (gather_nd after scatter_nd,
masked_select after masked_scatter, diagonal/select after the scatter), and
PyTorch.
"""
import numpy as np
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scatterkit as sk
from helpers import (DTYPES, INDEX_DTYPES, TORCH_DTYPE, assert_same, index_values, reduces_for,
                     to_kind, values)
from test_family_common import (ref_gather_axes, ref_gather_nd, ref_scatter_axes,
                                ref_scatter_nd, ref_slice_scatter, ref_tensor_scatter)

SETTINGS = settings(max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

shape_st = st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple)
nonempty_shape_st = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)
dtype_st = st.sampled_from(DTYPES)
kind_of = lambda dtype, flip: "torch" if dtype == "bfloat16" or flip else "numpy"  # noqa: E731


def _rng(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def _k(t, kind):
    return to_kind(t, kind)


@SETTINGS
@given(data=st.data())
def test_prop_tuple_axis_gather_scatter(data):
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    kind = kind_of(dtype, data.draw(st.booleans()))
    x_shape = data.draw(nonempty_shape_st, label="x_shape")
    nd = len(x_shape)
    axes = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True),
                     label="axes")
    axes = tuple(a - nd if data.draw(st.booleans()) else a for a in axes)
    ax = {a % nd for a in axes}
    pshape = tuple(data.draw(st.integers(0, 5)) if d in ax else data.draw(st.integers(0, s))
                   for d, s in enumerate(x_shape))
    idt = data.draw(st.sampled_from(INDEX_DTYPES))
    comps = [index_values(rng, pshape, x_shape[a % nd], "clip", "int64") for a in axes]
    idx = torch.stack(comps, -1).to(TORCH_DTYPE[idt])
    x = values(rng, x_shape, dtype)
    gmode = data.draw(st.sampled_from(["clip", "fill"]))
    got = sk.gather(_k(x, kind), _k(idx, kind), axes, mode=gmode, fill_value=1)
    assert_same(got, ref_gather_axes(x, idx, axes, gmode, 1), kind)
    reduce = data.draw(st.sampled_from(reduces_for(dtype)), label="reduce")
    smode = data.draw(st.sampled_from(["clip", "drop"]))
    inc = data.draw(st.booleans())
    src = values(rng, pshape, dtype, "prod" if reduce == "prod" else "general")
    got = sk.scatter(_k(x, kind), _k(idx, kind), _k(src, kind), axes, reduce=reduce,
                     include_self=inc, mode=smode)
    assert_same(got, ref_scatter_axes(x, idx, src, axes, reduce, inc, smode), kind)


@SETTINGS
@given(data=st.data())
def test_prop_gather_nd_scatter_nd(data):
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    kind = kind_of(dtype, data.draw(st.booleans()))
    x_shape = data.draw(shape_st, label="x_shape")
    nd = len(x_shape)
    b = data.draw(st.integers(0, nd), label="batch_dims")
    k = data.draw(st.integers(0, nd - b), label="k")
    mshape = data.draw(st.lists(st.integers(0, 3), max_size=2).map(tuple), label="mshape")
    idt = data.draw(st.sampled_from(INDEX_DTYPES))
    mode = data.draw(st.sampled_from(["clip", "fill"]))
    ishape = x_shape[:b] + mshape
    comps = [index_values(rng, ishape, x_shape[b + j], "clip", "int64") for j in range(k)]
    idx = (torch.stack(comps, -1) if comps else torch.zeros(ishape + (0,), dtype=torch.int64))
    idx = idx.to(TORCH_DTYPE[idt])
    x = values(rng, x_shape, dtype)
    if mode == "clip" and any(x_shape[b + j] == 0 for j in range(k)) and idx.numel():
        return  # clipping into an empty axis is an IndexError (tested elsewhere)
    got = sk.gather_nd(_k(x, kind), _k(idx, kind), batch_dims=b, mode=mode, fill_value=0)
    assert_same(got, ref_gather_nd(x, idx, b, mode, 0), kind)
    # scatter_nd (no batch dims)
    k2 = data.draw(st.integers(0, nd), label="k2")
    m2 = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple))
    comps = [index_values(rng, m2, x_shape[j], "drop", "int64") for j in range(k2)]
    i2 = (torch.stack(comps, -1) if comps else torch.zeros(m2 + (0,), dtype=torch.int64))
    reduce = data.draw(st.sampled_from(reduces_for(dtype)), label="reduce")
    upd = values(rng, m2 + x_shape[k2:], dtype, "prod" if reduce == "prod" else "general")
    got = sk.scatter_nd(_k(x, kind), _k(i2.to(TORCH_DTYPE[idt]), kind), _k(upd, kind),
                        reduce=reduce, mode="drop")
    assert_same(got, ref_scatter_nd(x, i2, upd, reduce, "drop"), kind)


@SETTINGS
@given(data=st.data())
def test_prop_scatter_nd_then_gather_nd_round_trip(data):
    """Unique in-range tuples: gather_nd(scatter_nd(x, i, u), i) == u, and
    every element not addressed keeps x's value."""
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    x_shape = data.draw(nonempty_shape_st, label="x_shape")
    k = data.draw(st.integers(1, len(x_shape)), label="k")
    cells = int(np.prod(x_shape[:k]))
    m = data.draw(st.integers(0, cells), label="m")
    flat = rng.permutation(cells)[:m]
    idx = torch.from_numpy(np.stack(np.unravel_index(flat, x_shape[:k]), -1).reshape(m, k)
                           .astype(np.int64))
    x = values(rng, x_shape, dtype)
    u = values(rng, (m,) + x_shape[k:], dtype)
    r = sk.scatter_nd(x, idx, u)
    assert_same(sk.gather_nd(r, idx), u)
    keep = torch.ones(x_shape[:k], dtype=torch.bool)
    if m:
        keep[tuple(idx.unbind(-1))] = False
    assert_same(r[keep], x[keep])


@SETTINGS
@given(data=st.data())
def test_prop_slice_scatter(data):
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    kind = kind_of(dtype, data.draw(st.booleans()))
    x_shape = data.draw(shape_st, label="x_shape")
    nd = len(x_shape)
    axes = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd,
                              unique_by=lambda a: a % nd), label="axes")
    bound = st.one_of(st.none(), st.integers(-8, 8), st.sampled_from([10**19, -10**19]))
    starts = [data.draw(bound) for _ in axes]
    stops = [data.draw(bound) for _ in axes]
    steps = [data.draw(st.integers(-3, 3).filter(bool)) for _ in axes]
    sl = [slice(None)] * nd
    for a, s, e, stp in zip(axes, starts, stops, steps):
        sl[a % nd] = slice(s, e, stp)
    sshape = np.empty(x_shape, np.int8)[tuple(sl)].shape
    if data.draw(st.booleans()):
        sshape = tuple(1 if data.draw(st.booleans()) else d for d in sshape)
    x = values(rng, x_shape, dtype)
    src = values(rng, sshape, dtype)
    got = sk.slice_scatter(_k(x, kind), _k(src, kind), axes, starts, stops, steps)
    exp = ref_slice_scatter(x, src, axes, starts, stops, steps)
    assert_same(got, exp, kind)


@SETTINGS
@given(data=st.data())
def test_prop_diagonal_and_select_scatter(data):
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    x_shape = data.draw(st.lists(st.integers(0, 4), min_size=2, max_size=4).map(tuple))
    nd = len(x_shape)
    a1, a2 = data.draw(st.lists(st.integers(0, nd - 1), min_size=2, max_size=2, unique=True))
    offset = data.draw(st.integers(-5, 5), label="offset")
    x = values(rng, x_shape, dtype)
    d = torch.diagonal(x, offset, a1, a2)
    src = values(rng, tuple(d.shape), dtype)
    r = sk.diagonal_scatter(x, src, offset, a1 - nd if data.draw(st.booleans()) else a1, a2)
    assert_same(torch.diagonal(r, offset, a1, a2), src)
    assert_same(r, torch.diagonal_scatter(x, src, offset, a1, a2))
    axis = data.draw(st.integers(0, nd - 1))
    if x_shape[axis] == 0:
        return
    index = data.draw(st.integers(-x_shape[axis], x_shape[axis] - 1))
    ssrc = values(rng, x_shape[:axis] + x_shape[axis + 1:], dtype)
    r = sk.select_scatter(x, ssrc, axis, index)
    assert_same(r.select(axis, index), ssrc)
    assert_same(r, torch.select_scatter(x, ssrc, axis, index))


@SETTINGS
@given(data=st.data())
def test_prop_masked(data):
    """masked_select(masked_scatter(x, m, s), m) == s.flatten()[:count];
    positions where m is False keep x; masked_select == torch's."""
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    kind = kind_of(dtype, data.draw(st.booleans()))
    x_shape = data.draw(shape_st, label="x_shape")
    mshape = tuple(1 if data.draw(st.booleans()) else s for s in x_shape)
    mshape = mshape[data.draw(st.integers(0, len(mshape))):]
    p = data.draw(st.sampled_from([0.0, 0.5, 1.0]))
    mask = torch.from_numpy(np.asarray(rng.random(mshape) < p))
    full = mask.expand(x_shape)
    count = int(full.sum())
    extra = data.draw(st.integers(0, 3))
    x = values(rng, x_shape, dtype)
    s = values(rng, (count + extra,), dtype)
    r = sk.masked_scatter(_k(x, kind), _k(mask, kind), _k(s, kind))
    rt = torch.as_tensor(r) if kind == "numpy" else r
    assert_same(torch.masked_select(rt, full), s[:count])
    assert_same(rt[~full], x[~full])
    assert_same(sk.masked_select(_k(x, kind), _k(mask, kind)), torch.masked_select(x, mask),
                kind)


@SETTINGS
@given(data=st.data())
def test_prop_tensor_scatter(data):
    rng = _rng(data)
    dtype = data.draw(dtype_st, label="dtype")
    kind = kind_of(dtype, data.draw(st.booleans()))
    cshape = data.draw(st.lists(st.integers(0, 4), min_size=2, max_size=4).map(tuple))
    nd = len(cshape)
    axis = data.draw(st.integers(1, nd - 1))
    n = cshape[axis]
    mode = data.draw(st.sampled_from(["linear", "circular"]))
    L = data.draw(st.integers(0, n if mode == "linear" or n == 0 else 2 * n + 1))
    ushape = cshape[:axis] + (L,) + cshape[axis + 1:]
    if mode == "circular" and n == 0:
        wi = None
    else:
        hi = n - L if mode == "linear" else n - 1
        wi = torch.from_numpy(rng.integers(0, hi + 1, cshape[0]))
        if data.draw(st.booleans()):
            wi = wi.to(torch.int32)
    c = values(rng, cshape, dtype)
    u = values(rng, ushape, dtype)
    got = sk.tensor_scatter(_k(c, kind), _k(u, kind), None if wi is None else _k(wi, kind),
                            axis=axis - nd if data.draw(st.booleans()) else axis, mode=mode)
    assert_same(got, ref_tensor_scatter(c, u, None if wi is None else wi.numpy(), axis, mode),
                kind)

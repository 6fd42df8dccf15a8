"""Property-based tests (hypothesis): random shapes (ndim 0..4, sizes 0..4),
random axis (negative too), random dtype / index dtype / reduction / mode /
layout / kind, random in-range (and, for the non-error modes, out-of-range)
indices; gather / scatter / index_select / index_scatter against the
references in helpers.py (torch-based, see there)."""
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scatterkit as sk
from helpers import (DTYPES, GATHER_MODES, INDEX_DTYPES, SCATTER_MODES, assert_same,
                     fill_value_for, index_values, kinds_for, layouts_for, make_tensor,
                     reduces_for, ref_gather, ref_index_scatter, ref_index_select, ref_scatter,
                     values)

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def common(draw, min_ndim=0):
    dtype = draw(st.sampled_from(DTYPES))
    kind = draw(st.sampled_from(kinds_for(dtype)))
    nd = draw(st.integers(min_ndim, 4))
    x_shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    axis = draw(st.integers(-nd, nd - 1)) if nd else draw(st.sampled_from([0, -1]))
    layouts = tuple(draw(st.sampled_from(layouts_for(kind))) for _ in range(3))
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    seed = draw(st.integers(0, 2**32 - 1))
    return dtype, kind, x_shape, axis, layouts, index_dtype, np.random.default_rng(seed)


def _zero_d_call(fn):
    """CONTRACT is silent on the axis of a 0-d x: accept torch's reading (a 0-d
    tensor acts as shape (1,)) or a ValueError."""
    try:
        got = fn()
    except ValueError:
        return None
    return got


def _elementwise_index_shape(draw, x_shape, axis, mode):
    nd = len(x_shape)
    if nd == 0:
        return ()
    ax = axis % nd
    shape = [draw(st.integers(0, s)) for s in x_shape]
    shape[ax] = draw(st.integers(0, 5))
    if x_shape[ax] == 0 and mode in ("error", "clip"):
        shape[ax] = 0  # no in-range index exists for an empty axis
    return tuple(shape)


@SETTINGS
@given(data=st.data())
def test_gather_property(data):
    dtype, kind, x_shape, axis, (xl, il, _), idt, rng = data.draw(common())
    mode = data.draw(st.sampled_from(GATHER_MODES))
    idx_shape = _elementwise_index_shape(data.draw, x_shape, axis, mode)
    n = x_shape[axis] if x_shape else 1
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, idt), idx_shape, il, kind, rng)
    fv = fill_value_for(dtype)
    exp = ref_gather(xr, ir, axis, mode, fv)
    call = lambda: sk.gather(x, idx, axis, mode=mode, fill_value=fv)  # noqa: E731
    got = _zero_d_call(call) if not x_shape else call()
    if got is not None:
        assert_same(got, exp, kind)
    assert_same(x, xr)


@SETTINGS
@given(data=st.data())
def test_scatter_property(data):
    dtype, kind, x_shape, axis, (xl, il, sl), idt, rng = data.draw(common())
    mode = data.draw(st.sampled_from(SCATTER_MODES))
    reduce = data.draw(st.sampled_from(reduces_for(dtype)))
    include_self = data.draw(st.booleans())
    idx_shape = _elementwise_index_shape(data.draw, x_shape, axis, mode)
    src_shape = tuple(s + data.draw(st.integers(0, 2)) for s in idx_shape)
    scalar_src = data.draw(st.booleans()) and data.draw(st.booleans())
    n = x_shape[axis] if x_shape else 1
    flavor = "prod" if reduce == "prod" else "general"
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, idt), idx_shape, il, kind, rng)
    if scalar_src:
        src = sr = values(rng, (), dtype, flavor).item()
    else:
        src, sr = make_tensor(lambda s: values(rng, s, dtype, flavor), src_shape, sl, kind, rng)
    exp = ref_scatter(xr, ir, sr, axis, reduce, include_self, mode)
    call = lambda: sk.scatter(x, idx, src, axis, reduce=reduce,  # noqa: E731
                              include_self=include_self, mode=mode)
    got = _zero_d_call(call) if not x_shape else call()
    if got is not None:
        assert_same(got, exp, kind)
    assert_same(x, xr)


@SETTINGS
@given(data=st.data())
def test_index_select_property(data):
    dtype, kind, x_shape, axis, (xl, il, _), idt, rng = data.draw(common(min_ndim=1))
    mode = data.draw(st.sampled_from(GATHER_MODES))
    n = x_shape[axis]
    ind = data.draw(st.integers(0, 3))
    idx_shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ind, max_size=ind)))
    if n == 0 and mode in ("error", "clip") and int(np.prod(idx_shape)) > 0:
        mode = "fill"
    x, xr = make_tensor(lambda s: values(rng, s, dtype), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, idt), idx_shape, il, kind, rng)
    fv = fill_value_for(dtype)
    got = sk.index_select(x, idx, axis, mode=mode, fill_value=fv)
    assert_same(got, ref_index_select(xr, ir, axis, mode, fv), kind)
    assert_same(x, xr)


@SETTINGS
@given(data=st.data())
def test_index_scatter_property(data):
    dtype, kind, x_shape, axis, (xl, il, ul), idt, rng = data.draw(common(min_ndim=1))
    mode = data.draw(st.sampled_from(SCATTER_MODES))
    reduce = data.draw(st.sampled_from(reduces_for(dtype)))
    include_self = data.draw(st.booleans())
    ax = axis % len(x_shape)
    n = x_shape[ax]
    zero_d = data.draw(st.booleans()) and data.draw(st.booleans())
    L = 1 if zero_d else data.draw(st.integers(0, 6))
    if n == 0 and mode in ("error", "clip"):
        mode = "drop"
    upd_shape = list(x_shape)
    if zero_d:
        del upd_shape[ax]
        idx_shape = ()
    else:
        upd_shape[ax] = L
        idx_shape = (L,)
    flavor = "prod" if reduce == "prod" else "general"
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, idt), idx_shape, il, kind, rng)
    upd, ur = make_tensor(lambda s: values(rng, s, dtype, flavor), upd_shape, ul, kind, rng)
    got = sk.index_scatter(x, idx, upd, axis, reduce=reduce, include_self=include_self,
                           mode=mode)
    assert_same(got, ref_index_scatter(xr, ir, ur, axis, reduce, include_self, mode), kind)
    assert_same(x, xr)


@SETTINGS
@given(data=st.data())
def test_gather_scatter_roundtrip_property(data):
    """scatter is the inverse of gather: scattering gather(x, p) back with a
    permutation index p along the axis reproduces x."""
    dtype, kind, x_shape, axis, _, idt, rng = data.draw(common(min_ndim=1))
    ax = axis % len(x_shape)
    xr = values(rng, x_shape, dtype)
    # argsort of random keys: every line along the axis is a permutation
    p = np.argsort(rng.random(x_shape), axis=ax, kind="stable")
    idx = torch.from_numpy(p).to(torch.int32 if idt == "int32" else torch.int64)
    g = sk.gather(xr, idx, axis)
    assert_same(g, torch.gather(xr, ax, idx.long()), "torch")
    back = sk.scatter(torch.zeros_like(xr), idx, g, axis)
    assert_same(back, xr, "torch")

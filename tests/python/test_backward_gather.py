"""Backward (CONTRACT §7) of the gather-type operators and of slice /
diagonal / select / masked scatter and tensor_scatter through
scatterkit.torch: gradcheck and the plain reference of helpers_backward.py
(see test_backward.py for what it is)."""
import numpy as np
import pytest
import torch

import scatterkit.torch as skt
from helpers_backward import F64, as_index, check, positions, ref_map, ref_take, resolve


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
    index = as_index(index)
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
    index = as_index(index)
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
    index = as_index(index)
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
    wt = None if wi is None else as_index(wi)
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

"""Medium-size cases for the indexed operators of the family (tuple-axis
scatter, scatter_nd, gather_nd): enough targets and updates that the
scratch-accumulator path of CHOICES ("16 bytes per target, processed in
chunks of about updates / threads targets") runs over many chunks, for 1
and 2 threads, checked against the references (exact values, so bitwise).
Also the plumbing cases that concern every operator: read-only inputs,
read-only out, Python lists, 0-d fill_value, tensors that require grad.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import DLPackOnly, assert_same, bits_of, index_values, values
from test_family_common import (assert_unchanged, raises_with, ref_gather_nd, ref_scatter_axes,
                                ref_scatter_nd)

CHUNK_CASES = [
    # dtype, reduce, include_self
    ("float16", "sum", True),
    ("bfloat16", "mean", True),
    ("float32", "mean", False),
    ("int32", "mean", False),
    ("int64", "sum", True),
    ("uint8", "prod", False),
    ("float64", "amax", False),
    ("float16", "amin", True),
    ("int16", None, True),
    ("bool", "amax", False),
    ("float32", None, True),
]


@pytest.mark.parametrize("nt", [1, 2])
def test_scatter_nd_many_chunks(nt, rng, restore_threads):
    sk.set_num_threads(nt)
    x_shape = (150, 120, 3)
    for dtype, reduce, _ in CHUNK_CASES:
        flavor = "prod" if reduce == "prod" else "general"
        x = values(rng, x_shape, dtype, flavor)
        idx = torch.stack([index_values(rng, (60000,), 150, "error", "int64"),
                           index_values(rng, (60000,), 120, "error", "int64")], -1)
        if dtype in ("uint8",):
            idx = idx[:4000]  # products of few factors stay meaningful
        upd = values(rng, (idx.shape[0], 3), dtype, flavor)
        got = sk.scatter_nd(x, idx.to(torch.int32), upd, reduce=reduce)
        assert_same(got, ref_scatter_nd(x, idx, upd, reduce), None)


@pytest.mark.parametrize("nt", [1, 2])
def test_scatter_axes_many_chunks(nt, rng, restore_threads):
    sk.set_num_threads(nt)
    x_shape = (40, 300, 30)
    for dtype, reduce, inc in CHUNK_CASES:
        flavor = "prod" if reduce == "prod" else "general"
        x = values(rng, x_shape, dtype, flavor)
        p = (40, 600 if flavor == "general" else 40, 30)
        idx = torch.stack([index_values(rng, p, 300, "error", "int64"),
                           index_values(rng, p, 30, "error", "int64")], -1)
        src = values(rng, p, dtype, flavor)
        got = sk.scatter(x, idx, src, (1, 2), reduce=reduce, include_self=inc)
        assert_same(got, ref_scatter_axes(x, idx, src, (1, 2), reduce, inc), None)


def test_gather_nd_medium_batched(rng, restore_threads):
    x = values(rng, (8, 200, 50, 4), "float32")
    idx = torch.stack([index_values(rng, (8, 3000), 200, "fill", "int64"),
                       index_values(rng, (8, 3000), 50, "fill", "int64")], -1)
    exp = ref_gather_nd(x, idx, 1, "fill", -1.0)
    for nt in (1, 2):
        sk.set_num_threads(nt)
        assert_same(sk.gather_nd(x, idx, batch_dims=1, mode="fill", fill_value=-1.0), exp)


# --------------------------------------------------------------------------
# plumbing shared by every operator
# --------------------------------------------------------------------------
def test_read_only_inputs_are_fine_read_only_out_is_refused():
    x = np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4))  # read-only, zero strides
    assert not x.flags.writeable
    idx = np.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(sk.gather_nd(x, idx), [1, 3])
    np.testing.assert_array_equal(sk.scatter_nd(x, idx, np.float32(9))[:, 1], [9, 1, 1])
    np.testing.assert_array_equal(sk.slice_scatter(x, 7.0, 1, 1, 2)[:, 1], [7, 7, 7])
    np.testing.assert_array_equal(sk.masked_select(x, np.array([True, False, False, True])),
                                  [0, 3, 0, 3, 0, 3])
    ro = np.zeros((3, 4), np.float32)
    ro.flags.writeable = False
    for call in [lambda: sk.scatter_nd(x, idx, 1.0, out=ro),
                 lambda: sk.scatter(x, idx[None], 1.0, (0, 1), out=ro),
                 lambda: sk.slice_scatter(x, 1.0, out=ro),
                 lambda: sk.diagonal_scatter(x, 1.0, out=ro),
                 lambda: sk.select_scatter(x, 1.0, 0, 0, out=ro),
                 lambda: sk.masked_scatter(x, np.ones(4, bool), 1.0, out=ro),
                 lambda: sk.tensor_scatter(x, np.zeros((3, 1), np.float32), None, axis=1,
                                           out=ro)]:
        with pytest.raises(ValueError, match="out"):
            call()
    assert not ro.any()


def test_python_lists_and_scalars():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(sk.gather_nd(x, [[0, 1], [-1, -1]]), [1, 11])
    np.testing.assert_array_equal(sk.gather(x, [[[0, 1], [2, 3]]], (0, 1)), [[1, 11]])
    r = sk.scatter_nd(x, [[1]], np.array([[5, 6, 7, 8]], np.int32))
    with raises_with(TypeError, "scatter_nd", "updates", "list"):
        sk.scatter_nd(x, [[1]], [[5, 6, 7, 8]])  # only index / mask lists are converted
    np.testing.assert_array_equal(r[1], [5, 6, 7, 8])
    np.testing.assert_array_equal(sk.tensor_scatter(x, x[:, :1] * 0, [3, 0, 1], axis=1)[:, :],
                                  [[0, 1, 2, 0], [0, 5, 6, 7], [8, 0, 10, 11]])
    with raises_with(ValueError, "scatter_nd", "updates", "300"):
        sk.scatter_nd(x.astype(np.uint8), [[1]], 300)  # does not fit uint8
    with raises_with(ValueError, "masked_scatter", "source", "-1"):
        sk.masked_scatter(x.astype(np.uint8), np.ones(4, bool), -1)
    # axis as a list or NumPy ints; slice steps beyond int64 (Python rules)
    np.testing.assert_array_equal(sk.gather(x, [[[0, 1], [2, 3]]], [np.int64(0), np.int32(1)]),
                                  [[1, 11]])
    r = sk.slice_scatter(x, np.int32(-1), 1, None, None, 10**30)
    np.testing.assert_array_equal(r[:, 0], [-1, -1, -1])
    np.testing.assert_array_equal(r[:, 1:], x[:, 1:])
    r = sk.slice_scatter(x, np.int32(-1), 1, None, None, -10**30)
    np.testing.assert_array_equal(r[:, 3], [-1, -1, -1])
    np.testing.assert_array_equal(r[:, :3], x[:, :3])
    # a non-native byte order is a TypeError naming x
    with raises_with(TypeError, "gather_nd", "x"):
        sk.gather_nd(x.astype(">i4"), [[0, 0]])
    # fill_value as a 0-d tensor of x's dtype
    np.testing.assert_array_equal(sk.gather_nd(x, [[5, 0]], mode="fill",
                                               fill_value=np.array(-3, np.int32)), [-3])


@pytest.mark.parametrize("op", ["scatter_nd", "scatter", "slice_scatter", "diagonal_scatter",
                                "select_scatter", "masked_scatter", "tensor_scatter",
                                "gather_nd", "gather", "masked_select"])
def test_requires_grad_inputs(op, rng):
    """torch tensors that require grad: the plain ops give the values of
    the detached call and keep the graph (docs/torch.md: never a silent
    detach)."""
    x = values(rng, (3, 4), "float64").requires_grad_()
    s = values(rng, (3, 4), "float64").requires_grad_()
    xd, sd = x.detach(), s.detach()
    calls = {
        "scatter_nd": lambda a, b: sk.scatter_nd(a, torch.tensor([[1], [0]]), b[:2]),
        "scatter": lambda a, b: sk.scatter(a, torch.zeros((2, 2, 2), dtype=torch.int64),
                                           b, (0, 1), reduce="sum"),
        "slice_scatter": lambda a, b: sk.slice_scatter(a, b[:, :2], 1, None, None, -2),
        "diagonal_scatter": lambda a, b: sk.diagonal_scatter(a, b[0, :3]),
        "select_scatter": lambda a, b: sk.select_scatter(a, b[:, 0], 1, -1),
        "masked_scatter": lambda a, b: sk.masked_scatter(a, torch.tensor([True, False, True,
                                                                          False]), b),
        "tensor_scatter": lambda a, b: sk.tensor_scatter(a, b[:, :2], torch.tensor([0, 1, 2]),
                                                         axis=1),
        "gather_nd": lambda a, b: sk.gather_nd(a, torch.tensor([[2, 3]])),
        "gather": lambda a, b: sk.gather(a, torch.tensor([[[2, 3]]]), (0, 1)),
        "masked_select": lambda a, b: sk.masked_select(a, torch.tensor([True, False, True,
                                                                        False])),
    }
    got = calls[op](x, s)
    assert isinstance(got, torch.Tensor) and got.requires_grad
    assert_same(got.detach(), calls[op](xd, sd))


def test_other_dlpack_producer_gives_numpy():
    """An input that only speaks DLPack (not NumPy, not torch) gives a NumPy
    result (docs/python.md)."""
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    r = sk.scatter_nd(DLPackOnly(t), torch.tensor([[0, 0]]), 5.0)
    assert isinstance(r, np.ndarray) and r[0, 0] == 5 and r[2, 3] == 11
    r = sk.slice_scatter(DLPackOnly(t), np.float32(0), 1, 1, None, 2)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r[0], [0, 0, 2, 0])
    before = bits_of(t)
    r = sk.masked_select(DLPackOnly(t), np.array([True, False, False, False]))
    np.testing.assert_array_equal(r, [0, 4, 8])
    assert_unchanged(t, before)



def test_many_dimensions(rng):
    """Tensors of 6, 9 and 11 dimensions (12 for the operators whose index
    does not add one); a 13th dimension is a ValueError (CHOICES)."""
    from test_family_common import ref_gather_axes, ref_slice_scatter
    for nd in (6, 9, 11):
        shape = tuple(int(s) for s in rng.integers(1, 3, nd))
        x = values(rng, shape, "float32")
        axes = tuple(int(a) for a in rng.permutation(nd)[: nd // 2 + 1])
        ps = tuple(int(rng.integers(1, 3)) if d in axes else shape[d] for d in range(nd))
        idx = torch.stack([index_values(rng, ps, shape[a], "error", "int64") for a in axes], -1)
        assert_same(sk.gather(x, idx, axes), ref_gather_axes(x, idx, axes))
        src = values(rng, ps, "float32")
        for red in [None, "sum", "mean", "amax"]:
            assert_same(sk.scatter(x, idx, src, axes, reduce=red),
                        ref_scatter_axes(x, idx, src, axes, red))
    for nd in (6, 12):
        shape = tuple(int(s) for s in rng.integers(1, 3, nd))
        x = values(rng, shape, "int16")
        k = nd // 2
        ind = torch.stack([index_values(rng, (5,), shape[j], "error", "int64")
                           for j in range(k)], -1)
        assert_same(sk.gather_nd(x, ind), ref_gather_nd(x, ind))
        u = values(rng, (5,) + shape[k:], "int16")
        assert_same(sk.scatter_nd(x, ind, u, reduce="sum"), ref_scatter_nd(x, ind, u, "sum"))
        s2 = values(rng, shape, "int16")
        axs, none = list(range(nd)), [None] * nd
        assert_same(sk.slice_scatter(x, s2, axs, None, None, -1),
                    ref_slice_scatter(x, s2, axs, none, none, [-1] * nd))
        m = torch.from_numpy(rng.random(shape) < .5)
        assert_same(sk.masked_select(x, m), torch.masked_select(x, m))
        assert_same(sk.masked_scatter(x, m, s2.reshape(-1)), x.masked_scatter(m, s2))
    x13 = np.zeros((1,) * 13)
    with raises_with(ValueError, "gather_nd", "13"):
        sk.gather_nd(x13, np.zeros((1, 1), np.int64))
    with raises_with(ValueError, "slice_scatter", "13"):
        sk.slice_scatter(x13, 1.0, 0)
    with raises_with(ValueError, "masked_select", "13"):
        sk.masked_select(x13, np.ones((1,) * 13, bool))
    with raises_with(ValueError, "gather_nd", "12"):
        sk.gather_nd(np.zeros((1,) * 12), np.zeros((1, 1, 0), np.int64))  # 14-d result
    with raises_with(ValueError, "gather", "13"):
        sk.gather(np.zeros((1,) * 12), np.zeros((1,) * 12 + (1,), np.int64), (0,))


def test_mid_size_odd_layouts_two_threads(rng, restore_threads):
    """Mid-size data movement with zero and negative strides on 2 threads."""
    from test_family_common import ref_slice_scatter, ref_tensor_scatter, to_bits
    sk.set_num_threads(2)
    xr = values(rng, (64, 80, 60), "float16")
    xn = np.ascontiguousarray(to_bits(xr)[::-1, ::-1, ::-1])[::-1, ::-1, ::-1].view(np.float16)
    mr = torch.from_numpy(rng.random((80, 1)) < 0.5)
    mn = np.lib.stride_tricks.as_strided(mr.numpy(), shape=(80, 60), strides=(1, 0))
    sr = values(rng, (64 * 80 * 60,), "float16")
    got = sk.masked_scatter(xn, mn, sr.numpy()[::-1].copy()[::-1])
    assert_same(got, xr.masked_scatter(mr, sr))
    src = values(rng, (1, 40, 1), "float16")
    got = sk.slice_scatter(xn, src.numpy(), (0, 1, 2), (None, 1, -1), None, (-1, 2, -3))
    assert_same(got, ref_slice_scatter(xr, src, (0, 1, 2), (None, 1, -1), (None,) * 3,
                                       (-1, 2, -3)))
    ur = values(rng, (64, 30, 60), "float16")
    un = np.ascontiguousarray(ur.numpy().transpose(2, 1, 0)).transpose(2, 1, 0)
    w = rng.integers(0, 80, 64)
    got = sk.tensor_scatter(xn, un, w[::-1].copy()[::-1], axis=1, mode="circular")
    assert_same(got, ref_tensor_scatter(xr, ur, w, 1, "circular"))

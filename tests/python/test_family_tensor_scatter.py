"""tensor_scatter(cache, update, write_indices=None, *, axis=-2,
mode="linear"|"circular", out) -- ONNX TensorScatter (opset 24).

Reference: plain NumPy on the raw bits (test_family_common.ref_tensor_scatter):
for each batch b and update position j, cache[b, ..., p, ...] =
update[b, ..., j, ...] with p = w[b] + j (linear) or (w[b] + j) mod n
(circular), in increasing j. CHOICES: w[b] in [0, n - len] (linear, an
empty update too), w[b] >= 0 taken modulo n (circular, as ONNX says),
IndexError otherwise; a circular update longer than the axis
wraps more than once and the last n positions win. onnxruntime comparisons
are in test_family_onnx.py.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, INDEX_DTYPES, TORCH_DTYPE, Failures, assert_same, bits_of,
                     kinds_for, layouts_for, make_tensor, to_kind, values, writable_layout)
from test_family_common import assert_unchanged, raises_with, ref_tensor_scatter

DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _ts_case(rng, dtype, kind, layouts, cache_shape, axis, mode, index_dtype):
    cl, ul, wl = layouts
    nd = len(cache_shape)
    ax = axis % nd
    n = cache_shape[ax]
    B = cache_shape[0]
    if mode == "linear":
        L = int(rng.integers(0, n + 1))
    else:
        L = int(rng.integers(0, 2 * n + 2))
    ushape = cache_shape[:ax] + (L,) + cache_shape[ax + 1:]
    cache, cr = make_tensor(lambda s: values(rng, s, dtype), cache_shape, cl, kind, rng)
    upd, ur = make_tensor(lambda s: values(rng, s, dtype), ushape, ul, kind, rng)
    if index_dtype is None or (mode == "circular" and n == 0):
        wi, wr = None, None
    else:
        hi = n - L if mode == "linear" else 3 * n  # circular: modulo n

        def gen(s):
            return torch.from_numpy(rng.integers(0, hi + 1, s)).to(TORCH_DTYPE[index_dtype])
        wi, wr = make_tensor(gen, (B,), wl, kind, rng)
    exp = ref_tensor_scatter(cr, ur, None if wr is None else wr.numpy(), axis, mode)
    got = sk.tensor_scatter(cache, upd, wi, axis=axis, mode=mode)
    assert_same(got, exp, kind)
    assert_same(cache, cr)
    assert_same(upd, ur)
    if writable_layout(cl):
        out, _ = make_tensor(lambda s: torch.zeros(s, dtype=cr.dtype), cache_shape, cl, kind, rng)
        r = sk.tensor_scatter(cache, upd, wi, axis=axis, mode=mode, out=out)
        assert r is out
        assert_same(out, exp, kind)
        ci, _ = make_tensor(lambda s: cr.clone(), cache_shape, cl, kind, rng)
        r = sk.tensor_scatter(ci, upd, wi, axis=axis, mode=mode, out=ci)
        assert r is ci
        assert_same(ci, exp, kind)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_tensor_scatter_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x cache-layout x mode x write_indices
    (None / int32 / int64) (looped); random update layout, write_indices
    layout, axis (any non-batch axis, negative spellings), update length
    (0 to n for linear, 0 to 2n+1 for circular); out=, out=cache."""
    f = Failures()
    lays = layouts_for(kind)
    for cl in lays:
        for mode in ["linear", "circular"]:
            for idt in [None] + INDEX_DTYPES:
                shape = [(3, 5, 4), (2, 3, 6, 2), (4, 7)][int(rng.integers(3))]
                nd = len(shape)
                axis = int(rng.integers(1, nd))
                axis = axis - nd if rng.random() < 0.5 else axis
                lay = (cl, str(rng.choice(lays)), str(rng.choice(lays)))
                f.run(f"{lay} {shape} axis={axis} {mode} {idt}",
                      lambda: _ts_case(rng, dtype, kind, lay, shape, axis, mode, idt))
    f.check()


def test_tensor_scatter_worked_examples():
    c = np.zeros((2, 5, 3), np.float32)
    u = (np.ones((2, 7, 3)) * np.arange(7)[None, :, None]).astype(np.float32)
    # circular, longer than the axis: (1 + j) % 5; the last 5 positions win
    r = sk.tensor_scatter(c, u, [1, 4], mode="circular")
    np.testing.assert_array_equal(r[:, :, 0], [[4, 5, 6, 2, 3], [6, 2, 3, 4, 5]])
    # linear, default axis -2, default write_indices 0
    r = sk.tensor_scatter(c, u[:, :2], None)
    np.testing.assert_array_equal(r[:, :, 0], [[0, 1, 0, 0, 0], [0, 1, 0, 0, 0]])
    r = sk.tensor_scatter(c, u[:, 1:3], np.array([3, 0], np.int32))
    np.testing.assert_array_equal(r[:, :, 0], [[0, 0, 0, 1, 2], [1, 2, 0, 0, 0]])
    # circular wrap with a short update
    r = sk.tensor_scatter(c, u[:, 1:4], [3, 4], mode="circular")
    np.testing.assert_array_equal(r[:, :, 0], [[3, 0, 0, 1, 2], [2, 3, 0, 0, 1]])
    # axis=-1 on a 2-d cache
    r = sk.tensor_scatter(np.zeros((2, 4)), np.ones((2, 2)), [1, 2], axis=-1)
    np.testing.assert_array_equal(r, [[0, 1, 1, 0], [0, 0, 1, 1]])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_tensor_scatter_zero_size(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    # zero batch
    r = sk.tensor_scatter(K(np.zeros((0, 3, 2))), K(np.zeros((0, 1, 2))),
                          K(np.zeros(0, np.int64)))
    assert tuple(r.shape) == (0, 3, 2)
    # zero-length update: nothing written, w may be n in linear mode
    c = K(np.arange(12, dtype=np.float64).reshape(2, 3, 2))
    r = sk.tensor_scatter(c, K(np.zeros((2, 0, 2))), K(np.array([3, 3])))
    assert_same(r, torch.arange(12, dtype=torch.float64).reshape(2, 3, 2))
    # zero-size feature dim
    r = sk.tensor_scatter(K(np.zeros((2, 3, 0))), K(np.zeros((2, 2, 0))), K(np.array([1, 0])))
    assert tuple(r.shape) == (2, 3, 0)


def test_tensor_scatter_circular_start_is_taken_modulo_the_axis():
    """ONNX TensorScatter: in circular mode "the write index is modulo
    max_sequence_length" (onnxruntime: w = 5 into 4 positions writes from 1)."""
    c = np.zeros((3, 4), np.float32)
    u = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    r = sk.tensor_scatter(c, u, np.array([5, 4, 2 ** 62 + 3]), axis=1, mode="circular")
    want = np.array([[0, 1, 2, 0], [3, 4, 0, 0], [6, 0, 0, 5]], np.float32)
    np.testing.assert_array_equal(r, want)


def test_tensor_scatter_circular_empty_axis_is_consistent():
    """An update of length 2 cannot be written into an axis of size 0 in
    circular mode: explicit write_indices [0, 0] are an IndexError
    (CHOICES: [0, n) is empty), and write_indices=None means 0 for every
    batch (CONTRACT), so it must be refused the same way rather than silently
    dropping the update."""
    cache = np.zeros((2, 0, 2))
    upd = np.ones((2, 2, 2))
    with pytest.raises(IndexError):
        sk.tensor_scatter(cache, upd, [0, 0], mode="circular")
    with pytest.raises(IndexError):
        sk.tensor_scatter(cache, upd, None, mode="circular")


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_tensor_scatter_errors(kind):
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    ci = K(np.arange(30, dtype=np.float32).reshape(2, 5, 3))
    before = bits_of(ci)
    u2 = K(np.ones((2, 2, 3), np.float32))
    # index errors (the bad batch is the last one), nothing written
    for mode, w, bad in [("linear", [0, 4], 4), ("linear", [1, -1], -1),
                         ("circular", [2, -1], -1)]:
        for idt in (np.int32, np.int64):
            with raises_with(IndexError, "tensor_scatter", f"write_indices[1] = {bad}", "size 5"):
                sk.tensor_scatter(ci, u2, K(np.array(w, idt)), mode=mode, out=ci)
            assert_unchanged(ci, before, "cache")
    # linear: write_indices + len <= n holds for an empty update too (ONNX)
    with raises_with(IndexError, "tensor_scatter", "write_indices[1] = 6", "size 5"):
        sk.tensor_scatter(ci, K(np.zeros((2, 0, 3), np.float32)), [5, 6], out=ci)
    assert_unchanged(ci, before, "cache")
    with raises_with(ValueError, "tensor_scatter", "update", "[2, 2, 4]"):
        sk.tensor_scatter(ci, K(np.zeros((2, 2, 4), np.float32)), [0, 0], out=ci)
    with raises_with(ValueError, "tensor_scatter", "update", "6"):
        sk.tensor_scatter(ci, K(np.zeros((2, 6, 3), np.float32)), [0, 0], out=ci)
    with raises_with(ValueError, "tensor_scatter", "update", "[3, 2, 3]"):
        sk.tensor_scatter(ci, K(np.zeros((3, 2, 3), np.float32)), [0, 0], out=ci)
    with raises_with(TypeError, "tensor_scatter", "update", "float32", "float64"):
        sk.tensor_scatter(ci, K(np.zeros((2, 2, 3), np.float64)), [0, 0], out=ci)
    with raises_with(TypeError, "tensor_scatter", "write_indices", "float32"):
        sk.tensor_scatter(ci, u2, K(np.zeros(2, np.float32)), out=ci)
    with raises_with(ValueError, "tensor_scatter", "mode"):
        sk.tensor_scatter(ci, u2, [0, 0], mode="wrap", out=ci)
    with raises_with(ValueError, "tensor_scatter", "axis", "3"):
        sk.tensor_scatter(ci, u2, [0, 0], axis=3, out=ci)
    for ax in (0, -3):
        with raises_with(ValueError, "tensor_scatter", "axis", "batch"):
            sk.tensor_scatter(ci, K(np.zeros((2, 5, 3), np.float32)), [0, 0], axis=ax, out=ci)
    with raises_with(ValueError, "tensor_scatter", "cache"):
        sk.tensor_scatter(K(np.zeros(3, np.float32)), K(np.zeros(3, np.float32)), None, axis=0)
    with raises_with(ValueError, "tensor_scatter", "out"):
        sk.tensor_scatter(ci, u2, [0, 0], out=K(np.zeros((2, 5, 4), np.float32)))
    assert_unchanged(ci, before, "cache")


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_tensor_scatter_write_indices_shape_message(kind):
    """CONTRACT §4: the message names what was expected AND what was
    given; for write_indices of the wrong length the given shape must
    appear."""
    def K(a):
        return to_kind(torch.as_tensor(np.asarray(a)), kind)
    ci = K(np.zeros((2, 5, 3), np.float32))
    with raises_with(ValueError, "tensor_scatter", "write_indices", "[2]", "[3]"):
        sk.tensor_scatter(ci, K(np.zeros((2, 2, 3), np.float32)), K(np.zeros(3, np.int64)))


def test_tensor_scatter_overlap_refused():
    base = np.zeros((2, 10, 3), np.float32)
    bb = bits_of(base)
    # the message names the operator's own argument: cache (it has no x)
    with raises_with(ValueError, "tensor_scatter", "out partly overlaps cache", "out=cache"):
        sk.tensor_scatter(base[:, :5], np.ones((2, 2, 3), np.float32), [0, 0], out=base[:, 3:8])
    with raises_with(ValueError, "tensor_scatter", "out"):
        sk.tensor_scatter(np.zeros((2, 5, 3), np.float32), base[:, :2], [0, 0], out=base[:, 1:6])
    assert_unchanged(base, bb, "base")

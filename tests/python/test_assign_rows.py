"""Assign of whole rows with duplicates (scatter with a row index, index_scatter
/ index_copy, scatter_nd with rows) keeps only the last update of each target
row: the engine finds the winners first and writes each target once
(engine_scatter.c, "Assign rows by winners"). Checked against NumPy's
x[idx] = src (the last value wins) for fresh, out= and in-place results,
modes, negative and int32 indices, partial rows and thread counts."""
import numpy as np
import pytest
import torch

import scatterkit as sk


def reference(x, idx, src, mode="error"):
    """x with rows idx[r] = src[r] in order (last wins); drop skips, clip clamps."""
    n = x.shape[0]
    out = x.copy()
    v = idx.astype(np.int64)
    v = np.where(v < 0, v + n, v)
    if mode == "clip":
        v = np.clip(v, 0, n - 1)
    keep = (v >= 0) & (v < n)
    out[v[keep], :src.shape[1]] = src[keep]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float64])
@pytest.mark.parametrize("n", [300, 5000])
def test_index_scatter_assign_rows(dtype, n, restore_threads):
    rng = np.random.default_rng(n)
    rows, cols = 20000, 24
    x = (rng.standard_normal((n, cols)) * 50).astype(dtype)
    src = (rng.standard_normal((rows, cols)) * 50).astype(dtype)
    idx = rng.integers(-n, n, rows)
    want = reference(x, idx, src)
    for threads in (1, 2, 3):
        sk.set_num_threads(threads)
        np.testing.assert_array_equal(sk.index_scatter(x, idx, src, 0), want)
        np.testing.assert_array_equal(sk.index_scatter(x, idx.astype(np.int32), src, 0), want)
        out = np.zeros_like(x)
        sk.index_scatter(x, idx, src, 0, out=out)
        np.testing.assert_array_equal(out, want)
        y = x.copy()
        sk.index_scatter(y, idx, src, 0, out=y)
        np.testing.assert_array_equal(y, want)
        # row index broadcast over the columns: scatter's row pattern
        ie = np.broadcast_to(idx[:, None], src.shape)
        np.testing.assert_array_equal(sk.scatter(x, ie, src, 0), want)


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_assign_rows_modes(mode, restore_threads):
    rng = np.random.default_rng(7)
    n, rows, cols = 1000, 8000, 16
    x = rng.standard_normal((n, cols)).astype(np.float32)
    src = rng.standard_normal((rows, cols)).astype(np.float32)
    idx = rng.integers(-2 * n, 2 * n, rows)
    want = reference(x, idx, src, mode)
    for threads in (1, 2):
        sk.set_num_threads(threads)
        np.testing.assert_array_equal(sk.index_scatter(x, idx, src, 0, mode=mode), want)
        ie = np.broadcast_to(idx[:, None], src.shape)
        np.testing.assert_array_equal(sk.scatter(x, ie, src, 0, mode=mode), want)


def test_assign_rows_partial_columns_and_broadcast_src(restore_threads):
    rng = np.random.default_rng(8)
    n, rows, cols = 2000, 9000, 40
    x = rng.standard_normal((n, cols))
    idx = rng.integers(0, n, rows)
    src = rng.standard_normal((rows, 24))
    ie = np.broadcast_to(idx[:, None], (rows, 24))  # index narrower than x: columns 24.. stay x
    np.testing.assert_array_equal(sk.scatter(x, ie, src, 0), reference(x, idx, src))
    s0 = rng.standard_normal((rows, 1))
    want = reference(x, idx, np.broadcast_to(s0, (rows, cols)))
    got = sk.scatter(x, np.broadcast_to(idx[:, None], (rows, cols)),
                     np.broadcast_to(s0, (rows, cols)), 0)
    np.testing.assert_array_equal(got, want)
    # scatter_nd with k = 1: rows of updates
    u = rng.standard_normal((rows, cols))
    np.testing.assert_array_equal(sk.scatter_nd(x, idx[:, None], u), reference(x, idx, u))


def test_assign_rows_torch_and_bad_index(restore_threads):
    g = torch.Generator().manual_seed(9)
    x = torch.randn(3000, 32, generator=g)
    u = torch.randn(50000, 32, generator=g)
    i = torch.randint(0, 3000, (50000,), generator=g)
    want = torch.from_numpy(reference(x.numpy(), i.numpy(), u.numpy()))
    assert torch.equal(sk.index_scatter(x, i, u, 0), want)
    assert torch.equal(sk.scatter(x, i[:, None].expand(50000, 32), u, 0), want)
    bad = i.clone()
    bad[40000] = 3000
    out = torch.zeros_like(x)
    with pytest.raises(IndexError, match=r"index\[40000\] = 3000"):
        sk.index_scatter(x, bad, u, 0, out=out)
    assert not out.any()
    with pytest.raises(IndexError, match=r"index\[40000\] = 3000"):
        sk.index_scatter(x, bad, u, 0)

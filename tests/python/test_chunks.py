"""Work claimed in chunks (sk_parallel_chunks): gathers, copies, masked
operators, slice/diagonal scatters, the blocked merge, the index check and
the row backward cut their work into chunks that threads claim one at a
time. These cases span many chunks at 2 threads and check the values
against PyTorch, the 1-thread bits, and which bad index value is reported
when several chunks hold one."""
import numpy as np
import pytest
import torch

import scatterkit as sk
import scatterkit.torch as skt


def _both(fn):
    out = {}
    for nt in (1, 2):
        sk.set_num_threads(nt)
        out[nt] = fn()
    return out[1], out[2]


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a.view(torch.uint8) if a.dtype != torch.bool else a,
                       b.view(torch.uint8) if b.dtype != torch.bool else b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_masked_across_chunks(dtype, rng, restore_threads):
    # 1.2M positions: about 16 chunks of the count and fill at 2 threads; a
    # chunk's offset into source is the trues of all chunks before it
    x = torch.from_numpy(rng.standard_normal((40, 30000))).to(dtype)
    mask = torch.from_numpy(rng.random((40, 30000)) < 0.3)
    source = torch.from_numpy(rng.standard_normal(40 * 30000)).to(dtype)
    a, b = _both(lambda: sk.masked_scatter(x, mask, source))
    _same_bits(a, b)
    _same_bits(b, x.masked_scatter(mask, source))
    a, b = _both(lambda: sk.masked_select(x, mask))
    _same_bits(a, b)
    _same_bits(b, torch.masked_select(x, mask))
    # a mask broadcast along rows (W9's shape): whole-run copies per chunk
    rows = torch.from_numpy(rng.random((40, 1)) < 0.5)
    a, b = _both(lambda: sk.masked_scatter(x, rows, source))
    _same_bits(a, b)
    _same_bits(b, x.masked_scatter(rows, source))


def test_gathers_and_views_across_chunks(rng, restore_threads):
    x = torch.from_numpy(rng.standard_normal((300, 4000)).astype(np.float32))
    i = torch.from_numpy(rng.integers(-4000, 4000, (300, 4000)))
    a, b = _both(lambda: sk.gather(x, i, 1))
    _same_bits(a, b)
    _same_bits(b, torch.gather(x, 1, i % 4000))
    rows = torch.from_numpy(rng.integers(0, 300, 5000))
    a, b = _both(lambda: sk.index_select(x, rows, 0))
    _same_bits(b, x[rows])
    _same_bits(a, b)
    half = torch.from_numpy(rng.standard_normal((300, 2000)).astype(np.float32))
    a, b = _both(lambda: sk.slice_scatter(x, half, 1, None, None, 2))
    _same_bits(a, b)
    _same_bits(b, torch.slice_scatter(x, half, 1, None, None, 2))
    cube = torch.from_numpy(rng.standard_normal((8, 300, 300)).astype(np.float32))
    diag = torch.from_numpy(rng.standard_normal((8, 300)).astype(np.float32))
    a, b = _both(lambda: sk.diagonal_scatter(cube, diag, 0, 1, 2))
    _same_bits(a, b)
    _same_bits(b, torch.diagonal_scatter(cube, diag, 0, 1, 2))


@pytest.mark.parametrize("reduce", ["sum", "amax"])
def test_blocked_merge_and_row_backward_across_chunks(reduce, rng, restore_threads):
    src = torch.from_numpy(rng.standard_normal((20000, 32)).astype(np.float32))
    idx = torch.from_numpy(rng.integers(0, 9000, 20000))
    e = idx[:, None].expand(20000, 32)
    x = torch.from_numpy(rng.standard_normal((9000, 32)).astype(np.float32))
    a, b = _both(lambda: sk.scatter(x, e, src, 0, reduce=reduce))
    _same_bits(a, b)
    exp = x.scatter_reduce(0, e, src, reduce)
    assert torch.allclose(b, exp, rtol=1e-5, atol=1e-5)

    def grads():
        s = src.clone().requires_grad_(True)
        xx = x.clone().requires_grad_(True)
        skt.scatter(xx, e, s, 0, reduce=reduce, include_self=False).backward(
            torch.ones(9000, 32))
        return xx.grad, s.grad
    (gx1, gs1), (gx2, gs2) = _both(grads)
    _same_bits(gx1, gx2)
    _same_bits(gs1, gs2)
    s = src.clone().requires_grad_(True)
    xx = x.clone().requires_grad_(True)
    xx.scatter_reduce(0, e, s, reduce, include_self=False).backward(torch.ones(9000, 32))
    assert torch.allclose(gx2, xx.grad) and torch.allclose(gs2, s.grad)


def test_first_bad_index_when_several_chunks_hold_one(restore_threads):
    # bad values in late chunks too: the message names the first in
    # row-major order, whichever thread scanned which chunk first
    x = torch.zeros(10, 300000)
    i = torch.zeros(10, 300000, dtype=torch.int64)
    i[9, 299999] = -300001
    i[7, 5] = 300000
    i[3, 200000] = 400000
    for nt in (1, 2):
        sk.set_num_threads(nt)
        for call in (lambda: sk.gather(x, i, 1),
                     lambda: sk.scatter(x, i, x, 1, reduce="sum"),
                     lambda: sk.scatter(x, i, x, 1)):
            with pytest.raises(IndexError, match=r"index\[3, 200000\] = 400000"):
                call()

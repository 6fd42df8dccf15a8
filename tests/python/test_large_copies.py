"""Copies of 32 MiB and more stream their stores past the cache, and
slice/diagonal/select_scatter into such an out build each block in a buffer
before streaming it (docs/DESIGN.md). Checked exactly against PyTorch,
including destinations that are not 16-byte aligned and odd lengths (the
unaligned head and the tail of the streamed copy)."""
import pytest
import torch

import scatterkit as sk

ROWS, COLS = 2049, 4099  # about 33.6 MB of float32: above the streaming threshold


@pytest.fixture(scope="module")
def big():
    g = torch.Generator().manual_seed(11)
    return torch.randn(ROWS, COLS, generator=g)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_copy_streams_exactly(big, threads, restore_threads):
    sk.set_num_threads(threads)
    flat = torch.full((ROWS * COLS + 3,), float("nan"))
    for shift in (0, 1, 3):  # destination offsets of 0, 4 and 12 bytes
        flat.fill_(float("nan"))
        out = flat[shift:shift + ROWS * COLS].view(ROWS, COLS)
        sk._C.copy(big, out)  # the C library's sk_copy (no public Python name)
        assert torch.equal(out, big)
        if shift:
            assert torch.isnan(flat[:shift]).all()  # nothing written before out
        if shift < 3:
            assert torch.isnan(flat[shift + ROWS * COLS:]).all()  # nor after it


def test_scatter_copies_x_into_a_large_out(big, restore_threads):
    # scatter's out = x copy is a streamed copy at this size
    idx = torch.tensor([[0, 5], [ROWS - 1, 2]])
    src = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = torch.full((ROWS * COLS + 1,), float("nan"))[1:].view(ROWS, COLS)
    got = sk.scatter(big, idx, src, 0, reduce="sum", out=out)
    assert torch.equal(got, big.clone().scatter_add_(0, idx, src))


@pytest.mark.parametrize("threads", [1, 2])
def test_view_scatters_into_a_large_out(big, threads, restore_threads):
    sk.set_num_threads(threads)
    g = torch.Generator().manual_seed(12)
    s = torch.randn(ROWS, (COLS + 1) // 2, generator=g)
    got = sk.slice_scatter(big, s, 1, None, None, 2)
    assert torch.equal(got, torch.slice_scatter(big, s, 1, 0, None, 2))
    s = torch.randn(ROWS, (COLS - 1) // 2, generator=g)
    got = sk.slice_scatter(big, s, 1, 1, None, 2)
    assert torch.equal(got, torch.slice_scatter(big, s, 1, 1, None, 2))
    d = torch.randn(min(ROWS, COLS - 5), generator=g)
    got = sk.diagonal_scatter(big, d, 5)
    assert torch.equal(got, torch.diagonal_scatter(big, d, 5))
    r = torch.randn(COLS, generator=g)
    got = sk.select_scatter(big, r, 0, -7)
    assert torch.equal(got, torch.select_scatter(big, r, 0, -7))
    b3 = big[:2048, :4096].reshape(8, 1024, 1024)
    d3 = torch.randn(8, 1024, generator=g)
    got = sk.diagonal_scatter(b3, d3, 0, 1, 2)
    assert torch.equal(got, torch.diagonal_scatter(b3, d3, 0, 1, 2))
    out = torch.full_like(big, float("nan"))
    r2 = sk.slice_scatter(big, big[:, ::3], 1, None, None, 3, out=out)
    assert r2.data_ptr() == out.data_ptr()
    assert torch.equal(out, torch.slice_scatter(big, big[:, ::3], 1, 0, None, 3))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_row_gathers_stream_into_a_large_out(threads, restore_threads):
    # index_select / gather rows into a result of >= 32 MiB: rows of a
    # multiple of 16 bytes into an aligned out are written with streaming
    # stores; others (rows of 252 bytes) are copied as before
    sk.set_num_threads(threads)
    g = torch.Generator().manual_seed(5)
    table = torch.randn(5000, 64, generator=g)
    idx = torch.randint(-5000, 5000, (140_000,), generator=g)  # 35.8 MB of rows
    wrapped = torch.where(idx < 0, idx + 5000, idx)
    assert torch.equal(sk.index_select(table, idx, 0), table[wrapped])
    assert torch.equal(sk.gather(table, idx[:, None].expand(-1, 64), 0), table[wrapped])
    odd = table[:, :63]  # 252-byte rows
    assert torch.equal(sk.index_select(odd, idx, 0), odd[wrapped])
    shifted = torch.randn(5000 * 64 + 1, generator=g)[1:].view(5000, 64)  # rows read unaligned
    assert torch.equal(sk.index_select(shifted, idx, 0), shifted[wrapped])


@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_last_axis_gather_blocks(index_dtype, restore_threads):
    # the last-axis gather checks blocks of 512 index values ahead of copying
    # them; blocks holding negative values, and rows whose length is not a
    # multiple of 512, take the careful loop
    g = torch.Generator().manual_seed(6)
    x = torch.randn(6, 2000, generator=g)
    idx = torch.randint(0, 2000, (6, 1900), generator=g)
    idx[2, 700] = -1
    idx[4, 1899] = -2000
    idx = idx.to(index_dtype)
    exp = torch.gather(x, 1, torch.where(idx < 0, idx + 2000, idx).long())
    for threads in (1, 2, 3):
        sk.set_num_threads(threads)
        assert torch.equal(sk.gather(x, idx, 1), exp)
    bad = idx.clone()
    bad[3, 1500] = 2000
    with pytest.raises(IndexError):
        sk.gather(x, bad, 1)
    got = sk.gather(x, bad, 1, mode="clip")
    assert got[3, 1500] == x[3, 1999] and torch.equal(got[:3], exp[:3])
    got = sk.gather(x, bad, 1, mode="fill", fill_value=7.5)
    assert got[3, 1500] == 7.5 and torch.equal(got[4:], exp[4:])


@pytest.mark.parametrize("dtype", [torch.uint8, torch.bool, torch.float16, torch.bfloat16,
                                   torch.float32, torch.int32, torch.float64, torch.int64])
@pytest.mark.parametrize("start,stop,length", [(None, None, 64), (1, None, 64), (0, 61, 67),
                                              (3, 10, 17), (2, 3, 9), (1, None, 2)])
def test_step2_slice_scatter_rows(dtype, start, stop, length, restore_threads):
    # every other element of the last axis: rows merged 16 bytes at a time
    # (pairs of src and x elements), with x before and after the view
    g = torch.Generator().manual_seed(length)
    x = (torch.randn(5, 3, length, generator=g) * 50).to(dtype)
    view = x[..., start:stop:2]
    src = (torch.randn(view.shape, generator=g) * 50).to(dtype)
    exp = torch.slice_scatter(x, src, 2, start, stop, 2)
    for threads in (1, 2, 3):
        sk.set_num_threads(threads)
        assert torch.equal(sk.slice_scatter(x, src, 2, start, stop, 2), exp)


def test_step2_slice_scatter_large_streams(restore_threads):
    # a result over 32 MiB: rows written with streaming stores (W10's shape,
    # smaller), also into an out 4 bytes off alignment (plain stores)
    g = torch.Generator().manual_seed(8)
    x = torch.randn(2100, 4096, generator=g)
    src = torch.randn(2100, 2048, generator=g)
    exp = torch.slice_scatter(x, src, 1, None, None, 2)
    for threads in (1, 2):
        sk.set_num_threads(threads)
        assert torch.equal(sk.slice_scatter(x, src, 1, None, None, 2), exp)
        flat = torch.full((2100 * 4096 + 1,), float("nan"))
        out = flat[1:].view(2100, 4096)
        sk.slice_scatter(x, src, 1, None, None, 2, out=out)
        assert torch.equal(out, exp) and torch.isnan(flat[0])

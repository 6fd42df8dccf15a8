"""Copies between layouts that are contiguous along different dimensions
(a transposed x copied into a row-major out, or the reverse) go through
tiles (docs/DESIGN.md, "Transposing copies"). Checked bitwise against
PyTorch for every element width, tile edges (sizes that are not multiples
of the tile), outer dimensions, negative strides, and at several thread
counts; and through the operators that copy x or src: scatter with a fresh
out, slice_scatter, select_scatter, masked_scatter."""
import itertools

import numpy as np
import pytest
import torch

import scatterkit as sk

DTYPES = [torch.bool, torch.uint8, torch.int16, torch.bfloat16, torch.float32, torch.int64,
          torch.float64]


def make(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(-100, 100, shape, generator=g).to(dtype)


def layouts(shape, dtype, seed):
    """Views of fresh tensors with the given shape, one for every
    permutation of the storage order."""
    for perm in itertools.permutations(range(len(shape))):
        inv = [perm.index(d) for d in range(len(shape))]
        v = make([shape[p] for p in perm], dtype, seed).permute(inv)
        assert v.shape == torch.Size(shape)
        yield v


def differs(t):
    """A tensor of t's layout that differs from t in every element."""
    return ~t if t.dtype == torch.bool else t + 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(300, 129), (129, 300), (3, 70, 1030), (1030, 2, 70)])
def test_copy_between_layouts(dtype, shape, restore_threads):
    for src in layouts(shape, dtype, 1):
        for out in layouts(shape, dtype, 2):
            for threads in (1, 2, 3):
                sk.set_num_threads(threads)
                out.copy_(differs(src))
                sk._C.copy(src, out)
                assert torch.equal(out, src), (dtype, shape, src.stride(), out.stride(), threads)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_copy_negative_strides(dtype, restore_threads):
    rng = np.random.default_rng(3)
    base = (rng.standard_normal((700, 1030)) * 50).astype(dtype)
    for src in (base.T, base.T[::-1], base.T[:, ::-1], base[::-1].T[::-1]):
        for out in (np.empty(src.shape, dtype), np.empty(src.shape[::-1], dtype).T[::-1]):
            for threads in (1, 2):
                sk.set_num_threads(threads)
                out[...] = src + 1
                sk._C.copy(src, out)
                np.testing.assert_array_equal(out, src)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.bfloat16, torch.float32, torch.float64])
def test_scatter_fresh_out_from_transposed_x(dtype, restore_threads):
    x = make((1025, 700), dtype, 3).t()  # [700, 1025], contiguous along dim 0
    idx = torch.randint(0, 700, (5, 1025), generator=torch.Generator().manual_seed(4))
    src = make((5, 1025), dtype, 5)
    want = x.clone().scatter_(0, idx, src)
    for threads in (1, 2):
        sk.set_num_threads(threads)
        assert torch.equal(sk.scatter(x, idx, src, 0), want)
    if dtype.is_floating_point:
        want = x.clone().scatter_reduce_(0, idx, src, "amax")
        assert torch.equal(sk.scatter(x, idx, src, 0, reduce="amax"), want)


@pytest.mark.parametrize("dtype", [torch.int16, torch.float32, torch.float64])
def test_view_scatters_with_transposed_src(dtype, restore_threads):
    x = make((600, 900), dtype, 6)
    src = make((900, 600), dtype, 7).t()
    assert torch.equal(sk.slice_scatter(x, src, 0), torch.slice_scatter(x, src, 0))
    half = make((900, 300), dtype, 8).t()
    assert torch.equal(sk.slice_scatter(x, half, 0, 100, 400),
                       torch.slice_scatter(x, half, 0, 100, 400))
    x3 = make((4, 600, 900), dtype, 9)
    assert torch.equal(sk.select_scatter(x3, src, 0, -1), torch.select_scatter(x3, src, 0, -1))
    xt = x3.transpose(1, 2)  # x itself transposed: out = copy of x first
    s2 = make((900, 600), dtype, 10)
    assert torch.equal(sk.select_scatter(xt, s2, 0, 2), torch.select_scatter(xt, s2, 0, 2))
    mask = torch.rand(600, 900, generator=torch.Generator().manual_seed(11)) > 0.5
    source = make((600 * 900,), dtype, 12)
    xt2 = make((900, 600), dtype, 13).t()
    assert torch.equal(sk.masked_scatter(xt2, mask, source), xt2.masked_scatter(mask, source))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.bfloat16, torch.float32,
                                   torch.float64])
def test_gather_last_axis_from_transposed_x(dtype, restore_threads):
    """A transposed x is copied row-major into scratch first when that fits
    the scratch budget (gather.c, sk_gather_pack_x): same results, every
    mode, negative indices, and an index too small for the budget."""
    g = torch.Generator().manual_seed(20)
    x = make((1500, 700), dtype, 21).t()  # [700, 1500], last axis 1400+ bytes apart
    idx = torch.randint(-1500, 1500, (700, 1500), generator=g)
    want = torch.gather(x, 1, idx % 1500)
    for threads in (1, 2, 3):
        sk.set_num_threads(threads)
        assert torch.equal(sk.gather(x, idx, 1), want)
        assert torch.equal(sk.gather(x, idx.int(), -1), want)
    small = idx[:3, :5]  # x is far more than 16 bytes per index element: not packed
    assert torch.equal(sk.gather(x, small, 1), torch.gather(x, 1, small % 1500))
    wide = idx.clone()
    wide[5, 7], wide[600, 1] = 1500, -1501
    fill = torch.tensor(7).to(dtype)
    got = sk.gather(x, wide, 1, mode="fill", fill_value=fill)
    ok = (wide >= -1500) & (wide < 1500)
    assert torch.equal(got[ok], torch.gather(x, 1, wide.clamp(-1500, 1499) % 1500)[ok])
    assert torch.equal(got[~ok], fill.expand(2))
    got = sk.gather(x, wide, 1, mode="clip")
    assert torch.equal(got, torch.gather(x, 1, torch.where(wide < 0, torch.where(
        wide >= -1500, wide + 1500, 0), wide.clamp(max=1499))))
    with pytest.raises(IndexError, match=r"index\[5, 7\] = 1500"):
        sk.gather(x, wide, 1)


@pytest.mark.parametrize("x_transposed", [False, True])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("axis", [0, 1])
def test_gather_with_transposed_index(x_transposed, index_dtype, axis, restore_threads):
    """An index whose last dimension is transposed (a line per element) is
    copied row-major into scratch first (gather.c, sk_pack_row_major): same
    values, modes, and the error names the first bad value in row-major
    order of the index."""
    g = torch.Generator().manual_seed(31)
    x = make((900, 1300), torch.float32, 32)
    if x_transposed:
        x = x.t().contiguous().t()
    n = x.shape[axis]
    idx = torch.randint(-n, n, (1300, 900), generator=g).to(index_dtype).t()  # [900, 1300]
    assert idx.stride() == (1, 900)
    want = torch.gather(x, axis, idx.long() % n)
    for threads in (1, 2, 3):
        sk.set_num_threads(threads)
        assert torch.equal(sk.gather(x, idx, axis), want)
    bad = idx.clone().t().contiguous().t()
    bad[400, 2], bad[3, 1000] = n, -n - 1  # row-major order: [3, 1000] first
    got = sk.gather(x, bad, axis, mode="fill", fill_value=-1.0)
    ok = (bad >= -n) & (bad < n)
    assert torch.equal(got[ok], want[ok]) and torch.equal(got[~ok], torch.full((2,), -1.0))
    with pytest.raises(IndexError, match=rf"gather: index\[3, 1000\] = {-n - 1} is out of range"):
        sk.gather(x, bad, axis)

"""The scatter reductions on CUDA tensors (torch) against the same calls on
the CPU, bit for bit (CONTRACT section 6): scatter (int and tuple axes),
index_scatter and scatter_nd, every reduction and dtype, include_self, the
index modes, negative indices, duplicates, rows and single elements, targets
past the canonical chunk (256 contributors) and one hot target taking 100k
updates, in-place forms, zero-size tensors. Float sum/mean/prod results that
are NaN are compared as NaN (a GPU's NaN arithmetic gives its canonical NaN
where the CPU keeps an operand's payload; docs/GPU.md); everything else
compares the bytes. Skipped, with the reason, where the build has no CUDA or
the machine no GPU."""
import pytest

import scatterkit as sk
from helpers_cuda import require_cuda_torch

torch = require_cuda_torch()

from test_cuda_ops import DTYPES, assert_bitwise, bits, both, gen  # noqa: E402,F401

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]
ARITH = ("sum", "prod", "mean")


def allowed(dtype, reduce):
    return dtype != torch.bool or reduce in (None, "amax", "amin")


def values(shape, dtype, gen, reduce):
    """Values that exercise the rules without overflowing the dtype's range
    into noise: floats near 1 (prod stays finite) with signed zeros, and for
    amax/amin ties, NaNs and infinities; integers of every bit (they wrap)."""
    n = 1
    for s in shape:
        n *= s
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        return torch.randint(info.min, info.max, shape, generator=gen, dtype=torch.int64).to(dtype)
    v = 1 + 0.25 * torch.randn(n, generator=gen, dtype=torch.float64)
    pick = torch.randint(0, 16, (n,), generator=gen)
    v[pick == 0] = 0.0
    v[pick == 1] = -0.0
    if reduce not in ARITH:
        v[pick == 2] = float("nan")
        v[pick == 3] = float("inf")
        v[pick == 4] = 1.0  # ties
    return v.to(dtype).reshape(shape)


def assert_same(gpu, cpu, reduce):
    """Bit for bit; float sum/mean/prod NaNs as NaN."""
    if reduce in ARITH and gpu.dtype.is_floating_point:
        g, c = gpu.cpu(), cpu
        nan = torch.isnan(g)
        assert torch.equal(nan, torch.isnan(c))
        assert torch.equal(bits(g.masked_fill(nan, 0)), bits(c.masked_fill(nan, 0)))
        assert gpu.device.type == "cuda"
    else:
        assert_bitwise(gpu, cpu)


def index(shape, n, gen, mode):
    lo, hi = (-n, n) if mode == "error" else (-2 * n - 1, 2 * n + 1)
    return torch.randint(lo, hi, shape, generator=gen)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_axis(dtype, reduce, include_self, gen):
    if not allowed(dtype, reduce):
        pytest.skip("bool: assign, amax, amin")
    for mode in ("error", "clip", "drop"):
        x = values((7, 11), dtype, gen, reduce)
        src = values((9, 11), dtype, gen, reduce)
        idx = index((9, 8), 7, gen, mode)
        gpu, cpu = both(sk.scatter, x, idx, src, 0, reduce=reduce, include_self=include_self,
                        mode=mode)
        assert_same(gpu, cpu, reduce)
        xt = values((11, 7), dtype, gen, reduce).t()  # a transposed x, the last axis
        gpu, cpu = both(sk.scatter, xt, index((7, 5), 11, gen, mode).int(),
                        src[:7, :5].contiguous(), 1, reduce=reduce, include_self=include_self,
                        mode=mode)
        assert_same(gpu, cpu, reduce)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", [torch.int8, torch.float16, torch.float32])
def test_scatter_tuple_axes(reduce, dtype, gen):
    x = values((4, 5, 6), dtype, gen, reduce)
    src = values((4, 5, 3), dtype, gen, reduce)
    idx = torch.stack([torch.randint(-4, 4, (4, 5, 3), generator=gen),
                       torch.randint(0, 6, (4, 5, 3), generator=gen)], -1)
    gpu, cpu = both(sk.scatter, x, idx, src, (0, 2), reduce=reduce, include_self=False)
    assert_same(gpu, cpu, reduce)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", REDUCES)
def test_index_scatter_and_scatter_nd(dtype, reduce, gen):
    if not allowed(dtype, reduce):
        pytest.skip("bool: assign, amax, amin")
    for include_self in (True, False):
        x = values((10, 33), dtype, gen, reduce)  # rows of 33: lanes past a warp
        u = values((40, 33), dtype, gen, reduce)
        idx = torch.randint(-10, 10, (40,), generator=gen)
        gpu, cpu = both(sk.index_scatter, x, idx, u, 0, reduce=reduce, include_self=include_self)
        assert_same(gpu, cpu, reduce)
        gpu, cpu = both(sk.index_scatter, x.t().contiguous(), idx, u.t().contiguous(), 1,
                        reduce=reduce, include_self=include_self)
        assert_same(gpu, cpu, reduce)
    nd = torch.stack([torch.randint(0, 10, (40,), generator=gen),
                      torch.randint(-33, 33, (40,), generator=gen)], -1)
    gpu, cpu = both(sk.scatter_nd, x, nd, values((40,), dtype, gen, reduce), reduce=reduce)
    assert_same(gpu, cpu, reduce)
    gpu, cpu = both(sk.scatter_nd, x, nd[:, :1], u, reduce=reduce, mode="clip")
    assert_same(gpu, cpu, reduce)


@pytest.mark.parametrize("count", [255, 256, 257, 512, 513, 1000])
@pytest.mark.parametrize("dtype", FLOATS)
def test_chunk_boundaries(count, dtype, gen):
    """Targets with counts around the canonical chunk, rows and single elements."""
    for reduce in ("sum", "mean", "prod", "amax"):
        idx = torch.randint(0, 3, (count,), generator=gen)
        u = values((count, 5), dtype, gen, reduce)
        gpu, cpu = both(sk.index_scatter, values((3, 5), dtype, gen, reduce), idx, u, 0,
                        reduce=reduce)
        assert_same(gpu, cpu, reduce)
        gpu, cpu = both(sk.scatter, values((3,), dtype, gen, reduce), idx, u[:, 0].contiguous(), 0,
                        reduce=reduce, include_self=False)
        assert_same(gpu, cpu, reduce)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.float64])
def test_hot_target(dtype, gen):
    """One target taking 100k updates (its partials in parallel) beside cold ones."""
    n = 100_000
    idx = torch.full((n,), 1, dtype=torch.int64)
    idx[torch.randint(0, n, (n // 50,), generator=gen)] = torch.randint(0, 4, (n // 50,),
                                                                         generator=gen)
    for reduce in ("sum", "mean", "amax", None):
        u = values((n, 4), dtype, gen, reduce)
        x = values((4, 4), dtype, gen, reduce)
        gpu, cpu = both(sk.index_scatter, x, idx, u, 0, reduce=reduce)
        assert_same(gpu, cpu, reduce)
        gpu, cpu = both(sk.scatter, x[:, 0].contiguous(), idx, u[:, 1].contiguous(), 0,
                        reduce=reduce, include_self=False)
        assert_same(gpu, cpu, reduce)


def test_expanded_index_and_in_place(gen):
    """W2's shape in small: a 1-d index expanded over the columns; out=x."""
    x = values((50, 32), torch.float32, gen, "sum")
    src = values((600, 32), torch.float32, gen, "sum")
    idx = torch.randint(0, 50, (600,), generator=gen)[:, None].expand(600, 32)
    gpu, cpu = both(sk.scatter, x, idx, src, 0, reduce="sum")
    assert_same(gpu, cpu, "sum")
    xg = x.cuda()
    again = sk.scatter(xg, idx.cuda(), src.cuda(), 0, reduce="sum")
    sk.scatter(xg, idx.cuda(), src.cuda(), 0, reduce="sum", out=xg)
    assert torch.equal(bits(xg), bits(cpu)) and torch.equal(bits(again), bits(cpu))
    # an index expanded along the scatter axis: one target per column
    col = torch.randint(0, 50, (32,), generator=gen)[None, :].expand(600, 32)
    gpu, cpu = both(sk.scatter, x, col, src, 0, reduce="mean", include_self=False)
    assert_same(gpu, cpu, "mean")


def test_run_to_run_and_empty(gen):
    x = values((8, 3), torch.float32, gen, "sum").cuda()
    u = values((5000, 3), torch.float32, gen, "sum").cuda()
    idx = torch.randint(0, 8, (5000,), generator=gen).cuda()
    first = sk.index_scatter(x, idx, u, 0, reduce="sum")
    for _ in range(3):
        assert torch.equal(bits(sk.index_scatter(x, idx, u, 0, reduce="sum")), bits(first))
    empty = sk.index_scatter(x, idx[:0], u[:0], 0, reduce="sum")
    assert torch.equal(bits(empty), bits(x))
    z = sk.scatter(torch.empty(0, 3, device="cuda"), idx[:0, None].expand(0, 3), u[:0], 0,
                   reduce="sum")
    assert z.shape == (0, 3) and z.is_cuda

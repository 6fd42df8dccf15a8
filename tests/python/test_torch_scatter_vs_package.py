"""scatterkit.torch_scatter against the torch_scatter package itself, where
it is installed (it is not a dependency: without it this file is skipped).
Bitwise where both fold in the same order (32- and 64-bit floats, integers,
the segment operators); 16-bit scatter sums differ by design (torch_scatter
accumulates them in the 16-bit type through torch.scatter_add_, scatterkit
in float32). Gradients are compared where the two rules agree (no ties, no
zeros under mul)."""
import pytest
import torch

import scatterkit.torch_scatter as ts

tsr = pytest.importorskip("torch_scatter")

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int32,
          torch.int64]
CASES = [((7,), (7,), 0), ((3, 7, 2), (7,), 1), ((3, 7, 2), (3, 7), -2), ((2, 3, 7), None, -1)]


def _src(shape, dtype, g):
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    # not 0: torch_scatter's max never takes a value equal to its start (the
    # dtype's lowest), and reports such a target as empty
    return torch.randint(1, 20, shape, generator=g).to(dtype)


def _same(a, b, dtype, reduce):
    """16-bit sum/mul: torch_scatter accumulates in the 16-bit type; mean:
    its sum is rounded to it before the division (scatterkit: once)."""
    if dtype in (torch.float16, torch.bfloat16) and reduce in ("sum", "mean", "mul"):
        return torch.allclose(a.float(), b.float(), rtol=2e-2, atol=2e-2)
    return torch.equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_family(dtype):
    g = torch.Generator().manual_seed(1)
    for shape, ishape, dim in CASES:
        src = _src(shape, dtype, g)
        index = torch.randint(0, 6, ishape or shape, generator=g)
        for reduce in ("sum", "mul", "mean", "min", "max"):
            a = ts.scatter(src, index, dim, dim_size=8, reduce=reduce)
            b = tsr.scatter(src, index, dim, dim_size=8, reduce=reduce)
            assert _same(a, b, dtype, reduce), (shape, dim, reduce, a, b)
        for name in ("scatter_max", "scatter_min"):
            (a, ia), (b, ib) = getattr(ts, name)(src, index, dim), getattr(tsr, name)(src, index, dim)
            assert torch.equal(a, b) and torch.equal(ia, ib), (name, ia, ib)


def test_out_argument():
    g = torch.Generator().manual_seed(2)
    src, index = torch.randn(3, 9, generator=g), torch.randint(0, 5, (9,), generator=g)
    for reduce in ("sum", "mean", "max", "min"):
        out = torch.randn(3, 5, generator=g)
        assert torch.equal(ts.scatter(src, index, 1, out=out.clone(), reduce=reduce),
                           tsr.scatter(src, index, 1, out=out.clone(), reduce=reduce)), reduce
    out = torch.randn(3, 5, generator=g)
    for name in ("scatter_max", "scatter_min"):
        (a, ia), (b, ib) = (getattr(m, name)(src, index, 1, out=out.clone()) for m in (ts, tsr))
        assert torch.equal(a, b) and torch.equal(ia, ib), name


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64],
                         ids=str)
def test_segments(dtype):
    g = torch.Generator().manual_seed(3)
    src = _src((2, 12, 3), dtype, g)
    indptr = torch.tensor([0, 3, 3, 8, 12])
    index = torch.tensor([0, 0, 0, 2, 2, 2, 2, 2, 3, 3, 5, 5])
    for reduce in ("sum", "mean", "min", "max"):
        for args in ((indptr[None],), (indptr[None].expand(2, 5),)):
            a, b = ts.segment_csr(src, *args, reduce=reduce), tsr.segment_csr(src, *args, reduce=reduce)
            assert _same(a, b, dtype, reduce), (reduce, a, b)
        a = ts.segment_coo(src, index[None], dim_size=7, reduce=reduce)
        b = tsr.segment_coo(src, index[None], dim_size=7, reduce=reduce)
        if dtype == torch.int64 and reduce == "mean":   # torch_scatter truncates, scatterkit floors
            b = tsr.segment_coo(src, index[None], dim_size=7, reduce="sum").div(
                torch.bincount(index, minlength=7).clamp(min=1)[:, None], rounding_mode="floor")
        assert _same(a, b, dtype, reduce), (reduce, a, b)
    ptr = indptr[None]
    for name in ("segment_max_csr", "segment_min_csr"):
        (a, ia), (b, ib) = getattr(ts, name)(src, ptr), getattr(tsr, name)(src, ptr)
        assert torch.equal(a, b) and torch.equal(ia, ib), name
    out = ts.segment_csr(src, ptr)
    assert torch.equal(ts.gather_csr(out, ptr), tsr.gather_csr(out, ptr))
    idx = index[None].expand(2, 12)      # torch_scatter's gather_coo does not broadcast it
    assert torch.equal(ts.gather_coo(src[:, :6], idx), tsr.gather_coo(src[:, :6], idx))


def test_composites_and_gradients():
    g = torch.Generator().manual_seed(4)
    src = torch.randn(5, 30, 2, generator=g, dtype=torch.float64)
    index = torch.randint(0, 9, (30,), generator=g)
    w = torch.randn(5, 30, 2, generator=g, dtype=torch.float64)
    cases = [lambda m, s: m.scatter(s, index, 1, dim_size=10, reduce=r)
             for r in ("sum", "mean", "max", "min", "mul")]
    cases += [lambda m, s, n=n: getattr(m, n)(s, index, 1)
              for n in ("scatter_softmax", "scatter_log_softmax", "scatter_logsumexp", "scatter_std")]
    cases += [lambda m, s: m.segment_csr(s, torch.tensor([[0, 10, 10, 30]]), reduce="max")]
    for fn in cases:
        res = []
        for m in (ts, tsr):
            x = src.clone().requires_grad_()
            y = fn(m, x)
            wy = w[:, :y.shape[1]] if y.shape[1] <= w.shape[1] else None
            (y * wy).sum().backward()
            res.append((y.detach(), x.grad))
        torch.testing.assert_close(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)

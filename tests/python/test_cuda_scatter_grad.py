"""Backward and autograd on CUDA tensors, and the scatter-type index errors:
every scatter-type backward (each reduction, include_self, ties, zeros for
prod, duplicates, dropped positions) and the gather-type backward (gather,
index_select, gather_nd, the fill mode) equal the CPU's bit for bit;
scatterkit.torch differentiates CUDA tensors with the CPU's gradients; a bad
index is an IndexError with the CPU's message, nothing is written (out=
unchanged) and the CUDA context stays usable. Skipped, with the reason,
where the build has no CUDA or the machine no GPU."""
import pytest

import scatterkit as sk
from helpers_cuda import require_cuda_torch

torch = require_cuda_torch()

import scatterkit.torch as skt  # noqa: E402
from test_cuda_ops import bits, gen  # noqa: E402,F401
from test_cuda_scatter import FLOATS, values  # noqa: E402

REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]


def cuda(args):
    return [a.cuda() if isinstance(a, torch.Tensor) else a for a in args]


def assert_grads(gpu, cpu):
    for g, c in zip(gpu, cpu):
        assert (g is None) == (c is None)
        if g is not None:
            assert g.is_cuda and torch.equal(bits(g), bits(c))


def tied(shape, dtype, gen, reduce):
    """values() with more ties and zeros: small integers as floats."""
    v = values(shape, dtype, gen, reduce)
    few = torch.randint(-2, 3, shape, generator=gen).to(dtype)
    return torch.where(torch.rand(shape, generator=gen) < 0.5, few, v)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_type_backward(dtype, reduce, include_self, gen):
    x, src = tied((6, 7), dtype, gen, reduce), tied((9, 7), dtype, gen, reduce)
    idx = torch.randint(-8, 8, (9, 5), generator=gen)  # mode="drop": some dropped
    g = tied((6, 7), dtype, gen, "sum")
    kw = dict(reduce=reduce, include_self=include_self, mode="drop")
    args = (g, x, idx, src, 0)
    assert_grads(sk.scatter_backward(*cuda(args), **kw), sk.scatter_backward(*args, **kw))
    u = tied((30, 7), dtype, gen, reduce)
    i1 = torch.randint(-6, 6, (30,), generator=gen)
    args = (g, x, i1, u, 0)
    kw = dict(reduce=reduce, include_self=include_self)
    assert_grads(sk.index_scatter_backward(*cuda(args), **kw),
                 sk.index_scatter_backward(*args, **kw))
    nd = torch.randint(0, 6, (30, 1), generator=gen)
    args = (g, x, nd, u)
    assert_grads(sk.scatter_nd_backward(*cuda(args), reduce=reduce),
                 sk.scatter_nd_backward(*args, reduce=reduce))


@pytest.mark.parametrize("dtype", FLOATS)
def test_hot_backward(dtype, gen):
    """300 and 3000 contributors into one target: past the canonical chunk."""
    for n in (300, 3000):
        idx = torch.zeros(n, dtype=torch.int64)
        for reduce in ("sum", "mean", "amax", "prod", None):
            u, x = tied((n, 3), dtype, gen, reduce), tied((2, 3), dtype, gen, reduce)
            args = (tied((2, 3), dtype, gen, "sum"), x, idx, u, 0)
            assert_grads(sk.index_scatter_backward(*cuda(args), reduce=reduce),
                         sk.index_scatter_backward(*args, reduce=reduce))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["error", "clip", "fill"])
def test_gather_type_backward(dtype, mode, gen):
    x = tied((9, 13), dtype, gen, "sum")
    lo, hi = (-13, 13) if mode == "error" else (-30, 30)
    idx = torch.randint(lo, hi, (9, 40), generator=gen)
    g = tied((9, 40), dtype, gen, "sum")
    args = (g, x, idx, 1)
    assert torch.equal(bits(sk.gather_backward(*cuda(args), mode=mode)),
                       bits(sk.gather_backward(*args, mode=mode)))
    rows = torch.randint(-9 if mode == "error" else -30, 9 if mode == "error" else 30, (700,),
                         generator=gen)
    args = (tied((700, 13), dtype, gen, "sum"), x, rows, 0)
    assert torch.equal(bits(sk.index_select_backward(*cuda(args), mode=mode)),
                       bits(sk.index_select_backward(*args, mode=mode)))
    nd = torch.randint(0, 9, (50, 1), generator=gen)
    args = (tied((50, 13), dtype, gen, "sum"), x, nd)
    assert torch.equal(bits(sk.gather_nd_backward(*cuda(args))),
                       bits(sk.gather_nd_backward(*args)))


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "prod"])
def test_autograd_on_cuda(reduce, gen):
    """scatterkit.torch: the gradients of a CUDA graph equal the CPU graph's."""
    x0, src0 = tied((5, 4), torch.float32, gen, reduce), tied((12, 4), torch.float32, gen, reduce)
    idx0 = torch.randint(0, 5, (12,), generator=gen)
    rows0 = torch.randint(0, 5, (5, 4), generator=gen)
    grads = []
    for device in ("cpu", "cuda"):
        # copies: x0.to("cpu") would be x0 itself, and its requires_grad
        # would make the CUDA copies non-leaves without a .grad
        x = x0.to(device, copy=True).requires_grad_()
        src = src0.to(device, copy=True).requires_grad_()
        out = skt.index_scatter(x, idx0.to(device), src, 0, reduce=reduce)
        feat = skt.gather(out, rows0.to(device), 0)
        (feat * torch.arange(20.0, device=device).reshape(5, 4)).sum().backward()
        grads.append((x.grad, src.grad))
    for g, c in zip(grads[1], grads[0]):
        assert g.is_cuda and torch.equal(bits(g), bits(c))


def test_gradcheck_float64_on_cuda(gen):
    x = torch.randn(4, 3, dtype=torch.float64, device="cuda", requires_grad=True)
    src = torch.randn(10, 3, dtype=torch.float64, device="cuda", requires_grad=True)
    idx = torch.randint(0, 4, (10,), generator=gen).cuda()
    assert torch.autograd.gradcheck(lambda a, b: skt.index_scatter(a, idx, b, 0, reduce="mean"),
                                    (x, src))


def test_scatter_index_errors_write_nothing():
    x = torch.arange(40, dtype=torch.float32, device="cuda").reshape(8, 5)
    src = torch.ones(6, 5, device="cuda")
    bad = torch.randint(0, 8, (6, 5), device="cuda")
    bad[4, 2] = 8
    cases = [
        (sk.scatter, (x, bad, src, 0), dict(reduce="sum")),
        (sk.index_scatter, (x, bad[:, 2].contiguous(), src, 0), dict(reduce="mean")),
        (sk.scatter_nd, (x, torch.tensor([[1], [-9]], device="cuda"), src[:2]), {}),
        (sk.scatter, (x, torch.tensor([[0, 9]], device="cuda"), src[:1, :2], 1), {}),
    ]
    for fn, args, kw in cases:
        with pytest.raises(IndexError) as e_cpu:
            fn(*[a.cpu() if isinstance(a, torch.Tensor) else a for a in args], **kw)
        out = torch.full_like(x, 7.0)
        with pytest.raises(IndexError) as e:
            fn(*args, out=out, **kw)
        assert str(e.value) == str(e_cpu.value)
        assert torch.equal(out, torch.full_like(x, 7.0))  # nothing written
        with pytest.raises(IndexError):
            fn(*args, out=x, **kw)  # in place
        assert torch.equal(x, torch.arange(40, dtype=torch.float32, device="cuda").reshape(8, 5))
    with pytest.raises(IndexError):
        sk.scatter_backward(torch.ones_like(x), x, bad, src, 0, reduce="sum")
    torch.cuda.synchronize()  # the context is usable
    good = bad.clamp(max=7)
    assert torch.equal(sk.scatter(x, good, src, 0, reduce="sum").cpu(),
                       sk.scatter(x.cpu(), good.cpu(), src.cpu(), 0, reduce="sum"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_view_mask_and_tensor_scatter_backward(dtype, gen):
    """The other backward functions on CUDA: the view scatters (a broadcast
    src summed back), masked_scatter/masked_select, tensor_scatter."""
    g = tied((6, 10), dtype, gen, "sum")
    x = tied((6, 10), dtype, gen, "sum")
    mask = torch.rand(10, generator=gen) < 0.5
    n = int(mask.sum()) * 6
    cases = [
        (sk.slice_scatter_backward, (g, x, tied((1, 4), dtype, gen, "sum"), 1, 1, 9, 2)),
        (sk.select_scatter_backward, (g, x, tied((10,), dtype, gen, "sum"), 0, 2)),
        (sk.diagonal_scatter_backward, (g, x, tied((6,), dtype, gen, "sum"), 1, 0, 1)),
        (sk.masked_scatter_backward, (g, x, mask, tied((70,), dtype, gen, "sum"))),
        (sk.masked_select_backward, (tied((n,), dtype, gen, "sum"), x, mask)),
        (sk.tensor_scatter_backward, (tied((3, 8, 2), dtype, gen, "sum"),
                                      tied((3, 8, 2), dtype, gen, "sum"),
                                      tied((3, 11, 2), dtype, gen, "sum"),
                                      torch.tensor([0, 5, 19]))),
    ]
    for fn, args in cases:
        kw = {"mode": "circular", "axis": 1} if fn is sk.tensor_scatter_backward else {}
        want = fn(*args, **kw)
        got = fn(*cuda(args), **kw)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        assert_grads(got, want)

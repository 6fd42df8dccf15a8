"""BENCH.md's GPU scatter workloads for bench/gpu_bench.py: W2-W6, W8, W13,
HOT (float32 and bfloat16) and W2x8 on CUDA tensors, scatterkit against
PyTorch CUDA in its default mode and with torch.use_deterministic_algorithms
(True), in the same run ("refused" where PyTorch has no deterministic
kernel). scatterkit's result is checked bit for bit against scatterkit's own
CPU result on the same inputs (CONTRACT section 6: the same bits on every
device), against a second GPU run (run to run), and against PyTorch's within
rounding (PyTorch's default atomics add in no fixed order)."""
import torch

import scatterkit as sk
import scatterkit.torch as skt

M = 1 << 20


def nb(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


def _rows_case(g, n, targets, dtype=torch.float32, cols=32):
    """src [n, cols], a 1-d index into `targets` rows expanded over the columns, zeros."""
    src = torch.randn(n, cols, generator=g, device="cuda").to(dtype)
    idx = torch.randint(0, targets, (n,), generator=g, device="cuda")
    return torch.zeros(targets, cols, device="cuda", dtype=dtype), idx, src


def _scatter_rows(wid, what, x0, idx, src, reduce="sum", include_self=True):
    # the index is expanded inside the calls, so that on_cpu swaps in CPU
    # tensors without materialising it
    return (wid, what, nb(src, idx, x0, x0),
            lambda: sk.scatter(x0, idx[:, None].expand(src.shape), src, 0, reduce=reduce,
                               include_self=include_self),
            lambda: x0.scatter_reduce(0, idx[:, None].expand(src.shape), src, reduce,
                                      include_self=include_self))


def _index_rows(wid, what, x, idx, u):
    return (wid, what, nb(u, idx, x, x), lambda: sk.index_scatter(x, idx, u, 0, reduce="sum"),
            lambda: x.index_add(0, idx, u))


def _w13(x0, idx, src):
    """amax forward and backward through scatterkit.torch and through torch."""
    s1, s2 = src.clone().requires_grad_(), src.clone().requires_grad_()
    grad = torch.ones_like(x0)

    def ours():
        e = idx[:, None].expand(src.shape)
        out = skt.scatter(x0, e, s1, 0, reduce="amax", include_self=False)
        out.backward(grad)
        return s1.grad

    def theirs():
        e = idx[:, None].expand(src.shape)
        out = x0.scatter_reduce(0, e, s2, "amax", include_self=False)
        out.backward(grad)
        return s2.grad

    return ("W13", "W3 amax forward + backward (grad of src)", 2 * nb(src, idx, x0), ours, theirs)


def workloads(g):
    """(id, what, bytes, scatterkit fn, torch fn) of each scatter workload."""
    out = []
    x0, idx, src = _rows_case(g, M, 100000)
    out.append(_scatter_rows("W2", "scatter sum rows f32 [1M,32] into 100k", x0, idx, src))
    for r in ("amax", "mean", "prod"):
        out.append(_scatter_rows(f"W3 {r}", f"W2 with {r}, include_self=False", x0, idx, src, r,
                                 False))
    xb, sb = x0.bfloat16(), src.bfloat16()
    out.append(_scatter_rows("W4", "W2 in bfloat16", xb, idx, sb))
    out.append(_index_rows("W5", "index_scatter sum axis 0, u f32 [1M,32] into [100k,32]", x0,
                           idx, src))
    x6 = torch.randn(64, 16384, generator=g, device="cuda")
    u6 = torch.randn(64, 65536, generator=g, device="cuda")
    i6 = torch.randint(0, 16384, (65536,), generator=g, device="cuda")
    out.append(("W6", "index_scatter sum axis 1, x f32 [64,16384], u [64,65536]",
                nb(u6, i6, x6, x6), lambda: sk.index_scatter(x6, i6, u6, 1, reduce="sum"),
                lambda: x6.index_add(1, i6, u6)))
    out.append(("W8", "scatter_nd sum, x f32 [100k,32], index [1M,1], u [1M,32]",
                nb(src, idx, x0, x0), lambda: sk.scatter_nd(x0, idx[:, None], src, reduce="sum"),
                lambda: x0.index_put((idx,), src, accumulate=True)))
    out.append(_w13(x0, idx, src))
    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        xh, ih, uh = _rows_case(g, M, 10, dtype)
        out.append(_index_rows(f"HOT {name}", f"index_scatter sum, 1M rows of 32 {name} into 10",
                               xh, ih, uh))
    x8, i8, s8 = _rows_case(g, 8 * M, 800000)
    out.append(_scatter_rows("W2x8", "W2 with 8M rows into 800k", x8, i8, s8))
    return out


def on_cpu(fn):
    """fn's scatterkit call again with every CUDA tensor it closes over on the
    CPU: the same inputs, the CPU backend (W13: the gradient)."""
    cells = fn.__closure__ or ()
    saved = [c.cell_contents for c in cells]
    try:
        for c in cells:
            v = c.cell_contents
            if isinstance(v, torch.Tensor) and v.is_cuda:
                c.cell_contents = v.detach().cpu().requires_grad_(v.requires_grad)
        return fn().cpu()
    finally:
        for c, v in zip(cells, saved):
            c.cell_contents = v


def bits(t):
    t = t.detach().cpu().contiguous().reshape(-1)
    return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def deterministic_ms(fn, timed, runs):
    """PyTorch's time with use_deterministic_algorithms(True), or None where it refuses."""
    torch.use_deterministic_algorithms(True)
    try:
        return timed(fn, runs)
    except RuntimeError:
        return None
    finally:
        torch.use_deterministic_algorithms(False)


def reset_grads(fn):
    for c in fn.__closure__ or ():
        v = c.cell_contents
        if isinstance(v, torch.Tensor) and v.grad is not None:
            v.grad = None


def check(skf, thf):
    """(bitwise equal to scatterkit's CPU result, equal run to run, close to torch)."""
    a = skf().clone()
    reset_grads(skf)
    b = skf()
    reset_grads(skf)
    cpu = on_cpu(skf)
    reset_grads(skf)
    ref = thf()
    reset_grads(thf)
    close = torch.allclose(a.float(), ref.float(), rtol=2e-2, atol=1e-2, equal_nan=True)
    return torch.equal(bits(a), bits(cpu)), torch.equal(bits(a), bits(b)), close


def run(g, runs, timed, copy):
    rows = []
    for wid, what, nbytes, skf, thf in workloads(g):
        equal_cpu, repeat, close = check(skf, thf)
        ms_sk, ms_th = timed(skf, runs), timed(thf, runs)
        ms_det = deterministic_ms(thf, timed, runs)
        rows.append(dict(id=wid, what=what, bytes=nbytes, ms_scatterkit=ms_sk, ms_torch=ms_th,
                         ms_torch_deterministic=ms_det, speedup=ms_th / ms_sk,
                         fraction=nbytes / (ms_sk * 1e-3) / 1e9 / copy, bitwise_equal=equal_cpu,
                         run_to_run=repeat, close_to_torch=close, kernel=sk.last_kernel()))
    return rows

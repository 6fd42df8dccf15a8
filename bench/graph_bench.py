#!/usr/bin/env python3
"""Graph workloads in torch_scatter's form: scatterkit.torch_scatter against
what PyG runs without torch_scatter (torch's scatter_add_ / scatter_reduce_,
torch.segment_reduce, PyG's edge-softmax composite) and against the
torch_scatter package itself where it is importable.

    python bench/graph_bench.py [--threads 2] [--repeat 7] [--only W2,gat]

Workloads (docs/BENCHMARKS.md for W2/W3/W13): W2 a message-passing sum
of 1M edge rows of 32 float32 into 100k nodes; W3 the same with mean, max
and mul; W13 the max forward and backward; argmax scatter_max (values and
argmax; PyTorch's column is the max alone, it has no argmax); gat the edge
softmax of 1M edges x 8 heads over 100k nodes, forward and forward +
backward; csr segment_csr of 1M rows of 32 into 16 segments (few, large)
with sum, mean and max. Each row: the median of --repeat runs after a warm-up, in
ms, and PyTorch's time over scatterkit's. Every result is checked against
PyTorch's once. Absolute times on a shared machine drift; compare the
columns of one run.
"""
import argparse
import statistics
import time

import torch

import scatterkit
import scatterkit.torch_scatter as ts

try:
    import torch_scatter as tsr
except Exception:  # not a dependency: the column is left empty
    tsr = None

N_EDGES, N_NODES, F, HEADS, SEGMENTS = 1 << 20, 100_000, 32, 8, 16


def timed(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def pyg_scatter(src, index, dim_size, reduce):
    """torch_geometric.utils.scatter without torch_scatter (dim 0)."""
    idx = index.view(-1, 1).expand_as(src)
    size = (dim_size, *src.shape[1:])
    if reduce == "sum":
        return src.new_zeros(size).scatter_add_(0, idx, src)
    if reduce == "mul":      # empty targets 1, as torch_scatter
        return src.new_ones(size).scatter_reduce_(0, idx, src, "prod", include_self=False)
    r = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    return src.new_zeros(size).scatter_reduce_(0, idx, src, r, include_self=False)


def pyg_softmax(src, index, n):
    """torch_geometric.utils.softmax without torch_scatter."""
    m = pyg_scatter(src.detach(), index, n, "max")
    out = (src - m.index_select(0, index)).exp()
    s = pyg_scatter(out, index, n, "sum") + 1e-16
    return out / s.index_select(0, index)


def fwd_bwd(fn, src, grad):
    """fn forward and backward (grad None: ones of the result's shape)."""
    def run():
        x = src.detach().requires_grad_()
        y = fn(x)
        y.backward(torch.ones_like(y) if grad is None else grad)
    return run


def cases():
    g = torch.Generator().manual_seed(0)
    src = torch.randn(N_EDGES, F, generator=g)
    index = torch.randint(0, N_NODES, (N_EDGES,), generator=g)
    att = torch.randn(N_EDGES, HEADS, generator=g)
    grad = torch.randn(N_EDGES, HEADS, generator=g)
    indptr = torch.linspace(0, N_EDGES, SEGMENTS + 1).long()
    yield ("W2", "sum", lambda: ts.scatter(src, index, 0, dim_size=N_NODES),
           lambda: pyg_scatter(src, index, N_NODES, "sum"),
           tsr and (lambda: tsr.scatter(src, index, 0, dim_size=N_NODES)))
    for r in ("mean", "max", "mul"):
        yield ("W3", r, lambda r=r: ts.scatter(src, index, 0, dim_size=N_NODES, reduce=r),
               lambda r=r: pyg_scatter(src, index, N_NODES, r),
               tsr and (lambda r=r: tsr.scatter(src, index, 0, dim_size=N_NODES, reduce=r)))
    yield ("W13", "max+bwd",
           fwd_bwd(lambda x: ts.scatter(x, index, 0, dim_size=N_NODES, reduce="max"), src, None),
           fwd_bwd(lambda x: pyg_scatter(x, index, N_NODES, "max"), src, None),
           tsr and fwd_bwd(lambda x: tsr.scatter(x, index, 0, dim_size=N_NODES, reduce="max"),
                           src, None))
    yield ("argmax", "scatter_max", lambda: ts.scatter_max(src, index, 0, dim_size=N_NODES)[0],
           lambda: pyg_scatter(src, index, N_NODES, "max"),
           tsr and (lambda: tsr.scatter_max(src, index, 0, dim_size=N_NODES)[0]))
    yield ("gat", "softmax", lambda: ts.scatter_softmax(att, index, 0, dim_size=N_NODES),
           lambda: pyg_softmax(att, index, N_NODES),
           tsr and (lambda: tsr.scatter_softmax(att, index, 0, dim_size=N_NODES)))
    yield ("gat", "softmax+bwd",
           fwd_bwd(lambda x: ts.scatter_softmax(x, index, 0, dim_size=N_NODES), att, grad),
           fwd_bwd(lambda x: pyg_softmax(x, index, N_NODES), att, grad),
           tsr and fwd_bwd(lambda x: tsr.scatter_softmax(x, index, 0, dim_size=N_NODES), att,
                           grad))
    for r in ("sum", "mean", "max"):
        yield ("csr", r, lambda r=r: ts.segment_csr(src, indptr, reduce=r),
               lambda r=r: _segment_reduce(src, indptr, r),
               tsr and (lambda r=r: tsr.segment_csr(src, indptr, reduce=r)))


def _segment_reduce(src, indptr, reduce):
    """PyG's fallback of segment(): torch.segment_reduce over the offsets."""
    return torch.segment_reduce(src, reduce, offsets=indptr, axis=0,
                                initial=0 if reduce == "mean" else None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default=None, help="comma-separated workload ids (W2,W3,...)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
        scatterkit.set_num_threads(args.threads)
    only = set(args.only.split(",")) if args.only else None
    print(f"threads: torch {torch.get_num_threads()}, scatterkit {scatterkit.get_num_threads()}; "
          f"torch_scatter: {'yes' if tsr else 'not installed'}")
    print(f"{'workload':<8} {'reduce':<12} {'scatterkit':>11} {'pytorch':>9} {'ratio':>6} "
          f"{'torch_scatter':>14}")
    for wid, what, sk_fn, pt_fn, tsr_fn in cases():
        if only and wid not in only:
            continue
        with torch.no_grad() if "bwd" not in what else torch.enable_grad():
            if "bwd" not in what:
                want = pt_fn()   # long float sums in another order: atol scaled
                torch.testing.assert_close(sk_fn(), want, rtol=1e-4,
                                           atol=1e-5 * max(1.0, float(want.abs().max())))
            t_sk, t_pt = timed(sk_fn, args.repeat), timed(pt_fn, args.repeat)
            t_ts = f"{timed(tsr_fn, args.repeat):14.2f}" if tsr_fn else f"{'-':>14}"
        print(f"{wid:<8} {what:<12} {t_sk:11.2f} {t_pt:9.2f} {t_pt / t_sk:6.2f} {t_ts}")


if __name__ == "__main__":
    main()

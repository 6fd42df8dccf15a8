"""Dtype and layout variants of the standard workloads: the ones issue 21
found slower than PyTorch on a 16-core machine (W1 on 1-byte data, W2 in
float64, W5 with a sorted index), and BENCH.md's HOT (W5's rows into 10
targets, float32 and bfloat16). Their rows carry `variant`; the median
speed-up stays over the standard W1-W12, every other target counts them."""
import numpy as np
import torch

from cases import Case, _gen, gather_case, nb, poison, randint, randn
from common import REDUCE, need
from workloads import WORKLOADS


def w1_small(s, dtype):
    """W1 with 1-byte elements (int8 or bool): the index is 8x the data."""
    g = _gen(1)
    R, C = 2048 // s, 4096
    if dtype == torch.bool:
        x = torch.randint(0, 2, (R, C), generator=g, dtype=torch.uint8).bool()
    else:
        x = torch.randint(-128, 128, (R, C), generator=g, dtype=torch.int16).to(dtype)
    i = randint(C, (R, C), g)
    xn, in_ = x.numpy(), i.numpy()
    name = str(dtype).replace("torch.", "")

    def skc(o):
        f = need("gather")
        return f(x, i, 1) if o is None else f(x, i, 1, out=o)
    case = gather_case("W1-" + name, "W1 in %s" % name, x, nb(x, i) + nb(x), i.numel(), skc,
                       lambda: torch.gather(x, 1, i), lambda o: torch.gather(x, 1, i, out=o),
                       (R, C), np_=lambda: np.take_along_axis(xn, in_, 1),
                       np_note="take_along_axis (allocates)")
    case.variant = True
    return case


def _sum_case(wid, desc, op, x, i, u, i_bytes, **kw):
    """A sum along axis 0 into a fresh out: scatterkit's `op` ("scatter",
    with an expanded index, or "index_scatter") against PyTorch's
    scatter_add_ or index_add_. i_bytes: the index as its bytes count."""
    o_sk, o_th = torch.empty_like(x), torch.empty_like(x)

    def skf():
        return need(op)(x, i, u, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return (o_th.scatter_add_ if op == "scatter" else o_th.index_add_)(0, i, u)
    return Case(wid, desc, REDUCE, nb(u, i_bytes) + 2 * nb(x), i.numel(), sk=skf, th=thf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), check="close",
                np_note="not timed", variant=True, **kw)


def w2_f64(s):
    """W2 in float64: 8-byte sums, twice W2's bytes."""
    g = _gen(2)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    src = randn((N, C), g, torch.float64)
    i1 = randint(T, (N,), g)
    x = torch.zeros((T, C), dtype=torch.float64)
    return _sum_case("W2-float64", "W2 in float64", "scatter", x, i1[:, None].expand(N, C), src,
                     i1, rtol=1e-10, atol=1e-12)


def w5_sorted(s):
    """W5 with its index sorted (a CSR graph's targets, a sorted batch)."""
    g = _gen(5)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    u = randn((N, C), g)
    i = randint(T, (N,), g).sort().values
    return _sum_case("W5-sorted", "W5 with a sorted index", "index_scatter", x, i, u, i)


def w5_hot(s, dtype):
    """BENCH.md's HOT on the CPU: W5's rows into 10 targets (contention)."""
    g = _gen(5)
    N, T, C = (1 << 20) // s, 10, 32
    x = torch.zeros((T, C), dtype=dtype)
    u = randn((N, C), g, dtype)
    i = randint(T, (N,), g)

    def ref():  # CONTRACT: 16-bit sums accumulate in float32, rounded once
        return x.float().index_add(0, i, u.float()).to(dtype)
    name = "HOT" if dtype == torch.float32 else "HOT-" + str(dtype).replace("torch.", "")
    return _sum_case(name, "index_scatter sum, u [%d,%d] into 10 rows" % (N, C), "index_scatter",
                     x, i, u, i, rtol=1e-3 if dtype == torch.float32 else 1.0 / 64, atol=1e-2,
                     ref=None if dtype == torch.float32 else ref)


# after each standard workload, its variants: (id, maker)
VARIANTS = {
    "W1": [("W1-int8", lambda s: w1_small(s, torch.int8)),
           ("W1-bool", lambda s: w1_small(s, torch.bool))],
    "W2": [("W2-float64", w2_f64)],
    "W5": [("W5-sorted", w5_sorted), ("HOT", lambda s: w5_hot(s, torch.float32)),
           ("HOT-bfloat16", lambda s: w5_hot(s, torch.bfloat16))],
}


def workload_makers(only=None, variants=True):
    """(group, variant id or None, maker) of every standard workload in
    order, each group followed by its variants; only: the groups to keep."""
    for group, makers in WORKLOADS:
        if only and group not in only:
            continue
        for make in makers:
            yield group, None, make
        for vid, make in VARIANTS.get(group, []) if variants else []:
            yield group, vid, make

#!/usr/bin/env python3
"""Times two builds of the library against each other in one process.

    python bench/ab_builds.py OLD.so NEW.so [--only W2,W4] [--threads 2] [--calls 30]

OLD.so and NEW.so are two builds' libraries: `libscatterkit.so` of a CMake
build, or the `_C*.so` of an installed Python package (it exports the same
C functions). Both are loaded with ctypes; each workload's inputs are built
once, and single calls of the two alternate (A B, B A, ...), so that the
phases of a shared machine, which move a workload's time by half within
minutes, fall on both alike (docs/PERF-LOG.md, 2026-11-29, thirteenth
session). Prints each build's median and fastest call, NEW over OLD, and
whether their results have the same bits. Scatter-type rows workloads only:
W2, W2-float64, W3-amax/mean/prod, W4, W5, W8, W5-sorted, HOT, HOT-bfloat16.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import torch

N, K, C = 1 << 20, 100000, 32
DTYPES = {torch.float32: 8, torch.bfloat16: 7, torch.float64: 9}
INT64 = 5
REDUCE = {"sum": 1, "prod": 2, "mean": 3, "amax": 4}
# id: (C function, dtype, reduce, include_self, expanded index)
WORKLOADS = {
    "W2": ("sk_scatter", torch.float32, "sum", True),
    "W2-float64": ("sk_scatter", torch.float64, "sum", True),
    "W3-amax": ("sk_scatter", torch.float32, "amax", False),
    "W3-mean": ("sk_scatter", torch.float32, "mean", False),
    "W3-prod": ("sk_scatter", torch.float32, "prod", False),
    "W4": ("sk_scatter", torch.bfloat16, "sum", True),
    "W5": ("sk_index_scatter", torch.float32, "sum", True),
    "W8": ("sk_scatter_nd", torch.float32, "sum", True),
    "W5-sorted": ("sk_index_scatter", torch.float32, "sum", True),
    "HOT": ("sk_index_scatter", torch.float32, "sum", True),
    "HOT-bfloat16": ("sk_index_scatter", torch.bfloat16, "sum", True),
}


def index_of(wid):
    """The workload's 1-d index: uniform over K targets, sorted (W5-sorted),
    or over 10 targets (HOT, BENCH.md's contention case)."""
    if wid.startswith("HOT"):
        return torch.randint(0, 10, (N,)), 10
    index = torch.randint(0, K, (N,))
    return (index.sort().values if wid == "W5-sorted" else index), K


class Options(ctypes.Structure):
    _fields_ = [("num_threads", ctypes.c_int32), ("flags", ctypes.c_uint32),
                ("stream", ctypes.c_void_p)]


def descriptor(lib, t, code):
    """An sk_tensor of t, filled by the library's own sk_tensor_init (a
    buffer larger than the struct)."""
    buf = ctypes.create_string_buffer(1024)
    dims = max(1, t.dim())
    shape = (ctypes.c_int64 * dims)(*t.shape)
    strides = (ctypes.c_int64 * dims)(*t.stride())
    status = lib.sk_tensor_init(buf, ctypes.c_void_p(t.data_ptr()), code, t.dim(), shape, strides)
    if status != 0:
        raise SystemExit("sk_tensor_init failed: %d" % status)
    return buf


def make_call(lib, wid, index, src, x, out, threads):
    fn, dtype, red, include_self = WORKLOADS[wid]
    code = DTYPES[dtype]
    if fn == "sk_scatter":
        index = index[:, None].expand(N, C)
    elif fn == "sk_scatter_nd":
        index = index[:, None]
    tx, ti, ts, to = (descriptor(lib, x, code), descriptor(lib, index, INT64),
                      descriptor(lib, src, code), descriptor(lib, out, code))
    opts = Options(threads, 1, None)  # SK_OPTION_FRESH_OUT, as the binding's out=None
    f = getattr(lib, fn)
    if fn == "sk_scatter_nd":
        return lambda: f(tx, ti, ts, REDUCE[red], 0, to, ctypes.byref(opts))
    return lambda: f(tx, ti, ts, 0, REDUCE[red], include_self, 0, to, ctypes.byref(opts))


def same_bits(a, b):
    return torch.equal(a.view(torch.uint8), b.view(torch.uint8))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--only", default="W2,W4,W5", help="workload ids, comma-separated")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calls", type=int, default=30, help="calls of each build per workload")
    args = ap.parse_args()
    libs = [ctypes.CDLL(os.path.abspath(p), mode=os.RTLD_LOCAL) for p in (args.old, args.new)]
    for wid in args.only.split(","):
        if wid not in WORKLOADS:
            raise SystemExit("unknown workload %s (one of %s)" % (wid, ", ".join(WORKLOADS)))
        torch.manual_seed(0)
        index, targets = index_of(wid)
        dtype = WORKLOADS[wid][1]
        src = torch.randn(N, C).to(dtype)
        x = torch.randn(targets, C).to(dtype)
        outs = [torch.empty_like(x) for _ in libs]
        calls = [make_call(lib, wid, index, src, x, o, args.threads) for lib, o in zip(libs, outs)]
        for call in calls:
            for _ in range(3):
                if call() != 0:
                    raise SystemExit("%s: the call failed" % wid)
        times = [[], []]
        for r in range(args.calls):
            for j in ((0, 1) if r % 2 == 0 else (1, 0)):
                t0 = time.perf_counter()
                calls[j]()
                times[j].append(time.perf_counter() - t0)
        med = [statistics.median(t) * 1e3 for t in times]
        low = [min(t) * 1e3 for t in times]
        print("%-11s old %7.2f ms (min %6.2f) | new %7.2f ms (min %6.2f) | new/old %.3f | "
              "same bits %s" % (wid, med[0], low[0], med[1], low[1], med[1] / med[0],
                                same_bits(outs[0], outs[1])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

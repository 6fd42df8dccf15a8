#!/usr/bin/env python3
"""Interleaved A/B of one tuning environment variable on the standard workloads.

    python bench/ab.py VAR A B [--threads 16] [--only W2,W5] [--reps 9] [--quick]

For each workload (and variant) and thread count, scatterkit runs with VAR=A
and VAR=B alternately ('-' leaves VAR unset), so that the machine's drift
falls on both alike; it prints both medians and their ratio, and checks that
both settings give the same bits. The library reads the tuning variables it
honours on every call (docs/CHOICES.md lists them); PyTorch is not timed.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
from common import set_threads  # noqa: E402
from variants import workload_makers  # noqa: E402


def set_var(var, value):
    if value == "-":
        os.environ.pop(var, None)
    else:
        os.environ[var] = value


def one_run(case, var, value):
    set_var(var, value)
    if case.prep_sk:
        case.prep_sk()
    t0 = time.perf_counter()
    r = case.sk()
    return time.perf_counter() - t0, r


def bits(r):
    """A copy of a tensor result (None for others: W13's autograd calls)."""
    return r.detach().clone() if isinstance(r, torch.Tensor) else None


def compare_case(case, var, a, b, threads, reps):
    for n in threads:
        set_threads(n)
        _, ra = one_run(case, var, a)
        ra = bits(ra)
        _, rb = one_run(case, var, b)
        same = ra is None or torch.equal(ra.view(torch.uint8), rb.view(torch.uint8))
        ta, tb = [], []
        for _ in range(reps):
            ta.append(one_run(case, var, a)[0])
            tb.append(one_run(case, var, b)[0])
        ma, mb = sorted(ta)[reps // 2] * 1e3, sorted(tb)[reps // 2] * 1e3
        print("%-10s %3d thr  %s=%s %8.3f ms  %s=%s %8.3f ms  B/A %.2f  %s" % (
            case.wid, n, var, a, ma, var, b, mb, mb / ma, "same bits" if same else "BITS DIFFER"),
            flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("var")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--threads", default="16")
    ap.add_argument("--only", default=None)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    only = {w.strip().upper() for w in args.only.split(",")} if args.only else None
    if common.sk is None:
        print("scatterkit does not import: %s" % common.SK_IMPORT_ERROR)
        return 1
    for _, _, make in workload_makers(only):
        set_threads(max(threads))
        case = make(8 if args.quick else 1)
        if case.sk is not None:
            compare_case(case, args.var, args.a, args.b, threads, args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

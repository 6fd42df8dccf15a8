#!/usr/bin/env python3
"""Runs one workload's scatterkit call (or PyTorch's) in a loop, for a profiler.

    perf record -g python bench/loop.py W6 [--threads 16] [--seconds 3] [--torch]

Prints the mean time per call. The inputs are those of bench/bench.py
(bench/workloads.py and bench/variants.py), built before the loop starts.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import set_threads  # noqa: E402
from variants import workload_makers  # noqa: E402


def find_case(wid, scale):
    """Builds only the makers that may give wid (a standard one's id starts
    with its group's)."""
    for group, vid, make in workload_makers():
        if (vid or "").upper() == wid or (vid is None and (group == wid or
                                                           wid.startswith(group + "-"))):
            case = make(scale)
            if case.wid.upper() == wid:
                return case
    raise SystemExit("no workload %s" % wid)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload", help="a workload id as bench.py prints it, e.g. W6, W3-amax")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--torch", action="store_true", help="loop PyTorch's call instead")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    set_threads(args.threads)
    case = find_case(args.workload.upper(), 8 if args.quick else 1)
    fn = case.th if args.torch else case.sk
    for _ in range(3):
        fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        fn()
        n += 1
    print("%s %s, %d threads: %.3f ms per call (%d calls)" % (
        case.wid, "torch" if args.torch else "scatterkit", args.threads,
        (time.perf_counter() - t0) / n * 1e3, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())

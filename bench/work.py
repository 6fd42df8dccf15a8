"""The work of each workload at 1, 2 and 16 threads: the process's CPU time
per scatterkit call (user + system, every thread of the process), run as a
16-core machine would split it (SCATTERKIT_CPUS=16: as many thread groups
as 16 cores take) on whatever machine this is.

On a machine with fewer cores the 16 threads take turns, so the wall time
says little; the CPU time still counts every instruction and wait of every
thread. A design whose total work does not grow with the thread count
(issue 21; BENCH.md, *Thread scaling*) keeps CPU(16) / CPU(1) near 1; one in
which each thread walks every update would be near 16. Idle threads sleep at
once (SCATTERKIT_SPIN_US=0), so their polling is not counted as work.

    python bench/work.py [--only W2,W5,...] [--calls 12] [--quick] [--cpus 16]

Prints a table: CPU ms per call at 1, 2 and 16 threads, the ratios to 1
thread, and the wall ms at 1 thread for scale. Nothing here times against
PyTorch: that is bench.py's job.
"""
import argparse
import os
import sys

if __name__ == "__main__":  # before scatterkit is imported: both are read once
    _cpus = "16"
    if "--cpus" in sys.argv[:-1]:
        _cpus = sys.argv[sys.argv.index("--cpus") + 1]
    os.environ["SCATTERKIT_CPUS"] = _cpus
    os.environ["SCATTERKIT_SPIN_US"] = "0"

import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

from common import set_threads  # noqa: E402
from variants import workload_makers  # noqa: E402

THREADS = (1, 2, 16)


def makers(only):
    """The case makers of the workloads and variants named in only (all
    when empty); W3-amax and the like name one of a group's makers, W3 all
    of them (the case's own id is checked once built)."""
    for group, vid, make in workload_makers():
        if not only or (vid in only if vid else any(w.split("-")[0] == group for w in only)):
            yield make


def cpu_per_call(case, n, calls):
    """Median CPU ms and wall ms of one call at n threads (prep excluded)."""
    set_threads(n)
    case.sk()  # warm-up: pool started, pages touched
    cpu, wall = [], []
    for _ in range(calls):
        if case.prep_sk is not None:
            case.prep_sk()
        c0, w0 = time.process_time(), time.perf_counter()
        case.sk()
        c1, w1 = time.process_time(), time.perf_counter()
        cpu.append(c1 - c0)
        wall.append(w1 - w0)
    return statistics.median(cpu) * 1e3, statistics.median(wall) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated workload ids")
    ap.add_argument("--calls", type=int, default=12)
    ap.add_argument("--quick", action="store_true", help="inputs 8x smaller")
    ap.add_argument("--cpus", default="16", help="SCATTERKIT_CPUS for the run")
    args = ap.parse_args()
    only = {w for w in args.only.split(",") if w}
    torch.set_num_threads(1)
    print("SCATTERKIT_CPUS=%s, SCATTERKIT_SPIN_US=0, %d calls per count, median CPU ms "
          "per call (every thread)" % (os.environ.get("SCATTERKIT_CPUS"), args.calls))
    head = "| workload | " + " | ".join("CPU %d thr" % n for n in THREADS)
    head += " | " + " | ".join("%d/1" % n for n in THREADS[1:]) + " | wall 1 thr |"
    print(head)
    print("|" + "---|" * (len(THREADS) * 2 + 1))
    for make in makers(only):
        case = make(8 if args.quick else 1)
        named = not only or case.wid in only or case.wid.split("-")[0] in only
        if case.sk is None or not named:
            continue
        res = {n: cpu_per_call(case, n, args.calls) for n in THREADS}
        base = max(res[1][0], 1e-6)  # process_time's resolution
        ratios = " | ".join("%.2f" % (res[n][0] / base) for n in THREADS[1:])
        print("| %s | %s | %s | %.1f |" % (
            case.wid, " | ".join("%.1f" % res[n][0] for n in THREADS), ratios, res[1][1]),
            flush=True)
        del case


if __name__ == "__main__":
    main()

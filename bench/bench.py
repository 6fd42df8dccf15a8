#!/usr/bin/env python3
"""scatterkit benchmark: the standard workloads W1-W13 of docs/BENCHMARKS.md.

    python bench/bench.py [--threads 1,2] [--quick] [--only W1,W7] [--out bench/results]

For every workload and thread count it times scatterkit, PyTorch and (where it
has the operation) NumPy on the same inputs, measures the copy bandwidth in the
same run, checks scatterkit once against PyTorch, and reports milliseconds,
GB/s, the fraction of copy bandwidth, the speed-up against PyTorch and the peak
extra memory of one scatterkit call. See bench/README.md for what is timed.
"""

import argparse
import gc
import json
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the modules beside this file

import common  # noqa: E402
from cases import GATHER_OUT  # noqa: E402
from common import SK_IMPORT_ERROR, set_threads, sk  # noqa: E402
from measure import finish_row, measure  # noqa: E402
from probe import copy_probe  # noqa: E402
from report import fmt, machine_info, plot, print_summary, print_table, summarize  # noqa: E402
from scaling import PAIRED, paired_times, print_scaling  # noqa: E402
from workloads import WORKLOADS  # noqa: E402
from variants import workload_makers  # noqa: E402


def parse_args():
    """Returns (args, threads, only); sets common.REPS and the gather mode."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default: 1, 2, 4, 8 where the "
                         "machine has them, 16 and all cores)")
    ap.add_argument("--quick", action="store_true", help="every workload ~8x smaller")
    ap.add_argument("--only", default=None, help="comma-separated workload ids, e.g. W1,W7")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"),
                    help="folder for bench.json and bench.png")
    ap.add_argument("--reps", type=int, default=common.REPS,
                    help="timed runs (>= 7 for reports)")
    ap.add_argument("--no-variants", action="store_true",
                    help="only the standard workloads, without their dtype/layout variants "
                         "(bench/variants.py)")
    ap.add_argument("--alloc", action="store_true",
                    help="time gather-type ops (W1, W7, W12) allocating their result in "
                         "both libraries even if scatterkit accepts out=")
    args = ap.parse_args()
    common.REPS = args.reps
    if args.alloc:
        GATHER_OUT["mode"] = "alloc"
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if args.threads:
        threads = [ncpu if t.strip() == "all" else int(t) for t in args.threads.split(",")]
    else:
        # BENCH.md, Thread scaling: 1, 2, 4, 8 and 16 where the machine has
        # them, and all cores; 16 always (on fewer cores it oversubscribes)
        threads = sorted({1, 2, 16, ncpu} | {n for n in (4, 8) if n <= ncpu})
    threads = sorted(set(threads))  # the paired 2/16 timing follows the largest count's row
    only = None
    if args.only:
        only = {w.strip().upper() for w in args.only.split(",")}
        unknown = only - {w for w, _ in WORKLOADS}
        if unknown:
            ap.error("unknown workloads: %s" % ", ".join(sorted(unknown)))
    args.cores = ncpu
    return args, threads, only


def start(args, threads):
    """Prints the run's header and the copy probes. Returns (info, copies)."""
    print("scatterkit benchmark: threads %s, %s size, %d runs (median) after 1 warm-up" % (
        ",".join(map(str, threads)), "quick (1/8)" if args.quick else "full", common.REPS))
    print("torch %s, numpy %s, scatterkit %s" % (
        torch.__version__, np.__version__,
        getattr(sk, "__version__", "?") if sk else "NOT IMPORTABLE (%s)" % SK_IMPORT_ERROR))
    info = machine_info(threads, args)
    print("cpu: %s, %s cores usable; gather-type ops (W1/W7/W12): %s" % (
        info["cpu_model"], info["affinity"], info["gather_type_timing"]))

    load = os.getloadavg()[0]
    info["loadavg_start"] = load
    if load > 0.5:
        print("WARNING: load average %.2f before the run: another process is using the "
              "CPU; times (2-thread ones especially) will be noisy" % load)
    copies = {n: copy_probe(n, args.quick) for n in threads}
    for n, c in copies.items():
        print("copy probe %d thr: %.2f GB/s (%s); non-temporal copy %s GB/s (%s)" % (
            n, c["gbps"], c["method"], fmt(c["nt_gbps"], ".2f"),
            c["nt_method"] if c["nt_gbps"] else c["nt_missing"]))
    return info, copies


def run_case(case, threads, quick, copies, all_rows):
    """Measures one built workload at every thread count into all_rows."""
    state = {"first_threads": threads[0], "quick": quick}
    for k, n in enumerate(threads):
        try:
            row = measure(case, n, k == 0, state, do_numpy=(k == 0))
        except Exception as e:  # never let one workload end the run
            row = {"id": case.wid, "desc": case.desc, "category": case.category,
                   "variant": case.variant,
                   "threads": n, "bytes": case.nbytes, "index_elems": case.index_elems,
                   "note": case.note, "status": "bench error",
                   "check": "ERROR (bench) %s: %s" % (type(e).__name__, e),
                   "check_detail": traceback.format_exc(), "torch_ms": None}
        finish_row(row, copies[n]["gbps"])
        all_rows.append(row)
        print("  %-7s %d thr: sk %s ms, torch %s ms, numpy %s ms  %s" % (
            row["id"], n, fmt(row.get("sk_ms"), ".2f"), fmt(row.get("torch_ms"), ".2f"),
            fmt(row.get("numpy_ms"), ".2f"), row["check"]), flush=True)
    top = all_rows[-1]
    if all(n in threads for n in PAIRED) and top.get("sk_ms") and top["threads"] == max(threads):
        try:
            paired = paired_times(case, top.get("reps") or 7)
        except Exception as e:  # the rows stand without it
            print("  %-7s paired 2/16 thr: ERROR %s: %s" % (case.wid, type(e).__name__, e))
            return
        row16 = next(r for r in all_rows if r["id"] == case.wid and r["threads"] == 16)
        row16["sk_ms_paired"] = {str(n): v for n, v in paired.items()}
        print("  %-7s paired: 2 thr %.2f ms, 16 thr %.2f ms" % (case.wid, paired[2], paired[16]))


def run_workloads(threads, only, scale, quick, copies, variants):
    all_rows = []
    for wid, _, make in workload_makers(only, variants):
        set_threads(max(threads))
        try:
            case = make(scale)
        except Exception as e:
            print("%s: could not build inputs: %s" % (wid, e))
            traceback.print_exc()
            continue
        run_case(case, threads, quick, copies, all_rows)
        del case
        gc.collect()
    return all_rows


def reprobe(copies, threads, quick):
    """Copy bandwidth again at the end: the machine drifts; keep the higher
    (the fraction of copy bandwidth is then the conservative one)."""
    for n in threads:
        c2 = copy_probe(n, quick)
        for k in ("gbps", "nt_gbps"):
            if copies[n][k] is None or c2[k] is None:
                continue
            copies[n][k + "_end"] = c2[k]
            copies[n][k + "_start"] = copies[n][k]
            copies[n][k] = max(copies[n][k], c2[k])


def write_outputs(outdir, info, copies, all_rows, summary, threads):
    data = {"machine": info, "copy_bandwidth": {str(n): c for n, c in copies.items()},
            "results": all_rows,
            "summary": {"median_speedup": {str(k): v for k, v in
                                           summary["median_speedup"].items()},
                        "geomean_speedup": {str(k): v for k, v in
                                            summary["geomean_speedup"].items()},
                        "targets": summary["targets"]}}
    jpath = outdir / "bench.json"
    with open(jpath, "w") as f:
        json.dump(data, f, indent=1, default=str)
    ppath = outdir / "bench.png"
    wrote = plot(all_rows, threads, ppath)
    print()
    print("wrote %s%s (%.0f s)" % (jpath, (" and %s" % ppath) if wrote else "", info["wall_s"]))


def main():
    args, threads, only = parse_args()
    scale = 8 if args.quick else 1
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)

    t_start = time.perf_counter()
    info, copies = start(args, threads)
    all_rows = run_workloads(threads, only, scale, args.quick, copies, not args.no_variants)
    reprobe(copies, threads, args.quick)
    for r in all_rows:
        finish_row(r, copies[r["threads"]]["gbps"])

    for n in threads:
        print_table([r for r in all_rows if r["threads"] == n], n, copies[n])
    summary = summarize(all_rows, threads, args.cores)
    scaling = print_scaling(all_rows, threads)
    if scaling:
        summary["targets"].append(scaling)
    print_summary(summary, all_rows)

    info["wall_s"] = time.perf_counter() - t_start
    info["loadavg_end"] = os.getloadavg()[0]
    write_outputs(outdir, info, copies, all_rows, summary, threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())

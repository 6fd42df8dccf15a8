"""Printed tables, the summary of the targets, the machine description and
the chart."""
import math
import os
import platform
import statistics
import sys
import time

import numpy as np
import torch

import common
from cases import sk_gather_out_ok
from common import MOVE, NP_HUGE_CALL_S, NP_SLOW_CALL_S, REDUCE, SK_IMPORT_ERROR, sk

def fmt(v, spec, dash="-"):
    return dash if v is None else format(v, spec)


def print_table(rows, n, copy):
    print()
    ends = ""
    if "gbps_start" in copy:
        ends = ", the higher of %.2f at the start and %.2f at the end" % (
            copy["gbps_start"], copy["gbps_end"])
    if copy["nt_gbps"]:
        nt = "; non-temporal copy %.2f GB/s (%s)" % (copy["nt_gbps"], copy["nt_method"])
    else:
        nt = "; no non-temporal copy: " + copy["nt_missing"]
    print("== %d thread%s | run's copy probe %.2f GB/s (%s%s)%s ==" % (
        n, "" if n == 1 else "s", copy["gbps"], copy["method"], ends, nt))
    hdr = ("workload", "thr", "sk ms", "torch ms", "numpy ms", "speed-up", "sk GB/s",
           "copy GB/s", "frac copy", "frac NT", "frac run", "extra MB", "B/idx", "check")
    w = (12, 3, 9, 9, 10, 8, 8, 9, 9, 7, 8, 8, 7, 0)
    line = lambda cols: "  ".join(  # noqa: E731
        (c.ljust(k) if i == 0 or i == len(w) - 1 else c.rjust(k))
        for i, (c, k) in enumerate(zip(cols, w))).rstrip()
    print(line(hdr))
    print(line(["-" * max(k, 5) for k in w]))
    for r in rows:
        loud = r["check"].startswith(("FAIL", "ERROR", "TORCH"))
        na = r["status"] == "n/a"
        npms = fmt(r.get("numpy_ms"), ".2f")
        if r.get("numpy_ms") is not None and r.get("numpy_reps") != common.REPS:
            npms += "*" if r.get("numpy_reps") else "~"
        cols = [r["id"], str(n),
                "n/a" if na else fmt(r.get("sk_ms"), ".2f"),
                fmt(r.get("torch_ms"), ".2f"), npms,
                fmt(r.get("speedup_vs_torch"), ".2f") + "x" if r.get("speedup_vs_torch") else "-",
                fmt(r.get("sk_gbps"), ".1f"), fmt(r.get("copy_gbps"), ".1f"),
                fmt(r.get("sk_frac_copy"), ".0%"), fmt(r.get("sk_frac_nt_copy"), ".0%"),
                fmt(r.get("sk_frac_copy_run"), ".0%"),
                fmt(r.get("extra_mb"), ".1f"), fmt(r.get("extra_bytes_per_index"), ".2f"),
                ("!!! " + r["check"] + " !!!") if loud else r["check"]]
        print(line(cols))
    print("  copy GB/s: the memcpy-style copy (PyTorch's copy_) timed in the same blocks as "
          "the workload (frac copy, the targets); frac NT: against scatterkit's non-temporal "
          "copy timed in the same blocks (stricter); frac run: against the run's probe above")
    notes = sorted({r["note"] for r in rows if r["note"]})
    if notes:
        print("  W1/W7/W12 (gather-type, return a new tensor): " + ", ".join(notes))
    if any(r.get("numpy_reps") not in (None, common.REPS) for r in rows):
        print("  numpy *: fewer runs (3, call > %.0f s); ~: one call only (> %.0f s)"
              % (NP_SLOW_CALL_S, NP_HUGE_CALL_S))
    print("  numpy is single-threaded (timed once, at the first thread count)")


def summarize(all_rows, threads, cores):
    """The medians and the targets: at 2 threads (the 2-core figures), and at
    16 threads too on a machine with 16 cores or more (BENCH.md, *Thread
    scaling*: every workload against PyTorch at 16 threads, and the fractions
    of that machine's copy bandwidth)."""
    out = {"median_speedup": {}, "targets": []}
    for n in threads:
        sp = [r["speedup_vs_torch"] for r in all_rows
              if r["threads"] == n and r.get("speedup_vs_torch") and r["id"] != "W13"
              and not r.get("variant")]
        out["median_speedup"][n] = statistics.median(sp) if sp else None
        out.setdefault("geomean_speedup", {})[n] = \
            math.exp(sum(map(math.log, sp)) / len(sp)) if sp else None
    judged = [2 if 2 in threads else max(threads)]
    if cores >= 16 and 16 in threads and judged[0] != 16:
        judged.append(16)
    for nt in judged:
        _targets_at(out, [r for r in all_rows if r["threads"] == nt], nt)
    return out


def _targets_at(out, rows, nt):
    """Appends to out["targets"] the targets judged on rows, one thread count's."""
    byid = {r["id"]: r for r in rows}

    def target(name, ids, pred, show):
        have = [i for i in ids if i in byid]
        if not have:  # none of its workloads in this run (--only)
            return
        bad = [i for i in have if not pred(byid[i])]
        missing = [i for i in have if byid[i].get("sk_ms") is None]
        holds = bool(have) and not bad
        out["targets"].append({"target": name, "threads": nt, "holds": holds,
                               "failing": bad, "not_measured": missing,
                               "values": {i: show(byid[i]) for i in have}})

    w112 = [r["id"] for r in rows if r["id"] != "W13"]
    target("every W1-W12 (and variant) faster than PyTorch", w112,
           lambda r: (r.get("speedup_vs_torch") or 0) > 1.0,
           lambda r: r.get("speedup_vs_torch"))
    target("data movement >= 60% of copy bandwidth",
           [r["id"] for r in rows if r["category"] == MOVE],
           lambda r: (r.get("sk_frac_copy") or 0) >= 0.6, lambda r: r.get("sk_frac_copy"))
    # the list: W2, W3, W5, W6, W8; bfloat16 W4 has a target of its own
    target("scatter reductions >= 40% of copy bandwidth",
           [r["id"] for r in rows if r["category"] == REDUCE and r["id"] != "W4"],
           lambda r: (r.get("sk_frac_copy") or 0) >= 0.4, lambda r: r.get("sk_frac_copy"))
    if "W2" in byid and "W4" in byid:
        w2ms = byid["W2"].get("sk_ms")
        target("bf16 W4 within 1.3x of W2", ["W4"],
               lambda r: bool(r.get("sk_ms") and w2ms and r["sk_ms"] <= 1.3 * w2ms),
               lambda r: (r["sk_ms"] / w2ms) if r.get("sk_ms") and w2ms else None)


def print_summary(summary, all_rows):
    print()
    print("== summary ==")
    for n, v in summary["median_speedup"].items():
        print("median speed-up vs torch at %d thread%s (W1-W12): %s (geomean %s)" % (
            n, "" if n == 1 else "s", fmt(v, ".2f") + "x" if v else "-",
            fmt(summary["geomean_speedup"][n], ".2f") + "x" if v else "-"))
    for t in summary["targets"]:
        state = "HOLDS" if t["holds"] else "does not hold"
        extra = ""
        if t["failing"]:
            extra = "; failing: " + ", ".join(
                "%s (%s)" % (i, fmt(t["values"][i], ".2f") if t["values"][i] is not None
                             else "n/a") for i in t["failing"])
        print("[%s] %s (at %d thread%s)%s" % (state, t["target"], t["threads"],
                                            "" if t["threads"] == 1 else "s", extra))
    bad = [r for r in all_rows if r["check"].startswith(("FAIL", "ERROR", "TORCH"))]
    if bad:
        print()
        print("!!! CHECK FAILURES / ERRORS !!!")
        for r in bad:
            print("  %s @%d thr: %s" % (r["id"], r["threads"], r["check"]))
            d = r.get("check_detail")
            if d:
                print("    " + d.strip().replace("\n", "\n    "))
    npbad = {r["id"]: r["numpy_check"] for r in all_rows
             if r.get("numpy_check") and r["numpy_check"] != "ok"}
    for k, v in npbad.items():
        print("  (numpy reference %s: %s)" % (k, v))


def machine_info(threads, args):
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu_model": cpu or platform.processor(), "cpu_count": os.cpu_count(),
            "affinity": len(os.sched_getaffinity(0)), "threads": threads,
            "python": sys.version.split()[0], "torch": torch.__version__,
            "numpy": np.__version__,
            "scatterkit": getattr(sk, "__version__", "unknown") if sk else None,
            "scatterkit_import_error": SK_IMPORT_ERROR,
            "platform": platform.platform(), "quick": args.quick, "reps": common.REPS,
            "gather_type_timing": "out= both" if sk_gather_out_ok() else "alloc both",
            "time": time.strftime("%Y-%m-%d %H:%M:%S")}


def plot(all_rows, threads, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        print("(no chart: matplotlib unavailable: %s)" % e)
        return False
    ids = []
    for r in all_rows:
        if r["id"] not in ids:
            ids.append(r["id"])
    get = {(r["id"], r["threads"]): r for r in all_rows}
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.75 * len(ids) + 3), 8), sharex=True)
    width = 0.8 / max(1, len(threads))
    xs = np.arange(len(ids))
    for k, n in enumerate(threads):
        for ax, key in ((axes[0], "speedup_vs_torch"), (axes[1], "sk_frac_copy")):
            v = [get.get((i, n), {}).get(key) for i in ids]
            v = [np.nan if x is None else x for x in v]
            ax.bar(xs + (k - (len(threads) - 1) / 2) * width, v, width,
                   label="%d thread%s" % (n, "" if n == 1 else "s"))
    axes[0].axhline(1.0, color="k", lw=1)
    axes[0].set_ylabel("speed-up vs PyTorch (x)")
    axes[0].set_title("scatterkit vs PyTorch %s (same thread count)" % torch.__version__)
    axes[0].legend()
    axes[1].axhline(0.6, color="tab:red", lw=1, ls="--", label="60% (data movement)")
    axes[1].axhline(0.4, color="tab:purple", lw=1, ls=":", label="40% (reductions)")
    axes[1].set_ylabel("fraction of copy bandwidth\n(memcpy-style: PyTorch copy_)")
    axes[1].set_xticks(xs)
    axes[1].set_xticklabels(ids, rotation=45, ha="right")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True

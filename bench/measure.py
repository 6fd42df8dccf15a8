"""One workload at one thread count: warm-up and check of every library, the
timed blocks beside the copy probes, and the derived figures of a row."""
import statistics
import time
import traceback

import numpy as np
import torch

import common
from checks import _as_list, compare, same_bits
from common import (MIB, NP_HUGE_CALL_S, NP_SLOW_CALL_S, SLOW_CALL_S, NotImplementedOp,
                    median_ms, peak_extra_bytes, run_blocks, set_threads, timed)
from probe import copy_fns


def _new_row(case, n):
    return {"id": case.wid, "desc": case.desc, "category": case.category, "threads": n,
            "variant": case.variant,
            "bytes": case.nbytes, "index_elems": case.index_elems, "note": case.note,
            "sk_ms": None, "torch_ms": None, "numpy_ms": None, "check": "", "status": "ok"}


def _warm_torch(case, row):
    """torch's warm-up call, whose result is the reference. Returns (ref,
    slow), or None after an error (recorded in row)."""
    try:
        t0 = time.perf_counter()
        _, ref = timed(case.th, case.prep_th)
        slow = time.perf_counter() - t0 > SLOW_CALL_S
    except Exception as e:
        row["status"] = "torch error"
        row["check"] = "TORCH ERROR %s: %s" % (type(e).__name__, e)
        return None
    return ref, slow


def _mark_na(row, detail):
    row["status"] = "n/a"
    row["check"] = "n/a (not implemented)"
    row["check_detail"] = detail


def _check_first(case, row, state, r, ref, ref_check):
    """The first thread count: r against the reference, and kept in state."""
    ok, detail = compare(r, ref_check, case.check, case.rtol, case.atol)
    if ok and case.sk_out is not None and not (
            isinstance(r, torch.Tensor) and r.data_ptr() == case.sk_out.data_ptr()):
        ok, detail = False, "returned a tensor that is not out= (out ignored?)"
    row["check"] = "ok" if ok else "FAIL"
    row["check_detail"] = detail
    state["sk_first"] = [t.detach().clone() if isinstance(t, torch.Tensor) else
                         np.array(t, copy=True) for t in _as_list(r)]
    if case.ref is not None:  # how far torch itself is from the reference
        _, d = compare(ref, ref_check, "close", case.rtol, case.atol)
        row["torch_vs_ref"] = d


def _check_again(row, state, r):
    """Later thread counts: the same bits as the first one."""
    same = "sk_first" in state and same_bits(r, state["sk_first"])
    row["check"] = "ok (same bits as %d thr)" % state["first_threads"] if same \
        else "FAIL (bits differ from %d thr)" % state["first_threads"]


def _warm_sk(case, row, first, state, ref, ref_check):
    """scatterkit's warm-up call, checked. Returns (ok, slow); ok is False
    when the operator is missing or failed (row says why)."""
    if case.sk_missing:
        _mark_na(row, case.sk_missing)
        return False, False
    slow = False
    try:
        t0 = time.perf_counter()
        _, r = timed(case.sk, case.prep_sk)
        slow = time.perf_counter() - t0 > SLOW_CALL_S
        if first:
            _check_first(case, row, state, r, ref, ref_check)
        else:
            _check_again(row, state, r)
        del r
    except NotImplementedOp as e:
        _mark_na(row, str(e))
        return False, slow
    except Exception as e:
        row["status"] = "sk error"
        row["check"] = "ERROR %s: %s" % (type(e).__name__, str(e).splitlines()[0][:160])
        row["check_detail"] = traceback.format_exc()
        return False, slow
    return True, slow


def _time_blocks(row, libs, reps, quick):
    """Times libs and the copy probes in the same mirrored blocks (torch,
    scatterkit, copy, nt, nt, copy, scatterkit, torch), so that the fractions
    of copy bandwidth compare times of the same phases of the shared
    machine. Returns {name: [s]}."""
    probes = copy_fns(quick)
    for k, p in probes.items():
        if p["fn"]:
            libs[k] = (p["fn"], None)
    times = run_blocks(libs, reps)
    cbytes = 2 * probes["copy"]["numel"] * 4
    row["copy_times_ms"] = [t * 1e3 for t in times["copy"]]
    row["copy_gbps_local"] = cbytes / statistics.median(times["copy"]) / 1e9
    if "nt" in times:
        row["nt_copy_times_ms"] = [t * 1e3 for t in times["nt"]]
        row["nt_copy_gbps_local"] = cbytes / statistics.median(times["nt"]) / 1e9
    row["torch_ms"] = median_ms(times["torch"])
    row["torch_times_ms"] = [t * 1e3 for t in times["torch"]]
    return times


def _record_sk(case, row, times):
    row["sk_ms"] = median_ms(times["scatterkit"])
    row["sk_times_ms"] = [t * 1e3 for t in times["scatterkit"]]
    try:
        extra = peak_extra_bytes(lambda: case.sk() if case.prep_sk is None
                                 else (case.prep_sk(), case.sk())[1], case.sk_alloc)
    except Exception:
        extra = None
    row["extra_bytes"] = extra


def _time_numpy(case, state):
    """numpy is single-threaded: timed once (at the first thread count), its
    figures kept in state and reused after."""
    try:
        dt, r = timed(case.np_, case.prep_np)
        ok, d = compare(torch.from_numpy(np.ascontiguousarray(r)), ref_for_numpy(case),
                        "exact" if case.check == "exact" else "close", 1e-4, 1e-4)
        del r
        state["numpy_check"] = "ok" if ok else "numpy differs: " + d
        if dt > NP_HUGE_CALL_S:
            state["numpy_ms"], state["numpy_reps"] = dt * 1e3, 0
        else:
            nr = 3 if dt > NP_SLOW_CALL_S else common.REPS
            ts = run_blocks({"numpy": (case.np_, case.prep_np)}, nr)["numpy"]
            state["numpy_ms"], state["numpy_reps"] = median_ms(ts), nr
    except Exception as e:
        state["numpy_ms"], state["numpy_reps"] = None, None
        state["numpy_check"] = "numpy error %s: %s" % (type(e).__name__, e)


def measure(case, n, first, state, do_numpy):
    """state carries, across thread counts: the first scatterkit result (to
    check that every thread count gives the same bits) and the numpy time."""
    set_threads(n)
    row = _new_row(case, n)
    warm = _warm_torch(case, row)
    if warm is None:
        return row
    ref, slow_th = warm
    del warm
    libs = {"torch": (case.th, case.prep_th)}
    if case.ref is not None and first:
        ref_check = case.ref()
    else:
        ref_check = ref
    sk_ok, slow_sk = _warm_sk(case, row, first, state, ref, ref_check)
    if sk_ok:
        libs["scatterkit"] = (case.sk, case.prep_sk)
    del ref, ref_check
    reps = 3 if (slow_sk or slow_th) else common.REPS
    row["reps"] = reps
    times = _time_blocks(row, libs, reps, state["quick"])
    if sk_ok:
        _record_sk(case, row, times)
    if case.np_ is not None and do_numpy:
        _time_numpy(case, state)
    if case.np_ is not None:
        row["numpy_ms"] = state.get("numpy_ms")
        row["numpy_reps"] = state.get("numpy_reps")
        row["numpy_check"] = state.get("numpy_check")
    row["numpy_note"] = case.np_note
    return row


def ref_for_numpy(case):
    """torch's result once more (numpy's check); cheap next to numpy itself."""
    r = case.th() if case.prep_th is None else (case.prep_th(), case.th())[1]
    return _as_list(r)[0].detach().clone()


def finish_row(row, run_copy_bw):
    """Fractions of the copy bandwidth: against the memcpy-style probe timed
    beside the workload (frac copy; the targets), against the
    non-temporal copy timed beside it (frac NT), and against the run's
    memcpy-style probe (the higher of its start and end figures: frac run)."""
    b = row["bytes"]
    copy_bw = row.get("copy_gbps_local") or run_copy_bw
    row["copy_gbps"] = copy_bw
    row["copy_gbps_run"] = run_copy_bw
    for lib in ("sk", "torch", "numpy"):
        ms = row.get(lib + "_ms")
        row[lib + "_gbps"] = b / (ms * 1e-3) / 1e9 if ms else None
        row[lib + "_frac_copy"] = row[lib + "_gbps"] / copy_bw if ms and copy_bw else None
        row[lib + "_frac_copy_run"] = row[lib + "_gbps"] / run_copy_bw \
            if ms and run_copy_bw else None
    nt_bw = row.get("nt_copy_gbps_local")
    row["sk_frac_nt_copy"] = row["sk_gbps"] / nt_bw if row["sk_gbps"] and nt_bw else None
    row["speedup_vs_torch"] = row["torch_ms"] / row["sk_ms"] \
        if row.get("sk_ms") and row.get("torch_ms") else None
    e = row.get("extra_bytes")
    row["extra_mb"] = e / MIB if e is not None else None
    row["extra_bytes_per_index"] = e / row["index_elems"] \
        if e is not None and row["index_elems"] else None


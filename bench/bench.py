#!/usr/bin/env python3
"""scatterkit benchmark: the standard workloads W1-W13 of BENCH.md.

    python bench/bench.py [--threads 1,2] [--quick] [--only W1,W7] [--out bench/results]

For every workload and thread count it times scatterkit, PyTorch and (where it
has the operation) NumPy on the same inputs, measures the copy bandwidth in the
same run, checks scatterkit once against PyTorch, and reports milliseconds,
GB/s, the fraction of copy bandwidth, the speed-up against PyTorch and the peak
extra memory of one scatterkit call. See bench/README.md for what is timed.
"""
import argparse
import ctypes
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import torch

try:
    import scatterkit as sk
    SK_IMPORT_ERROR = None
except Exception as e:  # the library may not be built yet: torch/numpy still run
    sk = None
    SK_IMPORT_ERROR = "%s: %s" % (type(e).__name__, e)

MIB = 1 << 20
REPS = 7                # timed runs per library (median reported), after 1 warm-up
SLOW_CALL_S = 5.0       # scatterkit/torch: a warm-up slower than this gets 3 runs
NP_SLOW_CALL_S = 1.0    # numpy: warm-up slower than this -> 3 runs ...
NP_HUGE_CALL_S = 10.0   # ... slower than this -> the warm-up time alone is reported
SENTINEL = float("nan")

MOVE = "move"       # data movement: target >= 60% of copy bandwidth
REDUCE = "reduce"   # scatter reduction: target >= 40% of copy bandwidth
OTHER = "other"     # not in the bandwidth targets (W13)


class NotImplementedOp(Exception):
    """scatterkit (or the operator / option the workload needs) is missing."""


def need(name, module=None):
    mod = sk if module is None else module
    if mod is None:
        raise NotImplementedOp("scatterkit not importable (%s)" % SK_IMPORT_ERROR)
    fn = getattr(mod, name, None)
    if fn is None:
        raise NotImplementedOp("scatterkit%s.%s missing" % (
            "" if module is None else ".torch", name))
    return fn


# ----------------------------------------------------------------------------
# process memory: peak RSS growth of one call (VmHWM reset via clear_refs)

try:
    _libc = ctypes.CDLL("libc.so.6")
except OSError:
    _libc = None


def _status_kb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def _reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_extra_bytes(fn, alloc_bytes):
    """Peak RSS growth during fn() beyond alloc_bytes (the fresh output the
    call returns, 0 when it writes into a preallocated out). None when the
    kernel does not let us reset VmHWM."""
    gc.collect()
    if sk is not None and hasattr(sk, "empty_cache"):
        sk.empty_cache()  # measure a cold call: its result's pages count as growth
    if _libc is not None:
        _libc.malloc_trim(0)  # give freed heap back so scratch shows in RSS
    if not _reset_hwm():
        return None
    before = _status_kb("VmRSS")
    r = fn()
    hwm = _status_kb("VmHWM")
    del r
    return max(0, (hwm - before) * 1024 - alloc_bytes)


# ----------------------------------------------------------------------------
# timing

def set_threads(n):
    torch.set_num_threads(n)
    if sk is not None and hasattr(sk, "set_num_threads"):
        sk.set_num_threads(n)


def timed(fn, prep):
    if prep is not None:
        prep()
    t0 = time.perf_counter()
    r = fn()
    t1 = time.perf_counter()
    return t1 - t0, r


BLOCK_PAUSE_S = 0.05


def run_blocks(libs, reps):
    """libs: {name: (fn, prep)}. Each library's runs go back to back, the way
    a program calls one operator many times, in two rounds of blocks in
    mirrored order (a a a, b b b, b b b, a a a) so that a slow phase of the
    shared machine (seen here after idle seconds: W6 of both libraries at 4
    ms instead of 2.2) is sampled by both. Alternating single runs
    (a, b, a, b) instead put every scatterkit run right after a torch run,
    while PyTorch's OpenMP workers still spin for a few milliseconds after
    each parallel call and take a core (W6 at 2 threads: 4.3 ms alone, 6.8 ms
    right after a torch op), and so does a block started right after the
    other library's block: hence the pause before each block. Returns
    {name: [s]}, at least reps per library."""
    times = {k: [] for k in libs}
    half = (reps + 1) // 2
    order = list(libs.items())
    for rnd in (order, order[::-1]):
        for k, (fn, prep) in rnd:
            # each block starts once the previous library's idle threads
            # have gone to sleep (PyTorch's spin 10-20 ms after its last
            # call; scatterkit's wait on a condition variable at once)
            time.sleep(BLOCK_PAUSE_S)
            for _ in range(half):
                dt, r = timed(fn, prep)
                del r
                times[k].append(dt)
    return times


def median_ms(ts):
    return statistics.median(ts) * 1e3 if ts else None


# ----------------------------------------------------------------------------
# checking

def _as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def compare(a, b, how, rtol=1e-4, atol=1e-5):
    """Returns (ok, detail). how: exact | close."""
    a, b = _as_list(a), _as_list(b)
    if len(a) != len(b):
        return False, "returned %d tensors, expected %d" % (len(a), len(b))
    worst = 0.0
    for k, (u, v) in enumerate(zip(a, b)):
        if not isinstance(u, torch.Tensor):
            try:
                u = torch.from_numpy(np.asarray(u))
            except Exception:
                return False, "result %d is %s, not a tensor" % (k, type(u).__name__)
        if u.shape != v.shape:
            return False, "shape %s, expected %s" % (tuple(u.shape), tuple(v.shape))
        if u.dtype != v.dtype:
            return False, "dtype %s, expected %s" % (u.dtype, v.dtype)
        if how == "exact":
            if not torch.equal(u, v):
                if u.is_floating_point() and torch.equal(torch.isnan(u), torch.isnan(v)) \
                        and torch.equal(torch.nan_to_num(u), torch.nan_to_num(v)):
                    continue
                bad = (u != v).sum().item()
                return False, "%d elements differ (exact check)" % bad
        else:
            uf, vf = u.float(), v.float()
            if not torch.allclose(uf, vf, rtol=rtol, atol=atol, equal_nan=True):
                d = (uf - vf).abs().nan_to_num(float("inf"))
                bad = (~torch.isclose(uf, vf, rtol=rtol, atol=atol, equal_nan=True)).sum().item()
                return False, "%d elements off, max |diff| %.3g (rtol %g, atol %g)" % (
                    bad, d.max().item(), rtol, atol)
            if uf.numel():
                worst = max(worst, (uf - vf).abs().nan_to_num(0).max().item())
    return True, ("max |diff| %.3g" % worst) if how != "exact" else "exact"


def same_bits(a, b):
    a, b = _as_list(a), _as_list(b)
    for u, v in zip(a, b):
        if not isinstance(u, torch.Tensor):
            u, v = torch.from_numpy(np.asarray(u)), torch.from_numpy(np.asarray(v))
        if u.shape != v.shape:
            return False
        if u.dtype.is_floating_point:
            u = u.contiguous().view(torch.int16 if u.element_size() == 2 else
                                    torch.int32 if u.element_size() == 4 else torch.int64)
            v = v.contiguous().view(u.dtype)
        if not torch.equal(u, v):
            return False
    return True


# ----------------------------------------------------------------------------
# workloads

class Case:
    """One workload, inputs built. sk/th/np_ are zero-argument callables that
    run one call; prep_* poison the preallocated outputs before each run."""

    def __init__(self, wid, desc, category, nbytes, index_elems, **kw):
        self.wid, self.desc, self.category = wid, desc, category
        self.nbytes = nbytes            # minimal bytes moved (BENCH.md rule)
        self.index_elems = index_elems  # elements of the index as passed (None: no index)
        self.sk = kw.get("sk")
        self.th = kw["th"]
        self.np_ = kw.get("np_")
        self.prep_sk = kw.get("prep_sk")
        self.prep_th = kw.get("prep_th")
        self.prep_np = kw.get("prep_np")
        self.check = kw.get("check", "exact")
        self.rtol = kw.get("rtol", 1e-4)
        self.atol = kw.get("atol", 1e-5)
        self.ref = kw.get("ref")        # reference other than torch's result
        self.sk_alloc = kw.get("sk_alloc", 0)  # bytes of fresh output per sk call
        self.note = kw.get("note", "")
        self.np_note = kw.get("np_note", "")
        self.sk_missing = kw.get("sk_missing")
        self.sk_out = kw.get("sk_out")  # the out= buffer scatterkit must write into


def poison(*ts):
    """Sets every byte of the outputs to 0xFF (NaN for floats, -1 for signed
    integers) from this thread only: a torch fill_ would wake PyTorch's
    OpenMP workers, which then spin through the next timed call."""
    def f():
        for t in ts:
            try:
                t.view(torch.uint8).numpy().fill(0xFF)
            except (RuntimeError, TypeError, ValueError):
                t.fill_(SENTINEL) if t.is_floating_point() else t.fill_(-1)
    return f


def _gen(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def randn(shape, g, dtype=torch.float32):
    return torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)


def randint(n, shape, g):
    return torch.randint(0, n, shape, generator=g, dtype=torch.int64)


def nb(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


GATHER_OUT = {"mode": "auto"}  # resolved once: out= for both libraries if sk accepts it


def sk_gather_out_ok():
    """Does scatterkit's gather/index_select accept out= (not in SPEC §2)?"""
    if GATHER_OUT["mode"] == "alloc":
        return False
    if "ok" in GATHER_OUT:
        return GATHER_OUT["ok"]
    ok = False
    if sk is not None and hasattr(sk, "gather") and hasattr(sk, "index_select"):
        try:
            x = torch.arange(6.0).reshape(2, 3)
            i = torch.tensor([[2, 0], [1, 1]])
            o = torch.full((2, 2), SENTINEL)
            r = sk.gather(x, i, 1, out=o)
            o2 = torch.full((2, 3), SENTINEL)
            r2 = sk.index_select(x, torch.tensor([1, 0]), 0, out=o2)
            ok = (torch.equal(o, torch.gather(x, 1, i)) and r is not None
                  and torch.equal(o2, x[[1, 0]]) and r2 is not None)
        except Exception:
            ok = False
    GATHER_OUT["ok"] = ok
    return ok


def gather_case(wid, desc, x, nbytes, idx_elems, sk_call, th_alloc, th_out, out_shape,
                np_=None, np_note=""):
    """Gather-type ops return a new tensor. When scatterkit takes out= we time
    both libraries writing into a preallocated, poisoned out; otherwise both
    allocate their result (first-touch page faults included, alike)."""
    if sk_gather_out_ok():
        o_sk = torch.empty(out_shape, dtype=x.dtype)
        o_th = torch.empty(out_shape, dtype=x.dtype)
        return Case(wid, desc, MOVE, nbytes, idx_elems,
                    sk=lambda: sk_call(o_sk), th=lambda: th_out(o_th),
                    prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), np_=np_,
                    np_note=np_note, note="out= both")
    alloc = math.prod(out_shape) * x.element_size()
    return Case(wid, desc, MOVE, nbytes, idx_elems, sk=lambda: sk_call(None), th=th_alloc,
                np_=np_, np_note=np_note, sk_alloc=alloc, note="alloc both")


def w1(s):
    g = _gen(1)
    R, C = 2048 // s, 4096
    x = randn((R, C), g)
    i = randint(C, (R, C), g)
    xn, in_ = x.numpy(), i.numpy()

    def skc(o):
        f = need("gather")
        return f(x, i, 1) if o is None else f(x, i, 1, out=o)
    return gather_case("W1", "gather axis 1, f32 [%d,%d], idx [%d,%d]" % (R, C, R, C), x,
                       nb(x, i) + nb(x), i.numel(), skc,
                       lambda: torch.gather(x, 1, i), lambda o: torch.gather(x, 1, i, out=o),
                       (R, C), np_=lambda: np.take_along_axis(xn, in_, 1),
                       np_note="take_along_axis (allocates)")


def _msg_inputs(s, dtype=torch.float32):
    g = _gen(2)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    src = randn((N, C), g, dtype)
    i1 = randint(T, (N,), g)
    x = torch.zeros((T, C), dtype=dtype)  # BENCH.md: scatter(zeros, ...)
    return N, T, C, x, i1, src


def w2(s):
    N, T, C, x, i1, src = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, sn, on = x.numpy(), i1.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("scatter")(x, ie, src, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_add_(0, ie, src)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, sn)
        return on
    return Case("W2", "scatter sum, src f32 [%d,%d], idx [%d] expanded, into [%d,%d]" % (
        N, C, N, T, C), REDUCE, nb(src, i1) + 2 * nb(x), ie.numel(),
        sk=skf, th=thf, np_=npf, prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
        prep_np=poison(o_np), check="close", np_note="add.at, 1-d index")


def w3(s, red):
    N, T, C, x, i1, src = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, sn, on = x.numpy(), i1.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("scatter")(x, ie, src, 0, reduce=red, include_self=False, out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_reduce_(0, ie, src, red, include_self=False)

    def npf():
        np.copyto(on, xn)
        if red == "amax":
            on[in_] = -np.inf
            np.maximum.at(on, in_, sn)
        elif red == "prod":
            on[in_] = 1
            np.multiply.at(on, in_, sn)
        else:
            on[in_] = 0
            np.add.at(on, in_, sn)
            cnt = np.bincount(in_, minlength=on.shape[0])
            m = cnt > 0
            on[m] /= cnt[m, None]
        return on
    return Case("W3-" + red, "scatter %s include_self=False, as W2" % red, REDUCE,
                nb(src, i1) + 2 * nb(x), ie.numel(), sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                check="exact" if red == "amax" else "close",
                np_note="%s.at after setting touched rows to the identity" % (
                    {"amax": "maximum", "prod": "multiply", "mean": "add"}[red]))


def w4(s):
    N, T, C, x, i1, src = _msg_inputs(s, torch.bfloat16)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th = torch.empty_like(x), torch.empty_like(x)

    def skf():
        return need("scatter")(x, ie, src, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_add_(0, ie, src)

    def ref():  # SPEC: accumulate in float32, round once
        return x.float().scatter_add(0, ie, src.float()).to(torch.bfloat16)
    return Case("W4", "W2 in bfloat16", REDUCE, nb(src, i1) + 2 * nb(x), ie.numel(),
                sk=skf, th=thf, prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
                check="close", rtol=1.0 / 64, atol=1e-3, ref=ref,
                np_note="numpy has no bfloat16")


def w5(s):
    g = _gen(5)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    u = randn((N, C), g)
    i = randint(T, (N,), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("index_scatter")(x, i, u, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_add_(0, i, u)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, un)
        return on
    return Case("W5", "index_scatter sum axis 0, u f32 [%d,%d], idx [%d] into [%d,%d]" % (
        N, C, N, T, C), REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
        prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
        check="close",
        np_note="add.at")


def w6(s):
    g = _gen(6)
    R, T, L = 64, 16384 // s, 65536 // s
    x = randn((R, T), g)
    u = randn((R, L), g)
    i = randint(T, (L,), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("index_scatter")(x, i, u, 1, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_add_(1, i, u)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, (slice(None), in_), un)
        return on
    return Case("W6", "index_scatter sum axis 1, x [%d,%d], u [%d,%d], idx [%d]" % (
        R, T, R, L, L), REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
        prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
        check="close",
        np_note="add.at with (:, idx)")


def w7(s):
    g = _gen(7)
    N, C, L = (1 << 20) // s, 32, (1 << 21) // s
    t = randn((N, C), g)
    i = randint(N, (L,), g)
    tn, in_ = t.numpy(), i.numpy()

    def skc(o):
        f = need("index_select")
        return f(t, i, 0) if o is None else f(t, i, 0, out=o)
    return gather_case("W7", "index_select rows, table f32 [%d,%d], idx [%d]" % (N, C, L), t,
                       nb(t, i) + L * C * 4, i.numel(), skc,
                       lambda: torch.index_select(t, 0, i),
                       lambda o: torch.index_select(t, 0, i, out=o), (L, C),
                       np_=lambda: np.take(tn, in_, axis=0), np_note="take (allocates)")


def w8(s):
    g = _gen(8)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    u = randn((N, C), g)
    i = randint(T, (N, 1), g)
    i0 = i[:, 0]
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i0.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("scatter_nd")(x, i, u, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_put_((i0,), u, accumulate=True)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, un)
        return on
    return Case("W8", "scatter_nd sum, x [%d,%d], idx [%d,1], u [%d,%d]" % (T, C, N, N, C),
                REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                check="close", np_note="add.at")


def w9(s):
    g = _gen(9)
    R, C = 8192 // s, 4096
    x = randn((R, C), g)
    m = torch.zeros((R, 1), dtype=torch.bool)
    m[torch.randperm(R, generator=g)[: R // 2]] = True   # exactly half the rows
    src = randn((R * C,), g)
    used = int(m.sum()) * C
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, sn, on = x.numpy(), src.numpy(), o_np.numpy()
    mfull = np.ascontiguousarray(np.broadcast_to(m.numpy(), (R, C)))

    def skf():
        return need("masked_scatter")(x, m, src, out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.masked_scatter_(m, src)

    def npf():
        np.copyto(on, xn)
        np.place(on, mfull, sn)
        return on
    return Case("W9", "masked_scatter, x f32 [%d,%d], mask [%d,1] half true" % (R, C, R),
                MOVE, 2 * nb(x) + nb(m) + used * 4, R * C, sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                np_note="place (full-size mask built outside the timing)")


def w10(s):
    g = _gen(10)
    R, C = 8192 // s, 4096
    x = randn((R, C), g)
    src = randn((R, C // 2), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, sn, on = x.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("slice_scatter")(x, src, 1, None, None, 2, out=o_sk)

    def thf():  # what torch.slice_scatter does, into a preallocated out
        o_th.copy_(x)
        o_th[:, ::2].copy_(src)
        return o_th

    def npf():
        np.copyto(on, xn)
        on[:, ::2] = sn
        return on
    return Case("W10", "slice_scatter axis 1 step 2, x f32 [%d,%d]" % (R, C), MOVE,
                2 * nb(x) + nb(src), None, sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                np_note="copy + strided assignment")


def w11(s):
    g = _gen(11)
    B, N = 64 // s, 1024
    x = randn((B, N, N), g)
    src = randn((B, N), g)
    o_sk, o_th = torch.empty_like(x), torch.empty_like(x)

    def skf():
        return need("diagonal_scatter")(x, src, 0, 1, 2, out=o_sk)

    def thf():  # what torch.diagonal_scatter does, into a preallocated out
        o_th.copy_(x)
        o_th.diagonal(0, 1, 2).copy_(src)
        return o_th
    return Case("W11", "diagonal_scatter axes 1,2, x f32 [%d,%d,%d]" % (B, N, N), MOVE,
                2 * nb(x) + nb(src), None, sk=skf, th=thf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
                np_note="no numpy equivalent")


def w12(s):
    g = _gen(12)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    i1 = randint(T, (N,), g)
    ie = i1[:, None].expand(N, C)
    xn, ien = x.numpy(), np.broadcast_to(i1.numpy()[:, None], (N, C))

    def skc(o):
        f = need("gather")
        return f(x, ie, 0) if o is None else f(x, ie, 0, out=o)
    return gather_case("W12", "edge gather axis 0, x f32 [%d,%d], idx [%d,%d] expanded" % (
        T, C, N, C), x, nb(x, i1) + N * C * 4, ie.numel(), skc,
        lambda: torch.gather(x, 0, ie), lambda o: torch.gather(x, 0, ie, out=o), (N, C),
        np_=lambda: np.take_along_axis(xn, ien, 0), np_note="take_along_axis (allocates)")


def w13(s):
    N, T, C, x0, i1, src0 = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    g = _gen(13)
    grad = randn((T, C), g)
    xs, ss = x0.clone().requires_grad_(), src0.clone().requires_grad_()
    xt, st = x0.clone().requires_grad_(), src0.clone().requires_grad_()
    skt = None
    missing = None
    if sk is None:
        missing = "scatterkit not importable (%s)" % SK_IMPORT_ERROR
    else:
        try:
            import scatterkit.torch as skt  # noqa: F811
        except Exception as e:
            missing = "scatterkit.torch: %s: %s" % (type(e).__name__, e)

    def skf():
        f = need("scatter", skt) if skt is not None else None
        if f is None:
            raise NotImplementedOp(missing)
        y = f(xs, ie, ss, 0, reduce="amax", include_self=False)
        y.backward(grad)
        return y.detach(), xs.grad, ss.grad

    def thf():
        y = torch.scatter_reduce(xt, 0, ie, st, "amax", include_self=False)
        y.backward(grad)
        return y.detach(), xt.grad, st.grad

    def clear(*ts):
        def f():
            for t in ts:
                t.grad = None
        return f
    X, S, Ib = nb(x0), nb(src0), nb(i1)
    return Case("W13", "scatter amax fwd+bwd (scatterkit.torch), as W3", OTHER,
                3 * S + 2 * Ib + 6 * X, ie.numel(), sk=skf, th=thf,
                prep_sk=clear(xs, ss), prep_th=clear(xt, st), check="close",
                sk_alloc=2 * X + S, sk_missing=missing, np_note="no autograd")


WORKLOADS = [
    ("W1", [w1]), ("W2", [w2]),
    ("W3", [lambda s: w3(s, "amax"), lambda s: w3(s, "mean"), lambda s: w3(s, "prod")]),
    ("W4", [w4]), ("W5", [w5]), ("W6", [w6]), ("W7", [w7]), ("W8", [w8]),
    ("W9", [w9]), ("W10", [w10]), ("W11", [w11]), ("W12", [w12]), ("W13", [w13]),
]


# ----------------------------------------------------------------------------
# copy bandwidth probe

PROBE = {}  # the probes' tensors and copy functions, made once (copy_fns)


def copy_fns(quick):
    """The two copies the benchmark times, of a 256 MiB float32 tensor (1/8
    with --quick); the tensors are made once. Returns {"copy": probe,
    "nt": probe}, a probe being {fn, numel, method, why}; fn is None, and
    why says why, where the binding has no scatterkit copy.
    copy: BENCH.md's "large memcpy-style copy", PyTorch's out.copy_(src)
    (ordinary stores: every destination line is read before it is written,
    as with memcpy; the issue's "about 35 GB/s"). The targets use it.
    nt: scatterkit's own parallel copy (non-temporal stores, no read of the
    destination), the fastest copy measured on this machine: a stricter
    figure, reported beside it (frac NT)."""
    if "probes" in PROBE:
        return PROBE["probes"]
    numel = (256 * MIB // 4) // (8 if quick else 1)
    g = _gen(99)
    src = torch.rand(numel, generator=g)
    out = torch.empty_like(src).fill_(SENTINEL)
    out_nt = torch.empty_like(src).fill_(SENTINEL)
    probes = {"copy": {"fn": lambda: out.copy_(src), "method": "torch out.copy_(src)",
                       "why": ""},
              "nt": {"fn": None, "method": "scatterkit._C.copy(src, out)", "why": ""}}
    skcopy = getattr(getattr(sk, "_C", None), "copy", None) if sk is not None else None
    nt = probes["nt"]
    if skcopy is not None:
        try:
            skcopy(src, out_nt)
            if torch.equal(out_nt, src):
                nt["fn"] = lambda: skcopy(src, out_nt)
            else:
                nt["why"] = "scatterkit._C.copy gave a wrong result"
        except Exception as e:
            nt["why"] = "scatterkit._C.copy failed: %s: %s" % (type(e).__name__, e)
    else:
        nt["why"] = "scatterkit not importable" if sk is None else "scatterkit._C.copy not exposed"
    for p in probes.values():
        p["numel"] = numel
    PROBE["probes"] = probes
    return probes


def copy_probe(n, quick):
    """Median time of the large contiguous float32 copies at n threads,
    counting bytes read + bytes written: {gbps, method, ..., nt_gbps}."""
    set_threads(n)
    probes = copy_fns(quick)
    libs = {k: (p["fn"], None) for k, p in probes.items() if p["fn"]}
    for fn, _ in libs.values():
        fn()
    ts = run_blocks(libs, REPS)
    c, nt = probes["copy"], probes["nt"]
    nbytes = 2 * c["numel"] * 4
    return {"threads": n, "bytes": nbytes, "ms": statistics.median(ts["copy"]) * 1e3,
            "gbps": nbytes / statistics.median(ts["copy"]) / 1e9, "method": c["method"],
            "nt_method": nt["method"], "nt_missing": nt["why"],
            "nt_gbps": nbytes / statistics.median(ts["nt"]) / 1e9 if "nt" in ts else None}


# ----------------------------------------------------------------------------
# one workload at one thread count

def measure(case, n, first, state, do_numpy):
    """state carries, across thread counts: the first scatterkit result (to
    check that every thread count gives the same bits) and the numpy time."""
    set_threads(n)
    row = {"id": case.wid, "desc": case.desc, "category": case.category, "threads": n,
           "bytes": case.nbytes, "index_elems": case.index_elems, "note": case.note,
           "sk_ms": None, "torch_ms": None, "numpy_ms": None, "check": "", "status": "ok"}
    libs = {}
    # torch: warm-up + its result (the reference)
    try:
        t0 = time.perf_counter()
        dt, ref = timed(case.th, case.prep_th)
        libs["torch"] = (case.th, case.prep_th)
        slow_th = time.perf_counter() - t0 > SLOW_CALL_S
    except Exception as e:
        row["status"] = "torch error"
        row["check"] = "TORCH ERROR %s: %s" % (type(e).__name__, e)
        return row
    if case.ref is not None and first:
        ref_check = case.ref()
    else:
        ref_check = ref
    # scatterkit: warm-up, check
    sk_ok = True
    slow_sk = False
    if case.sk_missing:
        row["status"] = "n/a"
        row["check"] = "n/a (not implemented)"
        row["check_detail"] = case.sk_missing
        sk_ok = False
    else:
        try:
            t0 = time.perf_counter()
            dt, r = timed(case.sk, case.prep_sk)
            slow_sk = time.perf_counter() - t0 > SLOW_CALL_S
            if first:
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
            else:
                same = "sk_first" in state and same_bits(r, state["sk_first"])
                row["check"] = "ok (same bits as %d thr)" % state["first_threads"] if same \
                    else "FAIL (bits differ from %d thr)" % state["first_threads"]
            del r
            libs["scatterkit"] = (case.sk, case.prep_sk)
        except NotImplementedOp as e:
            row["status"] = "n/a"
            row["check"] = "n/a (not implemented)"
            row["check_detail"] = str(e)
            sk_ok = False
        except Exception as e:
            row["status"] = "sk error"
            row["check"] = "ERROR %s: %s" % (type(e).__name__, str(e).splitlines()[0][:160])
            row["check_detail"] = traceback.format_exc()
            sk_ok = False
    del ref, ref_check
    reps = 3 if (slow_sk or slow_th) else REPS
    row["reps"] = reps
    # the copy probes run in the same mirrored blocks (torch, scatterkit,
    # copy, nt, nt, copy, scatterkit, torch), so that the fractions of copy
    # bandwidth compare times of the same phases of the shared machine
    probes = copy_fns(state["quick"])
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
    if sk_ok:
        row["sk_ms"] = median_ms(times["scatterkit"])
        row["sk_times_ms"] = [t * 1e3 for t in times["scatterkit"]]
        try:
            extra = peak_extra_bytes(lambda: case.sk() if case.prep_sk is None
                                     else (case.prep_sk(), case.sk())[1], case.sk_alloc)
        except Exception:
            extra = None
        row["extra_bytes"] = extra
    # numpy: single-threaded; timed once (at the first thread count), reused after
    if case.np_ is not None and do_numpy:
        try:
            dt, r = timed(case.np_, case.prep_np)
            ok, d = compare(torch.from_numpy(np.ascontiguousarray(r)), ref_for_numpy(case),
                            "exact" if case.check == "exact" else "close", 1e-4, 1e-4)
            del r
            state["numpy_check"] = "ok" if ok else "numpy differs: " + d
            if dt > NP_HUGE_CALL_S:
                state["numpy_ms"], state["numpy_reps"] = dt * 1e3, 0
            else:
                nr = 3 if dt > NP_SLOW_CALL_S else REPS
                ts = run_blocks({"numpy": (case.np_, case.prep_np)}, nr)["numpy"]
                state["numpy_ms"], state["numpy_reps"] = median_ms(ts), nr
        except Exception as e:
            state["numpy_ms"], state["numpy_reps"] = None, None
            state["numpy_check"] = "numpy error %s: %s" % (type(e).__name__, e)
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


# ----------------------------------------------------------------------------
# output

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
    w = (9, 3, 9, 9, 10, 8, 8, 9, 9, 7, 8, 8, 7, 0)
    line = lambda cols: "  ".join(  # noqa: E731
        (c.ljust(k) if i == 0 or i == len(w) - 1 else c.rjust(k))
        for i, (c, k) in enumerate(zip(cols, w))).rstrip()
    print(line(hdr))
    print(line(["-" * max(k, 5) for k in w]))
    for r in rows:
        loud = r["check"].startswith(("FAIL", "ERROR", "TORCH"))
        na = r["status"] == "n/a"
        npms = fmt(r.get("numpy_ms"), ".2f")
        if r.get("numpy_ms") is not None and r.get("numpy_reps") != REPS:
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
    if any(r.get("numpy_reps") not in (None, REPS) for r in rows):
        print("  numpy *: fewer runs (3, call > %.0f s); ~: one call only (> %.0f s)"
              % (NP_SLOW_CALL_S, NP_HUGE_CALL_S))
    print("  numpy is single-threaded (timed once, at the first thread count)")


def summarize(all_rows, threads):
    out = {"median_speedup": {}, "targets": []}
    for n in threads:
        sp = [r["speedup_vs_torch"] for r in all_rows
              if r["threads"] == n and r.get("speedup_vs_torch") and r["id"] != "W13"]
        out["median_speedup"][n] = statistics.median(sp) if sp else None
        out.setdefault("geomean_speedup", {})[n] = \
            math.exp(sum(map(math.log, sp)) / len(sp)) if sp else None
    nt = 2 if 2 in threads else max(threads)
    rows = [r for r in all_rows if r["threads"] == nt]
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
    target("every W1-W12 faster than PyTorch", w112,
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
    return out


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
            "platform": platform.platform(), "quick": args.quick, "reps": REPS,
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


# ----------------------------------------------------------------------------

def main():
    global REPS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default=None,
                    help="comma-separated thread counts (default: 1 and all cores)")
    ap.add_argument("--quick", action="store_true", help="every workload ~8x smaller")
    ap.add_argument("--only", default=None, help="comma-separated workload ids, e.g. W1,W7")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"),
                    help="folder for bench.json and bench.png")
    ap.add_argument("--reps", type=int, default=REPS, help="timed runs (>= 7 for reports)")
    ap.add_argument("--alloc", action="store_true",
                    help="time gather-type ops (W1, W7, W12) allocating their result in "
                         "both libraries even if scatterkit accepts out=")
    args = ap.parse_args()
    REPS = args.reps
    if args.alloc:
        GATHER_OUT["mode"] = "alloc"
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if args.threads:
        threads = [ncpu if t.strip() == "all" else int(t) for t in args.threads.split(",")]
    else:
        threads = [1] if ncpu == 1 else [1, ncpu]
    threads = list(dict.fromkeys(threads))
    only = None
    if args.only:
        only = {w.strip().upper() for w in args.only.split(",")}
        unknown = only - {w for w, _ in WORKLOADS}
        if unknown:
            ap.error("unknown workloads: %s" % ", ".join(sorted(unknown)))
    scale = 8 if args.quick else 1
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)

    t_start = time.perf_counter()
    print("scatterkit benchmark: threads %s, %s size, %d runs (median) after 1 warm-up" % (
        ",".join(map(str, threads)), "quick (1/8)" if args.quick else "full", REPS))
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

    all_rows = []
    for wid, makers in WORKLOADS:
        if only and wid not in only:
            continue
        for make in makers:
            set_threads(max(threads))
            try:
                case = make(scale)
            except Exception as e:
                print("%s: could not build inputs: %s" % (wid, e))
                traceback.print_exc()
                continue
            state = {"first_threads": threads[0], "quick": args.quick}
            for k, n in enumerate(threads):
                try:
                    row = measure(case, n, k == 0, state, do_numpy=(k == 0))
                except Exception as e:  # never let one workload end the run
                    row = {"id": case.wid, "desc": case.desc, "category": case.category,
                           "threads": n, "bytes": case.nbytes, "index_elems": case.index_elems,
                           "note": case.note, "status": "bench error",
                           "check": "ERROR (bench) %s: %s" % (type(e).__name__, e),
                           "check_detail": traceback.format_exc(), "torch_ms": None}
                finish_row(row, copies[n]["gbps"])
                all_rows.append(row)
                print("  %-7s %d thr: sk %s ms, torch %s ms, numpy %s ms  %s" % (
                    row["id"], n, fmt(row.get("sk_ms"), ".2f"), fmt(row.get("torch_ms"), ".2f"),
                    fmt(row.get("numpy_ms"), ".2f"), row["check"]), flush=True)
            del case, state
            gc.collect()

    # copy bandwidth again at the end: the machine drifts; keep the higher
    # (the fraction of copy bandwidth is then the conservative one)
    for n in threads:
        c2 = copy_probe(n, args.quick)
        for k in ("gbps", "nt_gbps"):
            if copies[n][k] is None or c2[k] is None:
                continue
            copies[n][k + "_end"] = c2[k]
            copies[n][k + "_start"] = copies[n][k]
            copies[n][k] = max(copies[n][k], c2[k])
    for r in all_rows:
        finish_row(r, copies[r["threads"]]["gbps"])

    for n in threads:
        print_table([r for r in all_rows if r["threads"] == n], n, copies[n])
    summary = summarize(all_rows, threads)
    print_summary(summary, all_rows)

    info["wall_s"] = time.perf_counter() - t_start
    info["loadavg_end"] = os.getloadavg()[0]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())

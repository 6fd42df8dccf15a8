"""Shared pieces of the benchmark: the scatterkit import, the run constants,
process memory growth of one call and the blocked timing loop."""
import ctypes
import gc
import statistics
import time

import torch

try:
    import scatterkit as sk
    SK_IMPORT_ERROR = None
except Exception as e:  # the library may not be built yet: torch/numpy still run
    sk = None
    SK_IMPORT_ERROR = "%s: %s" % (type(e).__name__, e)

MIB = 1 << 20
REPS = 7                # timed runs per library (median reported), after 1 warm-up;
                        # bench.py sets it from --reps, so read it as common.REPS
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

"""The copy bandwidth probes: the memcpy-style copy the targets use and
scatterkit's non-temporal copy."""
import statistics

import torch

import common
from cases import _gen
from common import MIB, SENTINEL, run_blocks, set_threads, sk

PROBE = {}  # the probes' tensors and copy functions, made once (copy_fns)


def copy_fns(quick):
    """The two copies the benchmark times, of a 256 MiB float32 tensor (1/8
    with --quick); the tensors are made once. Returns {"copy": probe,
    "nt": probe}, a probe being {fn, numel, method, why}; fn is None, and
    why says why, where the binding has no scatterkit copy.
    copy: docs/BENCHMARKS.md's "large memcpy-style copy", PyTorch's out.copy_(src)
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
    ts = run_blocks(libs, common.REPS)
    c, nt = probes["copy"], probes["nt"]
    nbytes = 2 * c["numel"] * 4
    return {"threads": n, "bytes": nbytes, "ms": statistics.median(ts["copy"]) * 1e3,
            "gbps": nbytes / statistics.median(ts["copy"]) / 1e9, "method": c["method"],
            "nt_method": nt["method"], "nt_missing": nt["why"],
            "nt_gbps": nbytes / statistics.median(ts["nt"]) / 1e9 if "nt" in ts else None}

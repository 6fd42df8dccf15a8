"""A built workload (Case) and the helpers the workload makers share."""
import math

import torch

from common import MOVE, SENTINEL, sk

class Case:
    """One workload, inputs built. sk/th/np_ are zero-argument callables that
    run one call; prep_* poison the preallocated outputs before each run."""

    def __init__(self, wid, desc, category, nbytes, index_elems, **kw):
        self.wid, self.desc, self.category = wid, desc, category
        self.nbytes = nbytes            # minimal bytes moved (docs/BENCHMARKS.md rule)
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
        self.variant = kw.get("variant", False)  # a dtype/layout variant (variants.py)


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
    """Does scatterkit's gather/index_select accept out= (not in CONTRACT §2)?"""
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

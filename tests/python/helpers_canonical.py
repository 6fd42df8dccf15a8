"""The canonical order of docs/CONTRACT.md written plainly, for the tests
of the paths that fold float sums, means and products: a target's rows in
position order, in chunks of 256, where two NaNs meet the running value's
kept (quieted)."""
import os

import numpy as np

import scatterkit as sk

CHUNK = 256


def with_threads(counts, call):
    """call() at each thread count: [(threads, result, kernel)]."""
    before = sk.get_num_threads()
    try:
        out = []
        for n in counts:
            sk.set_num_threads(n)
            out.append((n, call(), sk.last_kernel()))
        return out
    finally:
        sk.set_num_threads(before)


def step(a, v, prod):
    """One step of the fold with the contract's NaN rule, elementwise."""
    with np.errstate(invalid="ignore"):
        r = a * v if prod else a + v
        return np.where(np.isnan(a), a + a, r)


def canonical_rows(x, index, updates, reduce, include_self):
    """index_scatter along axis 0 in the canonical order, with the rule."""
    out = x.copy()
    prod = reduce == "prod"
    ident = np.full(x.shape[1:], 1 if prod else -0.0, x.dtype)
    for k in range(x.shape[0]):
        rows = updates[index == k]
        if len(rows) == 0:
            continue
        acc = x[k].copy() if include_self else ident.copy()
        for c in range(0, len(rows), CHUNK):
            part = acc if c == 0 else ident.copy()
            for v in rows[c:c + CHUNK]:
                part = step(part, v, prod)
            acc = part if c == 0 else step(acc, part, prod)
        if reduce == "mean":
            acc = acc / x.dtype.type(len(rows) + (1 if include_self else 0))
        out[k] = acc
    return out


def awkward_rows(rng, kind, idx, keys, reduce, mode):
    """The inputs of the tests around a plain index_scatter of rows, by
    kind: an int32 index, rows of a 3-d x ((2, 12) per row), a strided src,
    NaN/inf/-0.0 among the rows, a scatter through the index expanded over
    the columns (include_self=False); else float32 rows of 24. Returns (x,
    updates, call), call() running the library."""
    n = len(idx)
    if kind == "int32":
        idx = idx.astype(np.int32)
    shape = (2, 12) if kind == "rows_3d" else (24,)
    u = rng.standard_normal((n,) + shape).astype(np.float32)
    x = rng.standard_normal((keys,) + shape).astype(np.float32)
    if kind == "strided_src":
        u = rng.standard_normal((n, 48)).astype(np.float32)[:, :24]
    if kind == "specials":
        u[rng.integers(0, n, 40), rng.integers(0, 24, 40)] = np.nan
        u[rng.integers(0, n, 40), rng.integers(0, 24, 40)] = np.inf
        u[rng.integers(0, n, 400), rng.integers(0, 24, 400)] = -0.0
    if kind == "expanded_scatter":
        ie = np.broadcast_to(idx[:, None], (n, 24))
        return x, u, lambda: sk.scatter(x, ie, u, 0, reduce=reduce, include_self=False)
    return x, u, lambda: sk.index_scatter(x, idx, u, 0, reduce=reduce, mode=mode)


def several_cpus():
    """Whether the library counts two usable CPUs or more: its testing
    override SCATTERKIT_CPUS (docs/CHOICES.md), else the affinity mask."""
    forced = os.environ.get("SCATTERKIT_CPUS", "")
    if forced.isdigit() and int(forced) > 0:
        return int(forced) >= 2
    return len(os.sched_getaffinity(0)) >= 2


def uniform_values(rng, n_rows, n_keys, cols, dtype):
    """x [n_keys, cols] in [-1, 1) and updates [n_rows, cols] in [0.5, 1.5)."""
    upd = rng.uniform(0.5, 1.5, (n_rows, cols)).astype(dtype)
    x = rng.uniform(-1, 1, (n_keys, cols)).astype(dtype)
    return x, upd

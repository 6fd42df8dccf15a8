"""The canonical order of docs/CONTRACT.md written plainly, for the tests
of the paths that fold float sums, means and products: a target's rows in
position order, in chunks of 256, where two NaNs meet the running value's
kept (quieted)."""
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

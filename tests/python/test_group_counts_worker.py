"""The process side of test_group_counts.py: random row scatters (every
reduction, five dtypes, random, sorted, hot and few-key indices, the drop
mode, negative and int32 indices, three operators), each at 1 thread and at
2, 3, 5, 7, 16 and 64; prints one line per problem whose bits differ from 1
thread's, then "checked N". Run with SCATTERKIT_CPUS set by the parent (read
once per process), so that the thread counts take that machine's groups.
No test functions here."""
import sys

import numpy as np
import torch

import scatterkit as sk
from helpers import bits_of

THREADS = (2, 3, 5, 7, 16, 64)
DTYPES = (np.float32, np.float64, "bfloat16", "float16", np.int32)
REDUCES = ("sum", "mean", "prod", "amax", "amin", None)


def values(rng, shape, dtype):
    """In [0.5, 1.5) (products stay finite), with NaN and -0.0 now and then;
    small integers."""
    if dtype == np.int32:
        return rng.integers(-3, 4, shape).astype(np.int32)
    v = rng.uniform(0.5, 1.5, shape).astype(np.float32 if isinstance(dtype, str) else dtype)
    for special in (np.nan, -0.0):
        if v.size and rng.random() < 0.2:
            v.flat[rng.integers(0, v.size, max(1, v.size // 50))] = special
    return torch.from_numpy(v).to(getattr(torch, dtype)) if isinstance(dtype, str) else v


def index(rng, nkeys, nrows):
    kind = ("random", "sorted", "hot", "few")[rng.integers(0, 4)]
    idx = rng.integers(0, nkeys, nrows)
    if kind == "sorted":
        idx = np.sort(idx)
    elif kind == "hot":  # one target takes about 80% of the rows
        idx = np.where(rng.random(nrows) < 0.8, 0, idx)
    elif kind == "few":
        idx = rng.integers(0, min(nkeys, 3), nrows)
    mode = "error"
    if nrows and rng.random() < 0.15:
        mode = "drop"
        idx[rng.integers(0, nrows, max(1, nrows // 20))] = nkeys + 5
    if rng.random() < 0.2:
        idx = idx - nkeys * (idx < nkeys)
    if rng.random() < 0.2:
        idx = idx.astype(np.int32)
    return kind, idx, mode


def problem(rng):
    """One random problem: (description, call)."""
    dtype = DTYPES[rng.integers(0, len(DTYPES))]
    reduce = REDUCES[rng.integers(0, len(REDUCES))]
    if reduce == "prod" and dtype == np.int32:
        reduce = "sum"
    include_self = bool(rng.integers(0, 2))
    nkeys = int((1, 2, 3, 10, 64, 65, 300, 5000)[rng.integers(0, 8)])
    nrows = int((0, 1, 100, 2000, 9000, 20000, 40000, 70000)[rng.integers(0, 8)])
    cols = int((1, 3, 16, 17, 32, 33, 64)[rng.integers(0, 7)])
    kind, idx, mode = index(rng, nkeys, nrows)
    x, u = values(rng, (nkeys, cols), dtype), values(rng, (nrows, cols), dtype)
    ix = torch.from_numpy(idx) if isinstance(x, torch.Tensor) else idx
    op = ("index_scatter", "scatter", "scatter_nd")[rng.integers(0, 3)]

    def call():
        if op == "index_scatter":
            return sk.index_scatter(x, ix, u, 0, reduce=reduce, include_self=include_self,
                                    mode=mode)
        if op == "scatter":  # the index expanded over the columns
            ie = ix[:, None].expand(nrows, cols) if isinstance(ix, torch.Tensor) else \
                np.broadcast_to(idx[:, None], (nrows, cols))
            return sk.scatter(x, ie, u, 0, reduce=reduce, include_self=include_self, mode=mode)
        return sk.scatter_nd(x, ix[:, None], u, reduce=reduce, mode=mode)
    desc = (op, str(dtype), reduce, include_self, nkeys, nrows, cols, kind, mode, idx.dtype.name)
    return desc, call


def main(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        desc, call = problem(rng)
        sk.set_num_threads(1)
        want = bits_of(call())
        for n in THREADS:
            sk.set_num_threads(n)
            if not torch.equal(bits_of(call()), want):
                print("differs", desc, "threads", n, sk.last_kernel(), flush=True)
    print("checked", count)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))

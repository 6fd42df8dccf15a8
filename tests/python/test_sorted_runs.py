"""Rows scattered through a sorted index (cpu/scatter/segments_runs: each
thread folds a stretch of whole runs, one run per target): bitwise the
contract's canonical order (docs/CONTRACT.md) at every thread count, in
every float dtype, every reduction and integer dtype, around the awkward
inputs; an index that is not sorted after all, or one target holding most
rows, is declined with nothing written and the same bits."""
import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import (awkward_rows, canonical_rows, several_cpus, uniform_values,
                               with_threads)

RUNS = "cpu/scatter/segments_runs"


def sorted_case(rng, n_rows, n_keys, cols, dtype, long_key=7):
    """A sorted index into n_keys keys; key long_key gets 600 rows (three
    canonical chunks); some keys get none (the first, the last, a gap)."""
    idx = rng.integers(1, n_keys - 1, n_rows - 600)
    idx = idx[(idx < 40) | (idx > 45)]
    idx = np.sort(np.concatenate([idx, np.full(600, long_key)]))
    x, upd = uniform_values(rng, len(idx), n_keys, cols, dtype)
    return x, idx, upd


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_sorted_rows_are_canonical(dtype, reduce, include_self):
    """200 targets, 30000 rows, one target with three chunks, targets with
    none: the contract's bits at 1, 2, 3 and 16 threads, all by runs."""
    x, idx, upd = sorted_case(np.random.default_rng(11), 30000, 200, 16, dtype)
    want = canonical_rows(x, idx, upd, reduce, include_self)
    call = lambda: sk.index_scatter(x, idx, upd, 0, reduce=reduce,  # noqa: E731
                                    include_self=include_self)
    for n, got, kernel in with_threads((1, 2, 3, 16), call):
        assert kernel == RUNS, n
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), n


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_sorted_rows_16_bit(dtype, reduce, include_self):
    """16-bit rows: the canonical fold in float32, rounded once."""
    torch = pytest.importorskip("torch")
    x32, idx, upd32 = sorted_case(np.random.default_rng(12), 30000, 200, 32, np.float32)
    tdt = getattr(torch, dtype)
    upd, x = torch.from_numpy(upd32).to(tdt), torch.from_numpy(x32).to(tdt)
    if reduce == "amax":
        want = x.float().index_reduce(0, torch.from_numpy(idx), upd.float(), "amax",
                                      include_self=include_self).to(tdt)
    else:
        want = canonical_rows(x.float().numpy(), idx, upd.float().numpy(), reduce, include_self)
        want = torch.from_numpy(want).to(tdt)
    call = lambda: sk.index_scatter(x, torch.from_numpy(idx), upd, 0,  # noqa: E731
                                    reduce=reduce, include_self=include_self)
    for n, got, kernel in with_threads((1, 2, 16), call):
        assert kernel == RUNS, n
        assert torch.equal(got.view(torch.int16), want.view(torch.int16)), n


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8])
@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin", "mean"])
def test_sorted_rows_integers(dtype, reduce):
    """Integer rows (sums wrap, mean floors): NumPy's ufunc.at, exact."""
    rng = np.random.default_rng(13)
    _, idx, _ = sorted_case(rng, 20000, 100, 8, np.float32)
    upd = rng.integers(-3, 4, (len(idx), 8)).astype(dtype)
    x = rng.integers(-3, 4, (100, 8)).astype(dtype)
    acc = x.astype(np.int64)
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
             "amin": np.minimum}[reduce]
    ufunc.at(acc, idx, upd.astype(np.int64))
    if reduce == "mean":  # the floor of the wrapped sum
        acc = np.floor_divide(acc.astype(dtype).astype(np.int64),
                              np.bincount(idx, minlength=100)[:, None] + 1)
    want = acc.astype(dtype)  # the dtype's wrap
    call = lambda: sk.index_scatter(x, idx, upd, 0, reduce=reduce)  # noqa: E731
    for n, got, kernel in with_threads((1, 2), call):
        assert kernel == RUNS, n
        assert np.array_equal(got, want), n


@pytest.mark.parametrize("kind", ["negative", "clip", "drop", "int32", "rows_3d", "strided_src",
                                  "expanded_scatter", "specials"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "amax"])
def test_sorted_rows_around_the_plain_case(kind, reduce):
    """Negative values (all of them: the keys are sorted), the clip mode
    with values past the end, an int32 index, rows of a 3-d x, a strided
    src, a scatter through an expanded index, NaN/inf/-0.0 among the rows:
    the bits of the canonical order, by runs at 1, 2 and 7 threads; the
    drop mode's skipped values (declined: another path, the same bits)."""
    rng = np.random.default_rng(14)
    n, keys = 30000, 300
    idx = np.sort(rng.integers(0, keys, n))
    mode = "error"
    if kind == "negative":
        idx = idx - keys
    if kind in ("clip", "drop"):
        mode = kind
        idx[-50:] = 1000
    x, u, call = awkward_rows(rng, kind, idx, keys, reduce, mode)
    shape = x.shape[1:]
    keys_of = np.where(idx < 0, idx + keys, np.minimum(idx, keys - 1))
    rows = np.ones(n, bool) if kind != "drop" else idx < keys
    self_ = kind != "expanded_scatter"
    if reduce != "amax":
        want = canonical_rows(x, keys_of[rows], u[rows], reduce, self_)
    elif kind != "specials":  # no NaN: amax is NumPy's maximum
        want = x.copy() if self_ else np.full_like(x, -np.inf)
        np.maximum.at(want, keys_of[rows], u[rows])
        want = np.where(np.isin(np.arange(keys), keys_of[rows]).reshape((keys,) + (1,) * len(shape)),
                        want, x)
    else:
        want = None
    results = with_threads((1, 2, 7), call)
    first = results[0][1]
    for n_threads, got, kernel in results:
        assert (kernel == RUNS) == (kind != "drop"), (n_threads, kernel)
        assert np.array_equal(got.view(np.uint32), first.view(np.uint32)), n_threads
        if want is not None:
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), n_threads


def test_nearly_sorted_index_is_declined_with_the_same_bits():
    """Two neighbouring values swapped where the sample does not look: the
    path's check finds them and declines before writing; the next path
    gives the contract's bits."""
    x, idx, upd = sorted_case(np.random.default_rng(15), 30000, 200, 16, np.float32)
    at = 12347
    while idx[at - 1] == idx[at]:
        at += 1
    idx[at - 1], idx[at] = idx[at], idx[at - 1]
    want = canonical_rows(x, idx, upd, "sum", True)
    call = lambda: sk.index_scatter(x, idx, upd, 0, reduce="sum")  # noqa: E731
    for n, got, kernel in with_threads((1, 2, 16), call):
        assert kernel != RUNS, n
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), n


def test_one_target_holding_most_rows_is_declined():
    """A sorted index whose key 3 holds 70% of the rows: one thread would
    fold it while the others wait, so at 2 threads and more the path
    declines (segments_few and segments_hot split its chunks); the bits
    are the same at every count."""
    rng = np.random.default_rng(16)
    n = 40000
    idx = np.sort(np.where(rng.random(n) < 0.7, 3, rng.integers(0, 8, n)))
    x, _, u = sorted_case(rng, n, 8, 16, np.float32, long_key=3)
    u = rng.uniform(0.5, 1.5, (n, 16)).astype(np.float32)
    want = canonical_rows(x, idx, u, "sum", True)
    call = lambda: sk.index_scatter(x, idx, u, 0, reduce="sum")  # noqa: E731
    for n_threads, got, kernel in with_threads((1, 2, 16), call):
        if n_threads == 1:
            assert kernel == RUNS
        elif several_cpus():
            assert kernel != RUNS, n_threads
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), n_threads


def test_sorted_index_out_of_range_writes_nothing():
    """A value past the end among sorted ones: the error names it, and an
    out= given is left as it was (the path checks every key before it
    writes)."""
    torch = pytest.importorskip("torch")
    x, idx, upd = sorted_case(np.random.default_rng(17), 30000, 200, 16, np.float32)
    bad = torch.from_numpy(idx.copy())
    bad[-1] = 200
    out = torch.zeros(200, 16)
    for n in (1, 2):
        sk.set_num_threads(n)
        with pytest.raises(IndexError, match=r"index\[%d\] = 200" % (len(idx) - 1)):
            sk.index_scatter(torch.from_numpy(x), bad, torch.from_numpy(upd), 0, out=out)
        assert not out.any()
        with pytest.raises(IndexError, match=r"index\[%d\] = 200" % (len(idx) - 1)):
            sk.index_scatter(torch.from_numpy(x), bad, torch.from_numpy(upd), 0)

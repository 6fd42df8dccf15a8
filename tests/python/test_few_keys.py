"""Float sums, means and products of many rows into a few targets
(cpu/scatter/segments_few: each thread folds a stretch of positions, the
canonical chunks cut across the stretches): bitwise the contract's
canonical order (docs/CONTRACT.md), at every thread count, in every float
dtype, around the awkward inputs."""
import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import (awkward_rows, canonical_rows, several_cpus, uniform_values,
                               with_threads)

FEW = "cpu/scatter/segments_few"


def uniform_case(rng, n_rows, n_keys, cols, dtype):
    idx = rng.integers(0, n_keys, n_rows)
    x, upd = uniform_values(rng, n_rows, n_keys, cols, dtype)
    return x, idx, upd


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_few_keys_are_canonical(dtype, reduce, include_self):
    """3 targets, 25000 rows: each target's chunks start in every stretch
    and run on into the next; the contract's bits at 1, 2, 3 and 16
    threads, and the stretch path takes 2 threads and more (25000 rows
    make 16 stretches of 512 rows per target: 16 threads on 16 CPUs)."""
    x, idx, upd = uniform_case(np.random.default_rng(5), 25000, 3, 16, dtype)
    want = canonical_rows(x, idx, upd, reduce, include_self)
    call = lambda: sk.index_scatter(x, idx, upd, 0, reduce=reduce,  # noqa: E731
                                    include_self=include_self)
    for n, got, kernel in with_threads((1, 2, 3, 16), call):
        if n >= 2 and several_cpus():
            assert kernel == FEW, n
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), n


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_few_keys_16_bit(dtype, reduce, include_self):
    """16-bit rows: the canonical fold in float32, rounded once."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    x32, idx, upd32 = uniform_case(rng, 25000, 3, 32, np.float32)
    tdt = getattr(torch, dtype)
    upd, x = torch.from_numpy(upd32).to(tdt), torch.from_numpy(x32).to(tdt)
    want = canonical_rows(x.float().numpy(), idx, upd.float().numpy(), reduce, include_self)
    want = torch.from_numpy(want).to(tdt)
    call = lambda: sk.index_scatter(x, torch.from_numpy(idx), upd, 0,  # noqa: E731
                                    reduce=reduce, include_self=include_self)
    for n, got, kernel in with_threads((1, 2, 16), call):
        if n >= 2 and several_cpus():
            assert kernel == FEW, n
        assert torch.equal(got.view(torch.int16), want.view(torch.int16)), n


@pytest.mark.parametrize("kind", ["negative", "drop", "clip", "int32", "rows_3d", "strided_src",
                                  "expanded_scatter", "specials", "empty_key"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
def test_few_keys_around_the_plain_case(kind, reduce):
    """Negative index values, the drop and clip modes with values out of
    range, an int32 index, rows of a 3-d x, a strided src, a scatter through
    an expanded index, NaN/inf/-0.0 among the rows, a target that gets no
    row: the bits of 1 thread (segments_direct) at 2 and 7 threads."""
    rng = np.random.default_rng(7)
    n, keys = 30000, 5
    idx = rng.integers(0, keys, n)
    mode = "error"
    if kind == "negative":
        idx = idx - keys
    if kind in ("drop", "clip"):
        mode = kind
        idx[::7] = 1000
    if kind == "empty_key":
        idx[idx == 2] = 3
    x, u, call = awkward_rows(rng, kind, idx, keys, reduce, mode)
    (_, want, _), *rest = with_threads((1, 2, 7), call)
    for n_threads, got, kernel in rest:
        if several_cpus():
            assert kernel == FEW, (n_threads, kernel)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), n_threads


def test_rare_key_among_few_is_declined_with_the_same_bits():
    """One target of four gets 300 rows spread over 40000: its first chunk
    would run on over most stretches, so the path declines after its count
    (nothing written) and another path gives the contract's bits."""
    rng = np.random.default_rng(8)
    n = 40000
    idx = rng.integers(0, 3, n)
    idx[rng.choice(n, 300, replace=False)] = 3
    x, _, u = uniform_case(rng, n, 4, 16, np.float32)
    want = canonical_rows(x, idx, u, "sum", True)
    call = lambda: sk.index_scatter(x, idx, u, 0, reduce="sum")  # noqa: E731
    for n_threads, got, kernel in with_threads((2, 16), call):
        assert kernel != FEW, n_threads
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), n_threads

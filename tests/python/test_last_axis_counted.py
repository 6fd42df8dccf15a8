"""Element scatters along the last axis whose index rows are longer than a
canonical chunk (cpu/scatter/inner_elems with its counted fold): each
update is applied and its target counted in one loop; where a target of a
chunk of rows passes 256 updates the chunk gets its values from before back
and is folded in the canonical order. The bits must be those of the
canonical fold whether a target passes 256 or not, in place or into a fresh
out, at every thread count."""
import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import CHUNK, step, with_threads

THREADS = (1, 2, 3, 7)


def canonical_last_axis(x, index, src, reduce):
    """The contract's fold along the last axis (include_self), all rows at
    once, a position at a time: a target's first CHUNK updates into x's
    value, each later chunk from the identity, then into the running
    value."""
    prod = reduce == "prod"
    rows, n = x.shape
    r = np.arange(rows)
    acc = x.copy()
    ident = x.dtype.type(1 if prod else -0.0)
    part = np.full_like(x, ident)
    cnt = np.zeros(x.shape, np.int64)
    wrapped = np.where(index < 0, index + n, index)
    for j in range(index.shape[1]):
        v, s = wrapped[:, j], src[:, j]
        c = cnt[r, v]
        first = c < CHUNK
        acc[r[first], v[first]] = step(acc[r[first], v[first]], s[first], prod)
        later = ~first
        part[r[later], v[later]] = step(part[r[later], v[later]], s[later], prod)
        cnt[r, v] = c + 1
        done = later & ((c + 1) % CHUNK == 0)
        acc[r[done], v[done]] = step(acc[r[done], v[done]], part[r[done], v[done]], prod)
        part[r[done], v[done]] = ident
    tail = (cnt > CHUNK) & (cnt % CHUNK != 0)
    acc[tail] = step(acc[tail], part[tail], prod)
    return acc


def inputs(rng, dtype, index_dtype, hot, rows=64, n=1024, length=2048):
    x = rng.standard_normal((rows, n)).astype(dtype)
    src = rng.standard_normal((rows, length)).astype(dtype)
    if dtype == np.float64 or hot:
        # products of many values stay in range: near 1
        src = (1 + src / 64).astype(dtype)
    index = rng.integers(-n, n, (rows, length))
    if hot:  # row 1 sends 300 of its updates to target 5: past one chunk
        index[1, rng.choice(length, 300, replace=False)] = 5
    return x, index.astype(index_dtype), src


def same_bits(a, b):
    u = np.uint64 if a.dtype == np.float64 else np.uint32
    return np.array_equal(a.view(u), b.view(u))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("reduce", ["sum", "prod"])
@pytest.mark.parametrize("hot", [False, True])
def test_fresh_out_is_the_canonical_fold(dtype, index_dtype, reduce, hot):
    rng = np.random.default_rng(3)
    x, index, src = inputs(rng, dtype, index_dtype, hot)
    want = canonical_last_axis(x, index, src, reduce)
    runs = with_threads(THREADS, lambda: sk.scatter(x, index, src, 1, reduce=reduce))
    for threads, got, kernel in runs:
        assert kernel == "cpu/scatter/inner_elems"
        assert same_bits(got, want), (threads, kernel)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "prod"])
@pytest.mark.parametrize("hot", [False, True])
def test_in_place_is_the_canonical_fold(dtype, reduce, hot):
    """In place the chunk's values from before are saved first: a chunk
    with a target past 256 starts again from them."""
    rng = np.random.default_rng(4)
    x, index, src = inputs(rng, dtype, np.int64, hot)
    want = canonical_last_axis(x, index, src, reduce)
    for threads in THREADS:
        y = x.copy()
        before = sk.get_num_threads()
        sk.set_num_threads(threads)
        try:
            got = sk.scatter(y, index, src, 1, reduce=reduce, out=y)
        finally:
            sk.set_num_threads(before)
        assert got is y or np.shares_memory(got, y)
        assert same_bits(y, want), threads


@pytest.mark.parametrize("reduce", ["sum", "prod"])
def test_two_nans_keep_the_running_value(reduce):
    """x's NaN (payload 1) meets an update's NaN (payload 2): the running
    value's is kept, quieted; an update's NaN into a number is taken."""
    rng = np.random.default_rng(5)
    x, index, src = inputs(rng, np.float32, np.int64, False)
    x_nan = np.array([0x7F800001], np.uint32).view(np.float32)[0]
    u_nan = np.array([0x7F800002], np.uint32).view(np.float32)[0]
    x[0, 7] = x_nan
    index[0, :3] = [7, 9, 9]
    src[0, :3] = u_nan
    for threads, got, _ in with_threads(THREADS, lambda: sk.scatter(x, index, src, 1,
                                                                    reduce=reduce)):
        bits = got.view(np.uint32)
        assert bits[0, 7] == 0x7FC00001, (threads, hex(bits[0, 7]))
        assert bits[0, 9] == 0x7FC00002, (threads, hex(bits[0, 9]))
    assert same_bits(got, canonical_last_axis(x, index, src, reduce))


@pytest.mark.parametrize("in_place", [False, True])
def test_a_bad_value_is_an_error_and_writes_nothing(in_place):
    rng = np.random.default_rng(6)
    x, index, src = inputs(rng, np.float32, np.int64, False)
    index[40, 1000] = 1024  # one past the end
    y = x.copy()
    for threads in THREADS:
        before = sk.get_num_threads()
        sk.set_num_threads(threads)
        try:
            with pytest.raises((IndexError, ValueError), match="scatter"):
                sk.scatter(y, index, src, 1, reduce="sum", out=y if in_place else None)
        finally:
            sk.set_num_threads(before)
        assert same_bits(y, x), threads


def test_matches_pytorch_values():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x, index, src = inputs(rng, np.float32, np.int64, True)
    index = np.where(index < 0, index + 1024, index)
    got = sk.scatter(x, index, src, 1, reduce="sum")
    want = torch.from_numpy(x).scatter_add(1, torch.from_numpy(index), torch.from_numpy(src))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("layout", ["x_transposed", "src_strided", "index_strided"])
@pytest.mark.parametrize("hot", [False, True])
def test_other_layouts_give_the_same_bits(layout, hot):
    """x stored transposed (copied up front, not chunk by chunk), or src or
    the index with a step (the count then takes its own pass): the bits of
    the contiguous call."""
    rng = np.random.default_rng(8)
    x, index, src = inputs(rng, np.float32, np.int64, hot)
    want = canonical_last_axis(x, index, src, "sum")
    if layout == "x_transposed":
        x = np.asfortranarray(x)
    elif layout == "src_strided":
        src = np.repeat(src, 2, axis=1)[:, ::2]
    else:
        index = np.repeat(index, 2, axis=1)[:, ::2]
    for threads, got, kernel in with_threads(THREADS, lambda: sk.scatter(x, index, src, 1,
                                                                         reduce="sum")):
        assert same_bits(np.ascontiguousarray(got), want), (threads, kernel)

"""NaN bits of float reductions (docs/CHOICES.md): where two NaNs meet in a
sum or product the running value's is kept (quieted), so the bits follow
the canonical order and not the path or thread count; a 16-bit result
gets x's exact NaN bits back only when the NaN is x's. And clipped index
values count towards their target's canonical chunks."""
import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import CHUNK, canonical_rows, step, with_threads


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_two_nans_in_one_target_same_bits_at_every_thread_count(dtype, reduce, include_self):
    """-inf in a target's first chunk and +inf in its second make the
    default NaN when the chunks meet; a +NaN in a later chunk then meets it.
    Column 1 the other way round. The bits of the rule at 1 thread
    (segments_direct) and at 2, 3 and 16 (segments_few, which folds the
    later chunks into partial rows first)."""
    rng = np.random.default_rng(0)
    keys, n, cols = 3, 30000, 16
    idx = rng.integers(0, keys, n)
    x = rng.random((keys, cols)).astype(dtype)
    u = rng.random((n, cols)).astype(dtype)
    pos = np.flatnonzero(idx == 0)
    u[pos[10], 0], u[pos[300], 0], u[pos[800], 0] = -np.inf, np.inf, np.nan
    u[pos[10], 1], u[pos[300], 1], u[pos[301], 1] = np.nan, np.inf, -np.inf
    want = canonical_rows(x, idx, u, reduce, include_self)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    call = lambda: sk.index_scatter(x, idx, u, 0, reduce=reduce,  # noqa: E731
                                    include_self=include_self)
    for threads, got, kernel in with_threads((1, 2, 3, 16), call):
        assert np.array_equal(got.view(bits), want.view(bits)), (threads, kernel)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_16_bit_nan_of_an_update_is_not_replaced_by_x(dtype, reduce):
    """x = +NaN, its one update -NaN: with include_self=False the result is
    the update's NaN, with include_self=True x's (its exact bits)."""
    if dtype == "bfloat16":
        torch = pytest.importorskip("torch")
        x = torch.tensor([0x7FC0], dtype=torch.int16).view(torch.bfloat16)
        u = torch.tensor([0xFFC0 - 0x10000], dtype=torch.int16).view(torch.bfloat16)
        idx = torch.tensor([0])
        as_bits = lambda t: int(t.view(torch.int16)[0]) & 0xFFFF  # noqa: E731
        x_bits, u_bits = 0x7FC0, 0xFFC0
    else:
        x = np.array([0x7E00], np.uint16).view(np.float16)
        u = np.array([0xFE00], np.uint16).view(np.float16)
        idx = np.array([0])
        as_bits = lambda a: int(a.view(np.uint16)[0])  # noqa: E731
        x_bits, u_bits = 0x7E00, 0xFE00
    got = sk.index_scatter(x, idx, u, 0, reduce=reduce, include_self=False)
    assert as_bits(got) == u_bits
    got = sk.index_scatter(x, idx, u, 0, reduce=reduce, include_self=True)
    assert as_bits(got) == x_bits


def test_clipped_values_count_towards_the_chunks():
    """A scatter along the last axis with mode='clip' where half the values
    are past the end: the last target gets its clipped updates too, more
    than 256 in all, so its sum is folded in chunks, at every thread count
    (cpu/scatter/inner_elems counted only the values in range)."""
    rng = np.random.default_rng(0)
    n, length = 300, 35000
    x = np.zeros((2, n), np.float32)
    index = rng.integers(0, n, (2, length))
    index[:, ::2] = n + 5
    src = rng.standard_normal((2, length)).astype(np.float32)
    clipped = np.minimum(index, n - 1)
    sk.set_num_threads(3)
    try:
        want = sk.scatter(x, clipped, src, 1, reduce="sum")
        want_grad = sk.gather_backward(src, (2, n), clipped, 1)
    finally:
        sk.set_num_threads(1)
    call = lambda: (sk.scatter(x, index, src, 1, reduce="sum", mode="clip"),  # noqa: E731
                    sk.gather_backward(src, (2, n), index, 1, mode="clip"))
    for threads, (got, grad), kernel in with_threads((1, 2, 3), call):
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (threads, kernel)
        assert np.array_equal(grad.view(np.uint32), want_grad.view(np.uint32)), threads
    # the last target's sum is the canonical fold of its values in position order
    vals = src[0][clipped[0] == n - 1]
    acc = np.float32(0)
    for c in range(0, len(vals), CHUNK):
        part = acc if c == 0 else np.float32(-0.0)
        for v in vals[c:c + CHUNK]:
            part = np.float32(part + v)
        acc = part if c == 0 else np.float32(acc + part)
    assert got[0, -1].view(np.uint32) == acc.view(np.uint32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [64, 3])
def test_two_nans_along_the_last_axis_follow_the_rule(dtype, rows):
    """index_add along the last axis (cpu/scatter/inner_axis: four rows at
    once through 16-byte adds, or one at a time): -inf then +inf make the
    default NaN, a +NaN after it does not replace it."""
    rng = np.random.default_rng(1)
    x = rng.random((rows, 512)).astype(dtype)
    idx = rng.integers(0, 512, 4096)
    u = rng.random((rows, 4096)).astype(dtype)
    pos = np.flatnonzero(idx == 7)
    u[:, pos[0]], u[:, pos[1]], u[:, pos[2]] = -np.inf, np.inf, np.nan
    want = x.copy()
    for j in range(4096):  # the serial fold with the rule (no target passes 256)
        want[:, idx[j]] = step(want[:, idx[j]], u[:, j], False)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    call = lambda: sk.index_scatter(x, idx, u, 1, reduce="sum")  # noqa: E731
    for threads, got, kernel in with_threads((1, 2, 16), call):
        assert np.array_equal(got.view(bits), want.view(bits)), (threads, kernel)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_16_bit_update_nan_differing_from_x_only_in_the_quiet_bit(reduce):
    """x a signalling NaN, its one update the quiet NaN of the same payload:
    without x (include_self=False) the result is the update's; with x,
    x's bits; an untouched signalling NaN keeps its bits."""
    x = np.array([0x7D00, 0x7D01], np.uint16).view(np.float16)
    u = np.array([0x7F00], np.uint16).view(np.float16)
    got = sk.index_scatter(x, np.array([0]), u, 0, reduce=reduce, include_self=False)
    assert [int(b) for b in got.view(np.uint16)] == [0x7F00, 0x7D01]
    got = sk.index_scatter(x, np.array([0]), u, 0, reduce=reduce, include_self=True)
    assert [int(b) for b in got.view(np.uint16)] == [0x7D00, 0x7D01]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
@pytest.mark.parametrize("expanded", [False, True])
def test_signalling_nan_as_the_only_update_is_quieted(dtype, reduce, expanded):
    """include_self=False: a target's only update is folded into the
    identity, which quiets a signalling NaN, whichever path runs (a
    contiguous index and its stride-0 expansion take different ones)."""
    bits = np.uint32 if dtype == np.float32 else np.uint64
    snan = np.array([0x7F800001 if dtype == np.float32 else 0x7FF0000000000001], bits)
    quiet = snan | (0x00400000 if dtype == np.float32 else 0x0008000000000000)
    rng = np.random.default_rng(0)
    perm = rng.permutation(300)
    src = np.ones((300, 3), dtype)
    src[0, 0] = snan.view(dtype)[0]
    x = np.zeros((300, 3), dtype)
    index = np.broadcast_to(perm[:, None], (300, 3))
    if not expanded:
        index = np.ascontiguousarray(index)
    call = lambda: sk.scatter(x, index, src, 0, reduce=reduce,  # noqa: E731
                              include_self=False)
    for threads, got, kernel in with_threads((1, 2), call):
        assert got.view(bits)[perm[0], 0] == quiet[0], (threads, kernel)
    got = sk.index_scatter(x, perm, src, 0, reduce=reduce, include_self=False)
    assert got.view(bits)[perm[0], 0] == quiet[0], sk.last_kernel()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [False, True])
@pytest.mark.parametrize("expanded", [False, True])
def test_amax_amin_keep_the_first_signalling_nan_as_it_is(dtype, reduce, include_self, expanded):
    """amax/amin select, they do not fold: a target's first NaN comes out with
    its bits, a signalling one included (SPEC §2), whether it is the target's
    first update (with include_self=False, its start) or a later one. Every
    target gets two updates (positions j and 300 + j)."""
    bits = np.uint32 if dtype == np.float32 else np.uint64
    if dtype == np.float32:
        first, later = np.array([0x7FA00000, 0xFF800003], bits)
    else:
        first, later = np.array([0x7FF4000000000000, 0xFFF0000000000003], bits)
    perm = np.random.default_rng(2).permutation(300)
    src = np.ones((600, 3), dtype)
    src[0, 0] = first.view(dtype)   # the first update of target perm[0]
    src[300, 0] = later.view(dtype)  # ... and its second
    src[300, 1] = later.view(dtype)  # column 1: only the second is a NaN
    x = np.zeros((300, 3), dtype)
    index = np.broadcast_to(np.concatenate([perm, perm])[:, None], (600, 3))
    if not expanded:
        index = np.ascontiguousarray(index)
    call = lambda: sk.scatter(x, index, src, 0, reduce=reduce,  # noqa: E731
                              include_self=include_self)
    for threads, got, kernel in with_threads((1, 2, 16), call):
        row = got.view(bits)[perm[0]]
        assert (row[0], row[1]) == (first, later), (threads, kernel)

"""The canonical order of float sums, means and products (docs/CONTRACT.md):
bitwise equal to a plain fold written here from the contract, whatever the
layout of the index, the path, the size or the thread count."""

import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import several_cpus

CHUNK = 256


def canonical_fold(start, values, prod=False):
    """The contract's fold, one value after another in the working type of
    `start` (float32 or float64)."""
    t = start.dtype.type
    acc = start
    for c in range(0, len(values), CHUNK):
        part = acc if c == 0 else (t(1) if prod else t(-0.0))
        for v in values[c:c + CHUNK]:
            part = t(part * v) if prod else t(part + v)
        acc = part if c == 0 else (t(acc * part) if prod else t(acc + part))
    return acc


def reference_index_add(x, index, updates, reduce="sum", include_self=True):
    """index_scatter along axis 0 of a 2-d x, in the canonical order."""
    out = x.copy()
    for t in range(x.shape[0]):
        rows = np.nonzero(index == t)[0]
        if len(rows) == 0:
            continue
        for j in range(x.shape[1]):
            vals = updates[rows, j]
            prod = reduce == "prod"
            t0 = x.dtype.type
            start = x[t, j] if include_self else (t0(1) if prod else t0(-0.0))
            v = canonical_fold(start, vals, prod)
            if reduce == "mean":
                v = x.dtype.type(v / x.dtype.type(len(rows) + (1 if include_self else 0)))
            out[t, j] = v
    return out


def hot_index(n_rows, n_targets, rng):
    """Three rows in four go to target 0 (thousands of contributors: many chunks)."""
    idx = rng.integers(0, n_targets, n_rows)
    idx[rng.random(n_rows) < 0.75] = 0
    return idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_scatter_hot_target_is_canonical(dtype, reduce, include_self):
    rng = np.random.default_rng(7)
    idx = hot_index(3000, 20, rng)
    upd = rng.uniform(0.5, 1.5, (3000, 5)).astype(dtype)
    x = rng.uniform(-1, 1, (20, 5)).astype(dtype)
    want = reference_index_add(x, idx, upd, reduce, include_self)
    got = sk.index_scatter(x, idx, upd, 0, reduce=reduce, include_self=include_self)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_hot_key_split_among_threads_is_canonical(dtype, reduce, include_self):
    """Rows long enough for the segment engines (64 bytes), nine in ten into
    target 0: at 2 threads and more its chunks are folded on every thread
    (cpu/scatter/segments_hot) and their partials folded in order after;
    the same bits at every thread count."""
    rng = np.random.default_rng(11)
    n_rows, n_targets = 4000, 30
    idx = rng.integers(0, n_targets, n_rows)
    idx[rng.random(n_rows) < 0.9] = 0
    upd = rng.uniform(0.5, 1.5, (n_rows, 16)).astype(dtype)
    x = rng.uniform(-1, 1, (n_targets, 16)).astype(dtype)
    want = reference_index_add(x, idx, upd, reduce, include_self)
    before = sk.get_num_threads()
    try:
        for threads in (1, 2, 3, 16):
            sk.set_num_threads(threads)
            got = sk.index_scatter(x, idx, upd, 0, reduce=reduce, include_self=include_self)
            if threads >= 2 and several_cpus():
                assert sk.last_kernel() == "cpu/scatter/segments_hot"
            np.testing.assert_array_equal(got, want, err_msg="%d threads" % threads)
    finally:
        sk.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_hot_key_split_among_threads_16_bit(dtype, reduce, include_self):
    """The same in 16-bit types: the canonical fold in float32, rounded
    once, at every thread count (the hot key's chunks on every thread)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    n_rows, n_targets = 4000, 30
    idx = rng.integers(0, n_targets, n_rows)
    idx[rng.random(n_rows) < 0.9] = 0
    tdt = getattr(torch, dtype)
    upd = torch.from_numpy(rng.uniform(0.5, 1.5, (n_rows, 32)).astype(np.float32)).to(tdt)
    x = torch.from_numpy(rng.uniform(-1, 1, (n_targets, 32)).astype(np.float32)).to(tdt)
    want = reference_index_add(x.float().numpy(), idx, upd.float().numpy(), reduce,
                               include_self)
    want = torch.from_numpy(want).to(tdt)  # round to nearest even, once
    before = sk.get_num_threads()
    try:
        for threads in (1, 2, 16):
            sk.set_num_threads(threads)
            got = sk.index_scatter(x, torch.from_numpy(idx), upd, 0, reduce=reduce,
                                   include_self=include_self)
            if threads >= 2 and several_cpus():
                assert sk.last_kernel() == "cpu/scatter/segments_hot"
            assert torch.equal(got.view(torch.int16), want.view(torch.int16)), threads
    finally:
        sk.set_num_threads(before)


@pytest.mark.parametrize("kind", ["negative", "drop", "clip", "rows_3d", "strided_src",
                                  "expanded_scatter"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "prod"])
def test_hot_key_path_same_bits_as_one_thread(kind, reduce):
    """segments_hot (2 and 7 threads) against segments_direct (1 thread) on
    the inputs around the plain case: negative index values, the drop and
    clip modes with values out of range, rows of a 3-d x, a strided src, a
    scatter through an expanded index. The same bits."""
    rng = np.random.default_rng(3)
    n = 20000
    idx = rng.integers(0, 40, n)
    idx[rng.random(n) < 0.85] = 3
    mode = "error"
    if kind == "negative":
        idx = idx - 40
    if kind in ("drop", "clip"):
        mode = kind
        idx[::7] = 1000
    shape = (2, 12) if kind == "rows_3d" else (24,)
    u = rng.standard_normal((n,) + shape).astype(np.float32)
    x = rng.standard_normal((40,) + shape).astype(np.float32)
    if kind == "strided_src":
        u = rng.standard_normal((n, 48)).astype(np.float32)[:, :24]
    if kind == "expanded_scatter":
        ie = np.broadcast_to(idx[:, None], (n, 24))
        call = lambda: sk.scatter(x, ie, u, 0, reduce=reduce, include_self=False)  # noqa: E731
    else:
        call = lambda: sk.index_scatter(x, idx, u, 0, reduce=reduce, mode=mode)  # noqa: E731
    before = sk.get_num_threads()
    try:
        sk.set_num_threads(1)
        want = call()
        for threads in (2, 7):
            sk.set_num_threads(threads)
            got = call()
            if several_cpus():
                assert sk.last_kernel() == "cpu/scatter/segments_hot"
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), threads
    finally:
        sk.set_num_threads(before)


def test_serial_sum_matches_numpy_add_at():
    """At most 256 contributors per target: exactly the serial loop."""
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 5000, 200000)
    src = rng.standard_normal((200000, 8)).astype(np.float32)
    x = rng.standard_normal((5000, 8)).astype(np.float32)
    want = x.copy()
    np.add.at(want, idx, src)
    got = sk.index_scatter(x, idx, src, 0, reduce="sum")
    np.testing.assert_array_equal(got, want)


def test_expanded_and_contiguous_index_same_bits():
    rng = np.random.default_rng(2)
    idx = hot_index(20000, 50, rng)
    src = rng.standard_normal((20000, 17)).astype(np.float32)
    x = np.zeros((50, 17), np.float32)
    expanded = np.broadcast_to(idx[:, None], (20000, 17))
    a = sk.scatter(x, expanded, src, 0, reduce="sum")
    b = sk.scatter(x, np.ascontiguousarray(expanded), src, 0, reduce="sum")
    c = sk.index_scatter(x, idx, src, 0, reduce="sum")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("threads", [1, 2, 3, 7, 16, 64])
def test_same_bits_at_every_thread_count(threads):
    rng = np.random.default_rng(3)
    idx = hot_index(40000, 300, rng)
    src = rng.standard_normal((40000, 9)).astype(np.float32)
    x = rng.standard_normal((300, 9)).astype(np.float32)
    before = sk.get_num_threads()
    try:
        sk.set_num_threads(1)
        want = sk.index_scatter(x, idx, src, 0, reduce="sum")
        sk.set_num_threads(threads)
        got = sk.index_scatter(x, idx, src, 0, reduce="sum")
    finally:
        sk.set_num_threads(before)
    np.testing.assert_array_equal(got, want)


def test_inner_axis_with_repeated_values_is_canonical():
    """index_add along the last axis with one value repeated 600 times."""
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 40, 2000)
    idx[:600] = 3
    upd = rng.standard_normal((6, 2000)).astype(np.float32)
    x = rng.standard_normal((6, 40)).astype(np.float32)
    got = sk.index_scatter(x, idx, upd, 1, reduce="sum")
    want = reference_index_add(x.T.copy(), idx, upd.T.copy()).T
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2, 7])
@pytest.mark.parametrize("hits", [256, 257, 400])
def test_inner_axis_hot_target_spread_over_the_index(threads, hits):
    """A target hit `hits` times, spread evenly over a shared index long
    enough to be counted on several threads (2**15 entries and more): every
    part of the index counted alone stays under a chunk, the whole does not
    (from 257), so the parts' counts must be added up."""
    rng = np.random.default_rng(hits)
    n, length = 20000, (1 << 20) + 1000  # about 50 updates per other target
    idx = rng.integers(4, n, length)
    hot = np.linspace(0, length - 1, hits).astype(np.int64)
    idx[hot] = 3
    upd = rng.standard_normal((2, length)).astype(np.float32)
    x = rng.standard_normal((2, n)).astype(np.float32)
    want = x.copy()
    np.add.at(want, (slice(None), idx), upd)  # in index order: the canonical fold up to 256
    for r in range(2):
        want[r, 3] = canonical_fold(x[r, 3], upd[r, hot])
    before = sk.get_num_threads()
    sk.set_num_threads(threads)
    try:
        got = sk.index_scatter(x, idx, upd, 1, reduce="sum")
        if hits == 256:  # the shared-index path takes it at once (it declines above 256)
            assert sk.last_kernel() == "cpu/scatter/inner_axis"
    finally:
        sk.set_num_threads(before)
    np.testing.assert_array_equal(got, want)


def test_gather_backward_sums_are_canonical():
    """grad_x of a gather is a scatter-sum of grad_out: the same order."""
    torch = pytest.importorskip("torch")
    import scatterkit.torch as skt
    rng = np.random.default_rng(5)
    idx = hot_index(5000, 10, rng)
    x = torch.zeros(10, 3, dtype=torch.float64, requires_grad=True)
    g = rng.standard_normal((5000, 3))
    out = skt.index_select(x, torch.from_numpy(idx), 0)
    out.backward(torch.from_numpy(g))
    want = reference_index_add(np.zeros((10, 3)), idx, g)
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_masked_select_backward_folds_true_positions(dtype):
    """x (40,) broadcast over a (700, 40) mask: grad_x[e] folds grad_out at
    the True positions of column e in order, chunked by 256 of them (a
    False position contributes nothing): columns all True, none, True only
    past row 300, and about 60% True (about 420 contributors, so the chunks
    of True positions and of rows differ). Also into a strided grad_x (a
    row-major copy summed, then copied) and at 1, 2, 3 and 16 threads."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(21)
    mask = rng.random((700, 40)) < 0.6
    mask[:, 0], mask[:, 1], mask[:300, 2], mask[300:, 2] = True, False, False, True
    acc = np.float64 if dtype == "float64" else np.float32
    g32 = rng.uniform(-1, 1, int(mask.sum())).astype(acc)
    g = torch.from_numpy(g32).to(getattr(torch, dtype))
    values = g.to(torch.float64).numpy().astype(acc)  # exact: 16-bit values widen
    cols = np.nonzero(mask)[1]  # each True position's x element, row-major order
    want = np.array([canonical_fold(acc(0.0), values[cols == e]) for e in range(40)], acc)
    want = torch.from_numpy(want).to(getattr(torch, dtype))
    m = torch.from_numpy(mask)
    before = sk.get_num_threads()
    try:
        for n in (1, 2, 3, 16):
            sk.set_num_threads(n)
            got = sk.masked_select_backward(g, (40,), m)
            assert torch.equal(got.view(-1), want), n
            strided = torch.full((80,), 7.0, dtype=got.dtype)[::2]
            sk.masked_select_backward(g, (40,), m, grad_x=strided)
            assert torch.equal(strided, want), n
    finally:
        sk.set_num_threads(before)
    assert (mask[:, 0].sum(), mask[:, 2].sum()) == (700, 400)  # past one chunk either way


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_fold_in_float32(dtype):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dtype)
    rng = np.random.default_rng(6)
    idx = hot_index(4000, 8, rng)
    upd = torch.from_numpy(rng.uniform(-1, 1, (4000, 4)).astype(np.float32)).to(tdt)
    x = torch.from_numpy(rng.uniform(-1, 1, (8, 4)).astype(np.float32)).to(tdt)
    want32 = reference_index_add(x.float().numpy(), idx, upd.float().numpy())
    want = torch.from_numpy(want32).to(tdt)
    got = sk.index_scatter(x, torch.from_numpy(idx), upd, 0, reduce="sum")
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("expanded", [False, True])
def test_half_rows_start_from_x_in_float32(dtype, expanded):
    """W4's pattern (64-byte rows, include_self, the working rows filled from
    x before the fold), with targets no row reaches: each target x's value
    in float32 folded with its rows in order, rounded once; an untouched
    target keeps x's bits. At 1, 2 and 3 threads."""
    torch = pytest.importorskip("torch")
    from helpers_canonical import canonical_rows, with_threads
    tdt = getattr(torch, dtype)
    rng = np.random.default_rng(7)
    n_rows, n_keys = 12000, 1500
    idx = rng.integers(0, n_keys, n_rows)
    idx[idx % 7 == 3] = 0  # targets 3, 10, 17, ... get no rows
    upd = torch.from_numpy(rng.uniform(-1, 1, (n_rows, 32)).astype(np.float32)).to(tdt)
    x = torch.from_numpy(rng.uniform(-4, 4, (n_keys, 32)).astype(np.float32)).to(tdt)
    want = torch.from_numpy(canonical_rows(x.float().numpy(), idx, upd.float().numpy(), "sum",
                                           True)).to(tdt)
    i = torch.from_numpy(idx)
    if expanded:
        call = lambda: sk.scatter(x, i[:, None].expand(n_rows, 32), upd, 0,  # noqa: E731
                                  reduce="sum")
    else:
        call = lambda: sk.index_scatter(x, i, upd, 0, reduce="sum")  # noqa: E731
    for n, got, kernel in with_threads((1, 2, 3), call):
        assert kernel.startswith("cpu/scatter/segments"), (n, kernel)
        assert torch.equal(got.view(torch.int16), want.view(torch.int16)), (n, kernel)


def _rows_layout(kind, rng, n_rows, n_keys, cols):
    """x, updates and the call for a layout of W2's fold: the fold loops are
    compiled apart for flat rows into a row-major out (the lean loop) and for
    the rest, and both must give the canonical bits."""
    idx = rng.integers(0, n_keys, n_rows)
    idx[: n_rows // 3] = 5  # a target with hundreds of rows: several chunks
    rng.shuffle(idx)
    u = rng.standard_normal((n_rows, cols)).astype(np.float32)
    x = rng.standard_normal((n_keys, cols)).astype(np.float32)
    if kind == "unaligned_src":  # rows 4 bytes past a cache line
        shifted = np.empty(n_rows * cols + 1, np.float32)[1:].reshape(n_rows, cols)
        shifted[...] = u
        u = shifted
    if kind == "strided_src":
        wide = rng.standard_normal((n_rows, cols + 16)).astype(np.float32)
        u = wide[:, :cols]
    if kind == "fortran_out":  # keys' rows of out not row-major
        out = np.asfortranarray(x)
        return x, idx, u, lambda: sk.index_scatter(out.copy(order="F"), idx, u, 0,
                                                   reduce="sum", out=out.copy(order="F"))
    if kind == "rows_2d":  # scatter_nd over two row dimensions that do not merge
        half = n_rows // 2
        i2 = idx[: 2 * half].reshape(2, half, 1)
        wide = np.zeros((2, half + 7, cols), np.float32)
        wide[:, :half] = u[: 2 * half].reshape(2, half, cols)
        u2 = wide[:, :half]
        return x, idx[: 2 * half], u[: 2 * half], lambda: sk.scatter_nd(x, i2, u2, reduce="sum")
    return x, idx, u, lambda: sk.index_scatter(x, idx, u, 0, reduce="sum")


@pytest.mark.parametrize("kind", [
    "flat", "unaligned_src", "strided_src", "fortran_out", "rows_2d"])
def test_fold_loop_layouts_same_canonical_bits(kind):
    from helpers_canonical import canonical_rows, with_threads
    rng = np.random.default_rng(8)
    x, idx, u, call = _rows_layout(kind, rng, 24000, 1200, 32)
    want = canonical_rows(np.ascontiguousarray(x), idx, np.ascontiguousarray(u), "sum", True)
    for n, got, kernel in with_threads((1, 2, 3, 16), call):
        assert kernel.startswith("cpu/scatter/segments"), (n, kernel)
        assert np.array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32)), (n, kernel)

"""The keys of the segment paths (cpu/scatter/segments*), read straight
from a dense 1-d index (a row's key is its index value): int32 and int64
indices, negative values counted from the end, mode="drop" skipping values
out of range on either side, an index that is a strided view (read the
general way) and one expanded along the columns. Each result must equal
the canonical fold (docs/CONTRACT.md) of the rows that remain, bit for
bit, at 1, 2 and 3 threads."""
import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import canonical_rows, with_threads

N_ROWS, N_KEYS, COLS = 20000, 500, 16  # 64-byte rows, more than segments' least rows


def case(rng, itype, drop):
    """x, the index as given (negatives and, for drop, bad values mixed in),
    the updates, and the index the canonical fold sees (bad rows: -1)."""
    keys = rng.integers(0, N_KEYS, N_ROWS)
    given = np.where(rng.random(N_ROWS) < 0.3, keys - N_KEYS, keys)
    if drop:
        bad = rng.random(N_ROWS) < 0.05
        far = rng.choice([N_KEYS, N_KEYS + 7, -N_KEYS - 1, -3 * N_KEYS], N_ROWS)
        given = np.where(bad, far, given)
        keys = np.where(bad, -1, keys)
    upd = rng.uniform(-1, 1, (N_ROWS, COLS)).astype(np.float32)
    x = rng.uniform(-1, 1, (N_KEYS, COLS)).astype(np.float32)
    return x, given.astype(itype), upd, keys


def want_of(x, keys, upd, reduce, include_self):
    keep = keys >= 0
    return canonical_rows(x, keys[keep], upd[keep], reduce, include_self)


@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("mode", ["error", "drop"])
@pytest.mark.parametrize("reduce,include_self", [("sum", True), ("mean", False)])
def test_index_add_keys(itype, mode, reduce, include_self):
    x, given, upd, keys = case(np.random.default_rng(11), itype, mode == "drop")
    want = want_of(x, keys, upd, reduce, include_self)
    call = lambda: sk.index_scatter(x, given, upd, 0, reduce=reduce,  # noqa: E731
                                    include_self=include_self, mode=mode)
    for n, got, kernel in with_threads((1, 2, 3), call):
        assert kernel.startswith("cpu/scatter/segments"), (n, kernel)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32),
                                      err_msg="%d threads, %s" % (n, kernel))


@pytest.mark.parametrize("layout", ["expanded", "strided"])
def test_scatter_keys_other_layouts(layout):
    """The same keys through scatter's expanded index (stride 0 along the
    columns) and through an index that is every other element of a longer
    array (the general loop): both the canonical bits."""
    x, given, upd, keys = case(np.random.default_rng(12), np.int64, True)
    want = want_of(x, keys, upd, "sum", True)
    if layout == "expanded":
        index = np.broadcast_to(given[:, None], upd.shape)
        call = lambda: sk.scatter(x, index, upd, 0, reduce="sum", mode="drop")  # noqa: E731
    else:
        longer = np.empty(2 * N_ROWS, np.int64)
        longer[::2], longer[1::2] = given, 0
        index = longer[::2]
        call = lambda: sk.index_scatter(x, index, upd, 0, reduce="sum",  # noqa: E731
                                        mode="drop")
    for n, got, kernel in with_threads((1, 2, 3), call):
        assert kernel.startswith("cpu/scatter/segments"), (n, kernel)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32),
                                      err_msg="%d threads, %s" % (n, kernel))

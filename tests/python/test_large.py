"""Sizes and offsets are 64-bit: tensors over 2**31 elements work (CONTRACT).

np.zeros gets its memory from calloc, so a 2**31-element uint8 array costs
address space, not RAM, as long as only a few pages are touched: the tests
read and write single elements near the end (offsets beyond 2**31)."""
import numpy as np
import pytest
import torch

import scatterkit as sk

N = 2**31 + 16


@pytest.fixture(scope="module")
def big():
    x = np.zeros(N, np.uint8)
    x[-1] = 7
    x[2**31 + 1] = 9
    return x


def test_index_select_beyond_2_31(big):
    got = sk.index_select(big, np.array([N - 1, 2**31 + 1, -1, 0]), 0)
    np.testing.assert_array_equal(got, [7, 9, 7, 0])
    got = sk.index_select(torch.from_numpy(big), torch.tensor([N - 1]), 0)
    assert got.tolist() == [7]


def test_gather_beyond_2_31(big):
    got = sk.gather(big, np.array([N - 1, -(N - 2**31 - 1), N + 5], np.int64), 0, mode="fill",
                    fill_value=3)
    np.testing.assert_array_equal(got, [7, 9, 3])


def test_scatter_in_place_beyond_2_31(big):
    idx = np.array([N - 2, -3, N - 2], np.int64)
    sk.scatter(big, idx, np.array([5, 6, 250], np.uint8), 0, reduce="sum", out=big)
    assert big[N - 3] == 6 and big[N - 2] == (5 + 250) % 256 and big[N - 1] == 7
    sk.index_scatter(big, np.array([N - 4]), np.array([11], np.uint8), 0, out=big)
    assert big[N - 4] == 11
    sk.scatter(big, np.array([N - 5, N - 5]), np.array([3, 4], np.uint8), 0, out=big)
    assert big[N - 5] == 4


def test_2d_row_offset_beyond_2_31():
    rows, cols = 2**16 + 2, 2**15 + 1  # rows * cols > 2**31
    x = np.zeros((rows, cols), np.uint8)
    x[-1, -1] = 42
    x[-2, 3] = 17
    got = sk.gather(x, np.array([[rows - 1, rows - 2]]), 0)
    assert got[0, 0] == 0 and got[0, 1] == 0
    got = sk.gather(x[:, -2:], np.array([[rows - 2, rows - 1]]), 0)
    np.testing.assert_array_equal(got, [[0, 42]])
    got = sk.index_select(x, np.array([rows - 1, -2]), 0)
    assert got.shape == (2, cols) and got[0, -1] == 42 and got[1, 3] == 17
    sk.scatter(x, np.array([[rows - 1]]), np.array([[99]], np.uint8), 0, out=x)
    assert x[-1, 0] == 99

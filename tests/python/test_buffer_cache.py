"""Results of 1 MiB and more come from the binding's cache of reused blocks
(python/scatterkit/buffer_cache.c): a freed result's block serves the next
result of about its size. These tests check that reuse happens, that a
reused block never leaks its old contents into a result, and that the
cache's controls do what they say."""
import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import scatterkit as sk

BIG = (512, 1024)  # 2 MiB of float32


@pytest.fixture
def fresh_cache():
    limit = sk.buffer_cache_info()["limit"]
    sk.empty_cache()
    yield
    sk.set_buffer_cache_limit(limit)
    sk.empty_cache()


def _gather_inputs(rng, dtype=torch.float32):
    x = torch.from_numpy(rng.standard_normal(BIG)).to(dtype)
    i = torch.from_numpy(rng.integers(-BIG[1], BIG[1], BIG))
    return x, i


def test_freed_result_is_reused_and_overwritten(fresh_cache):
    rng = np.random.default_rng(0)
    x, i = _gather_inputs(rng)
    a = sk.gather(x, i, 1)
    ptr = a.data_ptr()
    assert torch.equal(a, torch.gather(x, 1, torch.where(i < 0, i + BIG[1], i)))
    del a
    assert sk.buffer_cache_info()["blocks"] == 1
    x2, i2 = _gather_inputs(rng)
    b = sk.gather(x2, i2, 1)
    assert b.data_ptr() == ptr  # the same block, with the first result in it
    assert torch.equal(b, torch.gather(x2, 1, torch.where(i2 < 0, i2 + BIG[1], i2)))
    assert sk.buffer_cache_info()["blocks"] == 0


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16, torch.float16, torch.int8,
                                   torch.bool, torch.int32])
def test_every_dtype_and_shape(dtype, fresh_cache):
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.integers(0, 2, (3, 700, 1100))).to(dtype)
    idx = torch.from_numpy(rng.integers(0, 700, (3, 600, 1100)))
    for _ in range(2):  # the second result comes from the first one's block
        got = sk.gather(x, idx, 1)
        assert got.dtype == dtype and got.shape == idx.shape and got.is_contiguous()
        assert torch.equal(got, torch.gather(x, 1, idx))
        del got


def test_scatter_results_and_numpy(fresh_cache):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2000, 300)).astype(np.float32)
    i = rng.integers(0, 2000, 5000)
    u = rng.standard_normal((5000, 300)).astype(np.float32)
    exp = x.copy()
    np.add.at(exp, i, u)
    for _ in range(3):
        got = sk.index_scatter(x, i, u, 0, reduce="sum")
        assert isinstance(got, np.ndarray) and got.flags.writeable and got.flags.c_contiguous
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-5)
        got[0, 0] = 1.0  # a result is the caller's to write
        del got


def test_result_outlives_empty_cache(fresh_cache):
    rng = np.random.default_rng(3)
    x, i = _gather_inputs(rng)
    a = sk.gather(x, i, 1)
    exp = a.clone()
    sk.empty_cache()
    junk = [sk.gather(x, i.flip(1), 1) for _ in range(3)]
    assert torch.equal(a, exp)
    del junk


def test_small_results_are_not_cached(fresh_cache):
    x = torch.rand(100, 100)
    i = torch.randint(0, 100, (100, 100))
    r = sk.gather(x, i, 1)
    del r
    assert sk.buffer_cache_info()["blocks"] == 0


def test_limit_zero_turns_it_off(fresh_cache):
    rng = np.random.default_rng(4)
    x, i = _gather_inputs(rng)
    sk.set_buffer_cache_limit(0)
    assert sk.buffer_cache_info() == {"blocks": 0, "bytes": 0, "limit": 0}
    r = sk.gather(x, i, 1)
    assert torch.equal(r, torch.gather(x, 1, torch.where(i < 0, i + BIG[1], i)))
    del r
    assert sk.buffer_cache_info()["blocks"] == 0
    with pytest.raises(ValueError):
        sk.set_buffer_cache_limit(-1)


def test_limit_bounds_what_is_kept(fresh_cache):
    sk.set_buffer_cache_limit(5 << 20)
    x = torch.rand(1024, 1024)
    i = torch.randint(0, 1024, (1024, 1024))
    rs = [sk.gather(x, i, 1) for _ in range(4)]  # four 4 MiB results
    del rs
    info = sk.buffer_cache_info()
    assert info["bytes"] <= 5 << 20 and info["blocks"] == 1


def test_freed_from_another_thread(fresh_cache):
    x = torch.rand(1024, 1024)
    i = torch.randint(0, 1024, (1024, 1024))
    results = [sk.gather(x, i, 1) for _ in range(3)]
    exp = torch.gather(x, 1, i)
    assert all(torch.equal(r, exp) for r in results)

    def drop():
        results.clear()
        gc.collect()
    t = threading.Thread(target=drop)
    t.start()
    t.join()
    assert sk.buffer_cache_info()["blocks"] == 3


def test_environment_sets_the_limit():
    code = "import scatterkit as sk; print(sk.buffer_cache_info()['limit'])"
    env = dict(os.environ, SCATTERKIT_BUFFER_CACHE_MB="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert int(out.stdout) == 3 << 20


def test_empty_cache_gives_back_scratch(fresh_cache):
    # a large row scatter keeps its partial results (C scratch) for the next
    # call; empty_cache gives those back as well
    rng = np.random.default_rng(5)
    x = torch.zeros(3000, 128)
    i = torch.from_numpy(rng.integers(0, 3000, 9000))
    src = torch.from_numpy(rng.standard_normal((9000, 128)).astype(np.float32))
    exp = x.index_add(0, i, src)
    got = sk.index_scatter(x, i, src, 0, reduce="sum")
    torch.testing.assert_close(got, exp)
    del got
    assert sk.empty_cache() >= 3000 * 128 * 4  # the result block and the partials
    assert sk.empty_cache() == 0

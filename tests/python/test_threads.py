"""set_num_threads / get_num_threads, and results bitwise identical for every
thread count (CONTRACT: deterministic, always)."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import assert_close, assert_same, to_torch


def test_set_get_num_threads(restore_threads):
    assert isinstance(sk.get_num_threads(), int)
    assert sk.get_num_threads() >= 1
    for n in (1, 2, 3, 1):
        sk.set_num_threads(n)
        assert sk.get_num_threads() == n


def _run_all_threads(fn):
    results = {}
    for n in (1, 2, 3):
        sk.set_num_threads(n)
        results[n] = fn()
    return results


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_scatter_sum_bitwise_across_threads(dtype, restore_threads):
    # ordinary random values, many duplicates per target: any change of the
    # summation order between thread counts would show in the low bits
    g = torch.Generator().manual_seed(1234)
    rows, cols, targets = 60000, 16, 997
    src = torch.randn(rows, cols, generator=g).to(dtype)
    idx = torch.randint(0, targets, (rows, cols), generator=g)
    x = torch.randn(targets, cols, generator=g).to(dtype)
    res = _run_all_threads(lambda: sk.scatter(x, idx, src, 0, reduce="sum"))
    assert_same(res[2], res[1], "torch")
    assert_same(res[3], res[1], "torch")
    exp = x.double().scatter_reduce(0, idx, src.double(), "sum").to(dtype)
    tol = 1e-3 if dtype == torch.float32 else 2e-2
    assert_close(res[1], exp, rtol=tol, atol=tol)


@pytest.mark.parametrize("reduce", [None, "mean", "prod", "amax"])
def test_scatter_expanded_index_bitwise_across_threads(reduce, restore_threads):
    """BENCH W2-like: a 1-d index expanded over the columns (zero stride)."""
    g = torch.Generator().manual_seed(99)
    rows, cols, targets = 40000, 8, 501
    src = torch.randn(rows, cols, generator=g)
    idx = torch.randint(0, targets, (rows,), generator=g)[:, None].expand(rows, cols)
    x = torch.zeros(targets, cols)
    res = _run_all_threads(lambda: sk.scatter(x, idx, src, 0, reduce=reduce,
                                              include_self=False))
    assert_same(res[2], res[1], "torch")
    assert_same(res[3], res[1], "torch")
    if reduce is None:
        # last update in row-major order wins
        exp = x.clone()
        order = torch.arange(rows)
        last = torch.full((targets,), -1, dtype=torch.int64).scatter_reduce(
            0, idx[:, 0], order, "amax")
        hit = last >= 0
        exp[hit] = src[last[hit]]
        assert_same(res[1], exp)
    else:
        exp = x.scatter_reduce(0, idx.contiguous(), src, reduce, include_self=False)
        assert_close(res[1], exp, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_index_scatter_sum_bitwise_across_threads(dtype, restore_threads):
    g = torch.Generator().manual_seed(7)
    upd = torch.randn(30000, 24, generator=g).to(dtype)
    idx = torch.randint(0, 800, (30000,), generator=g)
    x = torch.zeros(800, 24, dtype=dtype)
    res = _run_all_threads(lambda: sk.index_scatter(x, idx, upd, 0, reduce="sum"))
    assert_same(res[2], res[1], "torch")
    assert_same(res[3], res[1], "torch")


def test_gather_index_select_across_threads(restore_threads):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(500, 64, generator=g)
    idx = torch.randint(-500, 500, (2000, 64), generator=g)
    res = _run_all_threads(lambda: sk.gather(x, idx, 0))
    exp = torch.gather(x, 0, torch.where(idx < 0, idx + 500, idx))
    for n in (1, 2, 3):
        assert_same(res[n], exp, "torch")
    i1 = torch.randint(0, 500, (3000,), generator=g)
    res = _run_all_threads(lambda: sk.index_select(x, i1, 0))
    for n in (1, 2, 3):
        assert_same(res[n], x[i1], "torch")


def test_concurrent_calls_from_python_threads(restore_threads):
    """Several Python threads calling scatterkit at once (the GIL may be
    released during a call) get the same results as serial calls."""
    import threading
    sk.set_num_threads(2)
    g = torch.Generator().manual_seed(5)
    jobs = []
    for k in range(6):
        src = torch.randn(20000, 8, generator=g)
        idx = torch.randint(0, 300 + k, (20000, 8), generator=g)
        x = torch.randn(300 + k, 8, generator=g)
        jobs.append((x, idx, src, ("sum", "amax", "mean")[k % 3]))
    serial = [sk.scatter(x, i, s, 0, reduce=r) for x, i, s, r in jobs]
    gathered_serial = [sk.gather(x, i[: x.shape[0]], 0) for x, i, s, r in jobs]
    results = [None] * len(jobs)
    gathered = [None] * len(jobs)
    errors = []

    def work(k):
        try:
            for _ in range(3):
                x, i, s, r = jobs[k]
                results[k] = sk.scatter(x, i, s, 0, reduce=r)
                gathered[k] = sk.gather(x, i[: x.shape[0]], 0)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(len(jobs)):
        assert_same(results[k], serial[k], "torch")
        assert_same(gathered[k], gathered_serial[k], "torch")

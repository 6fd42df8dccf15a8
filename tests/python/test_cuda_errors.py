"""Index errors, streams, devices and kinds on CUDA: an out-of-range index is
an IndexError with the CPU's message, nothing is written, and the CUDA
context stays usable (a bad call, then good ones, in the same process); work
runs on the caller's stream; mixed devices are a ValueError; CuPy arrays give
CuPy results. Skipped, with the reason, without CUDA in the build or a GPU."""
import pytest

import scatterkit as sk
from helpers_cuda import require_cuda_torch

torch = require_cuda_torch()


def cpu_message(fn, *args, **kwargs):
    with pytest.raises(IndexError) as e:
        fn(*[a.cpu() if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
    return str(e.value)


def test_bad_call_then_good_call():
    x = torch.arange(50 * 64, dtype=torch.float32, device="cuda").reshape(50, 64)
    index = torch.randint(0, 64, (50, 64), device="cuda")
    index[3, 7] = 64
    index[40, 1] = -65
    want = cpu_message(sk.gather, x, index, 1)
    assert want == "gather: index[3, 7] = 64 is out of range for axis 1 of size 64"
    for _ in range(3):
        with pytest.raises(IndexError) as e:
            sk.gather(x, index, 1)
        assert str(e.value) == want
    torch.cuda.synchronize()  # no sticky error: the context is usable
    index[3, 7], index[40, 1] = 5, 0
    out = sk.gather(x, index, 1)
    assert torch.equal(out, torch.gather(x, 1, index))
    assert torch.equal((x + 1).sum(), x.sum() + x.numel())  # torch still works


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_index_errors_match_the_cpu(dtype):
    x = torch.zeros((8, 9), dtype=torch.int16, device="cuda")
    cases = [
        (sk.index_select, (x, torch.tensor([[0, 3], [8, -9]], dtype=dtype, device="cuda"), 0), {}),
        (sk.gather_nd, (x, torch.tensor([[1, 8], [9, 0]], dtype=dtype, device="cuda")), {}),
        (sk.gather, (x, torch.tensor([[[1, 2], [9, -6]]], dtype=dtype, device="cuda"),
                     (0, 1)), {}),
        (sk.index_select, (x, torch.tensor(12, dtype=dtype, device="cuda"), 1), {}),
    ]
    for fn, args, kw in cases:
        want = cpu_message(fn, *args, **kw)
        with pytest.raises(IndexError) as e:
            fn(*args, **kw)
        assert str(e.value) == want


def test_tensor_scatter_error_writes_nothing():
    cache = torch.arange(3 * 8 * 5, dtype=torch.float64, device="cuda").reshape(3, 8, 5)
    before = cache.clone()
    update = torch.ones((3, 3, 5), dtype=torch.float64, device="cuda")
    wi = torch.tensor([0, 6, 1], device="cuda")  # 6 + 3 > 8
    want = cpu_message(sk.tensor_scatter, cache, update, wi, axis=1, out=cache.cpu())
    with pytest.raises(IndexError) as e:
        sk.tensor_scatter(cache, update, wi, axis=1, out=cache)
    assert str(e.value) == want
    assert torch.equal(cache, before)
    sk.tensor_scatter(cache, update, torch.tensor([0, 5, 1], device="cuda"), axis=1, out=cache)
    assert torch.equal(cache[1, 5:8], update[1])


def test_masked_scatter_short_source():
    x = torch.zeros((4, 5), device="cuda")
    with pytest.raises(ValueError, match="source has 3 elements but mask has 20 True"):
        sk.masked_scatter(x, torch.ones((4, 5), dtype=torch.bool, device="cuda"),
                          torch.ones(3, device="cuda"), out=x)
    assert not x.any()


def test_runs_on_the_current_stream():
    """A result read on a side stream sees the work torch queued there."""
    s = torch.cuda.Stream()
    index = torch.randint(0, 4096, (4096,), device="cuda")
    with torch.cuda.stream(s):
        x = torch.zeros((4096, 256), device="cuda")
        torch.cuda._sleep(50_000_000)  # the stream is busy for a while
        x += 1  # queued behind the sleep
        out = sk.index_select(x, index, 0)
    torch.cuda.synchronize()
    assert bool((out == 1).all())


def test_explicit_stream():
    s = torch.cuda.Stream()
    x = torch.arange(12.0, device="cuda").reshape(3, 4)
    with torch.cuda.stream(s):
        y = x * 2
    out = sk.index_select(y, torch.tensor([2, 0], device="cuda"), 0, stream=s)
    s.synchronize()
    assert torch.equal(out, (x * 2)[[2, 0]])


def test_mixed_devices():
    x = torch.zeros((3, 4), device="cuda")
    with pytest.raises(ValueError, match="one device"):
        sk.index_select(x, torch.tensor([0]), 0)
    with pytest.raises(ValueError, match="one device"):
        sk.masked_select(x, torch.zeros((3, 4), dtype=torch.bool))


def test_results_stay_on_the_device():
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU: the device guard is checked on device 0 only")
    x = torch.arange(12.0, device="cuda:1").reshape(3, 4)
    out = sk.index_select(x, torch.tensor([1], device="cuda:1"), 0)
    assert out.device == x.device and torch.equal(out, x[[1]])


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    import numpy as np
    x = cupy.arange(20, dtype=cupy.float32).reshape(4, 5)
    out = sk.index_select(x, cupy.asarray([3, 0, -1]), 0)
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(out), cupy.asnumpy(x)[[3, 0, -1]])
    g = sk.gather(x, cupy.asarray([[9], [0], [1], [2]]), 1, mode="fill", fill_value=-1.5)
    np.testing.assert_array_equal(cupy.asnumpy(g), [[-1.5], [5], [11], [17]])
    m = sk.masked_select(x, x > 10)
    np.testing.assert_array_equal(cupy.asnumpy(m), np.arange(11, 20, dtype=np.float32))


def test_expanded_index_error():
    """A broadcast index is checked once per distinct value; the position
    reported has coordinate 0 along the broadcast dimension, as on the CPU."""
    x = torch.zeros((100, 32), device="cuda")
    i = torch.randint(0, 100, (1000,), device="cuda")
    i[500], i[700] = 100, -101
    e = i[:, None].expand(1000, 32)
    want = cpu_message(sk.gather, x, e, 0)
    assert want == "gather: index[500, 0] = 100 is out of range for axis 0 of size 100"
    with pytest.raises(IndexError) as err:
        sk.gather(x, e, 0)
    assert str(err.value) == want

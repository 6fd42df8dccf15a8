"""The CUDA plumbing of the Python package that runs without a GPU
(scatterkit/_device.py): stream arguments, device detection, DLPack's stream
protocol as a producer sees it, and the refusals. The GPU results themselves
are tests/python/test_cuda_ops.py (skipped without a device)."""
import numpy as np
import pytest

import scatterkit as sk
from scatterkit import _C, _device


class FakeCudaProducer:
    """Claims to live on CUDA device 0 and records what __dlpack__ was asked
    for; exporting fails, so nothing is ever read."""

    def __init__(self, device=0):
        self.calls = []
        self.device = device

    def __dlpack_device__(self):
        return (_device.KDLCUDA, self.device)

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        raise BufferError("fake producer: nothing to export")


class Handle:
    def __init__(self, **attrs):
        self.__dict__.update(attrs)


class StreamProtocol:
    def __cuda_stream__(self):
        return (0, 1234)


def test_stream_handles():
    assert _device.stream_handle(0) == 0
    assert _device.stream_handle(77) == 77
    assert _device.stream_handle(Handle(cuda_stream=5)) == 5   # torch.cuda.Stream
    assert _device.stream_handle(Handle(ptr=6)) == 6           # cupy.cuda.Stream
    assert _device.stream_handle(StreamProtocol()) == 1234     # __cuda_stream__
    with pytest.raises(ValueError, match="handle"):
        _device.stream_handle(-1, "gather")
    with pytest.raises(TypeError, match="gather: stream must be a CUDA stream"):
        _device.stream_handle("s", "gather")
    with pytest.raises(TypeError, match="bool"):
        _device.stream_handle(True)


def test_cuda_device_of():
    assert _device.cuda_device_of(np.zeros(3)) is None
    assert _device.cuda_device_of([1, 2]) is None
    assert _device.cuda_device_of(FakeCudaProducer(3)) == 3


def test_cpu_call_with_stream_is_refused():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="index_select: stream= is for CUDA tensors"):
        sk.index_select(x, np.array([1]), 0, stream=0)
    # without stream= the wrapper changes nothing
    np.testing.assert_array_equal(sk.index_select(x, np.array([1]), 0), x[[1]])


def test_every_operator_takes_stream():
    for name in _device.OPERATORS:
        fn = getattr(sk, name)
        assert fn.__wrapped__.__name__ == name
        assert "stream" in fn.__doc__


@pytest.mark.skipif(_C.HAS_CUDA, reason="this build has CUDA: the refusal is for CPU-only builds")
def test_cpu_only_build_refuses_cuda_tensors():
    with pytest.raises(ValueError, match="built without CUDA"):
        sk.gather(FakeCudaProducer(), np.zeros((1, 1), np.int64), 0)


@pytest.mark.skipif(not _C.HAS_CUDA, reason="scatterkit was built without CUDA "
                    "(SCATTERKIT_CUDA=1 pip install .)")
@pytest.mark.parametrize("stream, expected", [(None, _device.PER_THREAD_DEFAULT_STREAM),
                                              (0, 1), (5, 5), (Handle(cuda_stream=9), 9)])
def test_dlpack_stream_protocol(stream, expected):
    """A CUDA producer is asked for its data on the call's stream: stream=
    when given (handle 0, the legacy default stream, is DLPack's 1), else the
    per-thread default stream for producers other than torch and CuPy."""
    x = FakeCudaProducer()
    with pytest.raises(TypeError, match="could not be exported through DLPack"):
        sk.index_select(x, np.zeros(1, np.int64), 0, stream=stream)
    assert x.calls and x.calls[0].get("stream") == expected
    assert x.calls[0].get("max_version") == (1, 0)
    assert _C.set_stream(None) is None  # the call's stream was cleared after it


def test_cpu_producers_get_no_stream():
    """No stream goes to a CPU producer, even while a stream is set."""
    class CpuProducer(FakeCudaProducer):
        def __dlpack_device__(self):
            return (1, 0)

    x = CpuProducer()
    previous = _C.set_stream(7)
    try:
        with pytest.raises(TypeError, match="could not be exported"):
            _C.index_select(x, np.zeros(1, np.int64), 0, 0, None, np.zeros(1))
    finally:
        _C.set_stream(previous)
    assert "stream" not in x.calls[0]

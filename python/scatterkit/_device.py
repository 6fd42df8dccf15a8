"""CUDA tensors in the public API (docs/GPU.md): which device and stream a
call runs on, and results of the input's kind on its device.

Every operator of the package is wrapped by ``install``: a call whose ``x`` is
in CPU memory, without ``stream=``, goes straight to the operator. A call on
a CUDA ``x`` makes x's device current and sets the stream of the call for the
binding (``_C.set_stream``), which passes it to the C library
(``sk_options.stream``) and to every ``__dlpack__(stream=...)`` of a CUDA
producer (DLPack's stream protocol: the producer makes its data ready on that
stream). The stream is, in order: ``stream=`` (an int ``cudaStream_t``
handle, or an object with ``cuda_stream``, ``ptr`` or ``__cuda_stream__``);
torch's current stream on x's device for torch tensors; CuPy's current
stream for CuPy arrays; else the per-thread default stream.

torch and CuPy are never imported here: a tensor of theirs can only exist
once they have been (sys.modules answers).
"""

import functools
import sys

import numpy as np

from . import _C
from ._args import OPERATORS

KDLCUDA = 2
# cudaStreamPerThread: the handle CUDA and DLPack both give the per-thread
# default stream
PER_THREAD_DEFAULT_STREAM = 2



def _module_of(v, name):
    mod = sys.modules.get(name)
    return mod if mod is not None and isinstance(v, mod.ndarray if name == "cupy" else mod.Tensor) \
        else None


def cuda_device_of(x):
    """The CUDA device index of x, or None when x is not on a CUDA device."""
    if type(x) is np.ndarray:
        return None
    torch = _module_of(x, "torch")
    if torch is not None:
        return x.device.index if x.is_cuda else None
    dev = getattr(x, "__dlpack_device__", None)
    if dev is None:
        return None
    try:
        kind, index = dev()
    except Exception:  # not readable here: the binding reports it
        return None
    return int(index) if int(kind) == KDLCUDA else None


def stream_handle(stream, op="scatterkit"):
    """The cudaStream_t handle (an int) of a stream= argument."""
    if isinstance(stream, bool):
        raise TypeError(f"{op}: stream must be a CUDA stream or its int handle, got a bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"{op}: stream must be a cudaStream_t handle (>= 0), got {stream}")
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:  # the CUDA stream protocol: (version, handle)
        return int(proto()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"{op}: stream must be a CUDA stream (torch.cuda.Stream, cupy.cuda.Stream, an "
                    f"object with __cuda_stream__) or its int handle, got {type(stream).__name__}")


def default_stream(x, device):
    """The stream a call on x runs on when no stream= is given."""
    torch = _module_of(x, "torch")
    if torch is not None:
        return torch.cuda.current_stream(device).cuda_stream
    cupy = _module_of(x, "cupy")
    if cupy is not None:
        return cupy.cuda.get_current_stream().ptr
    return PER_THREAD_DEFAULT_STREAM


class _OnDevice:
    """Makes a device current (torch's or CuPy's guard, restored on exit)."""

    __slots__ = ("x", "device", "guard")

    def __init__(self, x, device):
        self.x, self.device, self.guard = x, device, None

    def __enter__(self):
        torch = _module_of(self.x, "torch")
        if torch is not None:
            self.guard = torch.cuda.device(self.device)
        elif _module_of(self.x, "cupy") is not None:
            self.guard = sys.modules["cupy"].cuda.Device(self.device)
        if self.guard is not None:
            self.guard.__enter__()
        return self

    def __exit__(self, *exc):
        if self.guard is not None:
            self.guard.__exit__(*exc)
        return False


def run(fn, op, x, args, kwargs, stream):
    """fn(x, *args, **kwargs) on x's CUDA device and the call's stream."""
    device = cuda_device_of(x)
    if device is None:
        if stream is not None:
            raise ValueError(f"{op}: stream= is for CUDA tensors; x is not on a CUDA device")
        return fn(x, *args, **kwargs)
    if not _C.HAS_CUDA:
        raise ValueError(f"{op}: x is on CUDA device {device}, but this scatterkit was built "
                         "without CUDA (build it with SCATTERKIT_CUDA=1: docs/GPU.md)")
    handle = default_stream(x, device) if stream is None else stream_handle(stream, op)
    with _OnDevice(x, device):
        previous = _C.set_stream(handle)
        try:
            return fn(x, *args, **kwargs)
        finally:
            _C.set_stream(previous)


def _wrap(fn):
    op = fn.__name__

    @functools.wraps(fn)
    def operator(x, *args, stream=None, **kwargs):
        if stream is None and type(x) is np.ndarray:
            return fn(x, *args, **kwargs)
        return run(fn, op, x, args, kwargs, stream)

    operator.__doc__ = (fn.__doc__ or "") + (
        "\n\n    stream: CUDA tensors only: the stream to run on (default: torch's or CuPy's "
        "current stream, else the per-thread default stream).")
    return operator


def install(namespace):
    """Wraps the operators of the package namespace (scatterkit/__init__.py)."""
    for name in OPERATORS:
        if name in namespace:
            namespace[name] = _wrap(namespace[name])


# ---- results and scalars of producers other than NumPy and torch ----

def array_module(v):
    """CuPy when v is a CuPy array, else None."""
    return sys.modules.get("cupy") if _module_of(v, "cupy") is not None else None


def empty_like_kind(x, shape, dtype, op, arg):
    """A result of x's kind for a producer other than NumPy and torch on a
    CUDA device: CuPy arrays get cupy.empty (CuPy's memory pool) on x's
    device; other producers are refused (no allocator of theirs is known)."""
    xp = array_module(x)
    if xp is None:
        raise ValueError(f"{op}: {arg} is not in CPU memory and is neither a NumPy array, a torch "
                         "tensor nor a CuPy array, so there is no result of its kind to make; "
                         "pass out=")
    with xp.cuda.Device(x.device.id):
        return xp.empty(shape, dtype=dtype)


def scalar_like(x, value, dtype):
    """A 0-d array of x's kind, device and dtype holding value (CuPy), or
    None when x is not a CuPy array."""
    xp = array_module(x)
    if xp is None:
        return None
    with np.errstate(all="ignore"), xp.cuda.Device(x.device.id):
        return xp.asarray(np.asarray(value, dtype=dtype))

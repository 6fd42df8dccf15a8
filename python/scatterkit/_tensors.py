"""Tensor plumbing for the public API: what kind of tensor an argument is, how
to allocate a result of the same kind, and how to turn Python scalars and
lists into tensors. Nothing here copies tensor data."""

import operator
import sys

import numpy as np

from . import _C

NUMPY = "numpy"
TORCH = "torch"
OTHER = "other"


def torch_of(v):
    """The torch module when v is a torch.Tensor, else None.

    torch is never imported here: a tensor can only exist once torch has been
    imported, so sys.modules answers without the cost of an import."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(v, torch.Tensor):
        return torch
    return None


def plain_scalar(v):
    """A NumPy scalar as the Python scalar it holds (np.int64(300) -> 300), so
    that it takes exactly the path of a Python scalar: the same casting checks,
    and a NumPy string or complex is refused as a Python one is. Anything else
    is returned unchanged."""
    if isinstance(v, np.generic):
        item = v.item()
        if isinstance(item, np.floating):  # longdouble: .item() keeps the NumPy type
            item = float(item)
        return item
    return v


def is_scalar(v):
    """v (after plain_scalar) is a Python bool, int or float."""
    return isinstance(v, (bool, int, float)) and not isinstance(v, np.generic)


def _check_neg(v, op, name):
    if v.is_neg():
        # DLPack has no negative bit: C would read the values un-negated.
        raise TypeError(f"{op}: {name} has the negative bit set (a lazily negated view, as "
                        f"from .conj().imag), which DLPack cannot express; call "
                        f".resolve_neg() on it first")


def _check_masked(v, op, name):
    """A NumPy masked array exports its data without its mask: refused rather
    than read with the masked elements as if they were valid."""
    ma = sys.modules.get("numpy.ma")  # a masked array exists only once numpy.ma is imported
    if ma is not None and isinstance(v, ma.MaskedArray):
        raise TypeError(f"{op}: {name} is a numpy.ma.MaskedArray, whose mask scatterkit would "
                        f"ignore; pass {name}.filled(value) or {name}.data instead")


def as_input(v, op="scatterkit", name="input"):
    """The object handed to C for an input tensor: torch refuses to export a
    tensor that requires grad through DLPack, and the values are all we read.
    A torch tensor with the negative bit set is refused (DLPack would drop the
    negation), and so is a NumPy masked array (the mask would be dropped)."""
    if torch_of(v) is not None:
        _check_neg(v, op, name)
        if v.requires_grad:
            return v.detach()
    elif isinstance(v, np.ndarray) and type(v) is not np.ndarray:
        _check_masked(v, op, name)
    return v


def as_x(v, op, name="x"):
    """The tensor an operator reads and shapes its result like: a Python
    scalar or a (nested) list or tuple is read as numpy.asarray reads it (a
    NumPy result); anything else is returned unchanged."""
    if isinstance(v, (list, tuple, bool, int, float, complex)):
        try:
            return np.asarray(v)
        except (ValueError, TypeError, OverflowError) as e:
            raise ValueError(f"{op}: {name} could not be converted to an array: {e}") from e
    return v


def _is_jax_array(v):
    jax = sys.modules.get("jax")  # as for torch: a JAX array exists only once jax is imported
    return jax is not None and isinstance(v, getattr(jax, "Array", ()))


def as_output(v, op, name="out"):
    """The object handed to C for a tensor C writes (out, a gradient buffer).
    Read-only memory is refused: NumPy's writeable=False and a DLPack export
    flagged read-only by C, a JAX array here (JAX arrays are immutable, but
    JAX exports them through the legacy DLPack capsule, which has no flag)."""
    if isinstance(v, np.generic):
        # Its __array_interface__ describes a temporary copy: writes would be lost.
        raise TypeError(f"{op}: {name} must be an array or tensor, got the NumPy scalar type "
                        f"{type(v).__name__}")
    if _is_jax_array(v):
        raise ValueError(f"{op}: {name} is a JAX array, which is immutable (read-only); pass "
                         "a NumPy array or a torch tensor to write into")
    return as_input(v, op, name)


def mark_written(v):
    """Tells torch's autograd that C wrote into v in place (its version
    counter), as a torch in-place operation does: a tensor saved for a
    backward and then overwritten is then reported instead of silently giving
    wrong gradients. Nothing for other kinds."""
    torch = torch_of(v)
    if torch is not None:
        torch.autograd.graph.increment_version(v)


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _position(name, pos):
    return name if pos is None else f"{name}[{', '.join(str(p) for p in pos)}]"


def _too_big(op, name, pos, value):
    """The IndexError for an index value outside int64 (out of range of any
    axis); the wording of C's message for select_scatter's index."""
    return IndexError(f"{op}: {_position(name, pos)} = {value} is out of range "
                      "(it does not fit in 64 bits)")


def _first_outside_int64(v, op, name):
    """The IndexError for the first integer of v (an int or a nested
    list/tuple) outside int64; None when v holds anything that is not an
    integer, or no such value."""
    try:
        objs = np.array(v, dtype=object)
    except (ValueError, TypeError):
        return None
    found = None
    for pos in np.ndindex(objs.shape):
        e = objs[pos]
        if not isinstance(e, (int, np.integer)):
            return None
        if found is None and not _INT64_MIN <= int(e) <= _INT64_MAX:
            found = _too_big(op, name, pos if objs.ndim else None, int(e))
    return found


def _integer_list(v, op, name):
    arr = np.asarray(v)
    if arr.dtype.kind == "u" and arr.size and arr.max() > _INT64_MAX:
        # uint64: values in [2**63, 2**64) would wrap to negative in int64.
        pos = np.unravel_index(int(np.argmax(arr > _INT64_MAX)), arr.shape)
        raise _too_big(op, name, pos if arr.ndim else None, int(arr[pos]))
    if arr.dtype.kind not in "iu" and arr.size:
        # NumPy keeps Python ints beyond 64 bits as objects, and turns a mix of
        # negative ints and ints beyond int64 into float64.
        err = _first_outside_int64(v, op, name)
        if err is not None:
            raise err
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return arr.astype(np.int64)
        raise TypeError(f"{op}: {name} must hold integers (int32 or int64), got {arr.dtype}")
    if arr.dtype != np.int64 and arr.dtype != np.int32:
        arr = arr.astype(np.int64)
    return arr


def as_index(v, op, name="index"):
    """Index tensors pass through; Python ints and lists become int64 arrays."""
    if isinstance(v, (list, tuple, int)) and not isinstance(v, bool):
        try:
            return _integer_list(v, op, name)
        except (ValueError, OverflowError) as e:
            raise ValueError(f"{op}: {name} could not be converted to an int64 array: {e}") from e
    return as_input(v, op, name)


def as_mask(v, op, name="mask"):
    if isinstance(v, (list, tuple, bool)):
        arr = np.asarray(v)
        return arr.astype(bool) if arr.size == 0 else arr
    return as_input(v, op, name)


def shape_of(v, op, name):
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple):  # numpy and torch.Size (a tuple subclass)
        return tuple(shape)
    return tuple(_C.describe(v, op, name)["shape"])


def dtype_name(v, op, name):
    """The dtype of a tensor argument as C names it ("float32", "bfloat16")."""
    if torch_of(v) is not None:
        return str(v.dtype).rpartition(".")[2]
    if isinstance(v, (np.ndarray, np.generic)):
        return v.dtype.name
    return _C.describe(v, op, name)["dtype"]


def int_or_none(v):
    try:
        return operator.index(v)
    except TypeError:
        return None


def numpy_dtype(name, op):
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(f"{op}: a NumPy result of dtype bfloat16 needs the ml_dtypes "
                            "package; pass a torch tensor or out= instead") from None
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


# Large results come from the binding's buffer cache (buffer_cache.c says
# why): a reused block has its pages already, a fresh torch.empty of tens of
# megabytes spends longer in page faults than the operator spends writing it.

def _numel(shape):
    n = 1
    for s in shape:
        n *= operator.index(s)
    return n


def _cached_torch(torch, shape, dtype):
    n = _numel(shape)
    if n <= 0:
        return None
    cap = _C.cached_buffer(n * dtype.itemsize)
    if cap is None:
        return None
    return torch.from_dlpack(cap).view(dtype).view(shape)


class _Capsule:
    """The one-shot DLPack producer np.from_dlpack wants around a capsule."""

    __slots__ = ("cap",)

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        cap, self.cap = self.cap, None
        return cap

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def _cached_numpy(shape, dtype):
    n = _numel(shape)
    if n <= 0 or dtype.hasobject:
        return None
    cap = _C.cached_buffer(n * dtype.itemsize, True)  # 1.x form: writable in NumPy
    if cap is None:
        return None
    return np.from_dlpack(_Capsule(cap)).view(dtype).reshape(shape)


class Like:
    """Makes tensors of the same kind, dtype and device as x.

    NumPy in, NumPy out; torch in, torch out; any other DLPack producer gets
    NumPy results (its dtype and shape are read through the binding)."""

    __slots__ = ("x", "op", "arg", "kind", "torch", "_info")

    def __init__(self, x, op, arg="x"):
        self.x = x
        self.op = op
        self.arg = arg
        self.torch = torch_of(x)
        if self.torch is not None:
            self.kind = TORCH
        elif isinstance(x, (np.ndarray, np.generic)):
            self.kind = NUMPY
        else:
            self.kind = OTHER
        self._info = None

    def _describe(self):
        if self._info is None:
            self._info = _C.describe(self.x, self.op, self.arg)
        return self._info

    @property
    def shape(self):
        if self.kind == OTHER:
            return tuple(self._describe()["shape"])
        return tuple(self.x.shape)

    @property
    def dtype(self):
        if self.kind == OTHER:
            return numpy_dtype(self._describe()["dtype"], self.op)
        return self.x.dtype

    def empty(self, shape):
        if self.kind == TORCH:
            if self.x.device.type == "cpu":
                t = _cached_torch(self.torch, shape, self.x.dtype)
                if t is not None:
                    return t
            return self.torch.empty(shape, dtype=self.x.dtype, device=self.x.device)
        if self.kind == OTHER and self._describe()["device_type"] != _C.DEVICE_CPU:
            from ._device import empty_like_kind  # CuPy's allocator, or refused
            return empty_like_kind(self.x, shape, self.dtype, self.op, self.arg)
        dtype = self.dtype
        a = _cached_numpy(shape, dtype)
        return np.empty(shape, dtype=dtype) if a is None else a

    def scalar(self, value, arg):
        """A 0-d tensor of x's dtype holding value."""
        dtype = self.dtype
        bounds = self._int_bounds(dtype)
        if bounds and isinstance(value, int) and not (bounds[0] <= value <= bounds[1]):
            # torch.tensor(-1, dtype=torch.uint8) wraps where NumPy refuses:
            # refused for every kind alike
            raise ValueError(f"{self.op}: {arg} = {value!r} cannot be converted to "
                             f"{self.arg}'s dtype {dtype}: it is outside [{bounds[0]}, {bounds[1]}]")
        try:
            if self.kind == TORCH:
                return self.torch.tensor(value, dtype=dtype, device=self.x.device)
            if self.kind == OTHER:
                from ._device import scalar_like  # a CuPy x: on its device
                t = scalar_like(self.x, value, dtype)
                if t is not None:
                    return t
            # a float too large for the dtype becomes inf, as torch.tensor
            # does, without NumPy's overflow RuntimeWarning: the library
            # never prints
            with np.errstate(all="ignore"):
                return np.asarray(value, dtype=dtype)
        except (TypeError, ValueError, OverflowError, RuntimeError) as e:
            raise ValueError(f"{self.op}: {arg} = {value!r} cannot be converted to "
                             f"{self.arg}'s dtype {dtype}: {e}") from e

    def _int_bounds(self, dtype):
        """(min, max) of an integer dtype (not bool), else None."""
        if self.kind == TORCH:
            if dtype.is_floating_point or dtype.is_complex or dtype == self.torch.bool:
                return None
            info = self.torch.iinfo(dtype)
        else:
            if not np.issubdtype(dtype, np.integer):
                return None
            info = np.iinfo(dtype)
        return int(info.min), int(info.max)

    def broadcast(self, t, shape):
        """t (0-d) seen with shape through zero strides, without copying."""
        if shape is None:
            return t
        torch = torch_of(t)
        if torch is not None:
            return t.expand(shape)
        from ._device import array_module  # a CuPy array stays one
        xp = array_module(t)
        if xp is not None:
            return xp.broadcast_to(t, shape)
        if not isinstance(t, np.ndarray):
            t = self._view(t)
            if torch_of(t) is not None:
                return t.expand(shape)
        return np.broadcast_to(t, shape)

    def _view(self, t):
        """A 0-d tensor of another DLPack producer (a jax array, ...) as a
        NumPy array or torch tensor over the same memory, so it can be given
        zero strides: a torch tensor when x is one (any device, bfloat16),
        else a NumPy array (CPU)."""
        if self.kind == TORCH:
            return self.torch.from_dlpack(t)
        try:
            return np.from_dlpack(t)
        except (TypeError, ValueError, RuntimeError, BufferError, AttributeError):
            torch = sys.modules.get("torch")
            if torch is None:
                raise
            return torch.from_dlpack(t)

    def source(self, v, arg, shape_fn):
        """src/updates/source: a scalar (Python or NumPy) becomes a 0-d tensor
        of x's dtype that is broadcast with zero strides to shape_fn() (None:
        left 0-d for C to broadcast or to reject); a 0-d tensor of any kind is
        broadcast the same way."""
        v = plain_scalar(v)
        if is_scalar(v):
            return self.broadcast(self.scalar(v, arg), shape_fn())
        v = as_input(v, self.op, arg)
        if isinstance(v, np.ndarray):
            return self.broadcast(v, shape_fn()) if v.ndim == 0 else v
        if torch_of(v) is not None:
            return self.broadcast(v, shape_fn()) if v.dim() == 0 else v
        if _is_0d_other(v, self.op, arg):
            shape = shape_fn()
            if shape is None:
                return v
            try:
                return self.broadcast(v, shape)
            except Exception:  # not viewable here: C reads it (and reports the error)
                return v
        return v

    def fill(self, value, mode):
        if mode != _C.MODE_FILL or value is None:
            return None
        value = plain_scalar(value)
        if is_scalar(value):
            return self.scalar(value, "fill_value")
        return as_input(value, self.op, "fill_value")


def _is_0d_other(v, op, arg):
    """v (neither NumPy nor torch) is a 0-d tensor-like: a shape attribute or,
    for a bare DLPack producer, the shape C reads. Anything C cannot read is
    left for C to report."""
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple):
        return shape == ()
    if not (hasattr(v, "__dlpack__") or hasattr(v, "__array_interface__")):
        return False
    try:
        return tuple(_C.describe(v, op, arg)["shape"]) == ()
    except Exception:
        return False

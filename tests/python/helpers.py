"""Shared helpers for the scatterkit Python tests.

- dtype tables (scatterkit names, NumPy and torch dtypes; helpers_dtypes.py),
- random values of every dtype, random index tensors,
- tensors of a given value in a given memory layout (contiguous, transposed,
  strided, expanded = zero strides, negative = NumPy negative strides),
- torch <-> NumPy conversion,
- reference implementations of gather / scatter / index_select /
  index_scatter that follow docs/CONTRACT.md (helpers_refs.py),
- bitwise / tolerance comparisons and a small failure collector so that a
  test that loops over a large cross product reports every failing case.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import torch

# the dtype tables and the references live in modules of their own;
# re-exported here, so that tests import everything from helpers
from helpers_dtypes import (  # noqa: F401
    BOOL_REDUCES, DTYPES, FLOAT_DTYPES, GATHER_MODES, INDEX_DTYPES, INT_DTYPES,
    LOW_FLOAT_DTYPES, NP_DTYPE, REDUCES, SCATTER_MODES, TORCH_DTYPE, TORCH_TO_NAME)
from helpers_refs import (  # noqa: F401
    normalize_index, ref_gather, ref_index_scatter, ref_index_scatter_torch,
    ref_index_select, ref_scatter, src_block)

# torch.index_reduce warns that it is in beta on every call
warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")


def reduces_for(dtype):
    """The reductions CONTRACT allows for a dtype (bool: assign, amax, amin)."""
    return BOOL_REDUCES if dtype == "bool" else REDUCES


def kinds_for(dtype):
    """Which array kinds can hold the dtype."""
    return ["torch"] if dtype == "bfloat16" else ["numpy", "torch"]


def layouts_for(kind):
    """Memory layouts a test can build for an array kind. torch has no
    negative strides, so 'negative' is NumPy only."""
    base = ["contiguous", "transposed", "strided", "expanded"]
    return base + ["negative"] if kind == "numpy" else base


def dtype_name(obj):
    if isinstance(obj, torch.Tensor):
        return TORCH_TO_NAME[obj.dtype]
    return np.dtype(obj.dtype).name


# --------------------------------------------------------------------------
# conversion
# --------------------------------------------------------------------------
def to_torch(a):
    """A contiguous torch copy of a NumPy array or torch tensor."""
    if isinstance(a, torch.Tensor):
        return a.detach().clone().contiguous()
    return torch.from_numpy(np.array(a, copy=True, order="C"))


def to_numpy(t):
    """A NumPy copy of a torch tensor (not for bfloat16)."""
    return t.detach().contiguous().numpy().copy()


def to_kind(t, kind):
    """A contiguous tensor `t` (torch) as `kind` ('numpy' or 'torch')."""
    return to_numpy(t) if kind == "numpy" else t.clone()


def empty_of(shape, dtype, kind):
    if kind == "numpy":
        return np.empty(shape, dtype=NP_DTYPE[dtype])
    return torch.empty(shape, dtype=TORCH_DTYPE[dtype])


# --------------------------------------------------------------------------
# random values
# --------------------------------------------------------------------------
# Float test values are multiples of 1/8 in [-8, 8] (or, for products, small
# numbers of the form 2^a 3^b 5^c): every partial sum or product that the
# tests produce is then exact in float32 (and float64), so the result does not
# depend on the order in which a target's updates are combined, and float
# results can be compared bitwise. float16/bfloat16 reduce in float32 and
# round once (CONTRACT), so their reference is the exact float32 result rounded
# once. test_scatter_float_random_values uses ordinary random floats with a
# tolerance.
PROD_VALUES = np.array([-2.0, -1.5, -1.0, -0.75, -0.5, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0])


def values(rng, shape, dtype, flavor="general"):
    """Random values of `dtype` as a contiguous torch tensor of `shape`.
    Integers use the dtype's full range (so sums and products wrap)."""
    shape = tuple(int(s) for s in shape)
    if dtype == "bool":
        arr = np.asarray(rng.random(shape) < 0.5)
        return torch.from_numpy(arr.copy())
    if dtype in INT_DTYPES:
        info = np.iinfo(NP_DTYPE[dtype])
        if dtype == "uint8" or dtype == "int8" or dtype == "int16":
            arr = rng.integers(int(info.min), int(info.max) + 1, size=shape, dtype=np.int64)
        else:
            arr = rng.integers(int(info.min), int(info.max), size=shape, dtype=np.int64,
                               endpoint=True)
        return torch.from_numpy(np.asarray(arr).astype(NP_DTYPE[dtype]))
    if flavor == "prod":
        arr = rng.choice(PROD_VALUES, size=shape)
    else:
        arr = rng.integers(-64, 65, size=shape) / 8.0
    return torch.from_numpy(np.asarray(arr, dtype=np.float64)).to(TORCH_DTYPE[dtype])


def index_values(rng, shape, n, mode, index_dtype):
    """Random index values for an axis of size n as a contiguous torch tensor.
    mode 'error': in [-n, n-1] (negative indices included);
    other modes: also up to 3 beyond either end."""
    shape = tuple(int(s) for s in shape)
    numel = int(np.prod(shape)) if shape else 1
    if mode == "error":
        if n == 0:
            assert numel == 0, "cannot make in-range indices for an empty axis"
            arr = np.zeros(shape, dtype=np.int64)
        else:
            arr = rng.integers(-n, n, size=shape)
    else:
        arr = rng.integers(-n - 3, n + 3, size=shape)
    return torch.from_numpy(np.asarray(arr, dtype=np.int64)).to(TORCH_DTYPE[index_dtype])


def fill_value_for(dtype):
    """A fill value (Python number) distinct from typical test data."""
    if dtype == "bool":
        return True
    if dtype == "uint8":
        return 7
    if dtype in INT_DTYPES:
        return -7
    return -2.5


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------
def _np_zero_stride_view(base, shape):
    strides = [0 if (b == 1 and s != 1) else st
               for b, s, st in zip(base.shape, shape, base.strides)]
    # as_strided keeps the view writeable-flagged (np.broadcast_to would be
    # read-only, which test_readonly_broadcast_input covers separately).
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)


def make_tensor(gen, shape, layout, kind, rng):
    """Build a tensor of `shape` in `layout` and `kind`.

    gen(shape) -> contiguous torch tensor of values. Returns (obj, ref):
    obj is the NumPy array / torch tensor with the requested layout; ref is a
    contiguous torch tensor holding the same values.
    Layouts: contiguous; transposed (made contiguous in reversed dimension
    order, so no stride is the row-major one; 1-d falls back to strided);
    strided (every other element of a larger buffer); expanded (some
    dimensions have stride 0: torch.expand / NumPy zero-stride view);
    negative (NumPy only: negative strides in every dimension, x[::-1])."""
    shape = tuple(int(s) for s in shape)
    nd = len(shape)
    if layout == "expanded":
        base_shape = [1 if (s > 1 and rng.random() < 0.6) else s for s in shape]
        if tuple(base_shape) == shape:
            for d, s in enumerate(shape):
                if s > 1:
                    base_shape[d] = 1
                    break
        base = gen(tuple(base_shape))
        if kind == "torch":
            obj = base.expand(shape)
        else:
            obj = _np_zero_stride_view(to_numpy(base), shape)
        return obj, to_torch(obj)
    base = gen(shape)
    if layout == "transposed" and nd == 1:
        layout = "strided"
    if layout == "contiguous" or nd == 0:
        return to_kind(base, kind), base
    if layout == "transposed":
        perm = tuple(reversed(range(nd)))
        if kind == "torch":
            obj = base.permute(perm).contiguous().permute(perm)
        else:
            obj = np.ascontiguousarray(to_numpy(base).transpose(perm)).transpose(perm)
        return obj, base
    if layout == "strided":
        big = tuple(2 * s for s in shape)
        sl = tuple(slice(None, None, 2) for _ in shape)
        if kind == "torch":
            buf = torch.zeros(big, dtype=base.dtype)
            obj = buf[sl]
            obj.copy_(base)
        else:
            buf = np.zeros(big, dtype=NP_DTYPE[dtype_name(base)])
            obj = buf[sl]
            obj[...] = to_numpy(base)
        return obj, base
    if layout == "negative":
        assert kind == "numpy"
        rev = tuple(slice(None, None, -1) for _ in shape)
        obj = np.ascontiguousarray(to_numpy(base)[rev])[rev]
        return obj, base
    raise ValueError(layout)


def writable_layout(layout):
    """Layouts usable as out= (no zero strides)."""
    return layout != "expanded"


# --------------------------------------------------------------------------
_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16,
         torch.float32: torch.int32, torch.float64: torch.int64}


def check_kind(got, kind):
    if kind == "numpy":
        assert isinstance(got, np.ndarray), f"expected a numpy.ndarray, got {type(got)}"
    else:
        assert isinstance(got, torch.Tensor), f"expected a torch.Tensor, got {type(got)}"


def _describe_diff(g, e, mask):
    pos = torch.nonzero(mask)
    first = tuple(int(v) for v in pos[0]) if len(pos) else ()
    return (f"{int(mask.sum())} of {mask.numel()} elements differ; first at {first}: "
            f"got {g[first].item()!r}, expected {e[first].item()!r}")


def _comparable(got, expected, kind):
    """got and expected as contiguous torch tensors, after checking kind,
    dtype and shape; None when there is nothing to compare (zero-size)."""
    if kind is not None:
        check_kind(got, kind)
    g = to_torch(got) if not isinstance(got, torch.Tensor) else got.detach().contiguous()
    e = expected.contiguous()
    assert g.dtype == e.dtype, f"dtype {g.dtype} != expected {e.dtype}"
    assert tuple(g.shape) == tuple(e.shape), f"shape {tuple(g.shape)} != expected {tuple(e.shape)}"
    return None if g.numel() == 0 else (g, e)


def assert_same(got, expected, kind=None):
    """Bitwise equality (NaN matches NaN, any payload). `got` may be NumPy or
    torch; `expected` is torch."""
    pair = _comparable(got, expected, kind)
    if pair is None:
        return
    g, e = pair
    if g.dtype in _BITS:
        gn, en = torch.isnan(g), torch.isnan(e)
        bad = (gn != en) | (~gn & ~en & (g.view(_BITS[g.dtype]) != e.view(_BITS[e.dtype])))
    else:
        bad = g != e
    if bool(bad.any()):
        raise AssertionError(_describe_diff(g, e, bad))


def assert_close(got, expected, rtol, atol, kind=None):
    pair = _comparable(got, expected, kind)
    if pair is None:
        return
    g, e = pair
    g64, e64 = g.double(), e.double()
    gn, en = torch.isnan(g64), torch.isnan(e64)
    fin = ~gn & ~en
    diff = torch.zeros_like(g64)
    diff[fin] = (g64[fin] - e64[fin]).abs()
    tol = atol + rtol * e64.abs()
    bad = (gn != en) | (fin & (diff > tol) & (g64 != e64))
    if bool(bad.any()):
        raise AssertionError(_describe_diff(g, e, bad))


def bits_of(a):
    """Raw bytes of an array/tensor, for 'unchanged' checks."""
    t = to_torch(a)
    if t.dtype in _BITS:
        t = t.view(_BITS[t.dtype])
    return t.clone()


class Failures:
    """Collects failures of a loop over many cases and reports them all."""

    def __init__(self, limit=25):
        self.items = []
        self.count = 0
        self.limit = limit

    def run(self, desc, fn):
        self.count += 1
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is recorded
            self.items.append(f"{desc}: {type(e).__name__}: {e}")

    def check(self):
        if self.items:
            head = "\n  ".join(self.items[: self.limit])
            more = len(self.items) - self.limit
            tail = f"\n  ... and {more} more" if more > 0 else ""
            raise AssertionError(f"{len(self.items)} of {self.count} cases failed:\n  {head}{tail}")
        assert self.count > 0, "no case ran"


def tshape(shape):
    return tuple(int(s) for s in shape)


def product(*its):
    return itertools.product(*its)


def same_for_all_threads(fn, threads):
    """fn() run at each thread count (scatterkit.set_num_threads); the results
    must be bitwise identical. Returns the first one."""
    import scatterkit as sk
    out = []
    for n in threads:
        sk.set_num_threads(n)
        out.append(fn())
    first = out[0].contiguous().view(torch.uint8)
    for n, r in zip(threads[1:], out[1:]):
        assert torch.equal(r.contiguous().view(torch.uint8), first), \
            f"{n} threads differ from {threads[0]}"
    return out[0]


class DLPackOnly:
    """Wraps a tensor so that it speaks only DLPack (no shape attribute, no
    __array_interface__): a stand-in for other producers."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

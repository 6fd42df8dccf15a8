"""Shared helpers for the scatterkit Python tests.

- dtype tables (scatterkit names, NumPy and torch dtypes),
- random values of every dtype, random index tensors,
- tensors of a given value in a given memory layout (contiguous, transposed,
  strided, expanded = zero strides, negative = NumPy negative strides),
- torch <-> NumPy conversion,
- reference implementations of gather / scatter / index_select /
  index_scatter that follow SPEC.md (PyTorch for values; plain NumPy where the
  SPEC departs from or goes beyond PyTorch -- every such place says why),
- bitwise / tolerance comparisons and a small failure collector so that a
  test that loops over a large cross product reports every failing case.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import torch

# torch.index_reduce warns that it is in beta on every call
warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")

# --------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
LOW_FLOAT_DTYPES = ["float16", "bfloat16"]
INDEX_DTYPES = ["int32", "int64"]
REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]
BOOL_REDUCES = [None, "amax", "amin"]
SCATTER_MODES = ["error", "clip", "drop"]
GATHER_MODES = ["error", "clip", "fill"]

TORCH_DTYPE = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8,
    "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
    "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64,
}
# NumPy has no bfloat16: bfloat16 tests use torch tensors only.
NP_DTYPE = {k: np.dtype(k) for k in DTYPES if k != "bfloat16"}
TORCH_TO_NAME = {v: k for k, v in TORCH_DTYPE.items()}


def reduces_for(dtype):
    """The reductions SPEC allows for a dtype (bool: assign, amax, amin)."""
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
# round once (SPEC), so their reference is the exact float32 result rounded
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
# index normalisation (SPEC "Indices")
# --------------------------------------------------------------------------
def normalize_index(idx, n, mode):
    """idx: torch int tensor of raw index values. Returns (norm, valid):
    norm (int64) has negative values in [-n, -1] mapped to i + n and, for
    'clip', everything clamped to [0, n-1]; valid tells which entries are in
    range (all True for 'clip')."""
    idx = idx.to(torch.int64)
    valid = (idx >= -n) & (idx < n)
    norm = torch.where(idx < 0, idx + n, idx)
    if mode == "clip":
        norm = norm.clamp(0, max(n - 1, 0))
        valid = torch.ones_like(valid)
    return norm, valid


def src_block(src, index_shape, dtype):
    """The part of src that scatter reads: the leading index.shape block.
    A Python scalar is broadcast to index.shape."""
    if not isinstance(src, torch.Tensor):
        return torch.full(tuple(index_shape), src, dtype=TORCH_DTYPE[dtype])
    return src[tuple(slice(0, s) for s in index_shape)].contiguous()


# --------------------------------------------------------------------------
# references
# --------------------------------------------------------------------------
def ref_gather(x, idx, axis, mode="error", fill_value=0):
    """gather: torch.gather on the normalised index; 'fill' via torch.where
    (torch has no out-of-range modes)."""
    n = x.shape[axis] if x.ndim else 1
    norm, valid = normalize_index(idx, n, mode)
    fill = torch.full(tuple(idx.shape), fill_value, dtype=x.dtype)
    if n == 0:
        return fill
    safe = torch.where(valid, norm, torch.zeros_like(norm))
    out = torch.gather(x, axis, safe)
    if mode == "fill":
        out = torch.where(valid, out, fill)
    return out


def ref_index_select(x, idx, axis, mode="error", fill_value=0):
    """index_select with an index of any rank: torch.index_select on the
    flattened index, reshaped to x.shape[:axis] + index.shape + x.shape[axis+1:];
    'fill' via torch.where."""
    axis = axis % x.ndim
    n = x.shape[axis]
    norm, valid = normalize_index(idx, n, mode)
    out_shape = tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:])
    fill = torch.full(out_shape, fill_value, dtype=x.dtype)
    if n == 0:
        return fill
    safe = torch.where(valid, norm, torch.zeros_like(norm))
    out = torch.index_select(x, axis, safe.reshape(-1)).reshape(out_shape)
    if mode == "fill":
        vshape = [1] * axis + list(idx.shape) + [1] * (x.ndim - axis - 1)
        out = torch.where(valid.reshape(vshape), out, fill)
    return out


def _flat_targets(x_shape, norm, axis):
    """Row-major linear target of every position of the index (row-major)."""
    coords = list(np.indices(tuple(norm.shape), dtype=np.int64)) if norm.ndim else []
    coords[axis] = norm.numpy().astype(np.int64)
    return np.ravel_multi_index([c.reshape(-1) for c in coords], tuple(x_shape)) \
        if norm.numel() else np.zeros(0, dtype=np.int64)


def _scatter_assign(x, norm, block, axis):
    # SPEC: with duplicate targets the LAST update in row-major order of the
    # index wins, always. torch.scatter leaves duplicates undefined, so this
    # is plain NumPy: keep, for every target, the last position naming it.
    out = x.clone().reshape(-1)
    flat = _flat_targets(x.shape, norm, axis)
    if flat.size:
        vals = block.reshape(-1)
        rev = flat[::-1]
        uniq, first = np.unique(rev, return_index=True)
        last = flat.size - 1 - first
        out[torch.from_numpy(uniq)] = vals[torch.from_numpy(last)]
    return out.reshape(x.shape)


def _scatter_int(x, norm, block, axis, reduce, include_self):
    # SPEC: integer sum/prod wrap around like two's complement and integer
    # mean is the (wrapped) sum divided by the count, rounded toward -inf.
    # torch computes the same (checked: it wraps in the dtype and floors the
    # mean) but relies on C++ signed overflow, so the reference is NumPy in
    # uint64, where wrap-around is well defined, truncated to the dtype.
    npd = NP_DTYPE[TORCH_TO_NAME[x.dtype]]
    xs = x.numpy().astype(np.int64).reshape(-1)
    flat = _flat_targets(x.shape, norm, axis)
    vals = block.numpy().astype(np.int64).reshape(-1)
    touched = np.zeros(xs.size, dtype=bool)
    touched[flat] = True
    if reduce in ("amax", "amin"):
        acc = xs.copy()
        if not include_self:
            info = np.iinfo(npd)
            acc[touched] = info.min if reduce == "amax" else info.max
        (np.maximum if reduce == "amax" else np.minimum).at(acc, flat, vals)
        return torch.from_numpy(acc.astype(npd).reshape(tuple(x.shape)))
    acc = xs.astype(np.uint64)
    if not include_self:
        acc[touched] = 1 if reduce == "prod" else 0
    if reduce == "prod":
        np.multiply.at(acc, flat, vals.astype(np.uint64))
    else:
        np.add.at(acc, flat, vals.astype(np.uint64))
    res = acc.astype(npd)  # truncation to the dtype's width = wrap-around
    if reduce == "mean":
        count = np.bincount(flat, minlength=xs.size) + (1 if include_self else 0)
        s = res.astype(np.int64)
        q = np.floor_divide(s, np.maximum(count, 1))
        res = np.where(touched, q, xs).astype(npd)
    return torch.from_numpy(res.reshape(tuple(x.shape)))


def _scatter_core(x, norm, block, axis, reduce, include_self):
    """All indices valid (normalised, int64)."""
    if reduce is None:
        return _scatter_assign(x, norm, block, axis)
    name = TORCH_TO_NAME[x.dtype]
    if name in INT_DTYPES:
        return _scatter_int(x, norm, block, axis, reduce, include_self)
    if name == "bool":
        assert reduce in ("amax", "amin")
        r = x.to(torch.uint8).scatter_reduce(axis, norm, block.to(torch.uint8), reduce,
                                             include_self=include_self)
        return r.to(torch.bool)
    if name in LOW_FLOAT_DTYPES:
        # SPEC: float16/bfloat16 reduce in float32 and round once at the end.
        r = x.float().scatter_reduce(axis, norm, block.float(), reduce,
                                     include_self=include_self)
        return r.to(x.dtype)
    return x.scatter_reduce(axis, norm, block, reduce, include_self=include_self)


def ref_scatter(x, idx, src, axis, reduce=None, include_self=True, mode="error"):
    """scatter reference. x: contiguous torch; idx: torch int (raw values);
    src: contiguous torch tensor (only the leading idx.shape block is read) or
    a Python scalar."""
    dtype = TORCH_TO_NAME[x.dtype]
    block = src_block(src, idx.shape, dtype)
    if x.ndim == 0:
        r = ref_scatter(x.reshape(1), idx.reshape(1), block.reshape(1), 0, reduce,
                        include_self, mode)
        return r.reshape(())
    axis = axis % x.ndim
    n = x.shape[axis]
    norm, valid = normalize_index(idx, n, mode)
    if mode == "drop":
        # 'drop' skips the update: emulate by sending dropped updates to an
        # extra dummy slot appended along the axis, then cutting it off.
        pad_shape = list(x.shape)
        pad_shape[axis] = 1
        xp = torch.cat([x, torch.zeros(pad_shape, dtype=x.dtype)], dim=axis)
        norm = torch.where(valid, norm, torch.full_like(norm, n))
        r = _scatter_core(xp, norm, block, axis, reduce, include_self)
        return r.narrow(axis, 0, n).contiguous()
    return _scatter_core(x, norm, block, axis, reduce, include_self)


def ref_index_scatter(x, idx, updates, axis=0, reduce=None, include_self=True, mode="error"):
    """index_scatter as a scatter: the 1-d index is broadcast over updates'
    shape along `axis` (slice i of updates goes to slice index[i] of out), so
    row-major order of the broadcast index is the order of i."""
    axis = axis % x.ndim
    if idx.ndim == 0:
        idx = idx.reshape(1)
        updates = updates.unsqueeze(axis)
    L = idx.shape[0]
    shp = [1] * x.ndim
    shp[axis] = L
    full = idx.reshape(shp).expand(tuple(updates.shape)).contiguous()
    return ref_scatter(x, full, updates.contiguous(), axis, reduce, include_self, mode)


def ref_index_scatter_torch(x, idx, updates, axis, reduce, include_self):
    """index_scatter straight from torch's index_copy / index_add /
    index_reduce (in-range, non-negative int64 index; no duplicates for assign,
    which torch leaves undefined; no bool: torch's index_reduce has none)."""
    low = TORCH_TO_NAME[x.dtype] in LOW_FLOAT_DTYPES
    xc = x.float() if low else x
    uc = updates.float() if low else updates
    if idx.ndim == 0:
        idx = idx.reshape(1)
        uc = uc.unsqueeze(axis)
    if reduce is None:
        r = xc.index_copy(axis, idx, uc)
    elif reduce == "sum":
        base = xc if include_self else xc.index_fill(axis, idx, 0)
        r = base.index_add(axis, idx, uc)
    else:
        r = xc.index_reduce(axis, idx, uc, reduce, include_self=include_self)
    return r.to(x.dtype)


# --------------------------------------------------------------------------
# comparisons
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

"""Reference implementations of gather / scatter / index_select /
index_scatter that follow docs/CONTRACT.md (PyTorch for values; plain NumPy where the
CONTRACT departs from or goes beyond PyTorch -- every such place says why), and
the index normalisation they share; helpers.py re-exports them."""
import numpy as np
import torch

from helpers_dtypes import INT_DTYPES, LOW_FLOAT_DTYPES, NP_DTYPE, TORCH_DTYPE, TORCH_TO_NAME



# --------------------------------------------------------------------------
# index normalisation (CONTRACT "Indices")
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
    # CONTRACT: with duplicate targets the LAST update in row-major order of the
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
    # CONTRACT: integer sum/prod wrap around like two's complement and integer
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
        # CONTRACT: float16/bfloat16 reduce in float32 and round once at the end.
        xf, bf = x.float(), block.float()
        r = xf.scatter_reduce(axis, norm, bf, reduce, include_self=include_self)
        return _canonical_chunks(xf, norm, bf, axis, reduce, include_self, r).to(x.dtype)
    r = x.scatter_reduce(axis, norm, block, reduce, include_self=include_self)
    return _canonical_chunks(x, norm, block, axis, reduce, include_self, r)


CANONICAL_CHUNK = 256


def canonical_fold(start, values, prod):
    """CONTRACT's canonical order: values (position order) in chunks of 256, the
    first folded one after another into start, each later one from the
    identity and then into the running value; in start's NumPy float type."""
    t = type(start)
    acc = start
    for c in range(0, len(values), CANONICAL_CHUNK):
        part = acc if c == 0 else (t(1) if prod else t(-0.0))
        for v in values[c:c + CANONICAL_CHUNK]:
            part = t(part * v) if prod else t(part + v)
        acc = part if c == 0 else (t(acc * part) if prod else t(acc + part))
    return acc


def _canonical_chunks(x, norm, block, axis, reduce, include_self, r):
    """torch's float scatter_reduce folds each target's updates one after
    another: CONTRACT's canonical order up to 256 contributors. Targets with more
    are folded again here by the contract's rule."""
    if reduce not in ("sum", "mean", "prod"):
        return r
    flat = _flat_targets(x.shape, norm, axis)
    counts = np.bincount(flat, minlength=x.numel()) if flat.size else np.zeros(0, np.int64)
    heavy = np.nonzero(counts > CANONICAL_CHUNK)[0]
    if heavy.size == 0:
        return r
    npt = np.float64 if x.dtype == torch.float64 else np.float32
    xs, vals = x.reshape(-1).numpy().astype(npt), block.reshape(-1).numpy().astype(npt)
    out = r.reshape(-1).clone()
    prod = reduce == "prod"
    for t in heavy:
        start = xs[t] if include_self else (npt(1) if prod else npt(-0.0))
        v = canonical_fold(start, vals[flat == t], prod)
        if reduce == "mean":
            v = npt(v / npt(counts[t] + (1 if include_self else 0)))
        out[t] = float(v)
    return out.reshape(r.shape)


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

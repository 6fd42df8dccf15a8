"""Shared references and error checks of the test_family_* files (the "rest
of the family": tuple-axis gather/scatter, gather_nd/scatter_nd,
slice/diagonal/select scatter, masked_scatter/masked_select,
tensor_scatter); test_family_common.py re-exports them.

References
- Indexed reductions (tuple-axis scatter, scatter_nd): every update is mapped
  to the row-major flat position of its target in x (or -1 when mode="drop"
  drops it), in row-major order of the updates; the reduction is then
  helpers.ref_scatter on the flattened x (torch.scatter_reduce for floats,
  float16/bfloat16 in float32 rounded once, NumPy uint64 wrap-around for
  integers, last-wins NumPy for assign). A 1-d scatter over the flat targets
  is the same computation, and the row-major order of the updates is the
  order CONTRACT's last-wins rule refers to.
- Indexed gathers (tuple-axis gather, gather_nd): the flat source position of
  every output element (or -1 for mode="fill"), read from x.reshape(-1).
- Pure data movement (slice/tensor scatter): NumPy on the raw bits (every
  dtype viewed as an integer of its width), so bfloat16 and NaN payloads are
  handled and negative steps work (torch has none).
"""
from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch

from helpers import TORCH_DTYPE, bits_of, ref_scatter, to_torch

# --------------------------------------------------------------------------
# bits
# --------------------------------------------------------------------------
_TBITS = {torch.bool: torch.uint8, torch.uint8: torch.uint8, torch.int8: torch.int8,
          torch.int16: torch.int16, torch.int32: torch.int32, torch.int64: torch.int64,
          torch.float16: torch.int16, torch.bfloat16: torch.int16,
          torch.float32: torch.int32, torch.float64: torch.int64}


def to_bits(t):
    """torch tensor -> NumPy integer array holding its raw bits (a copy)."""
    t = t.detach().contiguous()
    return t.view(_TBITS[t.dtype]).numpy().copy()


def from_bits(a, dtype):
    """NumPy integer bits -> torch tensor of `dtype` (name or torch dtype)."""
    if isinstance(dtype, str):
        dtype = TORCH_DTYPE[dtype]
    a = np.ascontiguousarray(a)
    return torch.from_numpy(a.copy()).view(dtype)


# --------------------------------------------------------------------------
# index normalisation on NumPy arrays
# --------------------------------------------------------------------------
def norm_component(v, n, mode):
    """v: int64 array of raw index values for an axis of size n.
    Returns (normalised, valid) as CONTRACT §2 / CHOICES say."""
    v = np.asarray(v, dtype=np.int64)
    valid = (v >= -n) & (v < n)
    norm = np.where(v < 0, v + n, v)
    if mode == "clip":
        norm = np.clip(norm, 0, max(n - 1, 0))
        valid = np.ones_like(valid)
    norm = np.where(valid, norm, 0)
    return norm, valid


def idx_np(t):
    return np.asarray(to_torch(t).to(torch.int64).numpy(), dtype=np.int64)


# --------------------------------------------------------------------------
# flat-position references
# --------------------------------------------------------------------------
def axes_positions(x_shape, idx, axes, mode):
    """Tuple-axis gather/scatter: idx (int64 NumPy) of shape P + (M,).
    Flat position in x of every p in P (row-major), -1 where invalid."""
    nd = len(x_shape)
    axes = [a % max(nd, 1) for a in axes]
    pshape = idx.shape[:-1]
    if nd == 0:
        n = 1
        norm, valid = norm_component(idx[..., 0], n, mode)
        pos = np.zeros(pshape, np.int64)
        return np.where(valid, pos, -1).reshape(-1)
    coords = list(np.indices(pshape, dtype=np.int64))
    valid = np.ones(pshape, bool)
    for k, a in enumerate(axes):
        norm, ok = norm_component(idx[..., k], x_shape[a], mode)
        coords[a] = norm
        valid &= ok
    if int(np.prod(pshape)) == 0:
        return np.zeros(0, np.int64)
    safe = [np.where(valid, c, 0) for c in coords]
    if int(np.prod(x_shape)) == 0:
        return np.full(int(np.prod(pshape)), -1, np.int64)
    flat = np.ravel_multi_index([c.reshape(-1) for c in safe], tuple(x_shape))
    return np.where(valid.reshape(-1), flat, -1)


def nd_positions(x_shape, idx, batch_dims, mode):
    """gather_nd / scatter_nd: flat position in x of every element of the
    result (gather) or of updates (scatter), row-major; -1 where the index
    tuple is invalid. Returns (positions, result shape)."""
    b = batch_dims
    k = idx.shape[-1]
    B = tuple(x_shape[:b])
    K = tuple(x_shape[b:b + k])
    R = tuple(x_shape[b + k:])
    M = tuple(idx.shape[b:-1])
    Bn, Kn, Rn, Mn = (int(np.prod(s)) for s in (B, K, R, M))
    out_shape = tuple(idx.shape[:-1]) + R
    ir = idx.reshape(Bn, Mn, k)
    valid = np.ones((Bn, Mn), bool)
    comps = []
    for j in range(k):
        norm, ok = norm_component(ir[..., j], K[j], mode)
        comps.append(norm)
        valid &= ok
    if k == 0 or Bn * Mn == 0 or Kn == 0:
        kflat = np.zeros((Bn, Mn), np.int64)
    else:
        kflat = np.ravel_multi_index(comps, K)
    base = np.arange(Bn, dtype=np.int64)[:, None] * Kn + kflat
    pos = base[..., None] * Rn + np.arange(Rn, dtype=np.int64)
    pos = np.where(valid[..., None], pos, -1)
    return pos.reshape(-1), out_shape


def ref_gather_flat(xr, pos, out_shape, fill_value=0):
    """Output element i = x.flat[pos[i]], or fill_value where pos[i] < 0."""
    xf = xr.reshape(-1)
    pos = np.asarray(pos, np.int64)
    safe = torch.from_numpy(np.where(pos < 0, 0, pos))
    if xf.numel() == 0:
        out = torch.zeros(pos.size, dtype=xr.dtype)
    else:
        out = xf[safe].clone()
    if (pos < 0).any():
        out[torch.from_numpy(pos < 0)] = torch.tensor(fill_value, dtype=xr.dtype)
    return out.reshape(out_shape)


def ref_scatter_flat(xr, pos, vals, reduce, include_self=True):
    """Reduce vals (torch, row-major order of the updates) into x at the flat
    positions pos (-1: dropped). See the module docstring."""
    xf = xr.reshape(-1).contiguous()
    n = xf.numel()
    pos = np.asarray(pos, np.int64)
    vals = vals.reshape(-1).contiguous()
    assert vals.numel() == pos.size
    t = torch.from_numpy(np.where(pos < 0, n + 5, pos))
    r = ref_scatter(xf, t, vals, 0, reduce, include_self, "drop")
    return r.reshape(xr.shape)


def ref_gather_axes(xr, ir, axes, mode="error", fill_value=0):
    idx = idx_np(ir)
    pos = axes_positions(tuple(xr.shape), idx, axes, mode)
    return ref_gather_flat(xr, pos, idx.shape[:-1], fill_value)


def ref_scatter_axes(xr, ir, src, axes, reduce=None, include_self=True, mode="error"):
    """src: torch tensor (leading index.shape[:-1] block read) or scalar."""
    idx = idx_np(ir)
    pshape = idx.shape[:-1]
    if isinstance(src, torch.Tensor):
        block = src[tuple(slice(0, s) for s in pshape)] if src.ndim else src.expand(pshape)
    else:
        block = torch.full(pshape, src, dtype=xr.dtype)
    pos = axes_positions(tuple(xr.shape), idx, axes, mode)
    return ref_scatter_flat(xr, pos, block, reduce, include_self)


def ref_gather_nd(xr, ir, batch_dims=0, mode="error", fill_value=0):
    idx = idx_np(ir)
    pos, out_shape = nd_positions(tuple(xr.shape), idx, batch_dims, mode)
    return ref_gather_flat(xr, pos, out_shape, fill_value)


def ref_scatter_nd(xr, ir, ur, reduce=None, mode="error"):
    idx = idx_np(ir)
    pos, ushape = nd_positions(tuple(xr.shape), idx, 0, mode)
    if not isinstance(ur, torch.Tensor):
        ur = torch.full(ushape, ur, dtype=xr.dtype)
    ur = ur.expand(ushape) if ur.ndim == 0 else ur
    return ref_scatter_flat(xr, pos, ur, reduce, True)


def ref_slice_scatter(xr, sr, axes, starts, stops, steps):
    """NumPy slicing on the bits of a copy: y[sl] = src (NumPy broadcasting),
    any step, Python slice rules for the bounds."""
    if not isinstance(axes, (list, tuple)):
        axes, starts, stops, steps = [axes], [starts], [stops], [steps]
    xb = to_bits(xr)
    nd = xb.ndim
    sl = [slice(None)] * nd
    for a, s, e, st in zip(axes, starts, stops, steps):
        sl[a % nd] = slice(s, e, 1 if st is None else st)
    xb[tuple(sl)] = to_bits(sr)
    return from_bits(xb, xr.dtype)


def ref_tensor_scatter(cr, ur, wi, axis, mode):
    """ONNX TensorScatter on the bits: for every batch b and update position
    j, cache[b, ..., (w[b] + j) (mod n when circular), ...] = update[b, ..., j, ...]
    in increasing j (so the last n positions of a long circular update win)."""
    cb = to_bits(cr)
    ub = to_bits(ur)
    nd = cb.ndim
    ax = axis % nd
    n = cb.shape[ax]
    L = ub.shape[ax]
    for b in range(cb.shape[0]):
        w = 0 if wi is None else int(wi[b])
        for j in range(L):
            p = (w + j) % n if mode == "circular" else w + j
            dst = [b] + [slice(None)] * (nd - 1)
            src = [b] + [slice(None)] * (nd - 1)
            dst[ax] = p
            src[ax] = j
            cb[tuple(dst)] = ub[tuple(src)]
    return from_bits(cb, cr.dtype)


# --------------------------------------------------------------------------
# error checks
# --------------------------------------------------------------------------
def assert_unchanged(obj, before, what="x"):
    """obj (array/tensor) has exactly the bits captured in `before`."""
    now = bits_of(obj)
    assert torch.equal(now, before), f"{what} was modified by a failing call"


@contextlib.contextmanager
def raises_with(exc, op, *words):
    """pytest.raises(exc) that also checks that the message starts with
    "<op>:" and contains every one of `words`."""
    with pytest.raises(exc) as info:
        yield info
    msg = str(info.value)
    assert msg.startswith(op + ":"), f"{op!r} does not start the message {msg!r}"
    for w in words:
        assert str(w) in msg, f"{w!r} not in message {msg!r}"

"""Checking scatterkit's results against PyTorch's (and its own first run)."""
import numpy as np
import torch

def _as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def compare(a, b, how, rtol=1e-4, atol=1e-5):
    """Returns (ok, detail). how: exact | close."""
    a, b = _as_list(a), _as_list(b)
    if len(a) != len(b):
        return False, "returned %d tensors, expected %d" % (len(a), len(b))
    worst = 0.0
    for k, (u, v) in enumerate(zip(a, b)):
        if not isinstance(u, torch.Tensor):
            try:
                u = torch.from_numpy(np.asarray(u))
            except Exception:
                return False, "result %d is %s, not a tensor" % (k, type(u).__name__)
        if u.shape != v.shape:
            return False, "shape %s, expected %s" % (tuple(u.shape), tuple(v.shape))
        if u.dtype != v.dtype:
            return False, "dtype %s, expected %s" % (u.dtype, v.dtype)
        if how == "exact":
            if not torch.equal(u, v):
                if u.is_floating_point() and torch.equal(torch.isnan(u), torch.isnan(v)) \
                        and torch.equal(torch.nan_to_num(u), torch.nan_to_num(v)):
                    continue
                bad = (u != v).sum().item()
                return False, "%d elements differ (exact check)" % bad
        else:
            uf, vf = u.float(), v.float()
            if not torch.allclose(uf, vf, rtol=rtol, atol=atol, equal_nan=True):
                d = (uf - vf).abs().nan_to_num(float("inf"))
                bad = (~torch.isclose(uf, vf, rtol=rtol, atol=atol, equal_nan=True)).sum().item()
                return False, "%d elements off, max |diff| %.3g (rtol %g, atol %g)" % (
                    bad, d.max().item(), rtol, atol)
            if uf.numel():
                worst = max(worst, (uf - vf).abs().nan_to_num(0).max().item())
    return True, ("max |diff| %.3g" % worst) if how != "exact" else "exact"


def same_bits(a, b):
    a, b = _as_list(a), _as_list(b)
    for u, v in zip(a, b):
        if not isinstance(u, torch.Tensor):
            u, v = torch.from_numpy(np.asarray(u)), torch.from_numpy(np.asarray(v))
        if u.shape != v.shape:
            return False
        if u.dtype.is_floating_point:
            u = u.contiguous().view(torch.int16 if u.element_size() == 2 else
                                    torch.int32 if u.element_size() == 4 else torch.int64)
            v = v.contiguous().view(u.dtype)
        if not torch.equal(u, v):
            return False
    return True

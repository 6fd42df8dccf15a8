"""The plain reference of the backward tests (test_backward*.py) and their
checks: gradcheck plus a comparison of forward and gradients with the
reference; see test_backward.py for what the reference is."""
import itertools

import numpy as np
import torch

F64 = torch.float64
REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------
def distinct_values(rng, shapes):
    """Tensors of the given shapes whose values are all distinct and at
    least 0.3 apart (no ties anywhere, and none appear under +-eps)."""
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    n = sum(sizes)
    v = rng.permutation(n) * 0.5 - n / 4 + rng.uniform(-0.1, 0.1, n)
    out, k = [], 0
    for s, m in zip(shapes, sizes):
        out.append(torch.tensor(v[k:k + m], dtype=F64).reshape(s))
        k += m
    return out


def values_for(rng, reduce, shapes):
    if reduce in ("amax", "amin"):
        return distinct_values(rng, shapes)
    if reduce == "prod":  # away from 0 and of either sign
        return [torch.tensor(rng.uniform(0.5, 1.5, s) * rng.choice([-1, 1], s), dtype=F64)
                for s in shapes]
    return [torch.tensor(rng.standard_normal(s), dtype=F64) for s in shapes]


def leaf(t):
    """A fresh contiguous leaf (gradcheck refuses zero strides, which NumPy's
    zero-size arrays can carry into torch)."""
    return torch.empty(tuple(t.shape), dtype=t.dtype).copy_(t).requires_grad_(True)


# --------------------------------------------------------------------------
# the plain reference
# --------------------------------------------------------------------------
def resolve(i, n, mode):
    """An index value per CONTRACT/CHOICES: negative wraps, then clip/drop/error."""
    i = int(i)
    if -n <= i < n:
        return i + n if i < 0 else i
    if mode == "clip":
        return min(max(i + n if i < 0 else i, 0), n - 1)
    if mode in ("drop", "fill"):
        return None
    raise IndexError(i)


def positions(shape):
    return list(itertools.product(*[range(s) for s in shape]))


def ref_reduce(x, src, pairs, reduce, include_self):
    """The scatter-type forward from (target, src position) pairs in update
    order: each target's contributors are reduced with torch operations."""
    groups = {}
    for t, p in pairs:
        groups.setdefault(t, []).append(src[p])
    if x.numel() == 0:
        return x * 1
    flat = []
    for t in positions(x.shape):
        if t not in groups:
            flat.append(x[t])
            continue
        vals = groups[t]
        if reduce is None:  # last writer wins; x and earlier writers are gone
            flat.append(vals[-1])
            continue
        if include_self:
            vals = [x[t]] + vals
        v = torch.stack(vals)
        flat.append({"sum": torch.sum, "prod": torch.prod, "mean": torch.mean,
                     "amax": torch.amax, "amin": torch.amin}[reduce](v))
    return torch.stack(flat).reshape(x.shape)


def ref_map(x, src, mapping):
    """out[t] = src[mapping[t]] where mapped, x[t] elsewhere."""
    if x.numel() == 0:
        return x * 1
    flat = [src[mapping[t]] if t in mapping else x[t] for t in positions(x.shape)]
    return torch.stack(flat).reshape(x.shape)


def ref_take(x, out_shape, sources):
    """out[p] = x[sources[p]] (sources[p] None: a filled constant 0)."""
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return x.new_zeros(out_shape) + 0 * x.sum()
    zero = x.new_zeros(())
    flat = [zero if sources[p] is None else x[sources[p]] for p in positions(out_shape)]
    return torch.stack(flat).reshape(out_shape)


def scatter_pairs(x_shape, index, axis, mode):
    index = np.asarray(index)
    pairs = []
    if isinstance(axis, tuple):
        nd = len(x_shape)
        axes = [a % nd for a in axis]
        for p in positions(index.shape[:-1]):
            t = list(p)
            for k, a in enumerate(axes):
                t[a] = resolve(index[p + (k,)], x_shape[a], mode)
            if None not in t:
                pairs.append((tuple(t), p))
        return pairs
    nd = len(x_shape)
    if nd == 0:
        i = resolve(index[()], 1, mode)
        return [] if i is None else [((), ())]
    a = axis % nd
    for p in positions(index.shape):
        i = resolve(index[p], x_shape[a], mode)
        if i is not None:
            pairs.append((p[:a] + (i,) + p[a + 1:], p))
    return pairs


def index_scatter_pairs(x_shape, index, axis, mode):
    index = np.asarray(index)
    nd = len(x_shape)
    a = axis % nd
    rest = positions(x_shape[:a] + x_shape[a + 1:])
    pairs = []
    for j, raw in enumerate(index.reshape(-1)):
        i = resolve(raw, x_shape[a], mode)
        if i is None:
            continue
        for q in rest:
            t = q[:a] + (i,) + q[a:]
            pairs.append((t, q if index.ndim == 0 else q[:a] + (j,) + q[a:]))
    return pairs


def scatter_nd_pairs(x_shape, index, mode):
    index = np.asarray(index)
    k = index.shape[-1]
    pairs = []
    for p in positions(index.shape[:-1]):
        t = tuple(resolve(index[p + (j,)], x_shape[j], mode) for j in range(k))
        if None in t:
            continue
        for q in positions(x_shape[k:]):
            pairs.append((t + q, p + q))
    return pairs


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------
def gradcheck(fn, inputs):
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5)


def grads(fn, inputs, grad_out):
    inputs = [leaf(t) for t in inputs]
    y = fn(*inputs)
    y.backward(grad_out)
    return y.detach(), [t.grad for t in inputs]


def check_against(fn, ref, inputs, rng, exact=False):
    """Our forward and gradients equal the reference's (random grad_out)."""
    y = fn(*[t.detach() for t in inputs])
    g = torch.tensor(rng.standard_normal(tuple(y.shape)), dtype=y.dtype)
    ours, gours = grads(fn, inputs, g)
    theirs, gtheirs = grads(ref, inputs, g)
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12, equal_nan=True)
    for a, b in zip(gours, gtheirs):
        if b is None:  # the reference never read it: its gradient is 0
            b = torch.zeros_like(a)
        if exact:
            torch.testing.assert_close(a, b, rtol=0, atol=0)
        else:
            torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def check(fn, ref, inputs, rng):
    gradcheck(fn, [leaf(t) for t in inputs])
    check_against(fn, ref, inputs, rng)


def as_index(a):
    """An int64 index tensor of a nested list / array / scalar."""
    return torch.tensor(np.asarray(a), dtype=torch.int64)

"""Shared pieces of the error tests (test_errors*.py): the four core
operators called alike, and valid arguments to spoil one at a time."""
import re

import numpy as np
import torch

import scatterkit as sk
from helpers import TORCH_DTYPE, to_kind, values

OPS = ["gather", "scatter", "index_select", "index_scatter"]


def op_in(op, msg):
    # "scatter" must name scatter itself, not only "index_scatter"
    return re.search(rf"(?<![A-Za-z0-9_]){op}(?![A-Za-z0-9_])", msg) is not None


def call_op(op, x, idx, axis, other=None, **kw):
    if op == "gather":
        return sk.gather(x, idx, axis, **kw)
    if op == "index_select":
        return sk.index_select(x, idx, axis, **kw)
    if op == "scatter":
        return sk.scatter(x, idx, other, axis, **kw)
    return sk.index_scatter(x, idx, other, axis, **kw)


def valid_args(op, kind="numpy", dtype="float32", index_dtype="int64"):
    """Valid (x, index, other, axis) for x of shape (5, 10), axis 1; the
    index position [3, 7] (or [7] for the 1-d index of index_scatter)."""
    rng = np.random.default_rng(0)
    x = values(rng, (5, 10), dtype)
    if op == "index_scatter":
        idx = torch.from_numpy(rng.integers(0, 10, (8,)))
        other = values(rng, (5, 8), dtype)
    else:
        idx = torch.from_numpy(rng.integers(0, 10, (4, 8)))
        other = values(rng, (4, 8), dtype) if op == "scatter" else None
    idx = idx.to(TORCH_DTYPE[index_dtype])
    conv = (lambda t: t) if (kind == "torch" or dtype == "bfloat16") else to_kind_np
    return conv(x), conv(idx), (None if other is None else conv(other)), 1


def to_kind_np(t):
    return to_kind(t, "numpy")

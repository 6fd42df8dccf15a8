"""masked_select's backward onto a broadcast x through a row-major mask (the
runs kernel, src/cpu/backward/mask_sum.c): grad_x[e] is the canonical fold
(docs/CONTRACT.md) of grad_out at the True positions that broadcast from e,
in position order, chunked by 256 True positions. Values that do not add
exactly, so that another association would give other bits."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import scatterkit as sk
from helpers_canonical import with_threads
from helpers_refs import canonical_fold

torch = pytest.importorskip("torch")

# (x's shape, the mask's shape): what each walks in the kernel
SHAPES = [
    ((1, 300), (700, 300)),     # runs along x's last dimension, 700 broadcast rows
    ((40, 1), (40, 2000)),      # one x element per run: stretches of grad_out
    ((5, 1, 3), (5, 600, 3)),   # x dimensions on both sides of a broadcast one
    ((1, 4, 1), (3, 4, 700)),   # one element's runs in three blocks, carried on
    ((1, 1), (30, 40)),         # a single element
    ((1, 3), (70000, 3)),       # more blocks than the kernel counts apart
]


def _reference(xs, mask, values, acc):
    """Per x element, the canonical fold of its contributors' values."""
    full = np.broadcast_shapes(xs, mask.shape)
    coords = np.nonzero(np.broadcast_to(mask, full))
    lead = len(full) - len(xs)
    target = np.zeros(len(values), np.int64)
    for d, size in enumerate(xs):
        target = target * size + (coords[d + lead] if size != 1 else 0)
    order = np.argsort(target, kind="stable")
    bounds = np.searchsorted(target[order], np.arange(int(np.prod(xs)) + 1))
    out = [canonical_fold(acc(0.0), values[order[bounds[e]:bounds[e + 1]]], False)
           for e in range(int(np.prod(xs)))]
    return np.array(out, acc).reshape(xs)


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "x%s-mask%s" % s)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_broadcast_x_backward_is_the_canonical_fold(shapes, dtype):
    xs, ms = shapes
    rng = np.random.default_rng(SHAPES.index(shapes) * 10 + len(dtype))
    mask = rng.random(ms) < 0.6
    acc = np.float64 if dtype == "float64" else np.float32
    n = int(np.broadcast_to(mask, np.broadcast_shapes(xs, ms)).sum())
    v = rng.uniform(-1, 1, n).astype(acc) * acc(3.3)
    v[rng.integers(0, n, max(1, n // 50))] = -0.0
    tdt = getattr(torch, dtype)
    g = torch.from_numpy(v).to(tdt)
    values = g.to(torch.float64).numpy().astype(acc)  # 16-bit values widen exactly
    want = torch.from_numpy(_reference(xs, mask, values, acc)).to(tdt)
    bits = torch.int64 if dtype == "float64" else torch.int32 if dtype == "float32" \
        else torch.int16
    m = torch.from_numpy(mask)
    for nt, got, kernel in with_threads((1, 2, 3, 16),
                                        lambda: sk.masked_select_backward(g, xs, m)):
        assert kernel == "cpu/scatter_backward/mask_sum", (nt, kernel)
        assert torch.equal(got.view(bits), want.view(bits)), nt
    strided = torch.full(xs[:-1] + (2 * xs[-1],), 7.0, dtype=tdt)[..., ::2]
    sk.masked_select_backward(g, xs, m, grad_x=strided)  # a buffer, then copied
    assert torch.equal(strided.contiguous().view(bits), want.view(bits))


def test_broadcast_x_backward_checks_the_count_before_writing():
    """A grad_out one element short is refused, and grad_x keeps its values."""
    mask = torch.ones(40, 2000, dtype=torch.bool)
    grad_x = torch.full((40, 1), 5.0)
    with pytest.raises(Exception, match="grad_out"):
        sk.masked_select_backward(torch.ones(40 * 2000 - 1), (40, 1), mask, grad_x=grad_x)
    assert torch.equal(grad_x, torch.full((40, 1), 5.0))


def test_single_range_paths_give_the_same_bits():
    """The canonical test again in a process where the kernel keeps at most 8
    block counts (SCATTERKIT_MASK_SUM_BLOCKS, a testing override): rows of
    300 bytes then run as one range through the long-row wrap, and x (1, 4,
    1) folds in two ranges."""
    env = dict(os.environ, SCATTERKIT_MASK_SUM_BLOCKS="8")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          os.path.abspath(__file__), "-k", "is_the_canonical_fold"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert re.search(r"\b24 passed", out.stdout), out.stdout[-3000:]

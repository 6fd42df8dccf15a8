"""scatterkit.torch_scatter's gradients (gradcheck in float64 for every
function), its differences from torch_scatter's rules (ties share the
gradient, scatter_mul exact with zeros), the composites against the
pure-PyTorch formulas PyG uses without torch_scatter, and the PyG-style
model of docs/torch_scatter.md (run from the page itself)."""
import re
from pathlib import Path

import pytest
import torch
from torch.autograd import gradcheck

import scatterkit.torch_scatter as ts

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce")  # torch: beta
F64 = torch.float64
DOC = Path(__file__).resolve().parents[2] / "docs" / "torch_scatter.md"


def leaf(*shape, seed=0, low=-1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=F64) * 2 + low).requires_grad_()


INDEX = torch.tensor([0, 2, 0, 3, 2, 0, 3])         # target 1 empty


@pytest.mark.parametrize("reduce", ["sum", "mul", "mean", "min", "max"])
def test_gradcheck_scatter(reduce):
    src = leaf(3, 7, 2)
    assert gradcheck(lambda s: ts.scatter(s, INDEX, 1, dim_size=5, reduce=reduce), (src,))
    out = leaf(3, 5, 2, seed=1)
    assert gradcheck(lambda s, o: ts.scatter(s, INDEX, 1, out=o.clone(), reduce=reduce),
                     (src, out))


@pytest.mark.parametrize("name", ["scatter_max", "scatter_min"])
def test_gradcheck_arg_functions(name):
    fn = getattr(ts, name)
    assert gradcheck(lambda s: fn(s, INDEX, 0)[0], (leaf(7, 3),))


@pytest.mark.parametrize("reduce", ["sum", "mean", "min", "max"])
def test_gradcheck_segments(reduce):
    indptr = torch.tensor([1, 3, 3, 7, 9])
    assert gradcheck(lambda s: ts.segment_csr(s, indptr, reduce=reduce), (leaf(9, 3),))
    src = leaf(2, 9, 3)
    batched = torch.tensor([[0, 4, 4, 9], [2, 2, 5, 8]])
    assert gradcheck(lambda s: ts.segment_csr(s, batched, reduce=reduce), (src,))
    index = torch.tensor([[0, 0, 1, 1, 1, 3, 3, 4, 4]])
    assert gradcheck(lambda s: ts.segment_coo(s, index, dim_size=6, reduce=reduce), (src,))


def test_gradcheck_gathers():
    indptr = torch.tensor([0, 2, 2, 5, 6])
    assert gradcheck(lambda s: ts.gather_csr(s, indptr), (leaf(4, 3),))
    assert gradcheck(lambda s: ts.gather_csr(s, indptr[None].expand(2, 5)), (leaf(2, 4, 3),))
    src = leaf(2, 4, 3)
    index = torch.tensor([[0, 0, 3, 3, 3, 1]])
    assert gradcheck(lambda s: ts.gather_coo(s, index), (src,))


@pytest.mark.parametrize("name", ["scatter_softmax", "scatter_log_softmax", "scatter_logsumexp",
                                  "scatter_std"])
def test_gradcheck_composites(name):
    fn = getattr(ts, name)
    src = leaf(7, 3, low=0.0)   # every target has two or more elements (std's sqrt at 0)
    index = torch.tensor([0, 1, 0, 1, 3, 3, 3])
    assert gradcheck(lambda s: fn(s, index, 0, dim_size=4), (src,))
    if name in ("scatter_logsumexp", "scatter_std"):
        out = leaf(4, 3, seed=2, low=0.0)
        assert gradcheck(lambda s, o: fn(s, index, 0, out=o.clone()), (src, out))


def test_ties_share_the_gradient():
    src = torch.tensor([3.0, 1.0, 3.0, 3.0, 2.0], dtype=F64, requires_grad=True)
    vals, arg = ts.scatter_max(src, torch.tensor([0, 0, 0, 1, 1]))
    vals.backward(torch.tensor([6.0, 1.0], dtype=F64))
    assert arg.tolist() == [0, 3]
    assert src.grad.tolist() == [3.0, 0.0, 3.0, 1.0, 0.0]   # torch_scatter: [6, 0, 0, 1, 0]


def test_mul_gradient_exact_with_zeros():
    src = torch.tensor([2.0, 0.0, 5.0, 0.0, 0.0], dtype=F64, requires_grad=True)
    ts.scatter_mul(src, torch.tensor([0, 0, 0, 1, 1])).sum().backward()
    assert src.grad.tolist() == [0.0, 10.0, 0.0, 0.0, 0.0]


def pyg_softmax(src, index, n):
    m = torch.zeros(n, *src.shape[1:], dtype=src.dtype).index_reduce_(
        0, index, src.detach(), "amax", include_self=False)
    e = (src - m[index]).exp()
    return e / torch.zeros_like(m).index_add_(0, index, e)[index]


def test_composites_against_pytorch_formulas():
    g = torch.Generator().manual_seed(4)
    src = torch.randn(40, 3, generator=g, dtype=F64, requires_grad=True)
    index = torch.randint(0, 9, (40,), generator=g)
    n = 10
    got = ts.scatter_softmax(src, index, 0, dim_size=n)
    want = pyg_softmax(src, index, n)
    assert torch.allclose(got, want, rtol=1e-14, atol=0)
    w = torch.randn(40, 3, generator=g, dtype=F64)
    g1, = torch.autograd.grad((got * w).sum(), src)
    g2, = torch.autograd.grad((want * w).sum(), src)
    assert torch.allclose(g1, g2, rtol=1e-12, atol=1e-15)
    lse = ts.scatter_logsumexp(src, index, 0, dim_size=n)
    full = torch.full((n, 3), float("-inf"), dtype=F64).index_reduce_(0, index, src, "amax")
    ref = torch.stack([src[index == t].logsumexp(0) if (index == t).any() else
                       torch.zeros(3, dtype=F64) for t in range(n)])
    assert torch.allclose(lse, ref, rtol=1e-12) and full.shape == lse.shape
    assert torch.allclose(ts.scatter_log_softmax(src, index, 0), got.log(), rtol=1e-12)
    std = ts.scatter_std(src, index, 0, dim_size=n)
    ref = torch.stack([src[index == t].std(0) if (index == t).sum() > 1 else
                       torch.zeros(3, dtype=F64) for t in range(n)])
    assert torch.allclose(std, ref, rtol=1e-6)       # torch_scatter's divisor: count - 1 + 1e-6


def test_16bit_accumulates_in_float32():
    src = torch.full((3000,), 0.1, dtype=torch.bfloat16)
    got = ts.scatter(src, torch.zeros(3000, dtype=torch.int64), reduce="sum")
    assert got.item() == torch.tensor(3000 * 0.10009765625).bfloat16().item()
    # a bfloat16 running sum would stop growing at 32 (0.1 < half an ulp there)
    assert got.item() > 250


def test_determinism_and_same_bits_as_segments(restore_threads):
    import scatterkit
    g = torch.Generator().manual_seed(8)
    src = torch.randn(5000, 4, generator=g)
    index = torch.randint(0, 7, (5000,), generator=g).sort().values
    a = ts.scatter(src, index, 0)
    ptr = torch.cat([torch.zeros(1, dtype=torch.int64), torch.bincount(index, minlength=7).cumsum(0)])
    assert torch.equal(a, ts.segment_csr(src, ptr)) and torch.equal(a, ts.segment_coo(src, index))
    for threads in (1, 3):      # targets of ~700 contributors: the canonical chunks
        scatterkit.set_num_threads(threads)
        assert torch.equal(a, ts.scatter(src, index, 0))
        assert torch.equal(ts.scatter_softmax(src, index, 0), ts.scatter_softmax(src, index, 0))


def test_pyg_model_of_the_docs_page():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1 and "class Net" in blocks[0]
    exec(compile(blocks[0], str(DOC), "exec"), {"__name__": "docs_torch_scatter"})


def test_composites_with_nan_and_empty_targets():
    src = torch.tensor([1.0, float("nan"), 2.0, 0.5], dtype=F64)
    index = torch.tensor([0, 0, 0, 2])
    lse = ts.scatter_logsumexp(src, index, dim_size=4)      # NaN left out, empty targets 0
    want = torch.tensor([1.0, 2.0], dtype=F64).logsumexp(0)
    assert torch.allclose(lse[0], want) and torch.allclose(lse[2], src[3]) and lse[1] == lse[3] == 0
    sm = ts.scatter_softmax(src, index)
    assert sm[:3].isnan().all() and sm[3] == 1.0             # as torch_scatter
    out = torch.tensor([0.0, 7.0, 1.0, -3.0], dtype=F64)
    got = ts.scatter_logsumexp(src, index, out=out)
    assert got is out and out[1] == 7.0 and out[3] == -3.0   # no src: out kept
    assert torch.allclose(out[2], torch.tensor([1.0, 0.5], dtype=F64).logsumexp(0))

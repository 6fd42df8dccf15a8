"""No silent gradient loss: the plain scatterkit functions given torch
tensors that require grad keep the graph (they run through
scatterkit.torch); out= follows torch's rules; the plain backward
functions refuse such tensors; import scatterkit never imports torch."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import scatterkit as sk

OUT_ERROR = "out=... arguments don't support automatic differentiation"


def test_plain_scatter_keeps_the_gradient():
    w = torch.randn(4, 3, requires_grad=True)
    index = torch.tensor([[0, 1, 2], [2, 1, 0]])
    y = sk.scatter(torch.zeros(3, 3), index, w[:2] * 2, 0, reduce="sum")
    assert y.requires_grad
    y.sum().backward()
    assert torch.equal(w.grad, torch.tensor([[2.0] * 3, [2.0] * 3, [0.0] * 3, [0.0] * 3]))


@pytest.mark.parametrize("name, args", [
    ("gather", lambda w: (w, torch.tensor([[1, 0]]), 0)),
    ("index_select", lambda w: (w, torch.tensor([1]), 1)),
    ("gather_nd", lambda w: (w, torch.tensor([[1, 1]]))),
    ("masked_select", lambda w: (w, w.detach() > 0)),
    ("index_scatter", lambda w: (torch.zeros(2, 2), torch.tensor([1]), w[:1], 0)),
    ("scatter_nd", lambda w: (w, torch.tensor([[0]]), torch.ones(1, 2))),
    ("slice_scatter", lambda w: (torch.zeros(2, 2), w[:1], 0, 0, 1)),
    ("diagonal_scatter", lambda w: (w, torch.ones(2))),
    ("select_scatter", lambda w: (torch.zeros(2, 2), w[0], 0, 1)),
    ("masked_scatter", lambda w: (torch.zeros(2, 2), torch.tensor([True, False]), w)),
    ("tensor_scatter", lambda w: (torch.zeros(1, 3, 2), w[None, :1], None)),
])
def test_every_plain_operator_keeps_the_graph(name, args):
    w = torch.randn(2, 2, requires_grad=True)
    y = getattr(sk, name)(*args(w))
    assert y.grad_fn is not None, name
    y.sum().backward()
    assert w.grad is not None and w.grad.abs().sum() > 0, name


def test_no_grad_and_numpy_paths_are_plain():
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        y = sk.gather(w, torch.tensor([0, 0]), 0)
    assert not y.requires_grad
    a = sk.gather(np.arange(3.0), np.array([2, 1]), 0)
    assert isinstance(a, np.ndarray) and a.tolist() == [2.0, 1.0]


def test_out_into_a_leaf_that_requires_grad_is_refused():
    leaf = torch.zeros(3, requires_grad=True)
    src = torch.ones(1)
    with pytest.raises(RuntimeError, match=OUT_ERROR):
        sk.scatter(torch.zeros(3), torch.tensor([0]), src, 0, out=leaf)
    with pytest.raises(RuntimeError, match=OUT_ERROR):
        sk.slice_scatter(leaf, src, 0, 0, 1, out=leaf)
    with pytest.raises(RuntimeError, match=OUT_ERROR):
        torch.add(src, src, out=leaf[:1])  # torch's own message, for comparison
    assert leaf.tolist() == [0.0, 0.0, 0.0]
    with torch.no_grad():  # as torch allows writing into it under no_grad
        sk.scatter(torch.zeros(3), torch.tensor([1]), src, 0, out=leaf)
    assert leaf.tolist() == [0.0, 1.0, 0.0]


def test_out_with_an_input_that_requires_grad_is_refused():
    w = torch.ones(1, requires_grad=True)
    out = torch.zeros(3)
    with pytest.raises(RuntimeError, match=OUT_ERROR):
        sk.scatter(torch.zeros(3), torch.tensor([0]), w, 0, out=out)
    assert out.tolist() == [0.0, 0.0, 0.0]


def test_out_without_grad_writes_in_place():
    x = torch.zeros(2, 3)
    res = sk.index_scatter(x, torch.tensor([1]), torch.ones(1, 3), 0, out=x)
    assert res is x and x[1].tolist() == [1.0] * 3


def test_plain_backward_functions_refuse_tensors_that_require_grad():
    g = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="scatterkit.gather_backward: .*requires grad"):
        sk.gather_backward(g, (3,), torch.tensor([0, 2]), 0)
    gx = sk.gather_backward(g.detach(), (3,), torch.tensor([0, 2]), 0)
    assert gx.tolist() == [1.0, 0.0, 1.0]


def test_import_scatterkit_does_not_import_torch():
    code = "import sys, scatterkit; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)

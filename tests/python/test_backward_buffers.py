"""The backward functions' caller-given buffers and argument errors: a 0-d
source whose gradient is summed from a full-size one gets every check before
anything is written (docs/CONTRACT.md, Errors), and wrong shapes are named
by the argument the caller passed."""
import numpy as np
import pytest
import torch

import scatterkit as sk
import scatterkit.torch as skt
from scatterkit.torch import compat

G = np.arange(6.0).reshape(2, 3)
IDX = np.array([[0, 1], [2, 2]])


def _scatter_0d(**kw):
    return sk.scatter_backward(G, np.zeros((2, 3)), IDX, np.array(1.0), 1, reduce="sum", **kw)


def _masked_0d(**kw):
    return sk.masked_scatter_backward(G, (2, 3), np.ones((2, 3), bool), np.array(1.0), **kw)


def _select_0d(**kw):
    return sk.select_scatter_backward(G, (2, 3), np.array(1.0), 1, 0, **kw)


@pytest.mark.parametrize("call,name", [(_scatter_0d, "grad_src"), (_masked_0d, "grad_source"),
                                       (_select_0d, "grad_src")])
@pytest.mark.parametrize("bad,err,text", [
    (lambda: np.zeros((), np.float32), TypeError, "must have dtype float64"),
    (lambda: np.zeros(2), ValueError, "must have shape []"),
    (lambda: np.zeros(5), ValueError, "must have shape []"),
])
def test_bad_point_grad_writes_nothing(call, name, bad, err, text):
    gx = np.full((2, 3), 7.0)
    with pytest.raises(err, match=r"_backward: %s " % name) as e:
        call(grad_x=gx, **{name: bad()})
    assert text in str(e.value)
    assert (gx == 7.0).all()


def test_read_only_point_grad_writes_nothing():
    gx = np.full((2, 3), 7.0)
    gs = np.zeros(())
    gs.flags.writeable = False
    with pytest.raises(ValueError, match="scatter_backward: grad_src is read-only"):
        _scatter_0d(grad_x=gx, grad_src=gs)
    assert (gx == 7.0).all()


def test_point_grad_overlapping_grad_x_is_refused():
    buf = np.zeros(3)
    with pytest.raises(ValueError, match="grad_src overlaps grad_x"):
        sk.scatter_backward(np.array([1.0, 2.0, 10.0]), np.zeros(3), np.array([0, 1]),
                            np.array(5.0), 0, reduce="sum", grad_x=buf,
                            grad_src=buf[2:3].reshape(()))
    assert (buf == 0).all()
    t = torch.zeros(3, dtype=torch.float64)
    with pytest.raises(ValueError, match="grad_src overlaps grad_x"):
        sk.scatter_backward(torch.ones(3, dtype=torch.float64), torch.zeros(3), torch.tensor([0]),
                            torch.tensor(5.0, dtype=torch.float64), 0, reduce="sum", grad_x=t,
                            grad_src=t[1])


def test_point_grad_given_is_the_sum():
    gs = np.zeros(())
    gx, r = _scatter_0d(grad_src=gs)
    assert r is gs
    assert float(gs) == G[0, 0] + G[0, 1] + G[1, 2] + G[1, 2]  # the four positions src fills
    np.testing.assert_array_equal(gx, G)


@pytest.mark.parametrize("call,text", [
    (lambda g: sk.select_scatter_backward(g, (4, 5), (4,), 1, 0), "grad_out must have shape [4, 5]"),
    (lambda g: sk.slice_scatter_backward(g, (4, 5), (4, 3), 1, None, None, 2),
     "grad_out must have shape [4, 5]"),
    (lambda g: sk.diagonal_scatter_backward(g, (4, 5), (4,)), "grad_out must have shape [4, 5]"),
    (lambda g: sk.masked_scatter_backward(g, (4, 5), np.ones(5, bool), (20,)),
     "grad_out must have shape [4, 5]"),
])
def test_view_backward_names_grad_out(call, text):
    with pytest.raises(ValueError) as e:
        call(np.ones((4, 4)))
    assert text in str(e.value)


def test_tensor_scatter_backward_names_grad_out():
    with pytest.raises(ValueError, match=r"grad_out must have shape \[2, 5, 3\]"):
        sk.tensor_scatter_backward(np.ones((2, 4, 3)), (2, 5, 3), (2, 2, 3))


def test_scatter_backward_names_result():
    with pytest.raises(ValueError, match=r"scatter_backward: result must have shape \[2, 3\]"):
        sk.scatter_backward(np.ones((2, 3)), np.zeros((2, 3)), np.array([[0], [1]]),
                            np.ones((2, 1)), 1, reduce="amax", result=np.zeros((3, 3)))


@pytest.mark.parametrize("shape,text", [((2, -3), "negative dimension"),
                                        ((2, 2**62), "more than 2**63 - 1 elements")])
def test_shape_arguments_are_checked(shape, text):
    with pytest.raises(ValueError, match="gather_backward: x = ") as e:
        sk.gather_backward(np.ones((2, 2)), shape, np.zeros((2, 2), int), 1)
    assert text in str(e.value)


@pytest.mark.parametrize("call", [
    lambda x: skt.select_scatter(x, float("inf"), 0, 0),
    lambda x: skt.masked_scatter(x, x == 0, float("nan")),
    lambda x: skt.gather(x, torch.tensor([[9]]), 1, mode="fill", fill_value=float("nan")),
    lambda x: skt.select_scatter(x, 1e20, 0, 0),
])
def test_torch_layer_scalar_conversion_errors(call):
    with pytest.raises(ValueError, match="cannot be converted to x's dtype"):
        call(torch.zeros(3, 4, dtype=torch.int32))


@pytest.mark.parametrize("value", ["a", None])
def test_torch_layer_refuses_non_numbers(value):
    with pytest.raises(sk.ArgumentTypeError, match="select_scatter: src must be a tensor"):
        skt.select_scatter(torch.zeros(3, 4), value, 0, 0)


def test_compat_zero_d_index_keeps_the_dimension():
    x = torch.arange(60.0).reshape(3, 4, 5)
    i = torch.tensor(2)
    assert compat.index_select(x, 1, i).shape == torch.index_select(x, 1, i).shape
    src = torch.rand(3, 1, 5)
    for ours, theirs in ((compat.index_add, torch.index_add), (compat.index_copy, torch.index_copy)):
        torch.testing.assert_close(ours(x, 1, i, src), theirs(x, 1, i, src), rtol=0, atol=0)


def test_compat_masked_scatter_broadcasts_input():
    x = torch.zeros(1, 5)
    m = torch.tensor([[True, False, True, False, True]] * 3)
    s = torch.arange(9.0)
    torch.testing.assert_close(compat.masked_scatter(x, m, s), torch.masked_scatter(x, m, s),
                               rtol=0, atol=0)

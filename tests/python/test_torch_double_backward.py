"""Double backward (gradgradcheck in float64) of every operator whose
backward is made of scatterkit operators, the clear error of prod/amax/amin,
and a SchNet-style force loss against the same model in plain PyTorch."""
import pytest
import torch

import scatterkit.torch as skt

F64 = torch.float64


def leaf(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(shape, generator=g, dtype=F64, requires_grad=True)


def check(fn, *inputs):
    assert torch.autograd.gradcheck(fn, inputs)
    assert torch.autograd.gradgradcheck(fn, inputs)


I2 = torch.tensor([[0, 3, 1], [3, 3, 0]])
MASK = torch.tensor([[True, False, True], [False, False, True], [True, True, False],
                     [False, True, True]])


@pytest.mark.parametrize("mode", ["error", "clip", "fill"])
def test_gather_type(mode):
    x = leaf(4, 3)
    big = torch.tensor([[0, 5, 1], [-1, 3, 0]])
    index = I2 if mode == "error" else big
    check(lambda x: skt.gather(x, index, 0, mode=mode, fill_value=0.5), x)
    check(lambda x: skt.index_select(x, torch.tensor([2, -1, 2]), 1), x)
    check(lambda x: skt.gather_nd(x, torch.tensor([[1, 2], [3, 0], [1, 2]])), x)
    check(lambda x: skt.gather(x, torch.tensor([[[0, 1], [3, 2]]]), (0, 1)), x)


def test_masked_select():
    check(lambda x: skt.masked_select(x, MASK), leaf(4, 3))
    check(lambda x: skt.masked_select(x, MASK), leaf(1, 3))  # x broadcast against mask


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", [None, "sum", "mean"])
def test_indexed_scatters(reduce, include_self):
    x, s = leaf(4, 3), leaf(2, 3, seed=1)
    kw = {"reduce": reduce, "include_self": include_self}
    check(lambda x, s: skt.scatter(x, I2, s, 0, **kw), x, s)
    check(lambda x, s: skt.scatter(x, torch.tensor([[0, 9, 1]]), s, 0, mode="drop", **kw), x, s)
    check(lambda x, u: skt.index_scatter(x, torch.tensor([3, 3]), u, 0, **kw), x, s)
    check(lambda x, u: skt.scatter_nd(x, torch.tensor([[1], [1]]), u, reduce=reduce), x, s)
    check(lambda x, s0: skt.scatter(x, I2, s0, 0, **kw), x, leaf(seed=2))  # 0-d src


def test_view_scatters():
    x = leaf(4, 3)
    check(lambda x, s: skt.slice_scatter(x, s, 0, 1, None, 2), x, leaf(2, 3))
    check(lambda x, s: skt.slice_scatter(x, s, (0, 1), 0, 2), x, leaf(1, 2))  # broadcast src
    check(lambda x, s: skt.diagonal_scatter(x, s, -1), x, leaf(3))
    check(lambda x, s: skt.select_scatter(x, s, 1, -1), x, leaf(4))
    check(lambda x, s: skt.masked_scatter(x, MASK, s), x, leaf(9))
    check(lambda c, u: skt.tensor_scatter(c, u, torch.tensor([2, 0]), axis=1, mode="circular"),
          leaf(2, 3, 2), leaf(2, 2, 2))


def test_third_order_of_sum_scatter():
    x, s = leaf(4, 3), leaf(2, 3, seed=1)
    y = skt.scatter(x, I2, s, 0, reduce="sum")
    (gs,) = torch.autograd.grad((y ** 3).sum(), s, create_graph=True)
    (gx,) = torch.autograd.grad((gs ** 2).sum(), x, create_graph=True)
    (g3,) = torch.autograd.grad(gx.sum(), s)
    xt, st = x.detach().clone().requires_grad_(), s.detach().clone().requires_grad_()
    yt = xt.scatter_add(0, I2, st)
    (gst,) = torch.autograd.grad((yt ** 3).sum(), st, create_graph=True)
    (gxt,) = torch.autograd.grad((gst ** 2).sum(), xt, create_graph=True)
    (g3t,) = torch.autograd.grad(gxt.sum(), st)
    torch.testing.assert_close(g3, g3t)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("op", ["scatter", "index_scatter", "scatter_nd"])
def test_value_reading_reductions_refuse_double_backward(op, reduce):
    x, s = leaf(4, 3), leaf(2, 3, seed=1)
    if op == "scatter":
        y = skt.scatter(x, I2, s, 0, reduce=reduce)
    elif op == "index_scatter":
        y = skt.index_scatter(x, torch.tensor([0, 2]), s, 0, reduce=reduce)
    else:
        y = skt.scatter_nd(x, torch.tensor([[0], [2]]), s, reduce=reduce)
    gx, gs = torch.autograd.grad((y ** 2).sum(), (x, s), create_graph=True)
    # the first derivative is right ...
    gx1, gs1 = torch.autograd.grad((y ** 2).sum(), (x, s))
    torch.testing.assert_close((gx, gs), (gx1, gs1))
    # ... and differentiating it again names the operator
    with pytest.raises(RuntimeError, match=f"scatterkit.{op}: double backward .*'{reduce}'"):
        (gx.sum() + gs.sum()).backward()


# ---------------------------------------------------------------------------
# SchNet-style forces: E from a scatter-sum of per-edge terms of positions,
# F = -dE/dpos (create_graph), a loss on F, backward
# ---------------------------------------------------------------------------
def _schnet_energy(pos, weights, src, dst, scatter_add):
    d = (pos[src] - pos[dst]).norm(dim=-1, keepdim=True)            # (E, 1)
    rbf = torch.exp(-(d - weights["centers"]) ** 2)                  # (E, K)
    msg = torch.tanh(rbf @ weights["w1"]) * weights["h"][src]        # (E, H)
    node = scatter_add(torch.zeros(pos.shape[0], msg.shape[1], dtype=pos.dtype), dst, msg)
    return (torch.tanh(node) @ weights["w2"]).sum()


def _force_loss(scatter_add, pos, weights, src, dst, target):
    pos = pos.detach().clone().requires_grad_()
    w = {k: v.detach().clone().requires_grad_() for k, v in weights.items()}
    energy = _schnet_energy(pos, w, src, dst, scatter_add)
    (grad_pos,) = torch.autograd.grad(energy, pos, create_graph=True)
    loss = ((-grad_pos - target) ** 2).mean()
    loss.backward()
    return loss.detach(), {k: v.grad for k, v in w.items()}


def test_schnet_force_loss_matches_pytorch():
    g = torch.Generator().manual_seed(0)
    n, e, k, h = 12, 40, 6, 5
    pos = torch.randn(n, 3, generator=g, dtype=F64)
    src, dst = torch.randint(0, n, (e,), generator=g), torch.randint(0, n, (e,), generator=g)
    weights = {"centers": torch.linspace(0, 3, k, dtype=F64),
               "w1": torch.randn(k, h, generator=g, dtype=F64),
               "h": torch.randn(n, h, generator=g, dtype=F64),
               "w2": torch.randn(h, 1, generator=g, dtype=F64)}
    target = torch.randn(n, 3, generator=g, dtype=F64)

    def ours(base, index, msg):
        return skt.index_scatter(base, index, msg, 0, reduce="sum")

    def theirs(base, index, msg):
        return base.index_add(0, index, msg)

    def ours_scatter(base, index, msg):
        return skt.scatter(base, index[:, None].expand_as(msg), msg, 0, reduce="sum")

    loss_t, grads_t = _force_loss(theirs, pos, weights, src, dst, target)
    for fn in (ours, ours_scatter):
        loss, grads = _force_loss(fn, pos, weights, src, dst, target)
        torch.testing.assert_close(loss, loss_t, rtol=1e-12, atol=1e-12)
        for name in weights:
            torch.testing.assert_close(grads[name], grads_t[name], rtol=1e-10, atol=1e-12)

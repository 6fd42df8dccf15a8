"""scatterkit.torch under torch.compile (fullgraph, inductor), torch.export
and torch.func, on the model of torch_model.py that calls every operator.
One compiled model for the module: compiling is slow."""
import pytest
import torch

import scatterkit.torch as skt
import torch_model as tm

OP_NAMES = ["gather", "index_select", "gather_nd", "masked_select", "scatter", "index_scatter",
            "scatter_nd", "slice_scatter", "diagonal_scatter", "select_scatter", "masked_scatter",
            "tensor_scatter"]


def eager_value_and_grads(x, w):
    x, w = x.clone().requires_grad_(), w.clone().requires_grad_()
    e = tm.forward(x, w)
    return (e.detach(), *torch.autograd.grad(e, (x, w)))


@pytest.fixture(scope="module")
def compiled():
    """(value and grads of the compiled model, graph breaks counted)."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    x, w = (t.requires_grad_() for t in tm.inputs())
    f = torch.compile(tm.forward, fullgraph=True, backend="inductor")
    e = f(x, w)
    grads = torch.autograd.grad(e, (x, w))
    breaks = dict(torch._dynamo.utils.counters["graph_break"])
    return (e.detach(), *grads), breaks


def test_every_operator_is_a_custom_op():
    for name in OP_NAMES:
        assert hasattr(torch.ops.scatterkit, name)
        assert hasattr(torch.ops.scatterkit, name + "_backward")
    for name in skt._ops.WITH_OUT:
        schema = str(getattr(torch.ops.scatterkit, name + "_out").default._schema)
        assert "Tensor(a!) out" in schema


def test_model_uses_every_operator(monkeypatch):
    called = set()
    for name in OP_NAMES:
        real = getattr(skt, name)
        monkeypatch.setattr(skt, name, lambda *a, _r=real, _n=name, **k: called.add(_n) or _r(*a, **k))
    tm.forward(*tm.inputs())
    assert called == set(OP_NAMES)


def test_compile_fullgraph_has_no_graph_break_and_matches_eager(compiled):
    got, breaks = compiled
    assert breaks == {}
    want = eager_value_and_grads(*tm.inputs())
    for g, e in zip(got, want):
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)


def test_export_runs_and_matches_eager():
    class Model(torch.nn.Module):
        def forward(self, x, w):
            return tm.forward(x, w)

    x, w = tm.inputs()
    ep = torch.export.export(Model(), (x, w))
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert {f"scatterkit.{n}.default" for n in OP_NAMES} <= targets
    x2, w2 = tm.inputs(seed=1)
    torch.testing.assert_close(ep.module()(x2, w2), tm.forward(x2, w2))


def test_fake_tensor_mode_gives_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        x = mode.from_tensor(torch.randn(5, 3))
        y = skt.index_select(x, torch.tensor([[0, 4], [1, 1]]), 0)
        z = skt.scatter(x, torch.tensor([[0, 1]]), torch.ones(1, 2), 0, reduce="sum")
    assert y.shape == (2, 2, 3) and z.shape == (5, 3) and z.dtype == torch.float32


def test_func_grad_and_vjp_match_autograd():
    x, w = tm.inputs()
    _, gx, gw = eager_value_and_grads(x, w)
    gw2 = torch.func.grad(tm.forward, argnums=1)(x, w)
    torch.testing.assert_close(gw2, gw)
    value, vjp_fn = torch.func.vjp(tm.forward, x, w)
    vx, vw = vjp_fn(torch.tensor(2.0))
    torch.testing.assert_close(vx, 2 * gx)
    torch.testing.assert_close(vw, 2 * gw)


def test_func_jacrev_matches_autograd_rows():
    x, w = tm.inputs(torch.float64)

    def f(w):
        return skt.scatter(x @ w, tm.INDEX, (x @ w)[:3], 0, reduce="mean").sum(dim=0)

    jac = torch.func.jacrev(f)(w)
    wg = w.clone().requires_grad_()
    y = f(wg)
    for k in range(y.shape[0]):
        (row,) = torch.autograd.grad(y[k], wg, retain_graph=True)
        torch.testing.assert_close(jac[k], row)


def test_func_vmap_matches_a_loop():
    x, w = tm.inputs()
    xs = torch.stack([x, x + 1, x * 2])
    got = torch.func.vmap(tm.forward, in_dims=(0, None))(xs, w)
    want = torch.stack([tm.forward(xi, w) for xi in xs])
    torch.testing.assert_close(got, want)


def test_vmap_masked_select_with_batched_mask_of_different_counts_raises():
    x = torch.randn(2, 3)
    mask = torch.tensor([[True, False, False], [True, True, False]])
    with pytest.raises(RuntimeError, match="scatterkit.masked_select: under vmap"):
        torch.func.vmap(skt.masked_select)(x, mask)


def test_opcheck_on_each_op():
    """torch.library.opcheck: schema, fake implementation and autograd
    registration agree with the kernels."""
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    s = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    i = torch.tensor([[0, 3, 1], [2, 2, 0]])
    mask = torch.tensor([True, False, True])
    ops = torch.ops.scatterkit
    cases = [
        (ops.gather, (x, i, [0], False, "error", None)),
        (ops.index_select, (x, torch.tensor([3, 0]), 0, "error", None)),
        (ops.gather_nd, (x, torch.tensor([[1], [3]]), 0, "error", None)),
        (ops.masked_select, (x, mask)),
        (ops.scatter, (x, i, s, [0], False, "sum", True, "error")),
        (ops.scatter, (x, i, s, [0], False, "amax", False, "error")),
        (ops.index_scatter, (x, torch.tensor([1, 3]), s, 0, "mean", True, "error")),
        (ops.scatter_nd, (x, torch.tensor([[1], [3]]), s, None, "error")),
        (ops.slice_scatter, (x, s, [0], [1], [4], [2])),
        (ops.diagonal_scatter, (x, s[0], 0, 0, 1)),
        (ops.select_scatter, (x, s[0], 0, 2)),
        (ops.masked_scatter, (x, mask, x.detach() * 2)),
        (ops.tensor_scatter, (x.reshape(2, 2, 3), s.reshape(2, 1, 3), torch.tensor([1, 0]),
                              -2, "linear")),
    ]
    for op, args in cases:
        torch.library.opcheck(op, args, test_utils=("test_schema", "test_faketensor",
                                                    "test_autograd_registration"))

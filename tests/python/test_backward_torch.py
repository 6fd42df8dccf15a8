"""scatterkit.torch gradients against PyTorch's own, where PyTorch defines them.

Random float64 inputs; the gradients of x and src for a random grad_out must
equal torch's (to rounding: sums of several gradients may be added in
another order, prod divides in another order).

Where CONTRACT §7 departs from PyTorch the comparison is left out and
test_backward.py checks against a plain reference instead:
- assign with duplicate targets: torch.scatter / index_copy / index_put
  give grad_out to every duplicate (their forward leaves the winner
  undefined); CONTRACT gives it to the winning (last) update only.
- src.shape != index.shape (src bigger): torch's scatter backward returns a
  gradient of index's shape, which autograd rejects; CONTRACT gives the unread
  src elements 0.
- amax/amin with include_self=False where x ties with the result:
  torch.scatter_reduce counts x among the ties although x is not a
  contributor (x=[1], src=[1, 1]: each src gets 1/3, so 1/3 of the gradient
  is lost); CONTRACT splits among the contributors only (1/2 each). Checked here
  as a documented difference.
- prod with an infinity or a NaN among a target's contributors, or a
  result beyond the dtype's range: torch takes g * result / src (inf / inf
  and 0 * inf / inf give NaN, an overflowing result gives inf); CONTRACT's
  gradient is g times the product of the other contributors, right with
  zeros, infinities and NaNs (x=[-4], src=[inf], g=-4: src's gradient is
  16, torch's NaN).
  Checked here against those exact values, and against torch where torch
  gives a number.
So here: no duplicates for assign, src.shape == index.shape, and no ties
(continuous random values) except in the tests that say otherwise.
"""
import numpy as np
import pytest
import torch

import scatterkit.torch as skt

# torch.index_reduce warns that it is in beta on every call
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce")

F64 = torch.float64
REDUCES = ["sum", "prod", "mean", "amax", "amin"]


def rand(rng, shape, reduce=None):
    if reduce == "prod":  # away from 0: torch's prod gradient divides by the values
        v = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    else:
        v = rng.standard_normal(shape)
    return torch.tensor(v, dtype=F64)


def grads(fn, inputs, g):
    leaves = [t.detach().clone().requires_grad_(True) for t in inputs]
    y = fn(*leaves)
    y.backward(g)
    return y.detach(), [t.grad if t.grad is not None else torch.zeros_like(t) for t in leaves]


def same_grads(ours, theirs, inputs, rng):
    """ours(*inputs) and theirs(*inputs): equal results and equal gradients."""
    with torch.no_grad():
        y = theirs(*inputs)
    g = rand(rng, tuple(y.shape))
    yo, go = grads(ours, inputs, g)
    yt, gt = grads(theirs, inputs, g)
    torch.testing.assert_close(yo, yt, rtol=1e-12, atol=1e-12)
    for a, b in zip(go, gt):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def perm_index(rng, n, shape, axis):
    """An index along axis without duplicate targets (each column a partial permutation)."""
    idx = np.empty(shape, np.int64)
    moved = np.moveaxis(idx, axis, -1)
    for p in np.ndindex(*moved.shape[:-1]):
        moved[p] = rng.permutation(n)[:moved.shape[-1]]
    return torch.from_numpy(idx)


# --------------------------------------------------------------------------
# gather-type
# --------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_vs_torch(axis, rng):
    for _ in range(3):
        x = rand(rng, (4, 5, 3))
        ishape = [int(rng.integers(1, s + 1)) for s in x.shape]
        ishape[axis] = int(rng.integers(1, 9))
        index = torch.from_numpy(rng.integers(0, x.shape[axis], ishape))  # duplicates
        same_grads(lambda x: skt.gather(x, index, axis), lambda x: torch.gather(x, axis, index),
                   [x], rng)


def test_index_select_vs_torch(rng):
    for axis in (0, 1, 2):
        x = rand(rng, (4, 5, 3))
        index = torch.from_numpy(rng.integers(0, x.shape[axis], 7))
        same_grads(lambda x: skt.index_select(x, index, axis),
                   lambda x: torch.index_select(x, axis, index), [x], rng)


def test_gather_nd_and_tuple_axes_vs_advanced_indexing(rng):
    x = rand(rng, (4, 5, 3))
    index = torch.from_numpy(np.stack([rng.integers(0, 4, (6, 2)), rng.integers(0, 5, (6, 2))], -1))
    same_grads(lambda x: skt.gather_nd(x, index), lambda x: x[index[..., 0], index[..., 1]], [x],
               rng)
    # gather with axis=(0, 2): out[p] = x[i0[p], p1, i2[p]]
    index = torch.from_numpy(np.stack([rng.integers(0, 4, (3, 5, 2)),
                                       rng.integers(0, 3, (3, 5, 2))], -1))
    ar = torch.arange(5)[None, :, None]
    same_grads(lambda x: skt.gather(x, index, (0, 2)),
               lambda x: x[index[..., 0], ar, index[..., 1]], [x], rng)


@pytest.mark.parametrize("mshape", [(3, 4), (4,), (1, 4)])
def test_masked_select_vs_torch(mshape, rng):
    for xshape in [(3, 4), (1, 4), (3, 1)]:
        x = rand(rng, xshape)
        mask = torch.from_numpy(rng.random(mshape) < 0.5)
        same_grads(lambda x: skt.masked_select(x, mask),
                   lambda x: torch.masked_select(x, mask), [x], rng)


# --------------------------------------------------------------------------
# indexed scatter
# --------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_assign_vs_torch_scatter(axis, rng):
    """Assign without duplicate targets (torch leaves duplicates undefined)."""
    x = rand(rng, (4, 5))
    ishape = [3, 3]
    ishape[axis] = 3
    index = perm_index(rng, x.shape[axis], ishape, axis)
    src = rand(rng, ishape)
    same_grads(lambda x, s: skt.scatter(x, index, s, axis),
               lambda x, s: torch.scatter(x, axis, index, s), [x, src], rng)


def test_scatter_sum_vs_scatter_add(rng):
    x = rand(rng, (4, 5))
    index = torch.from_numpy(rng.integers(0, 4, (6, 5)))
    src = rand(rng, (6, 5))
    same_grads(lambda x, s: skt.scatter(x, index, s, 0, reduce="sum"),
               lambda x, s: torch.scatter_add(x, 0, index, s), [x, src], rng)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_vs_torch(reduce, include_self, rng):
    """Duplicates, every reduction, both include_self, two axes."""
    for axis in (0, -1):
        x = rand(rng, (4, 5), reduce)
        ishape = [3, 4]
        ishape[axis] = 7
        index = torch.from_numpy(rng.integers(0, x.shape[axis], ishape))
        src = rand(rng, ishape, reduce)
        same_grads(
            lambda x, s: skt.scatter(x, index, s, axis, reduce=reduce, include_self=include_self),
            lambda x, s: torch.scatter_reduce(x, axis, index, s, reduce,
                                              include_self=include_self), [x, src], rng)


def test_scatter_amax_ties_vs_torch_include_self(rng):
    """With include_self=True torch splits ties evenly among x and src too:
    the two agree even with many ties."""
    for reduce in ("amax", "amin"):
        x = torch.tensor(rng.integers(0, 3, (3, 4)), dtype=F64)
        src = torch.tensor(rng.integers(0, 3, (6, 4)), dtype=F64)
        index = torch.from_numpy(rng.integers(0, 3, (6, 4)))
        same_grads(lambda x, s: skt.scatter(x, index, s, 0, reduce=reduce),
                   lambda x, s: torch.scatter_reduce(x, 0, index, s, reduce), [x, src], rng)


def test_scatter_amax_tie_with_x_departs_from_torch():
    """CONTRACT departs: include_self=False and x equal to the result. torch
    counts x as a tie although it is not a contributor (src 1/3 each, x 0:
    1/3 of the gradient is lost); scatterkit splits among the contributors
    (src 1/2 each, x 0)."""
    index = torch.tensor([0, 0])
    _, (gx, gs) = grads(lambda x, s: skt.scatter(x, index, s, 0, reduce="amax",
                                                 include_self=False),
                        [torch.tensor([1.0], dtype=F64), torch.tensor([1.0, 1.0], dtype=F64)],
                        torch.ones(1, dtype=F64))
    _, (tx, ts) = grads(lambda x, s: torch.scatter_reduce(x, 0, index, s, "amax",
                                                          include_self=False),
                        [torch.tensor([1.0], dtype=F64), torch.tensor([1.0, 1.0], dtype=F64)],
                        torch.ones(1, dtype=F64))
    assert gx.tolist() == [0.0] and gs.tolist() == [0.5, 0.5]
    assert tx.tolist() == [0.0] and ts.tolist() == pytest.approx([1 / 3, 1 / 3])


def test_assign_duplicates_departs_from_torch():
    """CONTRACT departs: with duplicate targets the last update wins and only it
    gets the gradient; torch.scatter gives grad_out to every duplicate."""
    index = torch.tensor([1, 1, 1])
    inputs = [torch.zeros(2, dtype=F64), torch.tensor([1.0, 2.0, 3.0], dtype=F64)]
    g = torch.tensor([5.0, 7.0], dtype=F64)
    y, (gx, gs) = grads(lambda x, s: skt.scatter(x, index, s, 0), inputs, g)
    assert y.tolist() == [0.0, 3.0]
    assert gx.tolist() == [5.0, 0.0] and gs.tolist() == [0.0, 0.0, 7.0]
    _, (tx, ts) = grads(lambda x, s: torch.scatter(x, 0, index, s), inputs, g)
    assert tx.tolist() == [5.0, 0.0] and ts.tolist() == [7.0, 7.0, 7.0]


def test_src_bigger_than_index_departs_from_torch():
    """CONTRACT: only the leading index.shape block of src is read; the rest gets
    0. torch's scatter backward returns index's shape and autograd refuses it."""
    index = torch.tensor([[0, 1, 2], [2, 1, 0]])
    inputs = [torch.zeros(3, 3, dtype=F64), torch.ones(4, 3, dtype=F64)]
    g = torch.arange(9, dtype=F64).reshape(3, 3)
    _, (gx, gs) = grads(lambda x, s: skt.scatter(x, index, s, 0, reduce="sum"), inputs, g)
    assert torch.equal(gs[:2], torch.gather(g, 0, index)) and not gs[2:].any()
    with pytest.raises(RuntimeError, match="invalid gradient"):
        grads(lambda x, s: torch.scatter_add(x, 0, index, s), inputs, g)


@pytest.mark.parametrize("case", ["one_zero", "zero_in_x", "two_zeros"])
def test_scatter_prod_zeros_vs_torch(case):
    """torch's prod gradient is exact with zeros too: they agree."""
    x = {"one_zero": [2.0, 3.0], "zero_in_x": [0.0, 3.0], "two_zeros": [0.0, 3.0]}[case]
    s = {"one_zero": [0.0, 4.0, 5.0], "zero_in_x": [4.0, 5.0, 0.5],
         "two_zeros": [0.0, 4.0, 5.0]}[case]
    index = torch.tensor([0, 0, 1])
    for include_self in (True, False):
        inputs = [torch.tensor(x, dtype=F64), torch.tensor(s, dtype=F64)]
        g = torch.tensor([1.5, -2.0], dtype=F64)
        _, ours = grads(lambda x, s: skt.scatter(x, index, s, 0, reduce="prod",
                                                 include_self=include_self), inputs, g)
        _, theirs = grads(lambda x, s: torch.scatter_reduce(x, 0, index, s, "prod",
                                                            include_self=include_self), inputs, g)
        for a, b in zip(ours, theirs):
            torch.testing.assert_close(a, b, rtol=1e-12, atol=0)


INF, NAN = float("inf"), float("nan")
PROD_EXACT_CASES = [
    # dtype, x, src (one target), g, x's gradient, src's, whether torch's
    # result stays in range (then torch's gradient equals ours where it is
    # not NaN)
    (torch.float32, [-4.0], [INF], -4.0, [-INF], [16.0], True),
    (torch.float32, [2.0], [-INF, 0.0, 3.0], -4.0, [NAN], [-0.0, INF, NAN], True),
    (F64, [3.0], [NAN, 0.0], 1.0, [NAN], [0.0, NAN], True),
    (torch.float32, [2.0 ** 100], [2.0 ** 100, 2.0 ** -100], 3.0, [3.0], [3.0, INF], False),
    (torch.bfloat16, [2.0 ** -100], [2.0 ** -100, 2.0 ** 100], 3.0, [3.0], [3.0, 0.0], False),
    (F64, [2.0 ** 1000], [2.0 ** 1000, 2.0 ** -1000], 1.0, [1.0], [1.0, INF], False),
]


@pytest.mark.parametrize("case", range(len(PROD_EXACT_CASES)))
def test_scatter_prod_nonfinite_is_exact(case):
    """prod's gradient is g times the product of the others, also where
    torch's division by the contributor gives NaN or overflows (see above)."""
    dt, x, s, g, want_x, want_s, in_range = PROD_EXACT_CASES[case]
    index = torch.zeros(len(s), dtype=torch.int64)
    inputs = [torch.tensor(x, dtype=dt), torch.tensor(s, dtype=dt)]
    gt = torch.tensor([g], dtype=dt)
    for fn in (lambda x, s: skt.scatter(x, index, s, 0, reduce="prod"),
               lambda x, s: skt.index_scatter(x, index, s, 0, reduce="prod"),
               lambda x, s: skt.scatter_nd(x, index[:, None], s, reduce="prod")):
        _, ours = grads(fn, inputs, gt)
        for got, want in zip(ours, (want_x, want_s)):
            torch.testing.assert_close(got, torch.tensor(want, dtype=dt), rtol=0, atol=0,
                                       equal_nan=True)
    _, theirs = grads(lambda x, s: torch.scatter_reduce(x, 0, index, s, "prod"), inputs, gt)
    for a, b in zip(ours, theirs):
        known = ~b.isnan()
        assert not in_range or torch.equal(a[known], b[known])


def test_index_scatter_vs_index_add_and_index_copy(rng):
    for axis in (0, 1):
        x = rand(rng, (4, 5))
        n = x.shape[axis]
        index = torch.from_numpy(rng.integers(0, n, 7))
        ushape = list(x.shape)
        ushape[axis] = 7
        upd = rand(rng, ushape)
        same_grads(lambda x, u: skt.index_scatter(x, index, u, axis, reduce="sum"),
                   lambda x, u: torch.index_add(x, axis, index, u), [x, upd], rng)
        index = torch.from_numpy(rng.permutation(n)[:3])  # index_copy: no duplicates
        ushape[axis] = 3
        upd = rand(rng, ushape)
        same_grads(lambda x, u: skt.index_scatter(x, index, u, axis),
                   lambda x, u: torch.index_copy(x, axis, index, u), [x, upd], rng)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_scatter_vs_index_reduce(reduce, include_self, rng):
    x = rand(rng, (4, 3), reduce)
    index = torch.from_numpy(rng.integers(0, 4, 6))
    upd = rand(rng, (6, 3), reduce)
    same_grads(lambda x, u: skt.index_scatter(x, index, u, 0, reduce=reduce,
                                              include_self=include_self),
               lambda x, u: x.index_reduce(0, index, u, reduce, include_self=include_self),
               [x, upd], rng)


def test_scatter_nd_vs_index_put(rng):
    x = rand(rng, (4, 5, 2))
    index = torch.from_numpy(np.stack([rng.integers(0, 4, 6), rng.integers(0, 5, 6)], -1))
    upd = rand(rng, (6, 2))
    same_grads(lambda x, u: skt.scatter_nd(x, index, u, reduce="sum"),
               lambda x, u: torch.index_put(x, (index[:, 0], index[:, 1]), u, accumulate=True),
               [x, upd], rng)
    flat = rng.permutation(20)[:6]  # assign: distinct targets
    index = torch.from_numpy(np.stack([flat // 5, flat % 5], -1))
    same_grads(lambda x, u: skt.scatter_nd(x, index, u),
               lambda x, u: torch.index_put(x, (index[:, 0], index[:, 1]), u), [x, upd], rng)


# --------------------------------------------------------------------------
# view-type scatter
# --------------------------------------------------------------------------
def test_slice_scatter_vs_torch(rng):
    for axis, start, stop, step in [(0, 1, 3, 1), (1, None, None, 2), (1, -3, None, 1),
                                    (0, 0, 0, 1)]:
        x = rand(rng, (4, 5))
        shape = list(x.shape)
        shape[axis] = len(range(*slice(start, stop, step).indices(x.shape[axis])))
        src = rand(rng, shape)
        same_grads(lambda x, s: skt.slice_scatter(x, s, axis, start, stop, step),
                   lambda x, s: torch.slice_scatter(x, s, axis, start, stop, step), [x, src], rng)


def test_diagonal_scatter_vs_torch(rng):
    for xshape, offset, a1, a2 in [((4, 5), 0, 0, 1), ((4, 5), 2, 0, 1), ((4, 5), -1, 1, 0),
                                   ((3, 2, 4), 1, 0, 2)]:
        x = rand(rng, xshape)
        src = rand(rng, tuple(torch.diagonal(x, offset, a1, a2).shape))
        same_grads(lambda x, s: skt.diagonal_scatter(x, s, offset, a1, a2),
                   lambda x, s: torch.diagonal_scatter(x, s, offset, a1, a2), [x, src], rng)


def test_select_scatter_vs_torch(rng):
    for xshape, axis, index in [((4, 5), 0, 2), ((4, 5), 1, -1), ((3, 2, 4), 2, 0)]:
        x = rand(rng, xshape)
        src = rand(rng, tuple(torch.select(x, axis, index).shape))
        same_grads(lambda x, s: skt.select_scatter(x, s, axis, index),
                   lambda x, s: torch.select_scatter(x, s, axis, index), [x, src], rng)


@pytest.mark.parametrize("mshape", [(3, 4), (4,), (3, 1)])
def test_masked_scatter_vs_torch(mshape, rng):
    x = rand(rng, (3, 4))
    mask = torch.from_numpy(rng.random(mshape) < 0.5)
    for sshape in [(12,), (4, 5)]:  # enough source elements; the rest get 0
        src = rand(rng, sshape)
        same_grads(lambda x, s: skt.masked_scatter(x, mask, s),
                   lambda x, s: torch.masked_scatter(x, mask, s), [x, src], rng)


# --------------------------------------------------------------------------
# the module as a whole
# --------------------------------------------------------------------------
def test_readme_training_step():
    """The README's example: a max-aggregation in a training step."""
    torch.manual_seed(0)
    num_nodes, dim = 20, 4
    edges = torch.randint(0, num_nodes, (50,))
    messages = torch.randn(50, dim, requires_grad=True)
    weight = torch.randn(dim, dim, requires_grad=True)
    out = torch.zeros(num_nodes, dim)
    agg = skt.scatter(out, edges[:, None].expand(-1, dim), messages @ weight, 0,
                      reduce="amax", include_self=False)
    loss = agg.pow(2).mean()
    loss.backward()
    m2, w2 = messages.detach().clone().requires_grad_(), weight.detach().clone().requires_grad_()
    ref = torch.scatter_reduce(out, 0, edges[:, None].expand(-1, dim), m2 @ w2, "amax",
                               include_self=False)
    ref.pow(2).mean().backward()
    torch.testing.assert_close(agg.detach(), ref.detach())
    torch.testing.assert_close(weight.grad, w2.grad)
    torch.testing.assert_close(messages.grad, m2.grad)


def test_only_requested_gradients_and_no_grad_dtypes():
    x = torch.randn(3, 4, dtype=F64)
    src = torch.randn(5, 4, dtype=F64, requires_grad=True)
    index = torch.randint(0, 3, (5, 4))
    skt.scatter(x, index, src, 0, reduce="mean").sum().backward()
    assert x.grad is None and src.grad.shape == src.shape
    # integer dtypes: the forward works and nothing requires grad
    xi = torch.arange(12).reshape(3, 4)
    y = skt.scatter(xi, index, torch.ones(5, 4, dtype=torch.int64), 0, reduce="sum")
    assert y.dtype == torch.int64 and not y.requires_grad
    assert torch.equal(skt.gather(xi, index[:3], 0), torch.gather(xi, 0, index[:3]))
    # index as a list
    x = torch.randn(3, dtype=F64, requires_grad=True)
    skt.index_select(x, [2, 2, 0], 0).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 2.0]


def test_sum_does_not_keep_inputs_alive():
    """sum/mean/assign need only shapes: x and src are not saved."""
    x = torch.randn(3, 4, dtype=F64, requires_grad=True)
    src = torch.randn(5, 4, dtype=F64, requires_grad=True)
    index = torch.randint(0, 3, (5, 4))
    for reduce, keeps in [("sum", False), ("mean", False), (None, False), ("amax", True)]:
        y = skt.scatter(x, index, src, 0, reduce=reduce)
        ptrs = {t.data_ptr() for t in y.grad_fn.saved_tensors}
        assert (src.data_ptr() in ptrs) == keeps, reduce


def test_out_follows_torch():
    """out= writes when nothing requires grad, and is refused as torch
    refuses it otherwise (tests/python/test_torch_grad_mode.py has more)."""
    x = torch.zeros(3)
    assert skt.scatter(x, torch.tensor([0]), torch.ones(1), 0, out=x) is x
    assert x.tolist() == [1.0, 0.0, 0.0]
    leaf = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        skt.slice_scatter(x, torch.ones(1), 0, 0, 1, out=leaf)


def test_errors_pass_through():
    x = torch.zeros(3, requires_grad=True)
    with pytest.raises(IndexError):
        skt.scatter(x, torch.tensor([5]), torch.ones(1), 0)
    with pytest.raises(ValueError):
        skt.scatter(x, torch.tensor([0]), torch.ones(1), 0, reduce="max")


def test_double_backward_of_prod_is_refused():
    """gather's double backward works (test_torch_double_backward.py); a
    prod scatter's raises, naming the operator."""
    x = torch.randn(3, dtype=F64, requires_grad=True)
    y = skt.scatter(x, torch.tensor([0, 0, 2]), x.detach() + 1, 0, reduce="prod")
    (g,) = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="scatterkit.scatter: double backward"):
        g.sum().backward()


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_vs_torch_medium(reduce, include_self, rng):
    """A larger case (several threads' worth of targets, expanded index as in
    graph networks)."""
    x = rand(rng, (300, 16), reduce)
    edges = torch.from_numpy(rng.integers(0, 300, 4000))
    index = edges[:, None].expand(-1, 16)
    src = rand(rng, (4000, 16), reduce)
    same_grads(lambda x, s: skt.scatter(x, index, s, 0, reduce=reduce, include_self=include_self),
               lambda x, s: torch.scatter_reduce(x, 0, index, s, reduce,
                                                 include_self=include_self), [x, src], rng)

"""scatterkit.torch.compat against torch: the same call, with torch.
swapped for compat., gives torch's result (and gradient, where torch's
gradient rule is scatterkit's: no duplicate targets for assign, no ties)."""
import pytest
import torch

from scatterkit.torch import compat

# torch warns about index_reduce (beta) and scatter's old reduce argument
pytestmark = [pytest.mark.filterwarnings("ignore:index_reduce"),
              pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")]
F64 = torch.float64


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=F64) + 0.5


def same(name, *args, grad=True, **kwargs):
    """compat.<name>(*args) == torch.<name>(*args), values and gradients of
    the floating arguments."""
    def run(module):
        leaves = [a.detach().clone().requires_grad_(grad) if torch.is_tensor(a)
                  and a.is_floating_point() else a for a in args]
        y = getattr(module, name)(*leaves, **kwargs)
        if not grad:
            return y, []
        y.backward(torch.arange(y.numel(), dtype=F64).reshape(y.shape) + 1)
        return y.detach(), [a.grad for a in leaves if torch.is_tensor(a) and a.requires_grad]

    (y1, g1), (y2, g2) = run(compat), run(torch)
    torch.testing.assert_close(y1, y2)
    for a, b in zip(g1, g2):
        torch.testing.assert_close(a, b)


INDEX = torch.tensor([[0, 1, 2], [2, 0, 1]])      # no duplicate targets per column
DUP = torch.tensor([[0, 1, 2], [0, 1, 2], [2, 2, 0]])


def test_scatter_and_scatter_add():
    x, s = rand(3, 3), rand(2, 3, seed=1)
    same("scatter", x, 0, INDEX, s)
    same("scatter", x, 1, INDEX, s)
    same("scatter_add", x, 0, DUP, rand(3, 3, seed=2))
    same("scatter", x, 0, INDEX, 2.5, grad=False)
    same("scatter", x, 0, INDEX, value=2.5, grad=False)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_old_reduce_api(reduce):
    x, s = rand(3, 3), rand(3, 3, seed=1)
    same("scatter", x, 0, DUP, s, reduce=reduce, grad=False)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce(reduce, include_self):
    x, s = rand(3, 3), rand(3, 3, seed=1)
    same("scatter_reduce", x, 0, DUP, s, reduce, include_self=include_self)


@pytest.mark.parametrize("spelling, canonical", [("add", "sum"), ("multiply", "prod"),
                                                 ("max", "amax"), ("min", "amin")])
def test_scatter_reduce_spellings(spelling, canonical):
    x, s = rand(3, 3), rand(3, 3, seed=1)
    got = compat.scatter_reduce(x, 0, DUP, s, spelling)
    torch.testing.assert_close(got, torch.scatter_reduce(x, 0, DUP, s, canonical))


def test_gather_and_take_along_dim():
    x = rand(3, 4)
    same("gather", x, 1, torch.tensor([[0, 3], [2, 2], [1, 0]]))
    same("take_along_dim", x, torch.tensor([[0, 3], [2, 2], [1, 0]]), 1)
    same("take_along_dim", x, torch.tensor([[0], [2], [1]]), dim=-1)
    same("take_along_dim", x, torch.tensor([11, 0, 5]))
    same("take_along_dim", rand(1, 4), torch.tensor([[0, 3], [2, 2], [1, 0]]), 1)  # broadcast


def test_index_ops():
    x, src = rand(4, 3), rand(2, 3, seed=1)
    same("index_add", x, 0, torch.tensor([3, 3]), src)
    same("index_add", x, 0, torch.tensor([3, 1]), src, alpha=2.0)
    same("index_copy", x, 0, torch.tensor([3, 1]), src)
    same("index_select", x, 1, torch.tensor([2, 0, 2]))
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            same("index_reduce", x, 0, torch.tensor([1, 3]), src, reduce,
                 include_self=include_self)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    x = rand(4, 3, 2)
    rows, cols = torch.tensor([3, 0]), torch.tensor([[1], [2]])   # broadcast to (2, 2)
    same("index_put", x, (rows, cols), rand(2, 2, 2, seed=1), accumulate)
    same("index_put", x, (torch.tensor([1, 1]),), rand(3, 2, seed=2), True)
    same("index_put", x, (rows,), rand(2, seed=3), accumulate)  # values broadcast


def test_masked_and_view_scatters():
    x = rand(3, 4)
    mask = torch.tensor([[True, False, True, False]])
    same("masked_scatter", x, mask, rand(3, 4, seed=1))
    same("masked_select", x, mask)
    same("slice_scatter", x, rand(3, 2, seed=2), 1, 1, None, 2)
    same("slice_scatter", x, rand(1, 4, seed=3), start=2, end=3)
    same("diagonal_scatter", x, rand(3, seed=4), 1)
    same("diagonal_scatter", x, rand(3, seed=5), dim1=1, dim2=0)
    same("select_scatter", x, rand(4, seed=6), 0, -1)


def test_bad_reduce_is_refused():
    with pytest.raises(ValueError, match="scatter_reduce: reduce must be one of"):
        compat.scatter_reduce(rand(2), 0, torch.tensor([0]), rand(1), "median")
    with pytest.raises(ValueError, match="scatter: reduce must be one of 'add', 'multiply'"):
        compat.scatter(rand(2), 0, torch.tensor([0]), rand(1), reduce="sum")

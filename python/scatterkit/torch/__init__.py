"""scatterkit.torch: the scatterkit operators as PyTorch operators.

    import scatterkit.torch as skt
    y = skt.scatter(x, index, src, 0, reduce="amax")
    y.sum().backward()          # x.grad, src.grad

Every operator of scatterkit has a namesake here with the same arguments.
Each is a PyTorch custom operator (torch.ops.scatterkit.<op>, with <op>_out
and <op>_backward; docs/torch.md), with a fake implementation and autograd
registered on it, so it works under torch.compile (fullgraph=True too),
torch.export and torch.func (grad, vjp, jacrev, vmap). The gradient rules
are docs/CONTRACT.md's backward rules, computed by the C library.
``scatterkit.torch.compat`` has PyTorch's own names and signatures.
Importing this module imports torch; ``import scatterkit`` alone never does.

- Gradients exist for floating dtypes; index tensors, masks,
  ``write_indices`` and ``fill_value`` get none. A Python scalar
  ``src``/``updates``/``source`` has none either; a 0-d tensor one gets the
  sum over the positions it was broadcast to.
- Double backward: every operator except scatters with reduce "prod",
  "amax" or "amin", whose second derivative raises a RuntimeError naming
  the operator.
- ``out=`` follows torch: refused (RuntimeError) when grad mode is on and
  an argument or ``out`` requires grad; otherwise ``out`` is written (the
  op declares the mutation).
"""

import operator

import torch

from .. import _C
from .._tensors import Like
from .._args import (OPERATORS, _GATHER_MODES, _REDUCE, _SCATTER_MODES, _TENSOR_SCATTER_MODES, _choice,
                     _flag, _slice_args)
from ._autograd import apply, plain_eager
from ._ops import KERNELS, OPS, SLICE_NONE
from . import _vmap  # noqa: F401  (registers the batching rules)

__all__ = list(OPERATORS)

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# ---------------------------------------------------------------------------
# Argument plumbing: everything here is plain Python that torch.compile
# traces without a graph break
# ---------------------------------------------------------------------------
def _int(v, op, name):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{op}: {name} must be an int, got {type(v).__name__} {v!r}") from None


def _axes(axis, op):
    """(int list, is_axes) of an axis that may be a tuple of axes."""
    if isinstance(axis, (tuple, list)):
        return [_int(a, op, "axis") for a in axis], True
    return [_int(axis, op, "axis")], False


def _index(index, op, name="index"):
    """Lists and ints become int64 tensors (NumPy arrays become tensors)."""
    if isinstance(index, torch.Tensor):
        return index
    try:
        return torch.as_tensor(index, dtype=torch.int64)
    except (TypeError, ValueError, RuntimeError, OverflowError) as e:
        raise ValueError(f"{op}: {name} could not be converted to an int64 tensor: {e}") from e


def _mask(mask, op):
    return mask if isinstance(mask, torch.Tensor) else torch.as_tensor(mask, dtype=torch.bool)


def _scalar(x, value, op, name):
    """A Python (or NumPy) scalar as a 0-d tensor of x's dtype, refused as
    the plain functions refuse it (Like.scalar: an integer outside an integer
    dtype's range, which torch.tensor would wrap; a value torch cannot
    convert)."""
    if hasattr(value, "item") and not isinstance(value, torch.Tensor):
        value = value.item()
    return Like(x, op).scalar(value, name)


def _source(x, v, op, name):
    """A tensor argument that may be given as a number (src, source,
    fill_value); what is neither is refused as the plain functions refuse it."""
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, (bool, int, float)) or getattr(v, "shape", None) == ():
        return _scalar(x, v, op, name)
    if v is None or isinstance(v, (str, bytes, complex)):
        raise _C.ArgumentTypeError(f"{op}: {name} must be a tensor or a number, got "
                                f"{type(v).__name__}")
    try:
        return torch.as_tensor(v, device=x.device)
    except (TypeError, ValueError, OverflowError, RuntimeError) as e:
        raise ValueError(f"{op}: {name} could not be converted to a tensor: {e}") from e


def _fill(x, mode, fill_value, op):
    if mode != "fill" or fill_value is None:
        return None
    return _source(x, fill_value, op, "fill_value")


def _check_out(op, args, out):
    """torch's rule for out=: no autograd through it."""
    if not torch.is_grad_enabled():
        return
    if out.requires_grad or any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _call(op, args, out=None):
    if out is None:
        return apply(op, args)
    _check_out(op, args, out)
    if plain_eager((*args, out)):
        KERNELS[op + "_out"](*args, out)
    else:
        OPS[op + "_out"](*args, out)
    return out


# ---------------------------------------------------------------------------
# Gather-type operators
# ---------------------------------------------------------------------------
def gather(x, index, axis, *, mode="error", fill_value=0):
    """Differentiable scatterkit.gather (see its docstring). The gradient of x
    is grad scatter-summed back; filled positions (mode="fill") send nothing
    back, clipped ones send it to the clipped position; fill_value gets none."""
    _choice(_GATHER_MODES, mode, "gather", "mode")
    axes, is_axes = _axes(axis, "gather")
    return _call("gather", (x, _index(index, "gather"), axes, is_axes, mode,
                            _fill(x, mode, fill_value, "gather")))


def index_select(x, index, axis, *, mode="error", fill_value=0):
    """Differentiable scatterkit.index_select (see its docstring and gather's
    gradient rules)."""
    op = "index_select"
    _choice(_GATHER_MODES, mode, op, "mode")
    return _call(op, (x, _index(index, op), _int(axis, op, "axis"), mode,
                      _fill(x, mode, fill_value, op)))


def gather_nd(x, index, *, batch_dims=0, mode="error", fill_value=0):
    """Differentiable scatterkit.gather_nd (see its docstring and gather's
    gradient rules)."""
    op = "gather_nd"
    _choice(_GATHER_MODES, mode, op, "mode")
    return _call(op, (x, _index(index, op), _int(batch_dims, op, "batch_dims"), mode,
                      _fill(x, mode, fill_value, op)))


def masked_select(x, mask):
    """Differentiable scatterkit.masked_select; x's gradient is summed over
    the dimensions along which x was broadcast against mask."""
    return _call("masked_select", (x, _mask(mask, "masked_select")))


# ---------------------------------------------------------------------------
# Scatter-type operators
# ---------------------------------------------------------------------------
def _reduce_args(op, reduce, include_self, mode):
    _choice(_REDUCE, reduce, op, "reduce")
    _choice(_SCATTER_MODES, mode, op, "mode")
    return reduce, _flag(include_self, op, "include_self"), mode


def scatter(x, index, src, axis, *, reduce=None, include_self=True, mode="error", out=None):
    """Differentiable scatterkit.scatter (see its docstring). Gradients
    (docs/CONTRACT.md, Backward): assign gives grad to the winning (last)
    update only and none to the overwritten x element; sum passes it
    through; mean divides by the count (+1 with include_self); prod
    multiplies by the product of the other contributors, exact with zeros;
    amax/amin split it evenly among all contributors equal to the result, x
    included when include_self. src elements that were not read or were
    dropped get 0."""
    reduce, include_self, mode = _reduce_args("scatter", reduce, include_self, mode)
    axes, is_axes = _axes(axis, "scatter")
    return _call("scatter", (x, _index(index, "scatter"), _source(x, src, "scatter", "src"),
                             axes, is_axes, reduce, include_self, mode), out)


def index_scatter(x, index, updates, axis=0, *, reduce=None, include_self=True, mode="error",
                  out=None):
    """Differentiable scatterkit.index_scatter (see its docstring and
    scatter's gradient rules)."""
    op = "index_scatter"
    reduce, include_self, mode = _reduce_args(op, reduce, include_self, mode)
    return _call(op, (x, _index(index, op), _source(x, updates, op, "updates"),
                      _int(axis, op, "axis"), reduce, include_self, mode), out)


def scatter_nd(x, index, updates, *, reduce=None, mode="error", out=None):
    """Differentiable scatterkit.scatter_nd (see its docstring and scatter's
    gradient rules)."""
    op = "scatter_nd"
    reduce, _, mode = _reduce_args(op, reduce, True, mode)
    return _call(op, (x, _index(index, op), _source(x, updates, op, "updates"), reduce, mode),
                 out)


def _bound(v, op, name):
    if v is None:
        return SLICE_NONE
    return min(max(_int(v, op, name), _INT64_MIN + 1), _INT64_MAX)


def slice_scatter(x, src, axis=0, start=None, stop=None, step=1, *, out=None):
    """Differentiable scatterkit.slice_scatter (see its docstring). x's
    gradient is grad with the slice zeroed; src's is the slice of grad,
    summed over the dimensions along which src was broadcast."""
    op = "slice_scatter"
    axes, starts, stops, steps = _slice_args(op, axis, start, stop, step)
    return _call(op, (x, _source(x, src, op, "src"), [_int(a, op, "axis") for a in axes],
                      [_bound(v, op, "start") for v in starts],
                      [_bound(v, op, "stop") for v in stops],
                      [_bound(v, op, "step") for v in steps]), out)


def diagonal_scatter(x, src, offset=0, axis1=0, axis2=1, *, out=None):
    """Differentiable scatterkit.diagonal_scatter (see its docstring)."""
    op = "diagonal_scatter"
    return _call(op, (x, _source(x, src, op, "src"), _int(offset, op, "offset"),
                      _int(axis1, op, "axis1"), _int(axis2, op, "axis2")), out)


def select_scatter(x, src, axis, index, *, out=None):
    """Differentiable scatterkit.select_scatter (see its docstring)."""
    op = "select_scatter"
    return _call(op, (x, _source(x, src, op, "src"), _int(axis, op, "axis"),
                      _int(index, op, "index")), out)


def masked_scatter(x, mask, source, *, out=None):
    """Differentiable scatterkit.masked_scatter (see its docstring). source
    elements beyond the number of True positions get 0."""
    op = "masked_scatter"
    return _call(op, (x, _mask(mask, op), _source(x, source, op, "source")), out)


def tensor_scatter(cache, update, write_indices=None, *, axis=-2, mode="linear", out=None):
    """Differentiable scatterkit.tensor_scatter (see its docstring). update
    elements that a later circular write overwrote get 0; write_indices gets
    no gradient."""
    op = "tensor_scatter"
    _choice(_TENSOR_SCATTER_MODES, mode, op, "mode")
    wi = None if write_indices is None else _index(write_indices, op, "write_indices")
    return _call(op, (cache, update, wi, _int(axis, op, "axis"), mode), out)


from . import compat  # noqa: E402  (PyTorch's spellings, built on the functions above)

"""The scatterkit operators as PyTorch custom operators (namespace
``scatterkit``): torch.ops.scatterkit.<op> (functional), <op>_out (writes
its ``out`` argument, declared mutated) and <op>_backward (the gradients).

The kernels are the plain scatterkit functions on real tensors (they take
CPU tensors, and CUDA ones when the library is built with CUDA): the ops are
registered for every device. The fake (meta) implementations give the
output's shape and dtype for torch.compile and torch.export; masked_select's
length depends on the mask's values and is a dynamic size there.

Argument conventions (all ops): the index mode is ``index_mode`` and
tensor_scatter's mode ``write_mode`` (inductor's handling of a mutating op
passes a keyword named ``mode`` of its own); an axis that may be a tuple is ``int[] axis``
with ``bool is_axes`` (False: the single int axis[0]); a slice bound that is
None is ``SLICE_NONE``; a gradient that was not asked for comes back as an
empty tensor (its ``need_*`` flag False)."""

import torch

from .. import _C
from .._route import PLAIN

SLICE_NONE = _C.SLICE_NONE


def _axis(axis, is_axes):
    return tuple(axis) if is_axes else axis[0]


def _fill(fill_value):
    return 0 if fill_value is None else fill_value


def _bound(v):
    return None if v == SLICE_NONE else v


def _stand_in(like, shape):
    """An input whose values the backward does not read: its shape through
    zero strides (no memory)."""
    return like.new_zeros(()).expand(tuple(shape))


def _want(need):
    return None if need else False


def _or_empty(g, like):
    return like.new_empty(0) if g is None else g


def _resolved(grad):
    return grad.resolve_neg()  # DLPack cannot carry the negative bit


# ---------------------------------------------------------------------------
# Forward ops: schema (after the op's name), the plain call, the fake
# ---------------------------------------------------------------------------
def _gather_shape(x, index, axis, is_axes, mode, fill_value):
    return index.shape[:-1] if is_axes else index.shape


def _index_select_shape(x, index, axis, mode, fill_value):
    a = axis % x.dim() if x.dim() else 0
    return (*x.shape[:a], *index.shape, *x.shape[a + 1:])


def _gather_nd_shape(x, index, batch_dims, mode, fill_value):
    k = index.shape[-1]
    return (*index.shape[:-1], *x.shape[batch_dims + k:])


def _masked_select_fake(x, mask):
    n = torch.library.get_ctx().new_dynamic_size()
    return x.new_empty(n)


FORWARD = {
    # name: (schema arguments, plain call (args -> (args, kwargs)), output shape)
    "gather": (
        "Tensor x, Tensor index, int[] axis, bool is_axes, str index_mode, Tensor? fill_value",
        lambda x, i, ax, multi, mode, fv: ((x, i, _axis(ax, multi)),
                                           {"mode": mode, "fill_value": _fill(fv)}),
        _gather_shape),
    "index_select": (
        "Tensor x, Tensor index, int axis, str index_mode, Tensor? fill_value",
        lambda x, i, ax, mode, fv: ((x, i, ax), {"mode": mode, "fill_value": _fill(fv)}),
        _index_select_shape),
    "gather_nd": (
        "Tensor x, Tensor index, int batch_dims, str index_mode, Tensor? fill_value",
        lambda x, i, bd, mode, fv: ((x, i), {"batch_dims": bd, "mode": mode,
                                             "fill_value": _fill(fv)}),
        _gather_nd_shape),
    "masked_select": ("Tensor x, Tensor mask", lambda x, m: ((x, m), {}), None),
    "scatter": (
        "Tensor x, Tensor index, Tensor src, int[] axis, bool is_axes, str? reduce, "
        "bool include_self, str index_mode",
        lambda x, i, s, ax, multi, r, inc, mode: (
            (x, i, s, _axis(ax, multi)), {"reduce": r, "include_self": inc, "mode": mode}),
        "x"),
    "index_scatter": (
        "Tensor x, Tensor index, Tensor updates, int axis, str? reduce, bool include_self, "
        "str index_mode",
        lambda x, i, u, ax, r, inc, mode: ((x, i, u, ax), {"reduce": r, "include_self": inc,
                                                           "mode": mode}),
        "x"),
    "scatter_nd": (
        "Tensor x, Tensor index, Tensor updates, str? reduce, str index_mode",
        lambda x, i, u, r, mode: ((x, i, u), {"reduce": r, "mode": mode}),
        "x"),
    "slice_scatter": (
        "Tensor x, Tensor src, int[] axes, int[] starts, int[] stops, int[] steps",
        lambda x, s, axes, starts, stops, steps: (
            (x, s, list(axes), [_bound(v) for v in starts], [_bound(v) for v in stops],
             list(steps)), {}),
        "x"),
    "diagonal_scatter": (
        "Tensor x, Tensor src, int offset, int axis1, int axis2",
        lambda x, s, off, a1, a2: ((x, s, off, a1, a2), {}),
        "x"),
    "select_scatter": (
        "Tensor x, Tensor src, int axis, int index",
        lambda x, s, ax, i: ((x, s, ax, i), {}),
        "x"),
    "masked_scatter": (
        "Tensor x, Tensor mask, Tensor source",
        lambda x, m, s: ((x, m, s), {}),
        "x"),
    "tensor_scatter": (
        "Tensor cache, Tensor update, Tensor? write_indices, int axis, str write_mode",
        lambda c, u, w, ax, mode: ((c, u, w), {"axis": ax, "mode": mode}),
        "x"),
}

#: the operators with an out= form (scatterkit.<op>(..., out=...))
WITH_OUT = ("scatter", "index_scatter", "scatter_nd", "slice_scatter", "diagonal_scatter",
            "select_scatter", "masked_scatter", "tensor_scatter")


#: name -> the Python kernel of the op of that name (the fast eager path)
KERNELS = {}


def _define(name, schema, kernel, fake, mutates=()):
    KERNELS[name] = kernel
    op = torch.library.custom_op("scatterkit::" + name, kernel, mutates_args=mutates,
                                 schema=schema)
    op.register_fake(fake)
    return op


def _forward_op(name, params, call, shape):
    plain = PLAIN[name]

    def kernel(*args):
        a, kw = call(*args)
        return plain(*a, **kw)

    if shape is None:
        fake = _masked_select_fake
    elif shape == "x":
        def fake(x, *args):
            return x.new_empty(x.shape)
    else:
        def fake(x, *args):
            return x.new_empty(shape(x, *args))
    return _define(name, f"({params}) -> Tensor", kernel, fake)


def _out_op(name, params, call):
    plain = PLAIN[name]

    def kernel(*args):
        a, kw = call(*args[:-1])
        plain(*a, **kw, out=args[-1])

    def fake(*args):
        return None

    return _define(name + "_out", f"({params}, Tensor(a!) out) -> ()", kernel, fake,
                   mutates=("out",))


OPS = {}
for _name, (_params, _call, _shape) in FORWARD.items():
    OPS[_name] = _forward_op(_name, _params, _call, _shape)
    if _name in WITH_OUT:
        OPS[_name + "_out"] = _out_op(_name, _params, _call)

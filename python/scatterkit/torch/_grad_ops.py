"""The backward custom ops, torch.ops.scatterkit.<op>_backward: the C
backward functions (through the plain scatterkit.<op>_backward) on real
tensors. Their arguments: the output gradient, the forward's index-type
tensors (and, for the indexed scatters, the values of x, src and the result
where the reduction reads them, else None), the shapes of the
differentiable inputs, the forward's other arguments, and one ``need_*``
flag per gradient when there are two (a gradient not needed comes back as
an empty tensor)."""

import torch

from .._route import PLAIN
from ._ops import _axis, _bound, _define, _or_empty, _resolved, _stand_in, _want


def _indexed(src_arg, forward_args):
    """The plain call of an indexed scatter's backward: x and src come by
    value for prod/amax/amin and as stand-ins (shape only) otherwise;
    forward_args turns the forward's other arguments into the plain call's."""
    def call(g, index, x, src, result, xs, ss, *rest):
        *others, need_x, need_src = rest
        x = _stand_in(g, xs) if x is None else x
        src = _stand_in(g, ss) if src is None else src
        head, kw = forward_args(*others)
        kw.update({"result": result, "grad_x": _want(need_x), src_arg: _want(need_src)})
        return (g, x, index, src, *head), kw
    return call


BACKWARD = {
    # name: (schema arguments after grad, plain call (args -> (args, kwargs)))
    "gather": (
        "Tensor index, SymInt[] x_shape, int[] axis, bool is_axes, str index_mode",
        lambda g, i, xs, ax, multi, mode: ((g, tuple(xs), i, _axis(ax, multi)),
                                           {"mode": mode})),
    "index_select": (
        "Tensor index, SymInt[] x_shape, int axis, str index_mode",
        lambda g, i, xs, ax, mode: ((g, tuple(xs), i, ax), {"mode": mode})),
    "gather_nd": (
        "Tensor index, SymInt[] x_shape, int batch_dims, str index_mode",
        lambda g, i, xs, bd, mode: ((g, tuple(xs), i), {"batch_dims": bd, "mode": mode})),
    "masked_select": (
        "Tensor mask, SymInt[] x_shape",
        lambda g, m, xs: ((g, tuple(xs), m), {})),
    "scatter": (
        "Tensor index, Tensor? x, Tensor? src, Tensor? result, SymInt[] x_shape, "
        "SymInt[] src_shape, int[] axis, bool is_axes, str? reduce, bool include_self, "
        "str index_mode, bool need_x, bool need_src",
        _indexed("grad_src", lambda ax, multi, r, inc, mode: (
            (_axis(ax, multi),), {"reduce": r, "include_self": inc, "mode": mode}))),
    "index_scatter": (
        "Tensor index, Tensor? x, Tensor? updates, Tensor? result, SymInt[] x_shape, "
        "SymInt[] updates_shape, int axis, str? reduce, bool include_self, str index_mode, "
        "bool need_x, bool need_updates",
        _indexed("grad_updates", lambda ax, r, inc, mode: (
            (ax,), {"reduce": r, "include_self": inc, "mode": mode}))),
    "scatter_nd": (
        "Tensor index, Tensor? x, Tensor? updates, Tensor? result, SymInt[] x_shape, "
        "SymInt[] updates_shape, str? reduce, str index_mode, bool need_x, bool need_updates",
        _indexed("grad_updates", lambda r, mode: ((), {"reduce": r, "mode": mode}))),
    "slice_scatter": (
        "SymInt[] x_shape, SymInt[] src_shape, int[] axes, int[] starts, int[] stops, "
        "int[] steps, bool need_x, bool need_src",
        lambda g, xs, ss, axes, starts, stops, steps, nx, ns: (
            (g, tuple(xs), tuple(ss), list(axes), [_bound(v) for v in starts],
             [_bound(v) for v in stops], list(steps)),
            {"grad_x": _want(nx), "grad_src": _want(ns)})),
    "diagonal_scatter": (
        "SymInt[] x_shape, SymInt[] src_shape, int offset, int axis1, int axis2, "
        "bool need_x, bool need_src",
        lambda g, xs, ss, off, a1, a2, nx, ns: (
            (g, tuple(xs), tuple(ss), off, a1, a2), {"grad_x": _want(nx), "grad_src": _want(ns)})),
    "select_scatter": (
        "SymInt[] x_shape, SymInt[] src_shape, int axis, int index, bool need_x, "
        "bool need_src",
        lambda g, xs, ss, ax, i, nx, ns: (
            (g, tuple(xs), tuple(ss), ax, i), {"grad_x": _want(nx), "grad_src": _want(ns)})),
    "masked_scatter": (
        "Tensor mask, SymInt[] x_shape, SymInt[] source_shape, bool need_x, bool need_source",
        lambda g, m, xs, ss, nx, ns: (
            (g, tuple(xs), m, tuple(ss)), {"grad_x": _want(nx), "grad_source": _want(ns)})),
    "tensor_scatter": (
        "Tensor? write_indices, SymInt[] cache_shape, SymInt[] update_shape, int axis, "
        "str write_mode, bool need_cache, bool need_update",
        lambda g, w, cs, us, ax, mode, nc, nu: (
            (g, tuple(cs), tuple(us), w), {"axis": ax, "mode": mode,
                                           "grad_cache": _want(nc), "grad_update": _want(nu)})),
}


def _shapes_and_needs(params, args):
    """[(shape, needed)] of the gradients, read from the op's arguments."""
    names = [p.split()[-1] for p in params.split(", ")]
    named = dict(zip(names, args))
    shapes = [named[n] for n in names if n.endswith("_shape")]
    needs = [named[n] for n in names if n.startswith("need_")] or [True]
    return list(zip(shapes, needs))


def _backward_op(name, params, call):
    plain = PLAIN[name + "_backward"]
    two = "need_" in params

    def kernel(grad, *args):
        a, kw = call(_resolved(grad), *args)
        res = plain(*a, **kw)
        if not two:
            return res
        return tuple(_or_empty(r, grad) for r in res)

    def fake(grad, *args):
        res = tuple(grad.new_empty(s if need else (0,))
                    for s, need in _shapes_and_needs(params, args))
        return res if two else res[0]

    returns = "(Tensor, Tensor)" if two else "Tensor"
    return _define(name + "_backward", f"(Tensor grad, {params}) -> {returns}", kernel, fake)


BACKWARD_OPS = {name: _backward_op(name, params, call)
                for name, (params, call) in BACKWARD.items()}

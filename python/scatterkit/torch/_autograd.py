"""Autograd on the custom ops (torch.library.register_autograd), and the
autograd.Function front ends that scatterkit.torch calls (torch.func needs
a setup_context staticmethod, which the ops' own autograd lacks in torch
2.13).

Each operator is linear in its differentiable inputs for a fixed index
(every reduction but prod, amax and amin), so its backward op is the
transpose of the forward and the forward is the transpose of the backward:
the backward op's autograd calls the forward op on the incoming gradients.
Gradients of any order follow. prod/amax/amin pass the values of x, src
and the result to the backward op, whose own backward raises."""

import inspect
from dataclasses import dataclass

import torch

from ._grad_ops import BACKWARD_OPS
from ._ops import KERNELS, OPS

_READS_VALUES = ("prod", "amax", "amin")


@dataclass(frozen=True)
class Spec:
    """roles: one letter per argument of the forward op: d (differentiable
    tensor), a (index-type tensor the backward reads), s (other argument,
    passed on to the backward op), n (not passed: fill_value).
    reduce_at: for the indexed scatters, the positions of reduce and of
    include_self (None: always True)."""

    roles: str
    reduce_at: tuple = None

    def at(self, role):
        return [i for i, r in enumerate(self.roles) if r == role]


SPECS = {
    "gather": Spec("dasssn"),
    "index_select": Spec("dassn"),
    "gather_nd": Spec("dassn"),
    "masked_select": Spec("da"),
    "scatter": Spec("dadsssss", (5, 6)),
    "index_scatter": Spec("dadssss", (4, 5)),
    "scatter_nd": Spec("dadss", (3, None)),
    "slice_scatter": Spec("ddssss"),
    "diagonal_scatter": Spec("ddsss"),
    "select_scatter": Spec("ddss"),
    "masked_scatter": Spec("dad"),
    "tensor_scatter": Spec("ddass"),
}


def _values(spec, inputs, output):
    """(x, src, result) for the backward op: the tensors whose values the
    reduction's gradient reads, None where it reads none."""
    if spec.reduce_at is None:
        return ()
    reduce_pos, self_pos = spec.reduce_at
    reduce = inputs[reduce_pos]
    if reduce not in _READS_VALUES:
        return (None, None, None)
    include_self = True if self_pos is None else inputs[self_pos]
    x, src = (inputs[i] for i in spec.at("d"))
    return (x if include_self else None, src, output if reduce != "prod" else None)


def _save(ctx, tensors):
    """save_for_backward of the tensors that are not None (autograd then
    checks that none was modified in place before the backward)."""
    ctx.holes = [t is None for t in tensors]
    ctx.save_for_backward(*[t for t in tensors if t is not None])


def _saved(ctx):
    saved = iter(ctx.saved_tensors)
    return [None if hole else next(saved) for hole in ctx.holes]


def forward_setup(spec):
    diff, others, aux = spec.at("d"), spec.at("s"), spec.at("a")

    def setup_context(ctx, inputs, output):
        ctx.shapes = [tuple(inputs[i].shape) for i in diff]
        ctx.others = [inputs[i] for i in others]
        _save(ctx, [inputs[i] for i in aux] + list(_values(spec, inputs, output)))
    return setup_context


def plain_eager(args):
    """True when the kernel may be called directly: plain tensors (no fake,
    meta-mode or functorch-wrapped ones), no dispatch mode, no torch.func
    transform active, not being traced."""
    if (torch._C._functorch.peek_interpreter_stack() is not None
            or torch._C._len_torch_dispatch_stack() or torch.compiler.is_compiling()):
        return False
    wrapped = torch._C._functorch.is_functorch_wrapped_tensor
    return all(type(a) is torch.Tensor and not wrapped(a)
               for a in args if isinstance(a, torch.Tensor))


def _tracks_grad(args):
    return torch.is_grad_enabled() and any(
        isinstance(a, torch.Tensor) and a.requires_grad for a in args)


def apply(name, args, backward=False):
    """The op `name` (its backward op when backward) on args by the cheapest route that keeps autograd: the
    kernel itself when no gradient is tracked (eager, plain tensors), the
    op while compile or export traces (they use the autograd registered on
    it), else the autograd.Function front end (torch.func needs its
    setup_context)."""
    functions, ops = (BACKWARD_FUNCTIONS, BACKWARD_OPS) if backward else (FUNCTIONS, OPS)
    if torch.compiler.is_compiling():
        return ops[name](*args)
    if not _tracks_grad(args) and plain_eager(args):
        return KERNELS[name + "_backward" if backward else name](*args)
    return functions[name].apply(*args)


def forward_backward(spec, name):
    diff = spec.at("d")

    def backward(ctx, grad):
        needs = [ctx.needs_input_grad[i] for i in diff]
        grads = [None] * len(spec.roles)
        if not any(needs):
            return tuple(grads)
        flags = needs if len(diff) > 1 else []
        res = apply(name, (grad, *_saved(ctx), *ctx.shapes, *ctx.others, *flags), True)
        res = res if len(diff) > 1 else (res,)
        for i, need, r in zip(diff, needs, res):
            if need:
                grads[i] = r
        return tuple(grads)
    return backward


def _backward_setup(spec):
    na, ne = len(spec.at("a")), 3 if spec.reduce_at else 0
    nd, ns = len(spec.at("d")), len(spec.at("s"))

    def setup_context(ctx, inputs, output):
        extras = inputs[1 + na:1 + na + ne]
        ctx.reads_values = any(e is not None for e in extras)
        rest = inputs[1 + na + ne:]
        ctx.shapes, ctx.others = rest[:nd], rest[nd:nd + ns]
        ctx.needs = rest[nd + ns:] or (True,)
        ctx.n_inputs = len(inputs)
        ctx.like = inputs[0].new_empty(0)
        _save(ctx, inputs[1:1 + na])
    return setup_context


def _refuse(name, spec, ctx):
    reduce = ctx.others[spec.at("s").index(spec.reduce_at[0])]
    raise RuntimeError(f"scatterkit.{name}: double backward (differentiating the gradient "
                       f"again) is not supported for reduce={reduce!r}; it is for reduce=None, "
                       f"'sum' and 'mean'")


def _backward_backward(name, spec):
    def backward(ctx, *ggs):
        if ctx.reads_values:
            _refuse(name, spec, ctx)
        grads = [None] * ctx.n_inputs
        if not ctx.needs_input_grad[0]:
            return tuple(grads)
        aux, others = iter(_saved(ctx)), iter(ctx.others)
        gg = iter(zip(ggs, ctx.shapes, ctx.needs))
        args = []
        for role in spec.roles:
            if role == "d":
                g, shape, need = next(gg)
                args.append(g if need and g is not None else ctx.like.new_zeros(shape))
            else:
                args.append(next(aux) if role == "a" else next(others) if role == "s" else None)
        grads[0] = apply(name, args)
        return tuple(grads)
    return backward


def _function(name, op, setup_context, backward):
    kernel = KERNELS[name]

    def forward(*args):
        return kernel(*args) if plain_eager(args) else op(*args)

    # Function.apply binds the arguments to forward's signature on every
    # call: computed once here instead of by inspect each time
    forward.__signature__ = inspect.signature(forward)

    return type(f"ScatterkitFunction_{name}", (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
        "generate_vmap_rule": True,
    })


FUNCTIONS, BACKWARD_FUNCTIONS = {}, {}
for _name, _spec in SPECS.items():
    _autograd = (forward_backward(_spec, _name), forward_setup(_spec))
    OPS[_name].register_autograd(_autograd[0], setup_context=_autograd[1])
    FUNCTIONS[_name] = _function(_name, OPS[_name], _autograd[1], _autograd[0])
    _autograd = (_backward_backward(_name, _spec), _backward_setup(_spec))
    BACKWARD_OPS[_name].register_autograd(_autograd[0], setup_context=_autograd[1])
    BACKWARD_FUNCTIONS[_name] = _function(_name + "_backward", BACKWARD_OPS[_name],
                                          _autograd[1], _autograd[0])

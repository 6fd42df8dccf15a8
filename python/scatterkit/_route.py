"""No silent gradient loss: the plain functions given torch tensors that
require grad (with grad mode on) run through scatterkit.torch, so the result
keeps its autograd graph; `out=` then follows torch's rules (refused when an
argument requires grad). The backward functions are not differentiable
through the plain API and refuse such tensors. torch is never imported here:
a tensor can only exist once torch has been imported."""

import functools
import sys

# name -> the function before wrapping; scatterkit.torch's kernels call these
# (they run below autograd, where the tensors may still require grad).
PLAIN = {}


def _needs_autograd(args, kwargs):
    torch = sys.modules.get("torch")
    if torch is None or not torch.is_grad_enabled():
        return False
    tensor = torch.Tensor
    for v in args:
        if isinstance(v, tensor) and v.requires_grad:
            return True
    for v in kwargs.values():
        if isinstance(v, tensor) and v.requires_grad:
            return True
    return False


def _routed(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _needs_autograd(args, kwargs):
            from . import torch as skt
            return getattr(skt, name)(*args, **kwargs)
        return fn(*args, **kwargs)

    return wrapper


def _refusing(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _needs_autograd(args, kwargs):
            raise RuntimeError(
                f"scatterkit.{name}: an argument is a torch tensor that requires grad, and the "
                f"plain backward functions are not differentiable (the result would have no "
                f"graph); differentiate through scatterkit.torch (double backward is "
                f"supported there), or call this under torch.no_grad() or on .detach()ed "
                f"tensors")
        return fn(*args, **kwargs)

    return wrapper


def install(namespace, forward_names, backward_names):
    """Replaces the named functions of namespace (the package's globals) by
    their routed or refusing wrappers, keeping the originals in PLAIN."""
    for name in forward_names:
        PLAIN[name] = namespace[name]
        namespace[name] = _routed(name, namespace[name])
    for name in backward_names:
        PLAIN[name] = namespace[name]
        namespace[name] = _refusing(name, namespace[name])

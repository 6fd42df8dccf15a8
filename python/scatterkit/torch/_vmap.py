"""torch.vmap for the custom ops: a batching rule that loops over the
batch, calling the op once per example, and stacks the results (batch
dimension 0). Correct for every op and every in_dims; its cost is one call
per example. masked_select's results must have one length for the whole
batch (always so when only x is batched), as torch.stack needs. The out
ops write each example into its slice of a batched ``out``."""

import torch

from ._grad_ops import BACKWARD_OPS
from ._ops import OPS


def _loop_rule(name, op):
    def rule(info, in_dims, *args):
        results = []
        for b in range(info.batch_size):
            example = [v.select(d, b) if isinstance(d, int) else v for v, d in zip(args, in_dims)]
            results.append(op(*example))
        if not results:
            raise RuntimeError(f"scatterkit.{name}: vmap over a batch of size 0 is not "
                               "supported (the result's shape is not known)")
        try:
            if isinstance(results[0], tuple):
                outs = tuple(torch.stack(r) for r in zip(*results))
                return outs, (0,) * len(outs)
            return torch.stack(results), 0
        except RuntimeError as e:
            raise RuntimeError(f"scatterkit.{name}: under vmap every example must give a "
                               f"result of the same shape: {e}") from e
    return rule


def _out_loop_rule(name, op):
    """<op>_out writes each example into its slice of a batched out; an
    unbatched out cannot take a batch of results (torch refuses the same
    for its in-place operations)."""
    def rule(info, in_dims, *args):
        if not isinstance(in_dims[-1], int):
            if any(isinstance(d, int) for d in in_dims[:-1]):
                raise RuntimeError(f"scatterkit.{name}: under vmap, out must be batched when "
                                   "an input is (a batch of results cannot go into one out)")
            op(*args)
            return None, None
        for b in range(info.batch_size):
            op(*[v.select(d, b) if isinstance(d, int) else v for v, d in zip(args, in_dims)])
        return None, None
    return rule


for _name, _op in (*OPS.items(), *((n + "_backward", op) for n, op in BACKWARD_OPS.items())):
    if _name.endswith("_out"):
        _op.register_vmap(_out_loop_rule(_name, _op))
    else:
        _op.register_vmap(_loop_rule(_name, _op))

"""autograd for the row-sharded operators: the backward reuses the
forward's plan, so it moves only rows. Every rank must run the backward, as
with torch.distributed.nn.functional."""

import torch

from . import _ops
from ._exchange import Group


def wants_grad(t):
    return isinstance(t, torch.Tensor) and t.requires_grad and torch.is_grad_enabled()


class IndexSelect(torch.autograd.Function):
    @staticmethod
    def forward(ctx, shard, index, partition, group, plan, mode, fill_value):
        g = Group(group)
        out, ctx.plan = _ops.index_select(shard, index, partition, g, plan, mode, fill_value)
        ctx.g = g
        ctx.save_for_backward(shard)
        return out

    @staticmethod
    def backward(ctx, grad):
        (shard,) = ctx.saved_tensors
        gx = _ops.index_select_backward(grad.contiguous(), shard, ctx.plan, ctx.g)
        return gx, None, None, None, None, None, None


class IndexScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, shard, updates, index, partition, group, plan, reduce, include_self, mode):
        g = Group(group)
        result, recv_rows, ctx.plan = _ops.index_scatter(shard, index, updates, partition, g, plan,
                                                         reduce, include_self, mode)
        ctx.g, ctx.reduce, ctx.include_self = g, reduce, include_self
        ctx.updates_shape = updates.shape
        ctx.save_for_backward(shard, recv_rows, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        shard, recv_rows, result = ctx.saved_tensors
        gx, gu = _ops.index_scatter_backward(grad.contiguous(), shard, recv_rows, result, ctx.plan,
                                             ctx.g, ctx.reduce, ctx.include_self)
        return gx, gu.reshape(ctx.updates_shape), None, None, None, None, None, None, None

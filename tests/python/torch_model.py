"""A small model that calls every scatterkit.torch operator (shared by the
compile, export and torch.func tests), and its inputs."""
import torch

import scatterkit.torch as skt


def inputs(dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(6, 4, generator=g, dtype=dtype)
    w = torch.randn(4, 4, generator=g, dtype=dtype)
    return x, w


INDEX = torch.tensor([[0, 5, 2, 1], [3, 3, 4, 0], [1, 2, 5, 5]])
ROWS = torch.tensor([4, 0, 4, 2])
ND = torch.tensor([[0, 1], [5, 3], [2, 2]])
MASK = torch.tensor([True, False, True, True])
WRITE = torch.tensor([1, 0])


def forward(x, w):
    """A scalar from x (6, 4) and w (4, 4) through every operator."""
    h = x @ w                                                     # (6, 4)
    g = skt.gather(h, INDEX, 0)                                   # (3, 4)
    s = skt.scatter(h, INDEX, g * 2, 0, reduce="sum")             # (6, 4)
    s = skt.scatter(s, INDEX, g, 0, reduce="amax", include_self=False)
    r = skt.index_select(s, ROWS, 0)                              # (4, 4)
    r = skt.index_scatter(r, ROWS[1:3] - 1, w[:2], 0, reduce="mean")
    n = skt.gather_nd(h, ND)                                      # (3,)
    t = skt.scatter_nd(h, ND[:, :1], g + n[:, None], reduce="prod")  # (6, 4)
    v = skt.slice_scatter(t, r[:2], 0, 1, 5, 2)
    v = skt.diagonal_scatter(v, w.diagonal(), 0, 0, 1)
    v = skt.select_scatter(v, r[3], 0, 5)
    m = skt.masked_scatter(v, MASK, s * r.sum())
    sel = skt.masked_select(m, MASK)
    c = skt.tensor_scatter(m.reshape(2, 3, 4), r[:2].reshape(2, 1, 4), WRITE, axis=1)
    buf = torch.empty_like(h.detach())                            # the out= form
    skt.scatter(h.detach(), INDEX, g.detach(), 0, reduce="sum", out=buf)
    return sel.sum() + c.square().sum() + s.sum() * 0.5 + buf.sum() * 0.25

"""The rank side of test_distributed.py: the cases (built alike by every rank
and by the single-process oracle in the parent), a rank's run of all of
them, and the launcher of a world of Gloo ranks on the loopback interface.
No test functions here."""
import datetime
import os
import socket
import traceback

import numpy as np
import torch

REDUCES = (None, "sum", "prod", "mean", "amax", "amin")
ROWS = 40


def partition(p, n=ROWS):
    """Uneven shards; at P = 3 rank 1 owns no rows."""
    cuts = {1: [], 2: [n // 3], 3: [n // 2, n // 2], 4: [5, 5 + n // 2, n - 3]}[p]
    return (0, *cuts, n)


def splits(p, length):
    """Each rank's slice of the global index; at P = 3 rank 1's is empty."""
    sizes = {1: [length], 2: [length // 4], 3: [length // 2, 0], 4: [length // 5, length // 3,
                                                                     length // 10]}[p]
    if p > 1:
        sizes = sizes + [length - sum(sizes)]
    offsets = np.cumsum([0] + sizes)
    return [(int(a), int(b)) for a, b in zip(offsets, offsets[1:])]


def _ids(rng, length, low, high, hot=0):
    """Ids in [low, high), with a hot row 3 taking `hot` of them (a target of
    more than 256 contributors spread over the ranks)."""
    ids = rng.integers(low, high, length)
    ids[rng.permutation(length)[:hot]] = 3
    return ids


def cases():
    """name -> (kind, dict of arguments), global tensors."""
    rng = np.random.default_rng(26)
    out = {}
    real = lambda shape, dt: torch.from_numpy(rng.standard_normal(shape)).to(dt)  # noqa: E731
    out["select_f32"] = ("select", dict(table=real((ROWS, 3), torch.float32),
                                        index=_ids(rng, 70, -ROWS, ROWS), mode="error"))
    out["select_f16_2d"] = ("select", dict(table=real((ROWS, 2, 2), torch.float16),
                                           index=_ids(rng, 30, 0, ROWS).reshape(15, 2)))
    out["select_fill"] = ("select", dict(table=real((ROWS, 2), torch.float64),
                                         index=_ids(rng, 50, -ROWS - 5, ROWS + 5), mode="fill",
                                         fill_value=7.5))
    out["select_clip"] = ("select", dict(table=real((ROWS, 2), torch.float32),
                                         index=_ids(rng, 50, -ROWS - 5, ROWS + 5), mode="clip"))
    for reduce in REDUCES:
        for self_ in (True, False):
            out[f"scatter_{reduce}_{self_}"] = ("scatter", dict(
                table=real((ROWS, 2), torch.float32), index=_ids(rng, 700, -ROWS, ROWS, hot=400),
                updates=real((700, 2), torch.float32), reduce=reduce, include_self=self_))
    out["scatter_f16_sum"] = ("scatter", dict(table=real((ROWS, 3), torch.float16),
                                              index=_ids(rng, 600, 0, ROWS, hot=300),
                                              updates=real((600, 3), torch.float16),
                                              reduce="sum"))
    out["scatter_f16_mean"] = ("scatter", dict(table=real((ROWS, 1), torch.float16),
                                               index=_ids(rng, 90, 0, ROWS),
                                               updates=real((90, 1), torch.float16),
                                               reduce="mean", include_self=False))
    out["scatter_int_prod"] = ("scatter", dict(
        table=torch.from_numpy(rng.integers(-9, 9, (ROWS, 2))).to(torch.int32),
        index=_ids(rng, 80, 0, ROWS),
        updates=torch.from_numpy(rng.integers(-9, 9, (80, 2))).to(torch.int32), reduce="prod"))
    out["scatter_drop"] = ("scatter", dict(table=real((ROWS, 2), torch.float64),
                                           index=_ids(rng, 60, -ROWS - 4, ROWS + 4),
                                           updates=real((60, 2), torch.float64), reduce="sum",
                                           mode="drop"))
    for name in ("grad_select", "grad_select_fill"):
        n = 60
        out[name] = ("grad_select", dict(table=real((ROWS, 2), torch.float32),
                                         index=_ids(rng, n, -ROWS - 2, ROWS, hot=20),
                                         grad=real((n, 2), torch.float32),
                                         mode="fill" if name.endswith("fill") else "clip"))
    for reduce in REDUCES:
        t = real((ROWS, 2), torch.float64)
        u = real((300, 2), torch.float64)
        if reduce in ("amax", "amin"):  # ties: rounded values
            t, u = t.round(), u.round()
        out[f"grad_scatter_{reduce}"] = ("grad_scatter", dict(
            table=t, index=_ids(rng, 300, 0, ROWS, hot=100), updates=u, reduce=reduce,
            include_self=reduce != "mean", grad=real((ROWS, 2), torch.float64)))
    return out


def _rank_case(skd, kind, a, p, r):
    part = partition(p)
    lo, hi = splits(p, a["index"].shape[0])[r]
    index = torch.from_numpy(a["index"][lo:hi])
    shard = a["table"][part[r]:part[r + 1]].clone()
    kw = dict(partition=part, mode=a.get("mode", "error"))
    if kind == "select":
        return {"out": skd.index_select(shard, index, fill_value=a.get("fill_value", 0), **kw)}
    if kind == "grad_select":
        shard.requires_grad_(True)
        out = skd.index_select(shard, index, **kw)
        out.backward(a["grad"][lo:hi])
        return {"out": out.detach(), "grad": shard.grad}
    upd = a["updates"][lo:hi].clone()
    kw.update(reduce=a["reduce"], include_self=a.get("include_self", True))
    if kind == "scatter":
        return {"out": skd.index_scatter(shard, index, upd, **kw)}
    shard.requires_grad_(True)
    upd.requires_grad_(True)
    res = skd.index_scatter(shard, index, upd, **kw)
    res.backward(a["grad"][part[r]:part[r + 1]])
    return {"out": res.detach(), "grad": shard.grad, "grad_updates": upd.grad}


def _plan_case(skd, p, r):
    """A plan reused for a forward and a second call with other rows."""
    a = cases()["select_f32"][1]
    part = partition(p)
    lo, hi = splits(p, a["index"].shape[0])[r]
    pl = skd.plan(torch.from_numpy(a["index"][lo:hi]), partition=part)
    shard = a["table"][part[r]:part[r + 1]]
    first = skd.index_select(shard, torch.from_numpy(a["index"][lo:hi]),
                             partition=part, plan=pl)
    second = skd.index_select(shard * 2, torch.from_numpy(a["index"][lo:hi]), partition=part,
                              plan=pl)
    as_np = skd.index_select(shard.numpy(), a["index"][lo:hi], partition=part)
    return {"out": first, "second": second, "numpy": torch.from_numpy(as_np)}


def run_rank(p, r, port, path, extra):
    """One rank: joins the world, runs every case (or `extra`), saves results."""
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # this child's own environment
    import torch.distributed as dist

    import scatterkit.distributed as skd
    results = {}
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=r,
                                world_size=p, timeout=datetime.timedelta(seconds=60))
        if extra is not None:
            results = extra(skd, p, r)
        else:
            for name, (kind, a) in cases().items():
                results[name] = _rank_case(skd, kind, a, p, r)
            results["plan"] = _plan_case(skd, p, r)
        dist.barrier()
        dist.destroy_process_group()
    except BaseException:  # the parent reports it
        results = {"crash": traceback.format_exc()}
    torch.save(results, os.path.join(path, f"rank{r}.pt"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(p, path, extra=None, timeout=90):
    """Starts P ranks (forkserver children: none inherits a thread pool),
    waits for them with a wall limit, ends only the ones it started."""
    import multiprocessing as mp
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["torch", "scatterkit", "numpy"])
    port = free_port()
    procs = [ctx.Process(target=run_rank, args=(p, r, port, path, extra)) for r in range(p)]
    for proc in procs:
        proc.start()
    deadline = datetime.datetime.now() + datetime.timedelta(seconds=timeout)
    for proc in procs:
        proc.join(max(0.0, (deadline - datetime.datetime.now()).total_seconds()))
    hung = [proc for proc in procs if proc.is_alive()]
    for proc in hung:
        proc.kill()
        proc.join()
    results = []
    for r in range(p):
        f = os.path.join(path, f"rank{r}.pt")
        results.append(torch.load(f, weights_only=False) if os.path.exists(f) else
                       {"crash": "no result (hung or killed)"})
    return results, len(hung)

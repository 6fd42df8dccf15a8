"""D1 and D2 of BENCH.md on P Gloo ranks of one host (loopback):
scatterkit.distributed.index_select / index_scatter(reduce="sum") against the
same exchange written by hand with torch.distributed (torch's stable sort
for the bucketing, all_to_all_single of counts, ids and rows, then
index_select / index_add_ at the owner, as TorchRec and DGL do), and the
time split of scatterkit's call: bucketing (C), headers (counts and
checks), ids, owner kernel, rows, un-permute.

    python bench/dist_bench.py                       # BENCH.md: 4 ranks, 1M ids each
    python bench/dist_bench.py --ids 200000 --rows-per-rank 200000 --reps 3
    python bench/dist_bench.py --only d1              # D1 and its split only

Prints, per timing, the median over reps of the slowest rank (ms)."""
import argparse
import datetime
import os
import socket
import statistics
import time

import torch
import torch.distributed as dist


def _now():
    return time.perf_counter()


def _hand_select(shard, ids, part, P):
    """The hand-written exchange: owner by searchsorted, stable argsort."""
    bounds = torch.tensor(part[1:-1], dtype=torch.int64)
    owner = torch.searchsorted(bounds, ids, right=True)
    order = torch.argsort(owner, stable=True)
    send_counts = torch.bincount(owner, minlength=P)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)
    sc, rc = send_counts.tolist(), recv_counts.tolist()
    local = ids[order] - torch.tensor(part[:-1])[owner[order]]
    recv_ids = torch.empty(sum(rc), dtype=torch.int64)
    dist.all_to_all_single(recv_ids, local, rc, sc)
    return order, sc, rc, recv_ids


def hand_d1(shard, ids, part, P):
    order, sc, rc, recv_ids = _hand_select(shard, ids, part, P)
    rows = shard.index_select(0, recv_ids)
    back = torch.empty((ids.shape[0],) + shard.shape[1:], dtype=shard.dtype)
    dist.all_to_all_single(back, rows, sc, rc)
    out = torch.empty_like(back)
    out[order] = back
    return out


def hand_d2(shard, ids, updates, part, P):
    order, sc, rc, recv_ids = _hand_select(shard, ids, part, P)
    send = updates[order]
    recv = torch.empty((sum(rc),) + shard.shape[1:], dtype=shard.dtype)
    dist.all_to_all_single(recv, send, rc, sc)
    return shard.index_add(0, recv_ids, recv)


def _split_common(shard, ids, part, g, t):
    """Bucketing, headers and ids, as scatterkit.distributed runs them."""
    from scatterkit.distributed import _exchange as ex
    from scatterkit.distributed import _plan
    counts, perm, local = _plan.bucketize(ids, part, "error", _plan.local_dtype(part))
    t.append(_now())
    sig = ex.signature("index_select", None, True, "error", shard, part)
    recv = ex.exchange_headers(g, ex.header(g, counts, ids.numel(), 0, (0, 0), sig + [0]))
    t.append(_now())
    sc, rc = counts[:g.size].tolist(), recv[:, ex.COUNT].tolist()
    recv_ids = ex.all_to_all(g, local[:sum(sc)], sc, rc)
    t.append(_now())
    return perm, sc, rc, recv_ids


def split_d1(shard, ids, updates, part, g):
    """scatterkit's index_select stage by stage (the same calls it makes)."""
    import scatterkit as sk
    from scatterkit.distributed import _exchange as ex
    t = [_now()]
    perm, sc, rc, recv_ids = _split_common(shard, ids, part, g, t)
    rows = sk.index_select(shard, recv_ids, 0)
    t.append(_now())
    back = ex.all_to_all(g, rows, rc, sc)
    t.append(_now())
    inv = torch.empty_like(perm)
    sk.index_scatter(inv, perm, torch.arange(perm.shape[0]), 0, out=inv)
    sk.index_select(back, inv, 0)
    t.append(_now())
    return [b - a for a, b in zip(t, t[1:])]


def split_d2(shard, ids, updates, part, g):
    """scatterkit's index_scatter(sum) stage by stage."""
    import scatterkit as sk
    from scatterkit.distributed import _exchange as ex
    t = [_now()]
    perm, sc, rc, recv_ids = _split_common(shard, ids, part, g, t)
    recv = ex.all_to_all(g, sk.index_select(updates, perm, 0), sc, rc)
    t.append(_now())
    sk.index_scatter(shard, recv_ids, recv, 0, reduce="sum")
    t.append(_now())
    return [b - a for a, b in zip(t, t[1:])]


STAGES = {"d1": (split_d1, ("bucketing", "headers", "ids", "owner kernel", "rows",
                            "un-permute")),
          "d2": (split_d2, ("bucketing", "headers", "ids", "rows", "owner kernel"))}


def _timed(fn, reps):
    times = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def rank_main(r, P, port, args, queue):
    torch.set_num_threads(1)
    import scatterkit as sk
    import scatterkit.distributed as skd
    from scatterkit.distributed._exchange import Group
    sk.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=r,
                            world_size=P, timeout=datetime.timedelta(seconds=600))
    n = args.rows_per_rank * P
    part = tuple(min(k * args.rows_per_rank, n) for k in range(P + 1))
    gen = torch.Generator().manual_seed(r)
    shard = torch.randn(args.rows_per_rank, args.width, generator=gen)
    ids = torch.randint(0, n, (args.ids,), generator=gen)
    updates = torch.randn(args.ids, args.width, generator=gen)
    g = Group(None)
    res = {}
    if "d1" in args.only:
        res["D1 scatterkit"] = _timed(lambda: skd.index_select(shard, ids, partition=part),
                                      args.reps)
        res["D1 by hand"] = _timed(lambda: hand_d1(shard, ids, part, P), args.reps)
    if "d2" in args.only:
        res["D2 scatterkit"] = _timed(lambda: skd.index_scatter(shard, ids, updates,
                                                                partition=part, reduce="sum"),
                                      args.reps)
        res["D2 by hand"] = _timed(lambda: hand_d2(shard, ids, updates, part, P), args.reps)
    for kind in args.only.split(","):
        fn, stages = STAGES[kind]
        splits = [fn(shard, ids, updates, part, g) for _ in range(args.reps)]
        for k, name in enumerate(stages):
            res[f"{kind.upper()} split: {name}"] = [s[k] for s in splits]
    queue.put((r, res))
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--ids", type=int, default=1_000_000, help="ids (update rows) per rank")
    ap.add_argument("--rows-per-rank", type=int, default=1_000_000)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="d1,d2", help="d1, d2 or both (d1,d2)")
    args = ap.parse_args()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    import torch.multiprocessing as mp
    ctx = mp.get_context("forkserver")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    queue = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, args.ranks, port, args, queue))
             for r in range(args.ranks)]
    for p in procs:
        p.start()
    got = dict(queue.get(timeout=1800) for _ in procs)
    for p in procs:
        p.join()
    print(f"P={args.ranks} ranks, {args.ids} ids per rank, table [{args.rows_per_rank * args.ranks}"
          f", {args.width}] float32, median of {args.reps} reps of the slowest rank (ms)")
    for key in got[0]:
        slowest = [max(got[r][key][k] for r in got) for k in range(args.reps)]
        print(f"  {key:28s} {1e3 * statistics.median(slowest):9.1f}")


if __name__ == "__main__":
    main()

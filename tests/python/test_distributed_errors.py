"""scatterkit.distributed's errors on 3 Gloo ranks, launched once: a bad id
on one rank raises the same IndexError on every rank and no shard changes;
arguments that differ between ranks raise the same ValueError everywhere;
a rank that never makes the call ends the others' call with the group's
timeout, not a hang."""
import datetime

import pytest
import torch

import test_distributed_worker as w

if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with Gloo is not available", allow_module_level=True)

P = 3


def _attempt(fn):
    try:
        fn()
        return None
    except Exception as e:  # what each rank raised, compared by the parent
        return (type(e).__name__, str(e))


def _errors(skd, p, r):
    """Runs on every rank (test_distributed_worker.run_rank)."""
    import torch.distributed as dist
    part = w.partition(p)
    shard = torch.arange(float(part[r] * 2), float(part[r + 1] * 2)).reshape(-1, 2)
    before = shard.clone()
    idx = torch.tensor([0, 5, 39, 1][: 2 + r])
    upd = torch.ones(idx.shape[0], 2)
    bad = idx.clone()
    if r == 1:
        bad[-1] = 40  # position 2 of rank 1: global position 2 + 2 = 4
    kw = dict(partition=part)
    out = {"bad_select": _attempt(lambda: skd.index_select(shard, bad, **kw)),
           "bad_scatter": _attempt(lambda: skd.index_scatter(shard, bad, upd, reduce="sum",
                                                              out=shard, **kw))}
    out["untouched"] = torch.equal(shard, before)
    red = "amax" if r == 2 else "sum"
    out["reduce_differs"] = _attempt(lambda: skd.index_scatter(shard, idx, upd, reduce=red, **kw))
    other = (0, 10, 20, 40) if r == 0 else part
    out["partition_differs"] = _attempt(lambda: skd.index_select(shard, idx, partition=other))
    wrong = shard[:1] if r == 2 else shard
    out["shard_size"] = _attempt(lambda: skd.index_select(wrong, idx, **kw))
    op = skd.index_scatter if r == 1 else skd.index_select
    out["operator_differs"] = _attempt(
        lambda: op(shard, idx, upd, **kw) if r == 1 else op(shard, idx, **kw))
    pl = skd.plan(idx, **kw)
    short = idx[:1] if r == 0 else idx
    out["plan_mismatch"] = _attempt(lambda: skd.index_select(shard, short, plan=pl, **kw))
    out["works_after"] = _attempt(lambda: skd.index_select(shard, idx, plan=pl, **kw))
    quick = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=2))
    if r != 0:  # rank 0 never makes the call
        out["missing_rank"] = _attempt(lambda: skd.index_select(shard, idx, group=quick, **kw))
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    res, hung = w.launch(P, str(tmp_path_factory.mktemp("errors")), extra=_errors, timeout=60)
    crashes = [f"rank {r}: {x['crash']}" for r, x in enumerate(res) if "crash" in x]
    assert not hung and not crashes, "\n".join(crashes)
    return res


def _same_everywhere(results, key, kind, *words):
    got = [r[key] for r in results]
    assert all(g is not None and g[0] == kind for g in got), f"{key}: {got}"
    assert len({g[1] for g in got}) == 1, f"{key}: the ranks raised different messages: {got}"
    for word in words:
        assert word in got[0][1], f"{key}: {got[0][1]!r} lacks {word!r}"


def test_bad_id_same_index_error_everywhere(results):
    for key in ("bad_select", "bad_scatter"):
        _same_everywhere(results, key, "IndexError", "index[4] = 40", "size 40", "rank 1")
    assert all(r["untouched"] for r in results)


def test_different_arguments_same_value_error(results):
    _same_everywhere(results, "reduce_differs", "ValueError", "reduce", "'amax' on rank 2")
    _same_everywhere(results, "partition_differs", "ValueError", "partition")
    _same_everywhere(results, "operator_differs", "ValueError", "operator", "index_scatter")
    _same_everywhere(results, "shard_size", "ValueError", "rank 2", "table_shard has 1")
    _same_everywhere(results, "plan_mismatch", "ValueError", "plan was made", "rank 0")


def test_group_usable_after_errors(results):
    assert all(r["works_after"] is None for r in results)


def test_missing_rank_times_out(results):
    for r in results[1:]:
        assert r["missing_rank"] is not None, "a call without rank 0 returned"
        assert r["missing_rank"][0] in ("RuntimeError", "DistBackendError"), r["missing_rank"]

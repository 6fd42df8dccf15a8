"""scatterkit.distributed on 1, 2, 3 and 4 Gloo ranks (loopback), each world
launched once for the module: every result and gradient equals, bit for
bit, the single-process call on the whole table and the concatenated index
(SPEC section 8), for every reduction, float16 included."""
import numpy as np
import pytest
import torch

import scatterkit as sk
import scatterkit.torch as skt
import test_distributed_worker as w

pytest.importorskip("torch.distributed")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with Gloo is not available", allow_module_level=True)

WORLDS = (1, 2, 3, 4)


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    out = {}
    for p in WORLDS:
        results, hung = w.launch(p, str(tmp_path_factory.mktemp(f"world{p}")))
        crashes = [f"rank {r}: {res['crash']}" for r, res in enumerate(results) if "crash" in res]
        assert not hung and not crashes, f"world of {p}: {hung} hung\n" + "\n".join(crashes)
        out[p] = results
    return out


def _bits(t):
    t = torch.as_tensor(t)
    if t.dtype.is_floating_point:
        return t.contiguous().view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
    return t


def _same(got, want, what):
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), \
        f"{what}: {got.dtype}{tuple(got.shape)} against {want.dtype}{tuple(want.shape)}"
    bad = (_bits(got) != _bits(want)).reshape(-1).nonzero()
    assert bad.numel() == 0, (f"{what}: {bad.numel()} elements differ, first at flat "
                              f"{int(bad[0])}: {got.reshape(-1)[bad[0]]} against "
                              f"{want.reshape(-1)[bad[0]]}")


def _oracle(kind, a):
    """The single-process call (scatterkit.torch for the gradients)."""
    idx = torch.from_numpy(a["index"])
    mode = a.get("mode", "error")
    if kind == "select":
        return {"out": sk.index_select(a["table"], idx, 0, mode=mode,
                                       fill_value=a.get("fill_value", 0))}
    if kind == "grad_select":
        x = a["table"].clone().requires_grad_(True)
        out = skt.index_select(x, idx.reshape(-1), 0, mode=mode)
        out.backward(a["grad"])
        return {"out": out.detach(), "grad": x.grad}
    kw = dict(reduce=a["reduce"], include_self=a.get("include_self", True), mode=mode)
    if kind == "scatter":
        return {"out": sk.index_scatter(a["table"], idx, a["updates"], 0, **kw)}
    x = a["table"].clone().requires_grad_(True)
    u = a["updates"].clone().requires_grad_(True)
    res = skt.index_scatter(x, idx, u, 0, **kw)
    res.backward(a["grad"])
    return {"out": res.detach(), "grad": x.grad, "grad_updates": u.grad}


def _cat(results, name, key):
    return torch.cat([torch.as_tensor(r[name][key]) for r in results])


CASES = w.cases()


@pytest.mark.parametrize("p", WORLDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_bitwise_equal_to_one_process(worlds, p, name):
    kind, a = CASES[name]
    want = _oracle(kind, a)
    for key, value in want.items():
        _same(_cat(worlds[p], name, key), value, f"{name} P={p} {key}")


@pytest.mark.parametrize("p", WORLDS)
def test_plan_reused_and_numpy(worlds, p):
    a = CASES["select_f32"][1]
    idx = torch.from_numpy(a["index"])
    _same(_cat(worlds[p], "plan", "out"), sk.index_select(a["table"], idx, 0), f"plan P={p}")
    _same(_cat(worlds[p], "plan", "second"), sk.index_select(a["table"] * 2, idx, 0),
          f"plan, second call, P={p}")
    _same(_cat(worlds[p], "plan", "numpy"), sk.index_select(a["table"], idx, 0),
          f"NumPy in and out, P={p}")


def test_cases_cover_the_contract():
    """Every reduction with and without include_self, float16, a hot target
    of more than 256 contributors, every mode, and gradients."""
    kinds = {k for k, _ in CASES.values()}
    assert kinds == {"select", "grad_select", "scatter", "grad_scatter"}
    assert {a["reduce"] for k, a in CASES.values() if k == "grad_scatter"} == set(w.REDUCES)
    assert any(a["table"].dtype == torch.float16 for _, a in CASES.values())
    hot = CASES["scatter_sum_True"][1]["index"]
    assert int((hot == 3).sum()) > 256
    assert {a.get("mode", "error") for _, a in CASES.values()} == {"error", "clip", "fill", "drop"}
    # the split puts the hot row's contributors on several ranks
    assert all(np.any(hot[lo:hi] == 3) for lo, hi in w.splits(4, hot.shape[0]))


def test_bucketize_numpy():
    import scatterkit.distributed as skd
    counts, perm, local = skd.bucketize(np.array([5, -1, 0, 9, 3, 3, 12]), [0, 3, 3, 10],
                                        mode="fill")
    assert counts.tolist() == [1, 0, 5, 1]
    assert perm.tolist() == [2, 0, 1, 3, 4, 5, 6]
    assert local.tolist() == [0, 2, 6, 6, 0, 0, -1]
    with pytest.raises(IndexError, match=r"index\[6\] = 12"):
        skd.bucketize(np.array([5, -1, 0, 9, 3, 3, 12]), [0, 3, 3, 10])

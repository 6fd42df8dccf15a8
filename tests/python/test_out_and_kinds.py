"""out= (a separate buffer in any layout, and out=x: the in-place form), the
kind of the result (NumPy in -> NumPy out, torch in -> torch out), read-only
and DLPack-only inputs."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, Failures, assert_same, empty_of, index_values, kinds_for,
                     make_tensor, reduces_for, ref_gather, ref_index_scatter, ref_index_select,
                     ref_scatter, to_kind, to_torch, values)

OUT_LAYOUTS = {"numpy": ["contiguous", "transposed", "strided", "negative"],
               "torch": ["contiguous", "transposed", "strided"]}


def _fresh_out(rng, shape, dtype, kind, layout):
    # poisoned with random values, so a result that was not written shows
    obj, _ = make_tensor(lambda s: values(rng, s, dtype), shape, layout, kind, rng)
    return obj


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_out_buffer(dtype, rng):
    f = Failures()
    for kind in kinds_for(dtype):
        for layout in OUT_LAYOUTS[kind]:
            for reduce in reduces_for(dtype):
                def run():
                    inc = bool(rng.random() < 0.5)
                    flavor = "prod" if reduce == "prod" else "general"
                    xr = values(rng, (5, 4), dtype, flavor)
                    ir = index_values(rng, (7, 4), 5, "error", "int64")
                    sr = values(rng, (7, 4), dtype, flavor)
                    x = to_kind(xr, kind)
                    out = _fresh_out(rng, (5, 4), dtype, kind, layout)
                    res = sk.scatter(x, to_kind(ir, kind), to_kind(sr, kind), 0, reduce=reduce,
                                     include_self=inc, out=out)
                    exp = ref_scatter(xr, ir, sr, 0, reduce, inc)
                    assert res is out, "scatter(..., out=out) must return out"
                    assert_same(out, exp, kind)
                    assert_same(x, xr)
                f.run(f"{kind} out={layout} reduce={reduce}", run)
    f.check()


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_in_place(dtype, rng):
    """out=x is the in-place form, for x in any writable layout."""
    f = Failures()
    for kind in kinds_for(dtype):
        for layout in OUT_LAYOUTS[kind]:
            for reduce in reduces_for(dtype):
                for mode in ("error", "drop"):
                    def run():
                        inc = bool(rng.random() < 0.5)
                        flavor = "prod" if reduce == "prod" else "general"
                        x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), (4, 6),
                                            layout, kind, rng)
                        ir = index_values(rng, (4, 9), 6, mode, "int32")
                        sr = values(rng, (4, 9), dtype, flavor)
                        res = sk.scatter(x, to_kind(ir, kind), to_kind(sr, kind), 1,
                                         reduce=reduce, include_self=inc, mode=mode, out=x)
                        assert res is x
                        assert_same(x, ref_scatter(xr, ir, sr, 1, reduce, inc, mode), kind)
                    f.run(f"{kind} {layout} reduce={reduce} mode={mode}", run)
    f.check()


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_scatter_out_and_in_place(dtype, rng):
    f = Failures()
    for kind in kinds_for(dtype):
        for layout in OUT_LAYOUTS[kind]:
            for reduce in reduces_for(dtype):
                for in_place in (False, True):
                    def run():
                        inc = bool(rng.random() < 0.5)
                        flavor = "prod" if reduce == "prod" else "general"
                        x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), (3, 5, 2),
                                            layout, kind, rng)
                        ir = index_values(rng, (7,), 5, "error", "int64")
                        ur = values(rng, (3, 7, 2), dtype, flavor)
                        out = x if in_place else _fresh_out(rng, (3, 5, 2), dtype, kind, layout)
                        res = sk.index_scatter(x, to_kind(ir, kind), to_kind(ur, kind), 1,
                                               reduce=reduce, include_self=inc, out=out)
                        assert res is out
                        assert_same(out, ref_index_scatter(xr, ir, ur, 1, reduce, inc), kind)
                        if not in_place:
                            assert_same(x, xr)
                    f.run(f"{kind} {layout} reduce={reduce} in_place={in_place}", run)
    f.check()


def test_in_place_torch_view_writes_through(rng):
    """In place on a torch view writes into the base tensor and nowhere else."""
    base = torch.zeros(6, 8, dtype=torch.float32)
    view = base[1:5, ::2]  # (4, 4), non-contiguous
    idx = torch.tensor([[0, 1, 2, 3]])
    src = torch.ones(1, 4)
    sk.scatter(view, idx, src, 0, reduce="sum", out=view)
    exp = torch.zeros(6, 8)
    exp[1, 0] = exp[2, 2] = exp[3, 4] = exp[4, 6] = 1
    assert_same(base, exp, "torch")


def test_in_place_numpy_negative_view_writes_through():
    base = np.zeros(5, np.int32)
    view = base[::-1]
    sk.scatter(view, np.array([0, 1]), np.array([7, 8], np.int32), 0, out=view)
    np.testing.assert_array_equal(base, [0, 0, 0, 8, 7])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_result_kind(kind, rng):
    """NumPy in -> NumPy out, torch in -> torch out, for all four ops, and
    the result does not share memory with x."""
    xr = values(rng, (4, 3), "float32")
    ir = index_values(rng, (4, 3), 4, "error", "int64")
    x, i = to_kind(xr, kind), to_kind(ir, kind)
    typ = np.ndarray if kind == "numpy" else torch.Tensor
    results = [sk.gather(x, i, 0), sk.scatter(x, i, x, 0), sk.index_select(x, i, 0),
               sk.index_scatter(x, i[:, 0], x, 0)]
    for r in results:
        assert isinstance(r, typ), type(r)
    assert_same(results[0], ref_gather(xr, ir, 0), kind)
    assert_same(results[2], ref_index_select(xr, ir, 0), kind)
    r = results[1]
    if kind == "numpy":
        assert not np.shares_memory(r, x)
    else:
        assert r.data_ptr() != x.data_ptr()


def test_result_kind_follows_x_with_mixed_inputs(rng):
    """x decides the kind of the result; index and src may be another kind."""
    xr = values(rng, (4, 3), "int32")
    ir = index_values(rng, (4, 3), 4, "error", "int64")
    got = sk.scatter(xr.numpy(), ir, xr, 0, reduce="sum")  # NumPy x, torch index and src
    assert_same(got, ref_scatter(xr, ir, xr, 0, "sum"), "numpy")
    got = sk.gather(xr, ir.numpy(), 0)  # torch x, NumPy index
    assert_same(got, ref_gather(xr, ir, 0), "torch")


class _DLPackOnly:
    """An object that only speaks DLPack (wraps a torch tensor)."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, *args, **kwargs):
        return self._t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def test_dlpack_only_index_and_src(rng):
    xr = values(rng, (5, 3), "float32")
    ir = index_values(rng, (6, 3), 5, "error", "int64")
    sr = values(rng, (6, 3), "float32")
    got = sk.scatter(xr.numpy(), _DLPackOnly(ir), _DLPackOnly(sr), 0, reduce="sum")
    assert_same(got, ref_scatter(xr, ir, sr, 0, "sum"), "numpy")
    got = sk.gather(xr.numpy(), _DLPackOnly(ir[:, :2].contiguous()), 0)
    assert_same(got, ref_gather(xr, ir[:, :2].contiguous(), 0), "numpy")


def test_readonly_broadcast_input(rng):
    """np.broadcast_to gives a read-only zero-stride view; it is a valid
    input (CONTRACT: any strides, no copies) for x, index and src."""
    xr = values(rng, (5, 1), "float64")
    x = np.broadcast_to(xr.numpy(), (5, 4))
    assert not x.flags.writeable
    idx = np.broadcast_to(np.array([[3], [0], [-1]]), (3, 4))
    src = np.broadcast_to(np.arange(4, dtype=np.float64), (3, 4))
    got = sk.scatter(x, idx, src, 0, reduce="sum")
    exp = ref_scatter(to_torch(x), to_torch(idx), to_torch(src), 0, "sum")
    assert_same(got, exp, "numpy")
    got = sk.gather(x, idx, 0)
    assert_same(got, ref_gather(to_torch(x), to_torch(idx), 0), "numpy")
    got = sk.index_select(x, np.broadcast_to(np.array(2), ()), 0)
    np.testing.assert_array_equal(got, x[2])


def test_scatter_src_larger_than_index_reads_leading_block():
    x = np.zeros((3, 3), np.float32)
    src = np.arange(1, 26, dtype=np.float32).reshape(5, 5)
    idx = np.array([[2, 1], [0, 0]])  # (2, 2): reads src[:2, :2] only
    got = sk.scatter(x, idx, src, 0)
    np.testing.assert_array_equal(got, [[6, 7, 0], [0, 2, 0], [1, 0, 0]])
    got = sk.scatter(x, idx, src, 1, reduce="sum")
    np.testing.assert_array_equal(got, [[0, 2, 1], [6 + 7, 0, 0], [0, 0, 0]])

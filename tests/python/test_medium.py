"""Medium-size cases (tens of thousands to a few hundred thousand elements):
large enough for the parallel paths, for the scratch accumulators to be cut
into several chunks (with chunk boundaries in the middle of rows) and for
the row fast paths, in several layouts; every dtype x reduction x
include_self, checked against the reference and bitwise across 1 and 3
threads."""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, Failures, assert_same, fill_value_for, index_values, make_tensor,
                     reduces_for, ref_gather, ref_index_scatter, ref_index_select, ref_scatter,
                     values)

# (name, x shape, index shape, axis, x layout, index layout, src layout)
SCATTER_CONFIGS = [
    # many targets, few updates: scratch chunks end in the middle of rows
    ("wide-few", (40, 5000), (3, 5000), 0, "contiguous", "contiguous", "contiguous"),
    # BENCH W2-like: a 1-d index expanded over the columns (zero stride)
    ("expanded-index", (37, 64), (1200, 64), 0, "contiguous", "expanded", "contiguous"),
    # last axis, transposed x and strided src
    ("last-axis", (64, 500), (64, 900), 1, "transposed", "contiguous", "strided"),
    # 3-d, middle axis, strided x, transposed index
    ("3d-middle", (20, 30, 40), (20, 70, 40), -2, "strided", "transposed", "contiguous"),
]


def _threads(fn):
    before = sk.get_num_threads()
    try:
        sk.set_num_threads(1)
        a = fn()
        sk.set_num_threads(3)
        b = fn()
    finally:
        sk.set_num_threads(before)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_medium(dtype, rng):
    f = Failures()
    for name, xs, ishape, axis, xl, il, sl in SCATTER_CONFIGS:
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                if reduce is None and not include_self:
                    continue  # include_self does not matter for assign
                mode = ("error", "clip", "drop")[int(rng.integers(3))]

                def run():
                    flavor = "prod" if reduce == "prod" else "general"
                    n = xs[axis]
                    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), xs, xl, "torch",
                                        rng)
                    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, "int64"),
                                          ishape, il, "torch", rng)
                    src, sr = make_tensor(lambda s: values(rng, s, dtype, flavor), ishape, sl,
                                          "torch", rng)
                    a, b = _threads(lambda: sk.scatter(x, idx, src, axis, reduce=reduce,
                                                       include_self=include_self, mode=mode))
                    assert_same(b, a, "torch")
                    assert_same(a, ref_scatter(xr, ir, sr, axis, reduce, include_self, mode))
                f.run(f"{name} reduce={reduce} include_self={include_self} mode={mode}", run)
    f.check()


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "float16", "bfloat16", "float32",
                                   "float64"])
def test_scatter_medium_in_place_numpy_negative(dtype, rng):
    """In place on a NumPy array with negative strides, medium size."""
    if dtype == "bfloat16":
        kind, layout = "torch", "transposed"
    else:
        kind, layout = "numpy", "negative"
    f = Failures()
    for reduce in reduces_for(dtype):
        def run():
            flavor = "prod" if reduce == "prod" else "general"
            x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), (300, 400), layout,
                                kind, rng)
            ir = index_values(rng, (900, 400), 300, "error", "int32")
            sr = values(rng, (900, 400), dtype, flavor)
            i = ir.numpy() if kind == "numpy" else ir
            s = sr.numpy() if kind == "numpy" else sr
            res = sk.scatter(x, i, s, 0, reduce=reduce, include_self=False, out=x)
            assert res is x
            assert_same(x, ref_scatter(xr, ir, sr, 0, reduce, False), kind)
        f.run(f"reduce={reduce}", run)
    f.check()


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_scatter_medium(dtype, rng):
    f = Failures()
    configs = [((800, 64), 1500, 0, "contiguous"), ((64, 1500), 800, 1, "transposed"),
               ((30, 200, 8), 600, 1, "strided"), ((100000,), 3000, 0, "contiguous")]
    for xs, L, axis, layout in configs:
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                if reduce is None and not include_self:
                    continue  # include_self does not matter for assign

                def run():
                    flavor = "prod" if reduce == "prod" else "general"
                    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), xs, layout,
                                        "torch", rng)
                    ir = index_values(rng, (L,), xs[axis], "error", "int64")
                    ushape = list(xs)
                    ushape[axis] = L
                    u, ur = make_tensor(lambda s: values(rng, s, dtype, flavor), ushape, layout,
                                        "torch", rng)
                    a, b = _threads(lambda: sk.index_scatter(x, ir, u, axis, reduce=reduce,
                                                             include_self=include_self))
                    assert_same(b, a, "torch")
                    assert_same(a, ref_index_scatter(xr, ir, ur, axis, reduce, include_self))
                f.run(f"x{xs} L={L} axis={axis} {layout} reduce={reduce} "
                      f"include_self={include_self}", run)
    f.check()


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_index_select_medium(dtype, rng):
    f = Failures()
    gconfigs = [((300, 400), (500, 400), 0, "contiguous", "expanded"),
                ((300, 400), (300, 700), 1, "transposed", "contiguous"),
                ((50, 60, 70), (50, 60, 90), -1, "strided", "transposed")]
    for xs, ishape, axis, xl, il in gconfigs:
        for mode in ("error", "clip", "fill"):
            def run():
                x, xr = make_tensor(lambda s: values(rng, s, dtype), xs, xl, "torch", rng)
                idx, ir = make_tensor(lambda s: index_values(rng, s, xs[axis], mode, "int32"),
                                      ishape, il, "torch", rng)
                fv = fill_value_for(dtype)
                a, b = _threads(lambda: sk.gather(x, idx, axis, mode=mode, fill_value=fv))
                assert_same(b, a, "torch")
                assert_same(a, ref_gather(xr, ir, axis, mode, fv))
            f.run(f"gather x{xs} index{ishape} axis={axis} {mode}", run)
    sconfigs = [((2000, 64), (5000,), 0, "contiguous"), ((64, 2000), (30, 100), 1, "transposed"),
                ((100000,), (70000,), 0, "strided"), ((40, 50, 60), (80,), 1, "contiguous")]
    for xs, ishape, axis, xl in sconfigs:
        for mode in ("error", "clip", "fill"):
            def run():
                x, xr = make_tensor(lambda s: values(rng, s, dtype), xs, xl, "torch", rng)
                ir = index_values(rng, ishape, xs[axis], mode, "int64")
                fv = fill_value_for(dtype)
                a, b = _threads(lambda: sk.index_select(x, ir, axis, mode=mode, fill_value=fv))
                assert_same(b, a, "torch")
                assert_same(a, ref_index_select(xr, ir, axis, mode, fv))
            f.run(f"index_select x{xs} index{ishape} axis={axis} {mode}", run)
    f.check()

"""scatter(x, index, src, axis, *, reduce=None, include_self=True, mode="error", out=None)

Reference: torch.scatter_reduce for the reductions (float16/bfloat16 computed
in float32 and rounded once), plain NumPy for assign (deterministic last-wins)
and for integer reductions (well-defined wrap-around) -- see helpers.py.
"""
import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import (DTYPES, FLOAT_DTYPES, INDEX_DTYPES, INT_DTYPES, LOW_FLOAT_DTYPES,
                     SCATTER_MODES, TORCH_DTYPE, Failures, assert_close, assert_same,
                     index_values, kinds_for, layouts_for, make_tensor, reduces_for,
                     ref_scatter, to_kind, to_torch, values)

X_SHAPE = (4, 5, 3)
DTYPE_KIND = [(d, k) for d in DTYPES for k in kinds_for(d)]


def _case(rng, dtype, kind, layouts, axis, reduce, include_self, index_dtype, mode,
          bigger_src, x_shape=X_SHAPE):
    """One random scatter case; raises AssertionError on a mismatch."""
    xl, il, sl = layouts
    nd = len(x_shape)
    ax = axis % nd
    n = x_shape[ax]
    idx_shape = [int(rng.integers(1, s + 1)) for s in x_shape]
    idx_shape[ax] = int(rng.integers(1, 8))  # may exceed n: duplicates
    flavor = "prod" if reduce == "prod" else "general"
    x, xr = make_tensor(lambda s: values(rng, s, dtype, flavor), x_shape, xl, kind, rng)
    idx, ir = make_tensor(lambda s: index_values(rng, s, n, mode, index_dtype), idx_shape,
                          il, kind, rng)
    src_shape = [s + (int(rng.integers(0, 3)) if bigger_src else 0) for s in idx_shape]
    src, sr = make_tensor(lambda s: values(rng, s, dtype, flavor), src_shape, sl, kind, rng)
    got = sk.scatter(x, idx, src, axis, reduce=reduce, include_self=include_self, mode=mode)
    exp = ref_scatter(xr, ir, sr, axis, reduce, include_self, mode)
    assert_same(got, exp, kind)
    assert_same(x, xr)  # inputs are not modified
    assert_same(src, sr)


@pytest.mark.parametrize("dtype,kind", DTYPE_KIND)
def test_scatter_matrix(dtype, kind, rng):
    """dtype x kind (parametrized) x layout x reduce x include_self x index
    dtype x mode (looped), random axis (negative too), duplicates."""
    f = Failures()
    for layout in layouts_for(kind):
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                for index_dtype in INDEX_DTYPES:
                    for mode in SCATTER_MODES:
                        axis = int(rng.choice([0, 1, 2, -1, -2, -3]))
                        bigger = bool(rng.random() < 0.5)
                        desc = (f"{layout} axis={axis} reduce={reduce} include_self={include_self} "
                                f"index={index_dtype} mode={mode} bigger_src={bigger}")
                        f.run(desc, lambda: _case(rng, dtype, kind, (layout,) * 3, axis, reduce,
                                                  include_self, index_dtype, mode, bigger))
    f.check()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_scatter_mixed_layouts(kind, rng):
    """x, index and src each in a different layout."""
    f = Failures()
    lays = layouts_for(kind)
    for dtype in ["float32", "int16", "bool", "float16"]:
        for _ in range(40):
            layouts = tuple(str(rng.choice(lays)) for _ in range(3))
            reds = reduces_for(dtype)
            reduce = reds[int(rng.integers(len(reds)))]
            include_self = bool(rng.random() < 0.5)
            axis = int(rng.integers(-3, 3))
            mode = str(rng.choice(SCATTER_MODES))
            idt = str(rng.choice(INDEX_DTYPES))
            desc = f"{dtype} {layouts} axis={axis} reduce={reduce} self={include_self} {mode} {idt}"
            f.run(desc, lambda: _case(rng, dtype, kind, layouts, axis, reduce, include_self, idt,
                                      mode, True))
    f.check()


def _loop_assign(x, idx, src, axis):
    # Plain Python loops: CONTRACT says the update that comes LAST in row-major
    # order of the index wins; torch.scatter leaves duplicates unspecified.
    out = x.copy()
    for p in np.ndindex(*idx.shape):
        i = int(idx[p])
        n = x.shape[axis]
        if i < 0:
            i += n
        t = list(p)
        t[axis] = i
        out[tuple(t)] = src[p]
    return out


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float32", "float64"])
def test_scatter_assign_duplicates_last_wins(dtype, rng):
    f = Failures()
    for axis in (0, 1, -1):
        for trial in range(4):
            x_shape = (3, 4)
            ax = axis % 2
            idx_shape = [3, 4]
            idx_shape[ax] = 12  # many more updates than slots: many duplicates
            x = values(rng, x_shape, dtype).numpy()
            idx = rng.integers(-x_shape[ax], x_shape[ax], size=idx_shape)
            src = values(rng, idx_shape, dtype).numpy()
            exp = _loop_assign(x, idx, src, ax)

            def run():
                got = sk.scatter(x, idx, src, axis)
                assert_same(got, torch.from_numpy(exp), "numpy")
            f.run(f"axis={axis} trial={trial}", run)
    f.check()


def test_scatter_assign_duplicates_explicit():
    x = np.zeros(5, dtype=np.float32)
    got = sk.scatter(x, np.array([1, 1, 1, 3, 3]), np.array([10, 20, 30, 40, 50], np.float32), 0)
    np.testing.assert_array_equal(got, [0, 30, 0, 50, 0])
    x = torch.zeros(2, 2, dtype=torch.int32)
    idx = torch.tensor([[0, 0], [0, 0], [0, 1]])
    src = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=torch.int32)
    got = sk.scatter(x, idx, src, 0)
    # target (0,0): positions (0,0),(1,0),(2,0) -> 5; (0,1): (0,1),(1,1) -> 4;
    # (1,1): (2,1) -> 6
    assert torch.equal(got, torch.tensor([[5, 4], [0, 6]], dtype=torch.int32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_scalar_src(dtype, rng):
    """A Python number as src is converted to x's dtype."""
    scalars = {"bool": [True, False]}.get(dtype, [3] if dtype in INT_DTYPES else [1.5, 2])
    f = Failures()
    kind = "torch" if dtype == "bfloat16" else "numpy"
    for scalar in scalars:
        for reduce in reduces_for(dtype):
            for include_self in (True, False):
                def run():
                    xr = values(rng, (4, 3), dtype, "prod" if reduce == "prod" else "general")
                    ir = index_values(rng, (6, 3), 4, "error", "int64")
                    got = sk.scatter(to_kind(xr, kind), to_kind(ir, kind), scalar, 0,
                                     reduce=reduce, include_self=include_self)
                    exp = ref_scatter(xr, ir, scalar, 0, reduce, include_self)
                    assert_same(got, exp, kind)
                f.run(f"scalar={scalar!r} reduce={reduce} include_self={include_self}", run)
    f.check()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_scatter_nan_propagates(dtype, rng):
    """amax/amin propagate NaN (from x with include_self, and from src)."""
    nan = float("nan")
    f = Failures()
    for reduce in ("amax", "amin", "sum", "mean", "prod"):
        for include_self in (True, False):
            def run():
                xr = values(rng, (5, 4), dtype)
                xr[0, 0] = nan
                xr[2, 1] = nan
                sr = values(rng, (7, 4), dtype)
                sr[3, 2] = nan
                sr[6, 3] = nan
                ir = index_values(rng, (7, 4), 5, "error", "int32")
                ir[0, 0] = 0  # x's NaN at (0,0) is a touched target
                got = sk.scatter(xr.clone(), ir, sr, 0, reduce=reduce, include_self=include_self)
                exp = ref_scatter(xr, ir, sr, 0, reduce, include_self)
                assert_same(got, exp, "torch")
                # Explicitly: the targets of src's NaNs are NaN
                assert torch.isnan(got[int(ir[3, 2]) % 5, 2])
                assert torch.isnan(got[int(ir[6, 3]) % 5, 3])
                if include_self:
                    assert torch.isnan(got[0, 0])
            f.run(f"reduce={reduce} include_self={include_self}", run)
    f.check()


def test_scatter_nan_amax_explicit():
    nan = float("nan")
    x = np.array([1.0, 2.0, nan], np.float32)
    i = np.array([0, 0, 1, 2])
    s = np.array([nan, 5.0, 1.0, 7.0], np.float32)
    got = sk.scatter(x, i, s, 0, reduce="amax")
    assert np.isnan(got[0]) and got[1] == 2.0 and np.isnan(got[2])
    got = sk.scatter(x, i, s, 0, reduce="amin", include_self=False)
    assert np.isnan(got[0]) and got[1] == 1.0 and got[2] == 7.0


def test_scatter_integer_wraparound():
    """CONTRACT: integer sum/prod wrap like two's complement (torch agrees)."""
    got = sk.scatter(np.zeros(2, np.int8), np.array([0, 0]), np.array([100, 100], np.int8), 0,
                     reduce="sum")
    np.testing.assert_array_equal(got, np.array([-56, 0], np.int8))
    got = sk.scatter(np.array([200, 1], np.uint8), np.array([0]), np.array([100], np.uint8), 0,
                     reduce="sum")
    np.testing.assert_array_equal(got, np.array([44, 1], np.uint8))
    got = sk.scatter(np.array([2**62, 0], np.int64), np.array([0, 0]),
                     np.array([2**62, 1], np.int64), 0, reduce="sum")
    np.testing.assert_array_equal(got, np.array([-2**63 + 1, 0], np.int64))
    got = sk.scatter(np.array([65536, 0], np.int32), np.array([0]), np.array([65536], np.int32),
                     0, reduce="prod")
    np.testing.assert_array_equal(got, np.array([0, 0], np.int32))
    got = sk.scatter(np.array([3, 0], np.int16), np.array([0, 0]),
                     np.array([300, 100], np.int16), 0, reduce="prod")
    np.testing.assert_array_equal(got, np.array([(3 * 300 * 100 + 2**15) % 2**16 - 2**15, 0],
                                                np.int16))
    t = torch.tensor([2**62, 0]).scatter_reduce(0, torch.tensor([0]), torch.tensor([4]), "prod")
    got = sk.scatter(np.array([2**62, 0], np.int64), np.array([0]), np.array([4], np.int64), 0,
                     reduce="prod")
    np.testing.assert_array_equal(got, t.numpy())


def test_scatter_integer_mean_floor():
    """CONTRACT: integer mean rounds toward -inf; torch does the same (floor)."""
    x = np.array([0, 0, 5], np.int32)
    i = np.array([0, 0, 1])
    s = np.array([-3, -4, -5], np.int32)
    got = sk.scatter(x, i, s, 0, reduce="mean")            # (0-3-4)/3, (0-5)/2
    np.testing.assert_array_equal(got, [-3, -3, 5])
    got = sk.scatter(x, i, s, 0, reduce="mean", include_self=False)  # -7/2, -5/1
    np.testing.assert_array_equal(got, [-4, -5, 5])
    tor = torch.from_numpy(x).scatter_reduce(0, torch.from_numpy(i), torch.from_numpy(s), "mean",
                                             include_self=False)
    np.testing.assert_array_equal(got, tor.numpy())
    # The mean of a wrapped sum (torch agrees): (1 + 255 + 255) mod 256 = 255; 255 // 3 = 85.
    got = sk.scatter(np.array([1, 2], np.uint8), np.array([0, 0]), np.array([255, 255], np.uint8),
                     0, reduce="mean")
    np.testing.assert_array_equal(got, np.array([85, 2], np.uint8))
    got = sk.scatter(np.array([0, 2], np.int8), np.array([0, 0]), np.array([100, 100], np.int8),
                     0, reduce="mean")  # wrapped sum -56, floor(-56 / 3) = -19
    np.testing.assert_array_equal(got, np.array([-19, 2], np.int8))


@pytest.mark.parametrize("dtype", LOW_FLOAT_DTYPES)
def test_scatter_low_precision_rounds_once(dtype):
    """float16/bfloat16 reduce in float32 and round once: 2048 + 1 + 1 is
    2050 (float32 then round), not 2048 (rounding after every add)."""
    big = 2048.0 if dtype == "float16" else 256.0
    td = TORCH_DTYPE[dtype]
    x = torch.zeros(2, dtype=td)
    i = torch.tensor([0, 0, 0])
    s = torch.tensor([big, 1.0, 1.0], dtype=td)
    got = sk.scatter(x, i, s, 0, reduce="sum")
    assert got[0].item() == big + 2.0, got
    got = sk.scatter(x, i, s, 0, reduce="mean", include_self=False)
    exp = (torch.tensor([big + 2.0], dtype=torch.float32) / 3).to(td)
    assert got[0].view(torch.int16).item() == exp[0].view(torch.int16).item(), (got, exp)
    # sum of many small values: each add alone would round away
    x = torch.tensor([big], dtype=td)
    i = torch.zeros(64, dtype=torch.int64)
    s = torch.full((64,), 0.5, dtype=td)
    got = sk.scatter(x, i, s, 0, reduce="sum")
    assert got.item() == big + 32.0, got


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scatter_float_random_values(dtype, rng):
    """Ordinary random floats (sums are not exact): torch.scatter_reduce with
    a tolerance for sum/mean/prod, exact for amax/amin."""
    td = TORCH_DTYPE[dtype]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    f = Failures()
    for reduce in ("sum", "mean", "prod", "amax", "amin"):
        for include_self in (True, False):
            def run():
                xr = torch.from_numpy(rng.standard_normal((30, 8))).to(td)
                sr = torch.from_numpy(rng.standard_normal((200, 8))).to(td)
                ir = torch.from_numpy(rng.integers(0, 30, (200, 8)))
                got = sk.scatter(xr, ir, sr, 0, reduce=reduce, include_self=include_self)
                exp = xr.scatter_reduce(0, ir, sr, reduce, include_self=include_self)
                if reduce in ("amax", "amin"):
                    assert_same(got, exp, "torch")
                else:
                    assert_close(got, exp, rtol=rtol, atol=rtol, kind="torch")
            f.run(f"reduce={reduce} include_self={include_self}", run)
    f.check()


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
def test_scatter_index_dtype_irrelevant(dtype, rng):
    """int32 and int64 indices give the same result."""
    xr = values(rng, (6, 5), dtype)
    sr = values(rng, (9, 5), dtype)
    ir = index_values(rng, (9, 5), 6, "error", "int64")
    for reduce in reduces_for(dtype):
        a = sk.scatter(xr, ir, sr, 0, reduce=reduce)
        b = sk.scatter(xr, ir.to(torch.int32), sr, 0, reduce=reduce)
        assert_same(a, to_torch(b))
        assert_same(a, ref_scatter(xr, ir, sr, 0, reduce))


def test_scatter_include_self_untouched_keep_value(rng):
    """include_self=False: untouched targets keep their old value; touched
    ones start from the identity."""
    x = np.full((4,), 10.0, np.float32)
    got = sk.scatter(x, np.array([1, 1]), np.array([2.0, 3.0], np.float32), 0, reduce="prod",
                     include_self=False)
    np.testing.assert_array_equal(got, [10, 6, 10, 10])
    got = sk.scatter(x, np.array([1, 1]), np.array([2.0, 3.0], np.float32), 0, reduce="amax",
                     include_self=False)
    np.testing.assert_array_equal(got, [10, 3, 10, 10])
    got = sk.scatter(x, np.array([2, 2]), np.array([2.0, 3.0], np.float32), 0, reduce="mean",
                     include_self=False)
    np.testing.assert_array_equal(got, [10, 10, 2.5, 10])
    got = sk.scatter(x, np.array([2, 2]), np.array([2.0, 3.0], np.float32), 0, reduce="mean",
                     include_self=True)
    np.testing.assert_array_equal(got, [10, 10, 5.0, 10])


@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_modes_explicit(mode):
    x = np.zeros(4, np.int64)
    idx = np.array([-1, -4, -5, 4, 9, 2])
    src = np.array([1, 2, 3, 4, 5, 6], np.int64)
    got = sk.scatter(x, idx, src, 0, reduce="sum", mode=mode)
    if mode == "clip":  # -1 -> 3, -4 -> 0, -5 -> 0 (clamped), 4 -> 3, 9 -> 3
        np.testing.assert_array_equal(got, [2 + 3, 0, 6, 1 + 4 + 5])
    else:  # -5, 4, 9 are dropped
        np.testing.assert_array_equal(got, [2, 0, 6, 1])


def test_scatter_zero_size(rng):
    f = Failures()
    cases = [  # (x shape, index shape, axis)
        ((3, 0, 2), (2, 0, 2), 0),
        ((3, 0, 2), (3, 0, 1), 2),
        ((0, 4), (0, 4), 0),
        ((3, 4), (0, 4), 0),
        ((3, 4), (3, 0), 1),
        ((3, 4), (0, 0), 1),
        ((5,), (0,), 0),
        ((0,), (0,), 0),
    ]
    for dtype in ["float32", "bfloat16", "int8", "bool"]:
        for xs, ishape, axis in cases:
            for reduce in reduces_for(dtype):
                def run():
                    xr = values(rng, xs, dtype)
                    ir = index_values(rng, ishape, xs[axis], "error", "int64")
                    sr = values(rng, ishape, dtype)
                    got = sk.scatter(xr, ir, sr, axis, reduce=reduce)
                    assert_same(got, xr, "torch")
                f.run(f"{dtype} x{xs} index{ishape} axis={axis} reduce={reduce}", run)
    f.check()


def test_scatter_zero_d():
    """0-d x/index/src: CONTRACT says 0-d tensors work wherever the shapes allow.
    For scatter the only axis a 0-d tensor could name is 0/-1 (torch's rule:
    a 0-d tensor acts as shape (1,)); NumPy would refuse the axis. Either
    behaviour is a reasonable reading, so accept torch's result or a
    ValueError -- but nothing else."""
    x = torch.tensor(5.0)
    for axis in (0, -1):
        try:
            got = sk.scatter(x, torch.tensor(0), torch.tensor(3.0), axis)
        except ValueError:
            continue
        assert_same(got, torch.tensor(3.0), "torch")
        got = sk.scatter(x, torch.tensor(-1), torch.tensor(3.0), axis, reduce="sum")
        assert_same(got, torch.tensor(8.0), "torch")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_signed_zero_tie_keeps_the_first(dtype, include_self, restore_threads):
    """A tie between +0.0 and -0.0 in amax/amin keeps the value that came
    first (x when include_self, else the first update in row-major order of
    the index), as PyTorch's sequential loop does (docs/CHOICES.md); checked
    on the element paths and on the row paths (blocked, inner axis)."""
    def bits(t):
        return t.view(torch.int16 if t.element_size() == 2 else
                      torch.int32 if t.element_size() == 4 else torch.int64)
    for reduce in ("amax", "amin"):
        for first in (0.0, -0.0):
            for shape, cols in (((4,), 1), ((9000, 32), 32), ((64, 3000), 3000)):
                x = torch.full(shape, first, dtype=dtype)
                n = shape[0]
                i1 = torch.arange(2 * n) % n  # every target twice
                src = torch.full((2 * n,) + shape[1:], -first, dtype=dtype)
                src[n:] = first  # the second update equals the first value again
                idx = i1.view(-1, *([1] * (len(shape) - 1))).expand(src.shape)
                want = x if include_self else -x  # the first value every target sees
                if shape == (4,):  # PyTorch's element loop keeps the first value too
                    assert torch.equal(bits(want), bits(x.clone().scatter_reduce_(
                        0, idx, src, reduce, include_self=include_self)))
                for threads in (1, 2):
                    sk.set_num_threads(threads)
                    got = sk.scatter(x, idx, src, 0, reduce=reduce, include_self=include_self)
                    assert torch.equal(bits(got), bits(want)), (reduce, first, shape, threads)
                    got = sk.index_scatter(x, i1, src, 0, reduce=reduce, include_self=include_self)
                    assert torch.equal(bits(got), bits(want)), (reduce, first, shape, threads)


@pytest.mark.parametrize("dtype,snan", [(torch.float16, 0x7c01), (torch.bfloat16, 0x7f81)])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_untouched_16bit_nan_keeps_its_bits(dtype, snan, reduce):
    """16-bit reductions run in float32; a target that receives no update
    keeps its bits, a signalling NaN too (the float32 trip would quiet it)."""
    one = 0x3c00 if dtype == torch.float16 else 0x3f80
    raw = torch.tensor([snan, one, (snan | 0x8000) - 0x10000], dtype=torch.int16)  # last: -sNaN
    x = raw.view(dtype)
    for include_self in (True, False):
        got = sk.scatter(x, torch.tensor([1]), torch.ones(1, dtype=dtype), 0, reduce=reduce,
                         include_self=include_self)
        assert got.view(torch.int16)[0] == raw[0] and got.view(torch.int16)[2] == raw[2]
        assert float(got[1]) == (2.0 if include_self and reduce == "sum" else 1.0)

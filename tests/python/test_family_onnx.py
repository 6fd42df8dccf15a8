"""gather_nd / scatter_nd / tensor_scatter against onnxruntime (CPU) on random
inputs: one-node ONNX models built with onnx.helper.

- GatherND (opset 13) with batch_dims 0, 1, 2.
- ScatterND (opset 18) with every reduction: "none" with unique index
  tuples only (ONNX leaves duplicates undefined), "add"/"mul"/"max"/"min"
  with duplicate tuples.
- TensorScatter (opset 24), linear and circular.

Gather, GatherElements and ScatterElements (every reduction) are already
compared with onnxruntime in test_onnx_node.py and are not repeated here.

Which (operator, dtype, reduction) combinations the installed onnxruntime
implements is detected by running a tiny model first; unsupported ones are
left out (recorded, not silently skipped), and each test asserts that the
core subset (float32 and int64 for every reduction) did run. onnxruntime
1.31 lacks ScatterND add/mul/max/min for float16 and max/min for bool.
ONNX index inputs are int64 only: onnxruntime gets int64 and scatterkit
gets the same values as int64 and as int32.
"""
import functools

import numpy as np
import pytest

import onnxruntime as ort
from onnx import TensorProto, helper

import scatterkit as sk

ort.set_default_logger_severity(3)  # the support probes fail on purpose

NP_TO_ONNX = {
    np.dtype("bool"): TensorProto.BOOL, np.dtype("uint8"): TensorProto.UINT8,
    np.dtype("int8"): TensorProto.INT8, np.dtype("int16"): TensorProto.INT16,
    np.dtype("int32"): TensorProto.INT32, np.dtype("int64"): TensorProto.INT64,
    np.dtype("float16"): TensorProto.FLOAT16, np.dtype("float32"): TensorProto.FLOAT,
    np.dtype("float64"): TensorProto.DOUBLE,
}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
CORE = {"float32", "int64"}
REDUCTION = {"none": None, "add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


def _session(op, attrs, inputs, opset):
    """inputs: list of (name, array or None for an omitted optional input)."""
    present = [(n, a) for n, a in inputs if a is not None]
    vi = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], list(a.shape)) for n, a in present]
    names = [n if a is not None else "" for n, a in inputs]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, ["y"], **attrs)
    out_t = NP_TO_ONNX[present[0][1].dtype]
    graph = helper.make_graph([node], "g", vi, [helper.make_tensor_value_info("y", out_t, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])


def ort_run(op, attrs, inputs, opset):
    sess = _session(op, attrs, inputs, opset)
    return sess.run(None, {n: a for n, a in inputs if a is not None})[0]


@functools.lru_cache(maxsize=None)
def ort_supports(op, dtype, reduction=None):
    """Whether onnxruntime runs `op` for this dtype (and reduction)."""
    dt = np.dtype(dtype)
    try:
        if op == "GatherND":
            ort_run(op, {"batch_dims": 0}, [("x", np.zeros((2, 2), dt)),
                                            ("i", np.zeros((1, 1), np.int64))], 13)
        elif op == "ScatterND":
            ort_run(op, {"reduction": reduction}, [("x", np.zeros((2, 2), dt)),
                                                   ("i", np.zeros((1, 1), np.int64)),
                                                   ("u", np.zeros((1, 2), dt))], 18)
        elif op == "TensorScatter":
            ort_run(op, {"axis": -2, "mode": reduction},
                    [("c", np.zeros((1, 3, 2), dt)), ("u", np.zeros((1, 1, 2), dt)),
                     ("w", np.zeros(1, np.int64))], 24)
        else:
            raise AssertionError(op)
    except Exception:  # noqa: BLE001 - any failure means "not implemented here"
        return False
    return True


def _data(rng, shape, dtype, flavor="general"):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        if flavor == "prod":
            return rng.choice([-2.0, -1.5, -1.0, -0.5, 0.5, 0.75, 1.0, 1.5, 2.0],
                              size=shape).astype(dt)
        return (rng.integers(-64, 65, size=shape) / 8.0).astype(dt)  # exact sums
    info = np.iinfo(dt)
    lo, hi = max(int(info.min), -40), min(int(info.max), 40)
    if flavor == "prod":
        lo, hi = max(int(info.min), -3), min(int(info.max), 3)
    return rng.integers(lo, hi + 1, size=shape).astype(dt)


def _tuples(rng, mshape, sizes, unique):
    """index of shape mshape + (k,) with in-range components (negative
    forms too); unique=True: no two tuples equal."""
    k = len(sizes)
    m = int(np.prod(mshape)) if mshape else 1
    cells = int(np.prod(sizes)) if sizes else 1
    if unique:
        assert m <= cells
        flat = rng.permutation(cells)[:m]
    else:
        flat = rng.integers(0, max(cells, 1), m)
    comps = np.stack(np.unravel_index(flat, sizes), -1) if k else np.zeros((m, 0), np.int64)
    neg = rng.random(comps.shape) < 0.3
    comps = np.where(neg, comps - np.array(sizes, dtype=np.int64), comps)
    return comps.reshape(tuple(mshape) + (k,)).astype(np.int64)


def _assert_equal(got, exp, ctx):
    assert isinstance(got, np.ndarray)
    assert got.dtype == exp.dtype and got.shape == exp.shape, (ctx, got.shape, exp.shape)
    assert np.array_equal(got, exp, equal_nan=got.dtype.kind == "f"), (ctx, got, exp)


# --------------------------------------------------------------------------
def test_gather_nd_vs_onnxruntime():
    rng = np.random.default_rng(101)
    ran, unsupported = set(), []
    for dtype in DTYPES:
        if not ort_supports("GatherND", dtype):
            unsupported.append(dtype)
            continue
        for trial in range(12):
            b = trial % 3
            k = int(rng.integers(1, 3))
            r = int(rng.integers(0, 2))
            x_shape = tuple(int(s) for s in rng.integers(1, 4, b + k + r))
            mshape = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(0, 2))))
            x = _data(rng, x_shape, dtype)
            bshape = x_shape[:b]
            idx = _tuples(rng, bshape + mshape, list(x_shape[b:b + k]), False)
            exp = ort_run("GatherND", {"batch_dims": b}, [("x", x), ("i", idx)], 13)
            for idt in (np.int64, np.int32):
                i = idx.astype(idt)
                got = sk.gather_nd(x, i, batch_dims=b)
                _assert_equal(got, exp, (dtype, x_shape, b, idx.tolist()))
            ran.add(dtype)
    assert CORE <= ran, f"onnxruntime GatherND ran for {sorted(ran)} only; " \
                        f"unsupported: {unsupported}"


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd_vs_onnxruntime(reduction):
    rng = np.random.default_rng(sum(map(ord, reduction)))
    ran, unsupported = set(), []
    for dtype in DTYPES:
        if dtype == "bool" and reduction in ("add", "mul"):
            continue  # scatterkit: bool supports assign/amax/amin only
        if not ort_supports("ScatterND", dtype, reduction):
            unsupported.append(dtype)
            continue
        flavor = "prod" if reduction == "mul" else "general"
        for trial in range(10):
            x_shape = tuple(int(s) for s in rng.integers(2, 5, int(rng.integers(1, 4))))
            k = int(rng.integers(1, len(x_shape) + 1))
            cells = int(np.prod(x_shape[:k]))
            if reduction == "none":
                m = int(rng.integers(1, cells + 1))
                idx = _tuples(rng, (m,), list(x_shape[:k]), True)
            else:
                m = int(rng.integers(1, 2 * cells + 2))  # duplicates
                mshape = (m,) if rng.random() < 0.5 else (1, m)
                idx = _tuples(rng, mshape, list(x_shape[:k]), False)
            x = _data(rng, x_shape, dtype, flavor)
            upd = _data(rng, idx.shape[:-1] + x_shape[k:], dtype, flavor)
            exp = ort_run("ScatterND", {"reduction": reduction},
                          [("x", x), ("i", idx), ("u", upd)], 18)
            for idt in (np.int64, np.int32):
                i = idx.astype(idt)
                got = sk.scatter_nd(x, i, upd, reduce=REDUCTION[reduction])
                _assert_equal(got, exp, (dtype, reduction, x_shape, idx.tolist()))
            ran.add(dtype)
    # onnxruntime 1.31 implements every reduction for at least float32 and
    # int64; anything less means the comparison did not happen
    assert CORE <= ran, (f"onnxruntime ScatterND reduction={reduction} ran for {sorted(ran)} "
                         f"only; unsupported: {unsupported}")


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter_vs_onnxruntime(mode):
    rng = np.random.default_rng(7 + len(mode))
    ran, unsupported = set(), []
    for dtype in DTYPES:
        if not ort_supports("TensorScatter", dtype, mode):
            unsupported.append(dtype)
            continue
        for trial in range(8):
            nd = int(rng.integers(2, 5))
            cshape = tuple(int(s) for s in rng.integers(1, 6, nd))
            axis = int(rng.integers(1, nd))
            axis = axis - nd if rng.random() < 0.5 else axis
            ax = axis % nd
            n = cshape[ax]
            L = int(rng.integers(0, n + 1))  # ONNX: update no longer than the cache
            ushape = cshape[:ax] + (L,) + cshape[ax + 1:]
            hi = n - L if mode == "linear" else n - 1
            w = rng.integers(0, hi + 1, cshape[0]).astype(np.int64)
            c = _data(rng, cshape, dtype)
            u = _data(rng, ushape, dtype)
            for wo, wis in ((w, (w, w.astype(np.int32))), (None, (None,))):
                exp = ort_run("TensorScatter", {"axis": axis, "mode": mode},
                              [("c", c), ("u", u), ("w", wo)], 24)
                for wi in wis:
                    got = sk.tensor_scatter(c, u, wi, axis=axis, mode=mode)
                    _assert_equal(got, exp, (dtype, mode, cshape, axis, L, wi))
            ran.add(dtype)
    assert CORE <= ran, (f"onnxruntime TensorScatter mode={mode} ran for {sorted(ran)} only; "
                         f"unsupported: {unsupported}")


def test_onnxruntime_support_report():
    """Records (and checks) what the installed onnxruntime implements, so a
    narrower onnxruntime shows up here rather than as quietly thinner tests."""
    table = {("GatherND", d, None): ort_supports("GatherND", d) for d in DTYPES}
    for red in REDUCTION:
        for d in DTYPES:
            table[("ScatterND", d, red)] = ort_supports("ScatterND", d, red)
    for mode in ("linear", "circular"):
        for d in DTYPES:
            table[("TensorScatter", d, mode)] = ort_supports("TensorScatter", d, mode)
    missing_core = [k for k, v in table.items() if k[1] in CORE and not v]
    assert not missing_core, f"onnxruntime {ort.__version__} lacks {missing_core}"

"""ONNX conformance.

1. The ONNX backend node tests in <repo>/../shared/conformance/onnx-node (or
   $SCATTERKIT_ONNX_NODE_DIR): for each of the 29 folders, read the model's
   op and attributes, run the matching scatterkit call and compare EXACTLY.
   An operator whose scatterkit function does not exist yet FAILS (it is part
   of the contract; it must not be skipped).
2. Random inputs against onnxruntime (CPU) for ScatterElements (each
   reduction), GatherElements and Gather.
"""
import os
from pathlib import Path

import numpy as np
import pytest

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import scatterkit as sk

EXPECTED_COUNT = 29


def _node_dir():
    env = os.environ.get("SCATTERKIT_ONNX_NODE_DIR")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    return repo.parent / "shared" / "conformance" / "onnx-node"


NODE_DIR = _node_dir()
FOLDERS = sorted(p.name for p in NODE_DIR.glob("test_*") if p.is_dir()) if NODE_DIR.is_dir() else []

REDUCTION = {"none": None, "add": "sum", "mul": "prod", "max": "amax", "min": "amin"}


def test_onnx_node_dir_found():
    assert NODE_DIR.is_dir(), (f"ONNX node tests not found at {NODE_DIR}; set "
                               "SCATTERKIT_ONNX_NODE_DIR")
    assert len(FOLDERS) == EXPECTED_COUNT, FOLDERS


def _read_tensor(path):
    t = TensorProto()
    t.ParseFromString(path.read_bytes())
    return numpy_helper.to_array(t)


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _fn(name):
    f = getattr(sk, name, None)
    if f is None:
        pytest.fail(f"scatterkit.{name} does not exist (SPEC section 2 requires it)")
    return f


def _run_node(op, attrs, inputs):
    if op == "Gather":
        return _fn("index_select")(inputs[0], inputs[1], attrs.get("axis", 0))
    if op == "GatherElements":
        return _fn("gather")(inputs[0], inputs[1], attrs.get("axis", 0))
    if op in ("Scatter", "ScatterElements"):
        red = attrs.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        return _fn("scatter")(inputs[0], inputs[1], inputs[2], attrs.get("axis", 0),
                              reduce=REDUCTION[red])
    if op == "GatherND":
        return _fn("gather_nd")(inputs[0], inputs[1], batch_dims=attrs.get("batch_dims", 0))
    if op == "ScatterND":
        red = attrs.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        return _fn("scatter_nd")(inputs[0], inputs[1], inputs[2], reduce=REDUCTION[red])
    if op == "TensorScatter":
        mode = attrs.get("mode", b"linear")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        wi = inputs[2] if len(inputs) > 2 else None
        return _fn("tensor_scatter")(inputs[0], inputs[1], wi, axis=attrs.get("axis", -2),
                                     mode=mode)
    raise AssertionError(f"unexpected op {op}")


@pytest.mark.parametrize("folder", FOLDERS or ["<onnx-node directory missing>"])
def test_onnx_node(folder):
    d = NODE_DIR / folder
    assert d.is_dir(), f"missing {d}"
    model = onnx.load(str(d / "model.onnx"))
    assert len(model.graph.node) == 1
    node = model.graph.node[0]
    attrs = _attrs(node)
    data = d / "test_data_set_0"
    inputs = [_read_tensor(p) for p in sorted(data.glob("input_*.pb"))]
    expected = _read_tensor(data / "output_0.pb")
    got = _run_node(node.op_type, attrs, inputs)
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert np.array_equal(got, expected), f"{node.op_type} {attrs}\ngot\n{got}\nexpected\n{expected}"
    # inputs are not modified
    again = [_read_tensor(p) for p in sorted(data.glob("input_*.pb"))]
    for a, b in zip(inputs, again):
        assert np.array_equal(a, b)


# --------------------------------------------------------------------------
# onnxruntime on random inputs
# --------------------------------------------------------------------------
NP_TO_ONNX = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("float64"): TensorProto.DOUBLE,
              np.dtype("int32"): TensorProto.INT32, np.dtype("int64"): TensorProto.INT64}


def _ort_run(op, attrs, named_inputs, opset):
    ins = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], list(a.shape))
           for n, a in named_inputs]
    out_t = NP_TO_ONNX[named_inputs[0][1].dtype]
    node = helper.make_node(op, [n for n, _ in named_inputs], ["y"], **attrs)
    graph = helper.make_graph([node], "g", ins, [helper.make_tensor_value_info("y", out_t, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: a for n, a in named_inputs})[0]


def _data(rng, shape, dtype, prod=False):
    if np.dtype(dtype).kind == "f":
        if prod:
            return rng.choice([-2.0, -1.5, -1.0, -0.5, 0.5, 0.75, 1.0, 1.5, 2.0],
                              size=shape).astype(dtype)
        # multiples of 1/8: sums are exact, so the order of the adds is moot
        return (rng.integers(-64, 65, size=shape) / 8.0).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def _unique_indices(rng, idx_shape, axis, n):
    """Indices with no duplicate target: along `axis`, each line of the index
    is a prefix of a random permutation of [0, n) (ONNX leaves duplicates
    with reduction 'none' undefined). Negative forms too."""
    idx = np.empty(idx_shape, np.int64)
    moved = np.moveaxis(idx, axis, -1)
    for p in np.ndindex(*moved.shape[:-1]):
        perm = rng.permutation(n)[: moved.shape[-1]]
        neg = rng.random(perm.shape) < 0.3
        moved[p] = np.where(neg, perm - n, perm)
    return idx


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_scatter_elements_vs_onnxruntime(reduction, dtype):
    rng = np.random.default_rng(sum(map(ord, reduction + dtype)))
    for trial in range(6):
        nd = int(rng.integers(1, 4))
        x_shape = tuple(int(s) for s in rng.integers(2, 6, nd))
        axis = int(rng.integers(-nd, nd))
        ax = axis % nd
        idx_shape = [int(rng.integers(1, s + 1)) for s in x_shape]
        if reduction != "none":
            idx_shape[ax] = int(rng.integers(1, 9))
            idx = rng.integers(-x_shape[ax], x_shape[ax], size=idx_shape)
        else:
            idx = _unique_indices(rng, idx_shape, ax, x_shape[ax])
        prod = reduction == "mul"
        x = _data(rng, x_shape, dtype, prod)
        upd = _data(rng, idx_shape, dtype, prod)
        for index_dtype in (np.int64, np.int32):
            i = idx.astype(index_dtype)
            exp = _ort_run("ScatterElements", {"axis": axis, "reduction": reduction},
                           [("data", x), ("indices", i), ("updates", upd)], 18)
            got = sk.scatter(x, i, upd, axis, reduce=REDUCTION[reduction])
            assert got.dtype == exp.dtype and got.shape == exp.shape
            assert np.array_equal(got, exp), (trial, x_shape, axis, idx.tolist(), got, exp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_gather_elements_vs_onnxruntime(dtype):
    rng = np.random.default_rng(11)
    for trial in range(10):
        nd = int(rng.integers(1, 4))
        x_shape = tuple(int(s) for s in rng.integers(1, 6, nd))
        axis = int(rng.integers(-nd, nd))
        ax = axis % nd
        idx_shape = [int(rng.integers(1, s + 1)) for s in x_shape]
        idx_shape[ax] = int(rng.integers(1, 7))
        idx = rng.integers(-x_shape[ax], x_shape[ax], size=idx_shape)
        x = _data(rng, x_shape, dtype)
        for index_dtype in (np.int64, np.int32):
            i = idx.astype(index_dtype)
            exp = _ort_run("GatherElements", {"axis": axis}, [("data", x), ("indices", i)], 13)
            got = sk.gather(x, i, axis)
            assert got.dtype == exp.dtype and got.shape == exp.shape
            assert np.array_equal(got, exp), (trial, x_shape, axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_gather_vs_onnxruntime(dtype):
    rng = np.random.default_rng(12)
    for trial in range(10):
        nd = int(rng.integers(1, 4))
        x_shape = tuple(int(s) for s in rng.integers(1, 6, nd))
        axis = int(rng.integers(-nd, nd))
        ax = axis % nd
        idx_shape = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(0, 3))))
        idx = np.asarray(rng.integers(-x_shape[ax], x_shape[ax], size=idx_shape))
        x = _data(rng, x_shape, dtype)
        for index_dtype in (np.int64, np.int32):
            i = idx.astype(index_dtype)
            exp = _ort_run("Gather", {"axis": axis}, [("data", x), ("indices", i)], 13)
            got = sk.index_select(x, i, axis)
            assert got.dtype == exp.dtype and got.shape == exp.shape, (got.shape, exp.shape)
            assert np.array_equal(got, exp), (trial, x_shape, axis, idx_shape)

"""What users pass that is not a plain writable NumPy array or torch tensor
(CONTRACT §2 Tensors, §4): read-only memory as out= or an in-place x
(NumPy writeable=False, a DLPack export flagged read-only, a JAX array) is a
ValueError naming the operator and the argument, with nothing written; a
NumPy masked array is a TypeError (its mask would be ignored); a Python
scalar or list x is read as numpy.asarray reads it."""
import sys
import types

import numpy as np
import pytest

import scatterkit as sk
from helpers import DLPackOnly


def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


# (operator, its arguments after x) for one call of each scatter-type operator
# on x = zeros((3, 4), float32)
SCATTERS = {
    "scatter": (np.array([[0, 2, 1, 0]]), np.ones((1, 4), np.float32), 0),
    "index_scatter": (np.array([2, 0]), np.ones((2, 4), np.float32), 0),
    "scatter_nd": (np.array([[1]]), np.ones((1, 4), np.float32)),
    "slice_scatter": (np.ones((3, 2), np.float32), 1, 0, 4, 2),
    "diagonal_scatter": (np.ones(3, np.float32),),
    "select_scatter": (np.ones(4, np.float32), 0, 1),
    "masked_scatter": (np.array([True, False, True, False]), np.ones(12, np.float32)),
}


def _x():
    return np.zeros((3, 4), np.float32)


@pytest.mark.parametrize("op", sorted(SCATTERS))
@pytest.mark.parametrize("kind", ["numpy", "dlpack"])
def test_read_only_out_is_refused(op, kind):
    out = _read_only(_x())
    target = out if kind == "numpy" else DLPackOnly(out)  # a versioned capsule, READ_ONLY flag
    with pytest.raises(ValueError, match=rf"^{op}: out is read-only"):
        getattr(sk, op)(_x(), *SCATTERS[op], out=target)
    assert (out == 0).all()
    with pytest.raises(ValueError, match=rf"^{op}: out is read-only"):  # in place
        getattr(sk, op)(out, *SCATTERS[op], out=target)
    assert (out == 0).all()


def test_read_only_gradient_buffer_is_refused():
    x, index, src = np.zeros(3), np.array([0, 2]), np.ones(2)
    grad_x = _read_only(np.zeros(3))
    with pytest.raises(ValueError, match="^scatter_backward: grad_x is read-only"):
        sk.scatter_backward(np.ones(3), x, index, src, 0, reduce="sum", grad_x=grad_x)
    assert (grad_x == 0).all()


def test_read_only_input_is_read():
    got = sk.scatter(_read_only(_x()), *SCATTERS["scatter"])
    assert got.flags.writeable and got[:, 0].tolist() == [1.0, 0.0, 0.0]


def test_jax_array_as_out_is_refused():
    jnp = pytest.importorskip("jax.numpy")
    out = jnp.zeros((3, 4), jnp.float32)
    for op in ("scatter", "masked_scatter"):
        with pytest.raises(ValueError, match=rf"^{op}: out is a JAX array, which is immutable"):
            getattr(sk, op)(_x(), *SCATTERS[op], out=out)
        with pytest.raises(ValueError, match=rf"^{op}: out is a JAX array"):
            getattr(sk, op)(out, *SCATTERS[op], out=out)
    assert not np.asarray(out).any()
    # read, a JAX array is an input like any DLPack producer
    got = sk.scatter(out, *SCATTERS["scatter"])
    assert isinstance(got, np.ndarray) and got[0, 0] == 1.0


class _FakeJaxArray:
    """Stands for a jax.Array where jax is not installed: a writable NumPy
    buffer behind DLPack, which only its type marks as immutable."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_jax_arrays_are_recognised_by_type(monkeypatch):
    fake = types.ModuleType("jax")
    fake.Array = _FakeJaxArray
    monkeypatch.setitem(sys.modules, "jax", fake)
    buf = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match="^scatter: out is a JAX array"):
        sk.scatter(_x(), *SCATTERS["scatter"], out=_FakeJaxArray(buf))
    assert not buf.any()
    sk.scatter(_x(), *SCATTERS["scatter"], out=DLPackOnly(buf))  # another producer: written
    assert buf[0, 0] == 1.0


@pytest.mark.parametrize("arg", ["x", "index", "src", "out"])
def test_masked_arrays_are_refused(arg):
    args = {"x": _x(), "index": np.array([[0, 2, 1, 0]]), "src": np.ones((1, 4), np.float32),
            "out": np.zeros((3, 4), np.float32)}
    before = args["out"].copy()
    args[arg] = np.ma.masked_array(args[arg], mask=np.zeros(np.shape(args[arg]), bool))
    with pytest.raises(TypeError, match=rf"^scatter: {arg} is a numpy.ma.MaskedArray"):
        sk.scatter(args["x"], args["index"], args["src"], 0, out=args["out"])
    np.testing.assert_array_equal(np.asarray(args["out"]), before)


@pytest.mark.parametrize("op", ["gather", "masked_select", "masked_scatter", "tensor_scatter"])
def test_masked_arrays_are_refused_by_every_kind_of_operator(op):
    m = np.ma.masked_array(np.zeros((2, 4, 1), np.float32), mask=False)
    calls = {
        "gather": lambda: sk.gather(m, np.zeros((1, 1, 1), np.int64), 0),
        "masked_select": lambda: sk.masked_select(np.zeros(3), np.ma.masked_array([True] * 3)),
        "masked_scatter": lambda: sk.masked_scatter(np.zeros(2), [True, False], m),
        "tensor_scatter": lambda: sk.tensor_scatter(m, np.zeros((2, 1, 1), np.float32)),
    }
    arg = {"masked_select": "mask", "masked_scatter": "source", "tensor_scatter": "cache"}
    with pytest.raises(TypeError, match=rf"^{op}: {arg.get(op, 'x')} is a numpy.ma.MaskedArray"):
        calls[op]()


# x given as Python data, for every operator: the same result as np.asarray(x)
PY_X = {
    "gather": ([[1, 2], [3, 4]], lambda x: sk.gather(x, [[1, 0], [0, 0]], 1)),
    "index_select": ([[1.5, 2.5], [3.5, 4.5]], lambda x: sk.index_select(x, [1, 1, 0], 0)),
    "gather_nd": ([[1, 2], [3, 4]], lambda x: sk.gather_nd(x, [[1, 0]])),
    "masked_select": ([1, 2, 3], lambda x: sk.masked_select(x, [True, False, True])),
    "scatter": ([0, 0, 0], lambda x: sk.scatter(x, [2, 2], np.array([1, 2]), 0, reduce="sum")),
    "index_scatter": ([[0.0, 0.0]] * 2, lambda x: sk.index_scatter(x, [1], np.ones((1, 2)))),
    "scatter_nd": ([[True, False]], lambda x: sk.scatter_nd(x, [[0, 1]], np.array([True]))),
    "slice_scatter": ((1, 2, 3, 4), lambda x: sk.slice_scatter(x, 9, 0, 1, None, 2)),
    "diagonal_scatter": ([[0, 0], [0, 0]], lambda x: sk.diagonal_scatter(x, np.array([7, 8]))),
    "select_scatter": ([[0, 0], [0, 0]], lambda x: sk.select_scatter(x, np.array([5, 6]), 0, 1)),
    "masked_scatter": ([0, 0, 0], lambda x: sk.masked_scatter(x, [False, True, True],
                                                              np.array([4, 5]))),
    "tensor_scatter": ([[[0.0], [0.0]]], lambda x: sk.tensor_scatter(x, np.ones((1, 1, 1)), [1])),
    "scalar": (2.5, lambda x: sk.scatter(x, 0, 4.0, 0)),
    "bool scalar": (True, lambda x: sk.masked_select(x, True)),
}


@pytest.mark.parametrize("case", sorted(PY_X))
def test_python_data_as_x(case):
    data, call = PY_X[case]
    want = call(np.asarray(data))
    got = call(data)
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_python_data_as_x_values():
    assert sk.scatter([0, 0, 0], [2, 0, 2], np.array([1, 2, 3]), 0, reduce="sum").tolist() == [2, 0, 4]
    assert sk.gather([[1.5, 2.5]], [[1, 1, 0]], 1).tolist() == [[2.5, 2.5, 1.5]]
    assert sk.scatter(2.5, 0, 4.0, 0).tolist() == 4.0


def test_python_data_that_numpy_refuses():
    with pytest.raises(ValueError, match="^gather: x could not be converted to an array"):
        sk.gather([[1, 2], [3]], [[0]], 0)  # ragged
    with pytest.raises(TypeError, match="^gather: .*x"):
        sk.gather(["a", "b"], [0], 0)  # strings: no such dtype
    with pytest.raises(TypeError, match="^scatter: .*x"):
        sk.scatter([1j, 2j], [0], np.array([1j]), 0)  # complex: no such dtype

"""Input kinds at the Python boundary (docs/python.md): Python ints and lists
as index (values beyond int64 are an IndexError, never a wrapped value),
torch tensors with the negative bit set (refused: DLPack cannot express it),
torch out= tensors (autograd's version counter is bumped), NumPy scalars as
src/fill_value (the Python-scalar path), 0-d sources of any DLPack producer
(broadcast), and the gradient buffers of the single-output backwards."""
import re

import numpy as np
import pytest
import torch

import scatterkit as sk
from helpers import NP_DTYPE, DLPackOnly, to_kind


def _kind(a, kind):
    """A NumPy array as `kind` (a copy)."""
    return to_kind(torch.from_numpy(np.array(a)), kind)


BIG = [2**63, 2**64 - 1]


def _op_in(op, msg):
    return re.search(rf"(?<![A-Za-z0-9_]){op}(?![A-Za-z0-9_])", msg) is not None


# ---------------------------------------------------------------------------
# 1. index values in [2**63, 2**64) (and beyond int64 in general)
# ---------------------------------------------------------------------------
def _index_calls(idx):
    """(op, call) for every operator that takes an index list."""
    x = np.arange(5.0)
    return [
        ("index_select", lambda: sk.index_select(x, idx, 0)),
        ("gather", lambda: sk.gather(x, idx, 0)),
        ("scatter", lambda: sk.scatter(np.zeros(5), idx, 7.0, 0)),
        ("index_scatter", lambda: sk.index_scatter(np.zeros(5), idx, 7.0, 0)),
    ]


@pytest.mark.parametrize("big", BIG + [2**70, -(2**63) - 1])
@pytest.mark.parametrize("where", ["alone", "after_small", "after_negative"])
def test_list_index_beyond_int64(big, where):
    idx = {"alone": [big], "after_small": [1, big], "after_negative": [-1, big]}[where]
    pos = idx.index(big)
    for op, call in _index_calls(idx):
        with pytest.raises(IndexError) as e:
            call()
        msg = str(e.value)
        assert _op_in(op, msg), msg
        assert f"index[{pos}] = {big}" in msg, msg


@pytest.mark.parametrize("big", BIG)
def test_scalar_index_beyond_int64(big):
    with pytest.raises(IndexError) as e:
        sk.index_select(np.arange(5.0), big, 0)
    assert _op_in("index_select", str(e.value)) and f"index = {big}" in str(e.value)


def test_nested_list_index_position():
    with pytest.raises(IndexError, match=re.escape("index[1, 0] = 18446744073709551615")):
        sk.gather(np.zeros((2, 2)), [[0, 1], [2**64 - 1, 0]], 1)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_big_index_writes_nothing(kind):
    x = _kind(np.zeros(5), kind)
    with pytest.raises(IndexError):
        sk.scatter(x, [2**64 - 1], 7.0, 0, out=x)
    assert not np.asarray(x).any()


def test_write_indices_beyond_int64():
    cache = np.zeros((1, 4, 2))
    with pytest.raises(IndexError, match=r"tensor_scatter: write_indices\[0\] = 18446744073709551615"):
        sk.tensor_scatter(cache, np.ones((1, 1, 2)), [2**64 - 1])
    assert not cache.any()


def test_list_index_still_converts():
    x = np.arange(5.0)
    assert sk.index_select(x, [4, -1, 0], 0).tolist() == [4.0, 4.0, 0.0]
    assert sk.index_select(x, (np.int64(3), 2**62 - 2**62), 0).tolist() == [3.0, 0.0]
    with pytest.raises(TypeError, match="index must hold integers"):
        sk.index_select(x, [1.5, 2], 0)


# ---------------------------------------------------------------------------
# 2. torch tensors with the negative bit
# ---------------------------------------------------------------------------
def _neg_view(values):
    """A float32 tensor equal to -values with the negative bit set."""
    v = torch.complex(torch.zeros_like(values), values).conj().imag
    assert v.is_neg()
    return v


def _neg_cases():
    b = torch.arange(1.0, 5.0)
    return [
        ("index_select", "x", lambda: sk.index_select(_neg_view(b), [0, 1], 0)),
        ("gather", "x", lambda: sk.gather(_neg_view(b), [0], 0)),
        ("masked_select", "x", lambda: sk.masked_select(_neg_view(b), [True] * 4)),
        ("scatter", "src", lambda: sk.scatter(torch.zeros(4), [0, 1], _neg_view(b[:2]), 0)),
        ("scatter", "x", lambda: sk.scatter(_neg_view(b), [0], 1.0, 0)),
        ("scatter", "out", lambda: sk.scatter(torch.zeros(4), [0], 1.0, 0, out=_neg_view(b))),
        ("slice_scatter", "src", lambda: sk.slice_scatter(torch.zeros(4), _neg_view(b[:2]), 0, 0, 2)),
        ("masked_scatter", "source",
         lambda: sk.masked_scatter(torch.zeros(4), [True] * 4, _neg_view(b))),
        ("gather_backward", "grad_out",
         lambda: sk.gather_backward(_neg_view(b), (4,), [0, 1, 2, 3], 0)),
        ("gather_backward", "grad_x",
         lambda: sk.gather_backward(b, (4,), [0, 1, 2, 3], 0, grad_x=_neg_view(b))),
    ]


@pytest.mark.parametrize("case", range(len(_neg_cases())))
def test_negative_bit_refused(case):
    op, arg, call = _neg_cases()[case]
    with pytest.raises(TypeError) as e:
        call()
    msg = str(e.value)
    assert _op_in(op, msg) and arg in msg and "resolve_neg()" in msg, msg


def test_negative_bit_resolved_works():
    b = torch.arange(1.0, 5.0)
    assert sk.index_select(_neg_view(b).resolve_neg(), [0, 3], 0).tolist() == [-1.0, -4.0]


# ---------------------------------------------------------------------------
# 3. out= torch tensors bump autograd's version counter
# ---------------------------------------------------------------------------
def _out_calls(out):
    x = torch.zeros(3)
    return {
        "scatter": lambda: sk.scatter(x, [0], 5.0, 0, out=out),
        "index_scatter": lambda: sk.index_scatter(x, [0], 5.0, 0, out=out),
        "scatter_nd": lambda: sk.scatter_nd(x, [[0]], 5.0, out=out),
        "slice_scatter": lambda: sk.slice_scatter(x, 5.0, 0, 0, 1, out=out),
        "select_scatter": lambda: sk.select_scatter(x, 5.0, 0, 0, out=out),
        "masked_scatter": lambda: sk.masked_scatter(x, [True, False, False], 5.0, out=out),
    }


@pytest.mark.parametrize("op", sorted(_out_calls(None)))
def test_out_bumps_version(op):
    out = torch.zeros(3)
    before = out._version
    _out_calls(out)[op]()
    assert out._version > before
    assert out[0].item() == 5.0


def test_view_out_bumps_versions():
    out = torch.zeros((3, 3))
    before = out._version
    sk.diagonal_scatter(torch.zeros((3, 3)), torch.ones(3), out=out)
    assert out._version > before
    cache = torch.zeros((1, 4, 2))
    before = cache._version
    sk.tensor_scatter(cache, torch.ones((1, 1, 2)), [1], out=cache)
    assert cache._version > before


def test_inplace_write_detected_by_autograd():
    w = torch.ones(3, requires_grad=True)
    y = w * 1.0
    loss = (y * y).sum()  # saves y for the backward
    with torch.no_grad():  # with grad mode on, out= into y is refused (torch's rule)
        sk.scatter(y, [0], 5.0, 0, out=y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_failed_call_does_not_bump():
    out = torch.zeros(3)
    before = out._version
    with pytest.raises(IndexError):
        sk.scatter(torch.zeros(3), [7], 5.0, 0, out=out)
    assert out._version == before


def test_backward_given_buffers_bump():
    g = torch.ones(3)
    gx = torch.zeros(5)
    before = gx._version
    sk.gather_backward(g, (5,), [0, 1, 2], 0, grad_x=gx)
    assert gx._version > before and gx.tolist() == [1, 1, 1, 0, 0]
    gx, gs = torch.zeros(5), torch.zeros(3)
    vx, vs = gx._version, gs._version
    sk.scatter_backward(torch.ones(5), torch.zeros(5), [0, 1, 2], torch.ones(3), 0,
                        reduce="sum", grad_x=gx, grad_src=gs)
    assert gx._version > vx and gs._version > vs
    gx, gs = torch.zeros(5), torch.zeros(2)
    vx, vs = gx._version, gs._version
    sk.slice_scatter_backward(torch.ones(5), (5,), (2,), 0, 0, 2, grad_x=gx, grad_src=gs)
    assert gx._version > vx and gs._version > vs


# ---------------------------------------------------------------------------
# 4. NumPy scalars follow the Python-scalar path
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("value", [np.int64(300), np.float64("nan"), np.float32("inf"),
                                   np.uint64(2**64 - 1)], ids=repr)
def test_numpy_scalar_out_of_range_refused(kind, value):
    x = _kind(np.zeros(3, np.int8), kind)
    with pytest.raises(ValueError) as e_np:
        sk.scatter(x, [0], value, 0)
    with pytest.raises(ValueError):
        sk.scatter(x, [0], value.item(), 0)  # the Python scalar: the same exception
    assert _op_in("scatter", str(e_np.value)) and "src" in str(e_np.value)
    with pytest.raises(ValueError, match="fill_value"):
        sk.gather(x, [5], 0, mode="fill", fill_value=value)
    assert not np.asarray(x).any()


@pytest.mark.parametrize("value", [np.complex64(1 + 2j), np.complex128(3), np.str_("5")],
                         ids=repr)
def test_numpy_scalar_wrong_type_refused(value):
    x = np.zeros(3, np.int8)
    with pytest.raises(TypeError) as e_py:
        sk.scatter(x, [0], value.item(), 0)
    with pytest.raises(TypeError) as e_np:
        sk.scatter(x, [0], value, 0)
    assert str(e_np.value) == str(e_py.value)
    assert not x.any()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float16", "float64", "bool"])
def test_numpy_scalar_in_range_accepted(dtype):
    x = np.zeros(4, NP_DTYPE[dtype])
    v = np.bool_(True) if dtype == "bool" else np.int16(1)
    assert sk.scatter(x, [2], v, 0).tolist() == sk.scatter(x, [2], v.item(), 0).tolist()
    assert sk.index_scatter(x, [1, 3], np.float32(1), 0).tolist() == \
        sk.index_scatter(x, [1, 3], 1.0, 0).tolist()


def test_numpy_scalar_backward_has_no_gradient():
    gx, gs = sk.scatter_backward(np.ones(5), np.zeros(5), [0, 1], np.float64(2.0), 0)
    assert gs is None and gx.shape == (5,)
    gx, gs = sk.select_scatter_backward(np.ones((3, 2)), (3, 2), np.float64(2.0), 0, 1)
    assert gs is None


# ---------------------------------------------------------------------------
# 5. 0-d sources of any DLPack producer are broadcast
# ---------------------------------------------------------------------------
def _zero_d_sources():
    """(name, make) of float32 0-d sources that are neither NumPy nor torch."""
    srcs = [("dlpack_only", lambda: DLPackOnly(torch.tensor(3.0)))]
    try:
        import jax
        import jax.numpy as jnp

        # On the CPU: where jax has a GPU its arrays start there, and a CUDA
        # source with a CPU x is refused (CONTRACT §6: one device per call).
        cpu = jax.devices("cpu")[0]
        srcs.append(("jax", lambda: jax.device_put(jnp.asarray(3.0, dtype=jnp.float32), cpu)))
    except ImportError:  # jax is optional
        pass
    return srcs


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("name,make", _zero_d_sources(), ids=[n for n, _ in _zero_d_sources()])
def test_zero_d_other_source_broadcasts(name, make, kind):
    x = _kind(np.zeros((2, 3), np.float32), kind)

    def check(res, exp):
        np.testing.assert_array_equal(np.asarray(res), exp)

    e = np.zeros((2, 3))
    e[[0, 1], [0, 1]] = 3.0
    check(sk.scatter(x, _kind(np.array([[0, 1]]), kind), make(), 0), e)
    e = np.zeros((2, 3))
    e[1] = 3.0
    check(sk.index_scatter(x, [1], make(), 0), e)
    check(sk.scatter_nd(x, [[1]], make()), e)
    check(sk.select_scatter(x, make(), 0, 1), e)
    e = np.zeros((2, 3))
    e[0, 0] = e[1, 1] = 3.0
    check(sk.diagonal_scatter(x, make()), e)
    check(sk.masked_scatter(x, _kind(np.eye(2, 3, dtype=bool), kind), make()), e)
    e = np.zeros((2, 3))
    e[:, 1:] = 3.0
    check(sk.slice_scatter(x, make(), 1, 1), e)


def test_zero_d_other_source_backward():
    gx, gs = sk.scatter_backward(np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32),
                                 [[0, 1]], DLPackOnly(torch.tensor(3.0)), 0)
    assert gs.shape == () and float(gs) == 2.0


# ---------------------------------------------------------------------------
# 6. single-output backwards: grad_x=False skips, a wrong grad_x is named
# ---------------------------------------------------------------------------
def _single_backwards(g, grad_x):
    return {
        "gather_backward": lambda: sk.gather_backward(g, (5,), [0, 1, 2], 0, grad_x=grad_x),
        "index_select_backward":
            lambda: sk.index_select_backward(g, (5,), [0, 1, 2], 0, grad_x=grad_x),
        "gather_nd_backward":
            lambda: sk.gather_nd_backward(g, (5,), [[0], [1], [2]], grad_x=grad_x),
        "masked_select_backward":
            lambda: sk.masked_select_backward(g, (5,), [True, True, True, False, False],
                                              grad_x=grad_x),
    }


OPS6 = sorted(_single_backwards(None, None))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("op", OPS6)
def test_single_backward_grad_x_false_skips(op, kind):
    g = _kind(np.ones(3, np.float32), kind)
    assert _single_backwards(g, False)[op]() is None
    res = _single_backwards(g, None)[op]()
    np.testing.assert_array_equal(np.asarray(res), [1, 1, 1, 0, 0])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("op", OPS6)
def test_single_backward_wrong_grad_x_dtype(op, kind):
    g = _kind(np.ones(3, np.float32), kind)
    gx = _kind(np.full(5, 9.0), kind)
    with pytest.raises(TypeError) as e:
        _single_backwards(g, gx)[op]()
    msg = str(e.value)
    assert _op_in(op, msg) and "grad_x must have dtype float32, got float64" in msg, msg
    assert (np.asarray(gx) == 9.0).all()


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("op", OPS6)
@pytest.mark.parametrize("shape", [(4,), (6,), (5, 1), ()])
def test_single_backward_wrong_grad_x_shape(op, kind, shape):
    g = _kind(np.ones(3, np.float32), kind)
    gx = _kind(np.full(shape, 9.0, np.float32), kind)
    with pytest.raises(ValueError) as e:
        _single_backwards(g, gx)[op]()
    msg = str(e.value)
    assert _op_in(op, msg) and "grad_x" in msg and "shape" in msg, msg
    assert (np.asarray(gx) == 9.0).all()


@pytest.mark.parametrize("op", OPS6)
def test_single_backward_given_grad_x_written(op):
    gx = np.full(5, 9.0, np.float32)
    assert _single_backwards(np.ones(3, np.float32), gx)[op]() is gx
    np.testing.assert_array_equal(gx, [1, 1, 1, 0, 0])


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("dtype,value", [("uint8", -1), ("uint8", 256), ("int8", -129),
                                         ("int16", 2**15), ("int32", -2**31 - 1),
                                         ("int64", 2**63)])
def test_python_int_out_of_dtype_range_refused(kind, dtype, value):
    """torch.tensor(-1, dtype=torch.uint8) wraps to 255 where NumPy refuses:
    scatterkit refuses for both kinds, naming the argument."""
    x = _kind(np.zeros(3, NP_DTYPE[dtype]), kind)
    with pytest.raises(ValueError, match="src"):
        sk.scatter(x, [0], value, 0)
    with pytest.raises(ValueError, match="fill_value"):
        sk.gather(x, [5], 0, mode="fill", fill_value=value)
    assert not np.asarray(x).any()
    lo = -1 if dtype != "uint8" else 255  # in range: accepted
    assert int(sk.scatter(x, [1], lo, 0)[1]) == lo


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_float_scalar_too_large_becomes_inf_silently(kind):
    # CONTRACT §4: the library never prints. NumPy's cast of 1e10 to float16 warns
    # (RuntimeWarning, printed or raised); the value becomes inf as with torch.
    import warnings
    mk = (lambda a, dt: np.asarray(a, dtype=dt)) if kind == "numpy" else \
        (lambda a, dt: torch.tensor(a, dtype=getattr(torch, dt)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = sk.scatter(mk([0.0, 0.0], "float16"), mk([0], "int64"), 1e10, 0)
        assert float(r[0]) == float("inf") and float(r[1]) == 0.0
        r = sk.gather(mk([1.0, 2.0], "float32"), mk([5, -1], "int64"), 0, mode="fill",
                      fill_value=-1e300)
        assert float(r[0]) == float("-inf") and float(r[1]) == 2.0
        r = sk.masked_scatter(mk([1.0, 2.0], "float16"), mk([False, True], "bool"), 7e5)
        assert float(r[0]) == 1.0 and float(r[1]) == float("inf")

"""scatterkit.torch_scatter against torch_scatter's documented semantics,
written out as a plain loop (naive_scatter): index broadcasting, dim_size
and its default, out=, empty and zero-size tensors, every reduction, every
dtype torch_scatter supports, the arg outputs, the segment operators with
empty segments. Float sums fold serially in float32 (16-bit types) or the
dtype itself, so the results are compared bit for bit."""
import numpy as np
import pytest
import torch

import scatterkit.torch_scatter as ts

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8,
          torch.int16, torch.int32, torch.int64]
REDUCES = ["sum", "add", "mul", "mean", "min", "max"]


def _acc(dtype):
    """The accumulator: float32 for 16-bit floats, else the dtype itself
    (integers wrap, as torch_scatter's and scatterkit's do)."""
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return np.float32
    return torch.empty(0, dtype=dtype).numpy().dtype.type


def naive_scatter(src, index, dim, size, reduce, out=None):
    """(result, arg) of torch_scatter's scatter, element by element: index
    already of src's shape; with out, out's values take part (arg n where
    out's value stays the winner)."""
    acc, n = _acc(src.dtype), src.shape[dim]
    integer = not src.dtype.is_floating_point
    vals = src.numpy() if integer else src.to(torch.float64).numpy().astype(acc)
    start = 1 if reduce == "mul" else 0
    res = np.full(size, start, dtype=acc) if out is None else out.to(torch.float64).numpy().astype(acc)
    arg, cnt = np.full(size, n, dtype=np.int64), np.zeros(size, dtype=np.int64)
    with np.errstate(over="ignore"):
        _fold(vals, index, dim, reduce, res, arg, cnt, out is None)
    if reduce == "mean":
        res = np.floor_divide(res, np.maximum(cnt, 1)) if integer else \
            (res / np.maximum(cnt, 1)).astype(acc)
    return torch.from_numpy(np.asarray(res).astype(acc)).to(src.dtype), torch.from_numpy(arg)


def _fold(vals, index, dim, reduce, res, arg, cnt, fresh):
    for p in np.ndindex(*vals.shape):
        t = list(p)
        t[dim] = int(index[p])
        t, v = tuple(t), vals[p]
        if reduce in ("sum", "add", "mean"):
            res[t] = res[t] + v
        elif reduce == "mul":
            res[t] = res[t] * v
        elif (cnt[t] == 0 and fresh) or (v > res[t] if reduce == "max" else v < res[t]):
            res[t], arg[t] = v, p[dim]
        cnt[t] += 1


def rand_src(shape, dtype, g, ties=False):
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g, dtype=torch.float64)
        x = x.round() if ties else x
        return x.to(dtype)
    return torch.randint(-9, 10, shape, generator=g).to(dtype)


def broadcast_ref(index, src, dim):
    """torch_scatter's utils.broadcast, written from its documentation."""
    dim = dim % src.dim()
    if index.dim() == 1:
        index = index.reshape((1,) * dim + (-1,))
    index = index.reshape(tuple(index.shape) + (1,) * (src.dim() - index.dim()))
    return index.expand(src.shape)


# (src shape, index shape (None: src's), dim)
CASES = [((7,), None, 0), ((3, 7, 2), (7,), 1), ((3, 7, 2), (3, 7), -2), ((7, 4), (7,), 0),
         ((2, 3, 7), None, -1)]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scatter_every_reduction_and_dtype(reduce, dtype):
    g = torch.Generator().manual_seed(len(reduce) * 31 + DTYPES.index(dtype))
    for shape, ishape, dim in CASES:
        src = rand_src(shape, dtype, g, ties=reduce in ("min", "max"))
        d = dim % len(shape)
        index = torch.randint(0, 5, ishape or shape, generator=g)
        full = broadcast_ref(index, src, dim)
        size = list(shape)
        size[d] = int(index.max()) + 1
        want, arg = naive_scatter(src, full, d, tuple(size), reduce)
        got = ts.scatter(src, index, dim, reduce=reduce)
        assert got.dtype == dtype and got.shape == want.shape
        assert torch.equal(got, want), (shape, dim, got, want)
        if reduce in ("min", "max"):
            vals, a = getattr(ts, f"scatter_{reduce}")(src, index, dim)
            assert torch.equal(vals, want) and torch.equal(a, arg), (a, arg)
        else:
            fn = getattr(ts, f"scatter_{reduce}")
            assert torch.equal(fn(src, index, dim), want)


@pytest.mark.parametrize("reduce", REDUCES)
def test_dim_size_and_empty_targets(reduce):
    src = torch.tensor([[1.0, -2.0, 3.0, 4.0]])
    index = torch.tensor([1, 1, 4, 1])
    got = ts.scatter(src, index, 1, dim_size=7, reduce=reduce)
    want, _ = naive_scatter(src, broadcast_ref(index, src, 1), 1, (1, 7), reduce)
    assert got.shape == (1, 7) and torch.equal(got, want)
    empty = 1.0 if reduce == "mul" else 0.0       # torch_scatter's fill of empty targets
    assert got[0, 0] == empty and got[0, 6] == empty


def test_max_min_arg_outputs():
    src = torch.tensor([[2.0, 7.0, 7.0, -1.0, 5.0], [0.0, 0.0, 3.0, 9.0, 9.0]])
    index = torch.tensor([0, 0, 0, 2, 2])
    vals, arg = ts.scatter_max(src, index, dim=1, dim_size=4)
    assert torch.equal(vals, torch.tensor([[7.0, 0.0, 5.0, 0.0], [3.0, 0.0, 9.0, 0.0]]))
    assert torch.equal(arg, torch.tensor([[1, 5, 4, 5], [2, 5, 3, 5]]))  # first of the tied
    vals, arg = ts.scatter_min(src, index, dim=1)
    assert torch.equal(vals, torch.tensor([[2.0, 0.0, -1.0], [0.0, 0.0, 9.0]]))
    assert torch.equal(arg, torch.tensor([[0, 5, 3], [0, 5, 3]]))
    vals, arg = ts.scatter_max(torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([0, 0, 0]))
    assert vals.isnan().all() and arg.tolist() == [1]          # NaN is the max


def test_empty_and_zero_size_tensors():
    src, index = torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64)
    assert ts.scatter(src, index, 0).shape == (0, 3)
    out = ts.scatter(src, index, 0, dim_size=4, reduce="mean")
    assert out.shape == (4, 3) and not out.any()
    vals, arg = ts.scatter_max(src, index, 0, dim_size=2)
    assert vals.shape == (2, 3) and not vals.any() and (arg == 0).all()
    src = torch.zeros(4, 0)
    # the index broadcast to src's shape is empty: size 0, as torch_scatter
    assert ts.scatter(src, torch.tensor([0, 2, 2, 1]), 0, reduce="max").shape == (0, 0)
    assert ts.scatter(src, torch.tensor([0, 2, 2, 1]), 0, dim_size=3).shape == (3, 0)
    assert ts.segment_csr(torch.zeros(0, 2), torch.tensor([0, 0, 0])).shape == (2, 2)
    assert ts.segment_coo(torch.zeros(0), torch.zeros(0, dtype=torch.int64)).shape == (0,)
    assert ts.gather_csr(torch.zeros(0), torch.tensor([0])).shape == (0,)
    assert ts.segment_csr(torch.ones(2, 3), torch.zeros(2, 0, dtype=torch.int64)).shape == (2, 0)
    assert ts.segment_csr(torch.ones(3), torch.zeros(0, dtype=torch.int64)).shape == (0,)


@pytest.mark.parametrize("reduce", REDUCES)
def test_out_argument(reduce):
    g = torch.Generator().manual_seed(3)
    src, index = rand_src((2, 6), torch.float64, g, ties=True), torch.tensor([0, 2, 0, 2, 2, 1])
    out = rand_src((2, 4), torch.float64, g, ties=True)
    before = out.clone()
    want, arg = naive_scatter(src, broadcast_ref(index, src, 1), 1, (2, 4), reduce, out=before)
    if reduce == "mean":   # torch_scatter: out's value is added, not counted
        cnt = torch.tensor([2.0, 1.0, 3.0, 1.0])
        want = (before + ts.scatter(src, index, 1, dim_size=4)) / cnt
    got = ts.scatter(src, index, 1, out=out, reduce=reduce)
    assert got is out and torch.allclose(out, want, rtol=0, atol=1e-15)
    if reduce in ("min", "max"):
        out = before.clone()
        vals, a = getattr(ts, f"scatter_{reduce}")(src, index, 1, out=out)
        assert vals is out and torch.equal(a, arg)


def naive_segment(src, indptr, reduce):
    """torch_scatter's segment_csr for a 1-d indptr along dim 0, with arg."""
    n, s = src.shape[0], indptr.numel() - 1
    outs, args = [], []
    for i in range(s):
        part = src[int(indptr[i]):int(indptr[i + 1])]
        if part.shape[0] == 0:
            outs.append(torch.zeros(src.shape[1:], dtype=src.dtype))
            args.append(torch.full(src.shape[1:], n))
            continue
        p64 = part.double()
        mean = p64.sum(0) / part.shape[0]
        val = {"sum": p64.sum(0), "mean": mean.floor() if not src.is_floating_point() else mean,
               "max": p64.amax(0), "min": p64.amin(0)}
        outs.append(val[reduce].to(src.dtype))
        if reduce in ("max", "min"):
            args.append(int(indptr[i]) + (p64 == val[reduce]).to(torch.int8).argmax(0))
    return torch.stack(outs), (torch.stack(args) if args else None)


INDPTRS = [[0, 2, 2, 5, 9], [1, 1, 4, 6], [0, 0, 0], [3, 9], [0, 9]]


@pytest.mark.parametrize("reduce", ["sum", "add", "mean", "min", "max"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bfloat16], ids=str)
def test_segment_csr_and_coo(reduce, dtype):
    g = torch.Generator().manual_seed(5)
    src = rand_src((9, 3), dtype, g, ties=True)
    r = "sum" if reduce == "add" else reduce
    for ptr in INDPTRS:
        indptr = torch.tensor(ptr)
        want, warg = naive_segment(src, indptr, r)
        got = ts.segment_csr(src, indptr, reduce=reduce)
        assert torch.equal(got, want), (ptr, got, want)
        if r in ("min", "max"):
            vals, arg = getattr(ts, f"segment_{r}_csr")(src, indptr)
            assert torch.equal(vals, want) and torch.equal(arg, warg), (ptr, arg, warg)
    index = torch.tensor([0, 0, 1, 1, 1, 3, 3, 3, 3])
    want, arg = naive_scatter(src, index[:, None].expand(9, 3), 0, (5, 3), r)
    assert torch.equal(ts.segment_coo(src, index, dim_size=5, reduce=reduce), want)
    if r in ("min", "max"):
        vals, a = getattr(ts, f"segment_{r}_coo")(src, index, dim_size=5)
        assert torch.equal(vals, want) and torch.equal(a, arg)


def test_segment_csr_batched_indptr_and_out():
    g = torch.Generator().manual_seed(9)
    src = torch.randn(2, 6, 3, generator=g, dtype=torch.float64)
    indptr = torch.tensor([[0, 2, 2, 6], [1, 3, 3, 6]])
    got = ts.segment_csr(src, indptr, reduce="sum")
    for b in range(2):
        want, _ = naive_segment(src[b], indptr[b], "sum")
        assert torch.allclose(got[b], want, rtol=0, atol=1e-14)
    out = torch.full((2, 3, 3), 7.0, dtype=torch.float64)
    assert ts.segment_csr(src, indptr, out=out, reduce="max") is out
    assert out[0, 1].eq(0).all() and out[1, 1].eq(0).all()     # empty segments overwritten
    back = ts.gather_csr(got, indptr)
    assert back.shape == (2, 6, 3)     # indptr's last value along dim (6)
    assert torch.equal(back[0, 2:6], got[0, 2].expand(4, 3))
    assert torch.equal(back[1, 0], torch.zeros(3, dtype=torch.float64))  # before indptr[1, 0]


def test_gather_csr_and_coo_invert_the_segment_ops():
    g = torch.Generator().manual_seed(11)
    src = torch.randn(4, 2, generator=g)
    indptr = torch.tensor([0, 3, 3, 4, 6])
    ids = torch.tensor([0, 0, 0, 2, 3, 3])
    assert torch.equal(ts.gather_csr(src, indptr), src[ids])
    assert torch.equal(ts.gather_coo(src, ids), src[ids])
    out = torch.full((6, 2), 5.0)
    assert ts.gather_coo(src, ids, out=out) is out and torch.equal(out, src[ids])
    batched = torch.stack([ids, ids.flip(0).sort().values])
    got = ts.gather_coo(torch.stack([src, 2 * src]), batched)
    assert torch.equal(got[1], 2 * src[batched[1]])


def test_strided_inputs_and_out():
    g = torch.Generator().manual_seed(1)
    src = torch.randn(6, 5, generator=g, dtype=torch.float64).t()    # not contiguous
    index = torch.tensor([0, 2, 1, 2, 0, 3])
    for reduce in REDUCES:
        assert torch.equal(ts.scatter(src, index, 1, reduce=reduce),
                           ts.scatter(src.contiguous(), index, 1, reduce=reduce))
    out = torch.zeros(4, 5, dtype=torch.float64).t()
    assert ts.scatter(src, index, 1, out=out) is out
    assert torch.equal(out, ts.scatter(src.contiguous(), index, 1, dim_size=4))
    vals, arg = ts.scatter_max(src.expand(2, 5, 6), index, -1)
    assert torch.equal(vals[1], ts.scatter_max(src, index)[0]) and arg.shape == (2, 5, 4)


def test_index_dtypes_and_errors():
    src = torch.tensor([1.0, 2.0, 3.0])
    i32 = torch.tensor([0, 1, 0], dtype=torch.int32)
    assert torch.equal(ts.scatter(src, i32), torch.tensor([4.0, 2.0]))
    with pytest.raises(ValueError, match="reduce"):
        ts.scatter(src, i32, reduce="median")
    with pytest.raises(ValueError, match="floating point"):
        ts.scatter_softmax(torch.tensor([1, 2]), torch.tensor([0, 0]))
    with pytest.raises(IndexError):
        ts.scatter(src, torch.tensor([0, 5, 0]), dim_size=3)
    with pytest.raises(ValueError, match="non-decreasing"):
        ts.segment_csr(src, torch.tensor([0, 2, 1]))
    with pytest.raises(IndexError, match="indptr"):
        ts.segment_csr(src, torch.tensor([0, 4]))
    with pytest.raises(ValueError, match="broadcast"):
        ts.scatter(torch.zeros(3, 4), torch.tensor([[0, 1]]), 1)
    with pytest.raises(IndexError, match="dim"):
        ts.scatter(src, i32, dim=1)


@pytest.mark.parametrize("name", ts.__all__)
def test_names_and_docstrings(name):
    fn = getattr(ts, name)
    assert fn.__name__ == name and fn.__doc__ and "torch_scatter" in fn.__doc__


def test_docstring_examples_run():
    import doctest
    from scatterkit.torch_scatter import _composite, _scatter, _segment
    for mod in (_scatter, _segment, _composite):
        res = doctest.testmod(mod, extraglobs={"torch": torch})
        assert res.failed == 0
    assert sum(">>>" in (getattr(ts, n).__doc__ or "") for n in ts.__all__) >= 8

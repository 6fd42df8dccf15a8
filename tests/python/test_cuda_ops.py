"""The data-movement operators on CUDA tensors (torch) against the same calls
on the CPU, bit for bit: every dtype, the index modes and the fill value,
int32 and int64 indices, transposed, sliced and expanded operands, zero-size
tensors, in-place forms. Skipped, with the reason, where the build has no
CUDA or the machine no GPU."""
import pytest

import scatterkit as sk
from helpers_cuda import require_cuda_torch

torch = require_cuda_torch()

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
LAYOUTS = ["contiguous", "transposed", "sliced"]


def bits(t):
    """The bytes of t in row-major order (NaN payloads included)."""
    t = t.detach().cpu().contiguous().reshape(-1)
    return t.view(torch.uint8) if t.element_size() == 1 else t.view(
        {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def assert_bitwise(gpu, cpu):
    assert gpu.device.type == "cuda" and gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
    assert torch.equal(bits(gpu), bits(cpu))


def rand(shape, dtype, gen, layout="contiguous"):
    """Random bits of dtype (bool: 0/1) on the CPU, in a layout."""
    if layout == "transposed":
        return rand(shape[::-1], dtype, gen).transpose(0, 1) if len(shape) == 2 else rand(
            shape, dtype, gen)
    if layout == "sliced":
        wide = list(shape)
        wide[-1] *= 2
        return rand(wide, dtype, gen)[..., ::2]
    n = 1
    for s in shape:
        n *= s
    size = torch.empty((), dtype=dtype).element_size()
    raw = torch.randint(0, 256, (max(n, 1) * size,), dtype=torch.uint8, generator=gen)
    if dtype == torch.bool:
        return (raw[:n] & 1).bool().reshape(shape)
    return raw.view(dtype)[:n].reshape(shape)


def both(fn, *args, **kwargs):
    """fn on the CPU tensors and on their CUDA copies (same strides)."""
    cpu = fn(*args, **kwargs)
    on = [a.cuda() if isinstance(a, torch.Tensor) else a for a in args]
    kw = {k: v.cuda() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    return fn(*on, **kw), cpu


@pytest.fixture
def gen(request):
    g = torch.Generator()
    g.manual_seed(sum(ord(c) for c in request.node.nodeid))
    return g


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mode", ["error", "clip", "fill"])
def test_gather(dtype, layout, mode, gen):
    x = rand((9, 13), dtype, gen, layout)
    lo, hi = (-13, 13) if mode == "error" else (-30, 30)
    index = torch.randint(lo, hi, (9, 7), generator=gen)
    fill = rand((), dtype, gen).item() if dtype != torch.bool else True
    gpu, cpu = both(sk.gather, x, index, 1, mode=mode, fill_value=fill)
    assert_bitwise(gpu, cpu)
    gpu, cpu = both(sk.gather, x, index.int(), 1, mode=mode)
    assert_bitwise(gpu, cpu)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["error", "clip", "fill"])
def test_gather_axes(dtype, mode, gen):
    x = rand((4, 6, 5), dtype, gen)
    lo, hi = (-4, 4) if mode == "error" else (-9, 9)
    index = torch.randint(lo, hi, (4, 3, 5, 2), generator=gen)
    gpu, cpu = both(sk.gather, x, index, (0, 2), mode=mode)
    assert_bitwise(gpu, cpu)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_index_select(dtype, layout, axis, gen):
    x = rand((40, 37), dtype, gen, layout)
    index = torch.randint(-37, 37, (3, 5), generator=gen)
    gpu, cpu = both(sk.index_select, x, index, axis)
    assert_bitwise(gpu, cpu)
    far = torch.randint(-90, 90, (11,), generator=gen)
    for mode in ("clip", "fill"):
        gpu, cpu = both(sk.index_select, x, far, axis, mode=mode, fill_value=1)
        assert_bitwise(gpu, cpu)


def test_index_select_rows_wide(gen):
    """The row scheme with 16-byte vectors and with unaligned rows."""
    for width, dtype in [(32, torch.float32), (33, torch.float32), (7, torch.float64),
                         (1000, torch.uint8), (3, torch.int16)]:
        x = rand((2000, width), dtype, gen)
        index = torch.randint(-2000, 2000, (5000,), generator=gen)
        assert_bitwise(*both(sk.index_select, x, index, 0))
        assert_bitwise(*both(sk.index_select, x[:, 1:], index, 0))  # rows off 16 B


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gather_nd(dtype, batch_dims, gen):
    x = rand((4, 6, 5, 3), dtype, gen)
    index = torch.randint(-4, 4, (4, 7, 2), generator=gen)
    gpu, cpu = both(sk.gather_nd, x, index, batch_dims=batch_dims)
    assert_bitwise(gpu, cpu)
    far = torch.randint(-20, 20, (4, 7, 2), generator=gen)
    for mode in ("clip", "fill"):
        assert_bitwise(*both(sk.gather_nd, x, far, batch_dims=batch_dims, mode=mode))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_view_scatters(dtype, layout, gen):
    x = rand((6, 10), dtype, gen, layout)
    cases = [
        (sk.slice_scatter, rand((6, 5), dtype, gen), dict(axis=1, start=0, stop=None, step=2)),
        (sk.slice_scatter, rand((3, 10), dtype, gen), dict(axis=0, start=None, stop=None,
                                                           step=-2)),
        (sk.slice_scatter, rand((1, 10), dtype, gen), dict(axis=0, start=1, stop=4)),  # broadcast
        (sk.diagonal_scatter, rand((5,), dtype, gen), dict(offset=-1)),
        (sk.select_scatter, rand((10,), dtype, gen), dict(axis=0, index=-2)),
    ]
    for fn, src, kw in cases:
        assert_bitwise(*both(fn, x, src, **kw))
        xc, xg = x.clone(), x.cuda()
        fn(xg, src.cuda(), out=xg, **kw)  # in place
        fn(xc, src, out=xc, **kw)
        assert_bitwise(xg, xc)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_masked(dtype, layout, p, gen):
    x = rand((37, 301), dtype, gen, layout)
    mask = torch.rand((37, 301), generator=gen) < p
    source = rand((37 * 301 + 3,), dtype, gen)
    assert_bitwise(*both(sk.masked_scatter, x, mask, source))
    assert_bitwise(*both(sk.masked_select, x, mask))
    row = torch.rand((301,), generator=gen) < p  # broadcast mask
    assert_bitwise(*both(sk.masked_select, x, row))
    assert_bitwise(*both(sk.masked_scatter, x, row, source))


def test_masked_large(gen):
    """Many tiles of the device scan, in place too."""
    x = rand((3001, 1027), torch.float16, gen)
    mask = torch.rand((3001, 1027), generator=gen) < 0.5
    source = rand((3001 * 1027,), torch.float16, gen)
    assert_bitwise(*both(sk.masked_select, x, mask))
    xg, xc = x.cuda(), x.clone()
    sk.masked_scatter(xg, mask.cuda(), source.cuda(), out=xg)
    sk.masked_scatter(xc, mask, source, out=xc)
    assert_bitwise(xg, xc)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter(dtype, mode, gen):
    cache = rand((3, 8, 5), dtype, gen)
    update = rand((3, 11 if mode == "circular" else 3, 5), dtype, gen)
    wi = torch.randint(0, 20 if mode == "circular" else 6, (3,), generator=gen)
    assert_bitwise(*both(sk.tensor_scatter, cache, update, wi, axis=1, mode=mode))
    assert_bitwise(*both(sk.tensor_scatter, cache, update[:, :3], None, axis=1, mode=mode))


def test_zero_size(gen):
    x = rand((5, 0), torch.float32, gen)
    assert_bitwise(*both(sk.index_select, x, torch.tensor([1, 2]), 0))
    assert_bitwise(*both(sk.index_select, rand((4, 3), torch.float64, gen),
                         torch.zeros(0, dtype=torch.int64), 0))
    assert_bitwise(*both(sk.gather, rand((3, 4), torch.int8, gen),
                         torch.zeros((3, 0), dtype=torch.int64), 1))
    assert_bitwise(*both(sk.masked_select, x, torch.zeros((5, 0), dtype=torch.bool)))


def test_expanded_index(gen):
    x = rand((64, 33), torch.float32, gen)
    index = torch.randint(0, 64, (1, 33), generator=gen).expand(500, 33)
    assert_bitwise(*both(sk.gather, x, index, 0))

"""The standard workloads W1-W13 of docs/BENCHMARKS.md: each maker takes the size divisor
(1, or 8 with --quick) and returns a Case with its inputs built."""
import numpy as np
import torch

from cases import Case, _gen, gather_case, nb, poison, randint, randn
from common import OTHER, REDUCE, MOVE, SK_IMPORT_ERROR, NotImplementedOp, need, sk

def w1(s):
    g = _gen(1)
    R, C = 2048 // s, 4096
    x = randn((R, C), g)
    i = randint(C, (R, C), g)
    xn, in_ = x.numpy(), i.numpy()

    def skc(o):
        f = need("gather")
        return f(x, i, 1) if o is None else f(x, i, 1, out=o)
    return gather_case("W1", "gather axis 1, f32 [%d,%d], idx [%d,%d]" % (R, C, R, C), x,
                       nb(x, i) + nb(x), i.numel(), skc,
                       lambda: torch.gather(x, 1, i), lambda o: torch.gather(x, 1, i, out=o),
                       (R, C), np_=lambda: np.take_along_axis(xn, in_, 1),
                       np_note="take_along_axis (allocates)")


def _msg_inputs(s, dtype=torch.float32):
    g = _gen(2)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    src = randn((N, C), g, dtype)
    i1 = randint(T, (N,), g)
    x = torch.zeros((T, C), dtype=dtype)  # docs/BENCHMARKS.md: scatter(zeros, ...)
    return N, T, C, x, i1, src


def w2(s):
    N, T, C, x, i1, src = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, sn, on = x.numpy(), i1.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("scatter")(x, ie, src, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_add_(0, ie, src)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, sn)
        return on
    return Case("W2", "scatter sum, src f32 [%d,%d], idx [%d] expanded, into [%d,%d]" % (
        N, C, N, T, C), REDUCE, nb(src, i1) + 2 * nb(x), ie.numel(),
        sk=skf, th=thf, np_=npf, prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
        prep_np=poison(o_np), check="close", np_note="add.at, 1-d index")


def w3(s, red):
    N, T, C, x, i1, src = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, sn, on = x.numpy(), i1.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("scatter")(x, ie, src, 0, reduce=red, include_self=False, out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_reduce_(0, ie, src, red, include_self=False)

    def npf():
        np.copyto(on, xn)
        if red == "amax":
            on[in_] = -np.inf
            np.maximum.at(on, in_, sn)
        elif red == "prod":
            on[in_] = 1
            np.multiply.at(on, in_, sn)
        else:
            on[in_] = 0
            np.add.at(on, in_, sn)
            cnt = np.bincount(in_, minlength=on.shape[0])
            m = cnt > 0
            on[m] /= cnt[m, None]
        return on
    return Case("W3-" + red, "scatter %s include_self=False, as W2" % red, REDUCE,
                nb(src, i1) + 2 * nb(x), ie.numel(), sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                check="exact" if red == "amax" else "close",
                np_note="%s.at after setting touched rows to the identity" % (
                    {"amax": "maximum", "prod": "multiply", "mean": "add"}[red]))


def w4(s):
    N, T, C, x, i1, src = _msg_inputs(s, torch.bfloat16)
    ie = i1[:, None].expand(N, C)
    o_sk, o_th = torch.empty_like(x), torch.empty_like(x)

    def skf():
        return need("scatter")(x, ie, src, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.scatter_add_(0, ie, src)

    def ref():  # CONTRACT: accumulate in float32, round once
        return x.float().scatter_add(0, ie, src.float()).to(torch.bfloat16)
    return Case("W4", "W2 in bfloat16", REDUCE, nb(src, i1) + 2 * nb(x), ie.numel(),
                sk=skf, th=thf, prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
                check="close", rtol=1.0 / 64, atol=1e-3, ref=ref,
                np_note="numpy has no bfloat16")


def w5(s):
    g = _gen(5)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    u = randn((N, C), g)
    i = randint(T, (N,), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("index_scatter")(x, i, u, 0, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_add_(0, i, u)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, un)
        return on
    return Case("W5", "index_scatter sum axis 0, u f32 [%d,%d], idx [%d] into [%d,%d]" % (
        N, C, N, T, C), REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
        prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
        check="close",
        np_note="add.at")


def w6(s):
    g = _gen(6)
    R, T, L = 64, 16384 // s, 65536 // s
    x = randn((R, T), g)
    u = randn((R, L), g)
    i = randint(T, (L,), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("index_scatter")(x, i, u, 1, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_add_(1, i, u)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, (slice(None), in_), un)
        return on
    return Case("W6", "index_scatter sum axis 1, x [%d,%d], u [%d,%d], idx [%d]" % (
        R, T, R, L, L), REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
        prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
        check="close",
        np_note="add.at with (:, idx)")


def w7(s):
    g = _gen(7)
    N, C, L = (1 << 20) // s, 32, (1 << 21) // s
    t = randn((N, C), g)
    i = randint(N, (L,), g)
    tn, in_ = t.numpy(), i.numpy()

    def skc(o):
        f = need("index_select")
        return f(t, i, 0) if o is None else f(t, i, 0, out=o)
    return gather_case("W7", "index_select rows, table f32 [%d,%d], idx [%d]" % (N, C, L), t,
                       nb(t, i) + L * C * 4, i.numel(), skc,
                       lambda: torch.index_select(t, 0, i),
                       lambda o: torch.index_select(t, 0, i, out=o), (L, C),
                       np_=lambda: np.take(tn, in_, axis=0), np_note="take (allocates)")


def w8(s):
    g = _gen(8)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    u = randn((N, C), g)
    i = randint(T, (N, 1), g)
    i0 = i[:, 0]
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, in_, un, on = x.numpy(), i0.numpy(), u.numpy(), o_np.numpy()

    def skf():
        return need("scatter_nd")(x, i, u, reduce="sum", out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.index_put_((i0,), u, accumulate=True)

    def npf():
        np.copyto(on, xn)
        np.add.at(on, in_, un)
        return on
    return Case("W8", "scatter_nd sum, x [%d,%d], idx [%d,1], u [%d,%d]" % (T, C, N, N, C),
                REDUCE, nb(u, i) + 2 * nb(x), i.numel(), sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                check="close", np_note="add.at")


def w9(s):
    g = _gen(9)
    R, C = 8192 // s, 4096
    x = randn((R, C), g)
    m = torch.zeros((R, 1), dtype=torch.bool)
    m[torch.randperm(R, generator=g)[: R // 2]] = True   # exactly half the rows
    src = randn((R * C,), g)
    used = int(m.sum()) * C
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, sn, on = x.numpy(), src.numpy(), o_np.numpy()
    mfull = np.ascontiguousarray(np.broadcast_to(m.numpy(), (R, C)))

    def skf():
        return need("masked_scatter")(x, m, src, out=o_sk)

    def thf():
        o_th.copy_(x)
        return o_th.masked_scatter_(m, src)

    def npf():
        np.copyto(on, xn)
        np.place(on, mfull, sn)
        return on
    return Case("W9", "masked_scatter, x f32 [%d,%d], mask [%d,1] half true" % (R, C, R),
                MOVE, 2 * nb(x) + nb(m) + used * 4, R * C, sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                np_note="place (full-size mask built outside the timing)")


def w10(s):
    g = _gen(10)
    R, C = 8192 // s, 4096
    x = randn((R, C), g)
    src = randn((R, C // 2), g)
    o_sk, o_th, o_np = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    xn, sn, on = x.numpy(), src.numpy(), o_np.numpy()

    def skf():
        return need("slice_scatter")(x, src, 1, None, None, 2, out=o_sk)

    def thf():  # what torch.slice_scatter does, into a preallocated out
        o_th.copy_(x)
        o_th[:, ::2].copy_(src)
        return o_th

    def npf():
        np.copyto(on, xn)
        on[:, ::2] = sn
        return on
    return Case("W10", "slice_scatter axis 1 step 2, x f32 [%d,%d]" % (R, C), MOVE,
                2 * nb(x) + nb(src), None, sk=skf, th=thf, np_=npf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th), prep_np=poison(o_np),
                np_note="copy + strided assignment")


def w11(s):
    g = _gen(11)
    B, N = 64 // s, 1024
    x = randn((B, N, N), g)
    src = randn((B, N), g)
    o_sk, o_th = torch.empty_like(x), torch.empty_like(x)

    def skf():
        return need("diagonal_scatter")(x, src, 0, 1, 2, out=o_sk)

    def thf():  # what torch.diagonal_scatter does, into a preallocated out
        o_th.copy_(x)
        o_th.diagonal(0, 1, 2).copy_(src)
        return o_th
    return Case("W11", "diagonal_scatter axes 1,2, x f32 [%d,%d,%d]" % (B, N, N), MOVE,
                2 * nb(x) + nb(src), None, sk=skf, th=thf,
                prep_sk=poison(o_sk), sk_out=o_sk, prep_th=poison(o_th),
                np_note="no numpy equivalent")


def w12(s):
    g = _gen(12)
    N, T, C = (1 << 20) // s, 100000 // s, 32
    x = randn((T, C), g)
    i1 = randint(T, (N,), g)
    ie = i1[:, None].expand(N, C)
    xn, ien = x.numpy(), np.broadcast_to(i1.numpy()[:, None], (N, C))

    def skc(o):
        f = need("gather")
        return f(x, ie, 0) if o is None else f(x, ie, 0, out=o)
    return gather_case("W12", "edge gather axis 0, x f32 [%d,%d], idx [%d,%d] expanded" % (
        T, C, N, C), x, nb(x, i1) + N * C * 4, ie.numel(), skc,
        lambda: torch.gather(x, 0, ie), lambda o: torch.gather(x, 0, ie, out=o), (N, C),
        np_=lambda: np.take_along_axis(xn, ien, 0), np_note="take_along_axis (allocates)")


def w13(s):
    N, T, C, x0, i1, src0 = _msg_inputs(s)
    ie = i1[:, None].expand(N, C)
    g = _gen(13)
    grad = randn((T, C), g)
    xs, ss = x0.clone().requires_grad_(), src0.clone().requires_grad_()
    xt, st = x0.clone().requires_grad_(), src0.clone().requires_grad_()
    skt = None
    missing = None
    if sk is None:
        missing = "scatterkit not importable (%s)" % SK_IMPORT_ERROR
    else:
        try:
            import scatterkit.torch as skt  # noqa: F811
        except Exception as e:
            missing = "scatterkit.torch: %s: %s" % (type(e).__name__, e)

    def skf():
        f = need("scatter", skt) if skt is not None else None
        if f is None:
            raise NotImplementedOp(missing)
        y = f(xs, ie, ss, 0, reduce="amax", include_self=False)
        y.backward(grad)
        return y.detach(), xs.grad, ss.grad

    def thf():
        y = torch.scatter_reduce(xt, 0, ie, st, "amax", include_self=False)
        y.backward(grad)
        return y.detach(), xt.grad, st.grad

    def clear(*ts):
        def f():
            for t in ts:
                t.grad = None
        return f
    X, S, Ib = nb(x0), nb(src0), nb(i1)
    return Case("W13", "scatter amax fwd+bwd (scatterkit.torch), as W3", OTHER,
                3 * S + 2 * Ib + 6 * X, ie.numel(), sk=skf, th=thf,
                prep_sk=clear(xs, ss), prep_th=clear(xt, st), check="close",
                sk_alloc=2 * X + S, sk_missing=missing, np_note="no autograd")


WORKLOADS = [
    ("W1", [w1]), ("W2", [w2]),
    ("W3", [lambda s: w3(s, "amax"), lambda s: w3(s, "mean"), lambda s: w3(s, "prod")]),
    ("W4", [w4]), ("W5", [w5]), ("W6", [w6]), ("W7", [w7]), ("W8", [w8]),
    ("W9", [w9]), ("W10", [w10]), ("W11", [w11]), ("W12", [w12]), ("W13", [w13]),
]

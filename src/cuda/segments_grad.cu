// The scatter backward on the GPU over rows grouped by target
// (cuda/segments.h): the CPU's rules (src/cpu/backward/walk.c) and its
// arithmetic, operation for operation: values in double, rounded to float
// after each step below float64 (sk_bwd_round), statistics gathered over a
// target's contributors in position order (x first with include_self), so
// that every gradient element has the CPU's bits. grad_x first takes
// grad_out's value everywhere (what an untouched target keeps); each target
// with contributors then writes its own.
#ifndef SK_CUDA_EMULATE
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include "base/prod_grad.h"
#include "cuda/segments.cuh"

namespace {

using namespace sk_seg;

template <int DT>
__device__ inline double rnd(double v) {
    return DT == SK_CUDA_F64 ? v : (double)(float)v;
}

template <int DT>
__device__ inline double ld(const char *base, int64_t off) {
    return (double)load<DT>(base + off * Ty<DT>::size);
}

// sk_store_f: 16-bit floats round from float, no NaN kept.
template <int DT>
__device__ inline void store_f(char *p, double v) {
    if constexpr (DT == SK_CUDA_F64) *reinterpret_cast<double *>(p) = v;
    else if constexpr (DT == SK_CUDA_F32) *reinterpret_cast<float *>(p) = (float)v;
    else if constexpr (DT == SK_CUDA_F16) *reinterpret_cast<uint16_t *>(p) = f32_to_f16((float)v);
    else *reinterpret_cast<uint16_t *>(p) = f32_to_bf16((float)v);
}

__device__ inline bool same(double a, double b) { return a == b || (a != a && b != b); }

__device__ inline int64_t at(const sk_cuda_seg_grad &g, const sk_cuda_like &t, int64_t lin) {
    return sk_cuda_offset(g.ndim, g.shape, t.strides, lin);
}

// A target's statistics (walk.c's sk_bwd_stats, for one target).
struct Stats {
    int64_t cnt, ties;
    sk_bwd_prod prod;  // prod: every contributor's factor (base/prod_grad.h)
};

// sk_bwd_share: the gradient share of a contributor of value v.
template <int DT>
__device__ inline double share(int red, bool self, const Stats &st, double v, double g,
                               double result) {
    switch (red) {
    case SK_CUDA_SUM: return g;
    case SK_CUDA_MEAN: return rnd<DT>(g / (double)(st.cnt + (self ? 1 : 0)));
    case SK_CUDA_PROD: return rnd<DT>(sk_bwd_prod_share(&st.prod, v, g));
    case SK_CUDA_AMAX:
    case SK_CUDA_AMIN: return same(v, result) ? rnd<DT>(g / (double)st.ties) : 0.0;
    default: return 0.0;
    }
}

// Element j of the rows [b, e) of one target: x's and the contributors'
// values into st, in position order.
template <typename K, int DT>
__device__ inline Stats gather_stats(const sk_cuda_seg &s, const K *rows, int64_t b, int64_t e,
                                     int64_t j, double xv, double res) {
    bool self = s.include_self;
    Stats st;
    st.cnt = e - b;
    st.ties = self && same(xv, res) ? 1 : 0;
    sk_bwd_prod_init(&st.prod);
    if (s.reduce == SK_CUDA_PROD && self) sk_bwd_prod_mul(&st.prod, xv);
    if (s.reduce != SK_CUDA_PROD && s.reduce != SK_CUDA_AMAX && s.reduce != SK_CUDA_AMIN) return st;
    for (int64_t i = b; i < e; i++) {
        double v = ld<DT>(s.src, src_of(s, (int64_t)rows[i]) + j * s.row_dense);
        if (s.reduce != SK_CUDA_PROD) st.ties += same(v, res) ? 1 : 0;
        else sk_bwd_prod_mul(&st.prod, v);
    }
    return st;
}

// grad_src of element j of each row of the target (walk.c's pass 2).
template <typename K, int DT>
__device__ inline void grad_src_of(const sk_cuda_seg &s, const sk_cuda_seg_grad &g, const K *rows,
                                   int64_t b, int64_t e, int64_t j, const Stats &st, double gv,
                                   double res) {
    bool needs_v = s.reduce == SK_CUDA_PROD || s.reduce == SK_CUDA_AMAX || s.reduce == SK_CUDA_AMIN;
    for (int64_t i = b; i < e; i++) {
        int64_t o[5];
        row_offsets(s, (int64_t)rows[i], o);
        double v = needs_v ? ld<DT>(s.src, o[0] + j * s.row_dense) : 0.0, sh;
        if (s.reduce == SK_CUDA_ASSIGN) sh = i == e - 1 ? gv : 0.0;
        else sh = share<DT>(s.reduce, s.include_self, st, v, gv, res);
        store_f<DT>(g.grad_src + (o[4] + j * s.row_aux) * Ty<DT>::size, sh);
    }
}

// grad_x of a target with contributors (the end of walk.c's sk_bwd_task).
template <int DT>
__device__ inline double grad_x_of(const sk_cuda_seg &s, const Stats &st, double gv, double xv,
                                   double res) {
    bool self = s.include_self, amx = s.reduce == SK_CUDA_AMAX || s.reduce == SK_CUDA_AMIN;
    bool touched = amx ? st.ties > 0 : s.reduce == SK_CUDA_SUM ? !self : true;
    if (amx && self) return share<DT>(s.reduce, self, st, xv, gv, res);
    if (!touched) return gv;
    if (!self || s.reduce == SK_CUDA_ASSIGN) return 0.0;
    return share<DT>(s.reduce, self, st, xv, gv, res);
}

template <typename K, int DT>
__global__ void seg_grad(const __grid_constant__ sk_cuda_seg s,
                         const __grid_constant__ sk_cuda_seg_grad g, const K *keys,
                         const K *rows) {
    int group = s.group, lane = (int)(threadIdx.x % group);
    int64_t step = (int64_t)gridDim.x * (blockDim.x / group);
    bool need_x = s.include_self && (s.reduce == SK_CUDA_PROD || s.reduce == SK_CUDA_AMAX ||
                                     s.reduce == SK_CUDA_AMIN);
    bool need_res = s.reduce == SK_CUDA_AMAX || s.reduce == SK_CUDA_AMIN;
    for (int64_t i = (int64_t)blockIdx.x * (blockDim.x / group) + threadIdx.x / group; i < s.rows;
         i += step) {
        K key = keys[i];
        if (key == (K)s.sentinel || (i > 0 && keys[i - 1] == key)) continue;
        int64_t e = upper_bound(keys, i + 1, s.rows, key);
        for (int64_t j = lane; j < s.row_len; j += group) {
            int64_t lin = (int64_t)key + j * s.row_linear;
            double gv = ld<DT>(g.grad_out.data, at(g, g.grad_out, lin));
            double xv = need_x ? ld<DT>(g.x.data, at(g, g.x, lin)) : 0.0;
            double res = need_res ? ld<DT>(g.result.data, at(g, g.result, lin)) : 0.0;
            Stats st = gather_stats<K, DT>(s, rows, i, e, j, xv, res);
            if (g.grad_src) grad_src_of<K, DT>(s, g, rows, i, e, j, st, gv, res);
            if (g.grad_x.data)
                store_f<DT>(const_cast<char *>(g.grad_x.data) + at(g, g.grad_x, lin) * Ty<DT>::size,
                            grad_x_of<DT>(s, st, gv, xv, res));
        }
    }
}

// grad_x = grad_out's values, through the working precision as the CPU;
// with amax/amin and include_self, x's share as the only contributor (0
// where a result given by the caller differs from x).
template <int DT>
__global__ void grad_pass(const __grid_constant__ sk_cuda_seg_grad g, int red, bool self) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    char *gx = const_cast<char *>(g.grad_x.data);
    bool amx_self = self && (red == SK_CUDA_AMAX || red == SK_CUDA_AMIN);
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < g.numel; t += step) {
        double gv = ld<DT>(g.grad_out.data, at(g, g.grad_out, t));
        if (amx_self) {
            double xv = ld<DT>(g.x.data, at(g, g.x, t));
            gv = same(xv, ld<DT>(g.result.data, at(g, g.result, t))) ? rnd<DT>(gv / 1.0) : 0.0;
        }
        store_f<DT>(gx + at(g, g.grad_x, t) * Ty<DT>::size, gv);
    }
}

int blocks_for(int64_t items, int group) {
    int64_t per = 256 / group, b = (items + per - 1) / per;
    return (int)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

template <int DT>
int grad_typed(const sk_cuda_seg &s, const sk_cuda_seg_grad &g, const void *keys,
               const void *rows, cudaStream_t st) {
    if (g.grad_x.data && g.numel > 0)
        SK_LAUNCH(blocks_for(g.numel, 1), 256, st, (grad_pass<DT>), g, s.reduce, s.include_self);
    int b = blocks_for(s.rows, s.group);
    if (s.rows > 0 && s.wide)
        SK_LAUNCH(b, 256, st, (seg_grad<uint64_t, DT>), s, g, static_cast<const uint64_t *>(keys),
                  static_cast<const uint64_t *>(rows));
    else if (s.rows > 0)
        SK_LAUNCH(b, 256, st, (seg_grad<uint32_t, DT>), s, g, static_cast<const uint32_t *>(keys),
                  static_cast<const uint32_t *>(rows));
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int sk_cuda_launch_seg_grad(const sk_cuda_seg *s, const sk_cuda_seg_grad *g,
                                       const void *keys, const void *rows, void *stream) {
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (s->dtype) {
    case SK_CUDA_F16: return grad_typed<SK_CUDA_F16>(*s, *g, keys, rows, st);
    case SK_CUDA_BF16: return grad_typed<SK_CUDA_BF16>(*s, *g, keys, rows, st);
    case SK_CUDA_F32: return grad_typed<SK_CUDA_F32>(*s, *g, keys, rows, st);
    default: return grad_typed<SK_CUDA_F64>(*s, *g, keys, rows, st);
    }
}

// The plan walk on the GPU (cuda/kernels.h, sk_cuda_walk): gather,
// index_select, gather_nd, the copies of the view scatters and sk_copy.
// Elements move by width (1, 2, 4 or 8 bytes), so every dtype is copied bit
// for bit. Grid-stride loops, 64-bit offsets; no assert or trap anywhere.
#ifndef SK_CUDA_EMULATE
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include "cuda/body.h"

namespace {

template <typename T>
__device__ inline T fill_value(const sk_cuda_walk &w) {
    return w.fill ? *static_cast<const T *>(w.fill) : T(0);
}

// A thread per output element. Kernel parameters whose address the bodies
// take are __grid_constant__: read in place, never copied per thread.
template <typename T>
__global__ void walk_elements(const __grid_constant__ sk_cuda_walk w) {
    T *out = reinterpret_cast<T *>(w.dense);
    const T *x = reinterpret_cast<const T *>(w.target);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < w.numel; pos += step) {
        int64_t o[3];
        sk_cuda_walk_offsets(&w, pos, o);
        bool ok = sk_cuda_walk_resolve(&w, o[2], &o[1]);
        if (!ok && w.invalid) *w.invalid = 1u;
        out[o[0]] = ok ? x[o[1]] : fill_value<T>(w);
    }
}

// Rows: the last dimension is contiguous in out and x and the index is
// constant along it. Work items are (row, chunk) pairs: a group of G lanes
// (a power of two up to a warp) moves chunk_vecs vectors of V of one row,
// consecutive lanes on consecutive vectors. The row's index is resolved once
// per item; an unresolved one (fill, or a bad value in a checked walk)
// writes the fill element's bytes (zeros without one).
template <typename V>
__global__ void walk_rows(const __grid_constant__ sk_cuda_walk w) {
    const int group = w.group;
    int64_t lane = threadIdx.x % group;
    int64_t groups = (int64_t)gridDim.x * (blockDim.x / group);
    int64_t first = (int64_t)blockIdx.x * (blockDim.x / group) + threadIdx.x / group;
    for (int64_t it = first; it < w.rows * w.chunks; it += groups) {
        int64_t r, lo, hi, o[3];
        sk_cuda_row_item(&w, it, &r, &lo, &hi);
        sk_cuda_walk_offsets(&w, r * w.row_len, o);
        char *dst = w.dense + o[0] * w.elem_size;
        if (sk_cuda_walk_resolve(&w, o[2], &o[1])) {
            V *d = reinterpret_cast<V *>(dst);
            const V *src = reinterpret_cast<const V *>(w.target + o[1] * w.elem_size);
            for (int64_t j = lo + lane; j < hi; j += group) d[j] = src[j];
            continue;
        }
        if (w.invalid && lane == 0) *w.invalid = 1u;
        const char *fill = static_cast<const char *>(w.fill);
        for (int64_t b = lo * (int64_t)sizeof(V) + lane; b < hi * (int64_t)sizeof(V); b += group)
            dst[b] = fill ? fill[b % w.elem_size] : 0;
    }
}

void launch_elements(const sk_cuda_walk &w, cudaStream_t s) {
    switch (w.elem_size) {
    case 1: SK_LAUNCH(w.blocks, w.threads, s, (walk_elements<uint8_t>), w); break;
    case 2: SK_LAUNCH(w.blocks, w.threads, s, (walk_elements<uint16_t>), w); break;
    case 4: SK_LAUNCH(w.blocks, w.threads, s, (walk_elements<uint32_t>), w); break;
    default: SK_LAUNCH(w.blocks, w.threads, s, (walk_elements<uint64_t>), w); break;
    }
}

void launch_rows(const sk_cuda_walk &w, cudaStream_t s) {
    switch (w.vec) {
    case 16: SK_LAUNCH(w.blocks, w.threads, s, (walk_rows<uint4>), w); break;
    case 8: SK_LAUNCH(w.blocks, w.threads, s, (walk_rows<uint2>), w); break;
    case 4: SK_LAUNCH(w.blocks, w.threads, s, (walk_rows<uint32_t>), w); break;
    case 2: SK_LAUNCH(w.blocks, w.threads, s, (walk_rows<uint16_t>), w); break;
    default: SK_LAUNCH(w.blocks, w.threads, s, (walk_rows<uint8_t>), w); break;
    }
}

}  // namespace

extern "C" int sk_cuda_launch_walk(const sk_cuda_walk *w, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (w->numel == 0) return 0;
    if (w->scheme == SK_CUDA_ROWS) launch_rows(*w, s);
    else launch_elements(*w, s);
    return (int)cudaGetLastError();
}

// The plan walk on the GPU (cuda/kernels.h, sk_cuda_walk): gather,
// index_select, gather_nd, the copies of the view scatters and sk_copy.
// Elements move by width (1, 2, 4 or 8 bytes), so every dtype is copied bit
// for bit. Grid-stride loops, 64-bit offsets; no assert or trap anywhere.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/device.cuh"
#include "cuda/kernels.h"

namespace {

// The element offsets of position pos: dense, target (before the index
// components) and index.
struct Offsets {
    int64_t dense, target, index;
};

__device__ inline Offsets walk_offsets(const sk_cuda_walk &w, int64_t pos) {
    Offsets o = {0, 0, 0};
    for (int d = w.ndim - 1; d >= 0; d--) {
        int64_t n = w.shape[d], c = d ? pos % n : pos;
        pos = d ? pos / n : 0;
        o.dense += c * w.dense_stride[d];
        o.target += c * w.target_stride[d];
        o.index += c * w.index_stride[d];
    }
    return o;
}

// Adds the index components at ioff to *toff; false: a value that the mode
// leaves unresolved (fill, or error mode's value that validation refused).
template <typename IT>
__device__ inline bool walk_resolve(const sk_cuda_walk &w, int64_t ioff, int64_t *toff) {
    const IT *ix = static_cast<const IT *>(w.index);
    for (int k = 0; k < w.ncomp; k++) {
        int64_t v;
        if (!sk_cuda_resolve((int64_t)ix[ioff + k * w.comp_stride], w.comp_size[k], w.mode, &v))
            return false;
        *toff += v * w.comp_target_stride[k];
    }
    return true;
}

template <typename T>
__device__ inline T fill_value(const sk_cuda_walk &w) {
    return w.fill ? *static_cast<const T *>(w.fill) : T(0);
}

// A thread per output element.
template <typename T, typename IT>
__global__ void walk_elements(const sk_cuda_walk w) {
    T *out = reinterpret_cast<T *>(w.dense);
    const T *x = reinterpret_cast<const T *>(w.target);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < w.numel; pos += step) {
        Offsets o = walk_offsets(w, pos);
        bool ok = walk_resolve<IT>(w, o.index, &o.target);
        if (!ok && w.invalid) *w.invalid = 1u;
        out[o.dense] = ok ? x[o.target] : fill_value<T>(w);
    }
}

// Rows: the last dimension is contiguous in out and x and the index is
// constant along it. Work items are (row, chunk) pairs: a group of G lanes
// (a power of two up to a warp) moves chunk_vecs vectors of V of one row,
// consecutive lanes on consecutive vectors. The row's index is resolved once
// per item; an unresolved one (fill, or a bad value in a checked walk)
// writes the fill element's bytes (zeros without one).
template <typename V, typename IT>
__global__ void walk_rows(const sk_cuda_walk w) {
    const int group = w.group;
    int64_t lane = threadIdx.x % group;
    int64_t groups = (int64_t)gridDim.x * (blockDim.x / group);
    int64_t first = (int64_t)blockIdx.x * (blockDim.x / group) + threadIdx.x / group;
    int64_t nvec = w.row_len * w.elem_size / (int64_t)sizeof(V), items = w.rows * w.chunks;
    for (int64_t it = first; it < items; it += groups) {
        int64_t r = it / w.chunks, lo = (it % w.chunks) * w.chunk_vecs;
        int64_t hi = lo + w.chunk_vecs < nvec ? lo + w.chunk_vecs : nvec;
        Offsets o = walk_offsets(w, r * w.row_len);
        char *dst = w.dense + o.dense * w.elem_size;
        if (walk_resolve<IT>(w, o.index, &o.target)) {
            V *d = reinterpret_cast<V *>(dst);
            const V *src = reinterpret_cast<const V *>(w.target + o.target * w.elem_size);
            for (int64_t j = lo + lane; j < hi; j += group) d[j] = src[j];
            continue;
        }
        if (w.invalid && lane == 0) *w.invalid = 1u;
        const char *fill = static_cast<const char *>(w.fill);
        for (int64_t b = lo * (int64_t)sizeof(V) + lane; b < hi * (int64_t)sizeof(V); b += group)
            dst[b] = fill ? fill[b % w.elem_size] : 0;
    }
}

template <typename IT>
void launch_elements(const sk_cuda_walk &w, cudaStream_t s) {
    switch (w.elem_size) {
    case 1: walk_elements<uint8_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    case 2: walk_elements<uint16_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    case 4: walk_elements<uint32_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    default: walk_elements<uint64_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    }
}

template <typename IT>
void launch_rows(const sk_cuda_walk &w, cudaStream_t s) {
    switch (w.vec) {
    case 16: walk_rows<uint4, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    case 8: walk_rows<uint2, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    case 4: walk_rows<uint32_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    case 2: walk_rows<uint16_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    default: walk_rows<uint8_t, IT><<<w.blocks, w.threads, 0, s>>>(w); break;
    }
}

}  // namespace

extern "C" int sk_cuda_launch_walk(const sk_cuda_walk *w, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (w->numel == 0) return 0;
    if (w->scheme == SK_CUDA_ROWS) {
        if (w->index_is64) launch_rows<int64_t>(*w, s);
        else launch_rows<int32_t>(*w, s);
    } else if (w->index_is64) {
        launch_elements<int64_t>(*w, s);
    } else {
        launch_elements<int32_t>(*w, s);
    }
    return (int)cudaGetLastError();
}

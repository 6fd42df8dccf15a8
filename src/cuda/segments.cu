// The scatter reductions on the GPU over rows grouped by target
// (cuda/segments.h): every dtype and reduction, bitwise equal to the CPU.
// Float sum/mean/prod follow the canonical order (CONTRACT section 2): a
// target's first SK_CUDA_CHUNK contributors folded one after another into
// its start value, each later chunk folded from its own first contributor
// into a partial (in parallel: seg_partials), the partials folded into the
// running value in order. The other reductions fold the same way: integer
// sums and products wrap (associative), amax/amin keep the first of equal
// values and the first NaN within a chunk and across the chunks alike, so
// the chunked fold equals the CPU's serial one; assign takes the last row.
#ifndef SK_CUDA_EMULATE
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include "cuda/segments.cuh"

namespace {

using namespace sk_seg;
constexpr int64_t CHUNK = SK_CUDA_CHUNK;

// The lanes' share of work items: item, lane and how far to step.
struct Lanes {
    int64_t first, step;
    int lane, group;
};

__device__ inline Lanes lanes_of(int group) {
    Lanes l;
    l.group = group;
    l.lane = (int)(threadIdx.x % group);
    l.first = (int64_t)blockIdx.x * (blockDim.x / group) + threadIdx.x / group;
    l.step = (int64_t)gridDim.x * (blockDim.x / group);
    return l;
}

template <int DT>
__device__ inline const char *src_at(const sk_cuda_seg &s, int64_t row, int64_t j) {
    return s.src + (src_of(s, row) + j * s.row_dense) * Ty<DT>::size;
}

// The chunk (k >= 1) of a target that starts in slot q: [*cs, *ce). Such a
// chunk's target already has contributors before q * CHUNK, so it is the
// target of sorted position q * CHUNK.
template <typename K>
__device__ inline bool chunk_in_slot(const sk_cuda_seg &s, const K *keys, int64_t q, int64_t *cs,
                                     int64_t *ce) {
    int64_t s0 = q * CHUNK;
    K key = keys[s0];
    if (key == (K)s.sentinel) return false;
    int64_t b = lower_bound(keys, 0, s0, key), k = (s0 - b + CHUNK - 1) / CHUNK;
    *cs = b + (k < 1 ? 1 : k) * CHUNK;
    if (*cs >= s0 + CHUNK) return false;
    int64_t e = upper_bound(keys, s0, s.rows, key);
    if (*cs >= e) return false;
    *ce = e < *cs + CHUNK ? e : *cs + CHUNK;
    return true;
}

template <typename K, int DT>
__global__ void seg_partials(const __grid_constant__ sk_cuda_seg s, const K *keys, const K *rows,
                             typename Ty<DT>::A *parts) {
    using A = typename Ty<DT>::A;
    Lanes l = lanes_of(s.group);
    int64_t slots = (s.rows + CHUNK - 1) / CHUNK;
    for (int64_t q = l.first; q < slots; q += l.step) {
        int64_t cs, ce;
        if (!chunk_in_slot(s, keys, q, &cs, &ce)) continue;
        for (int64_t j = l.lane; j < s.row_len; j += l.group) {
            A acc = load<DT>(src_at<DT>(s, (int64_t)rows[cs], j));
            for (int64_t i = cs + 1; i < ce; i++)
                acc = step<DT>(acc, load<DT>(src_at<DT>(s, (int64_t)rows[i], j)), s.reduce);
            parts[q * s.row_len + j] = acc;
        }
    }
}

template <int SIZE>
__device__ inline void copy_elem(char *dst, const char *src) {
    using T = typename std::conditional<
        SIZE == 8, uint64_t,
        typename std::conditional<SIZE == 4, uint32_t,
                                  typename std::conditional<SIZE == 2, uint16_t, uint8_t>::type>::
            type>::type;
    *reinterpret_cast<T *>(dst) = *reinterpret_cast<const T *>(src);
}

// Element j of the target whose sorted rows are [b, e), at out + t.
template <typename K, int DT>
__device__ inline void fold_target(const sk_cuda_seg &s, const K *rows,
                                   const typename Ty<DT>::A *parts, int64_t b, int64_t e,
                                   int64_t t, int64_t j) {
    using A = typename Ty<DT>::A;
    char *o = s.out + t * Ty<DT>::size;
    if (s.reduce == SK_CUDA_ASSIGN) { /* last wins, its bits */
        copy_elem<Ty<DT>::size>(o, src_at<DT>(s, (int64_t)rows[e - 1], j));
        return;
    }
    int64_t c0 = e < b + CHUNK ? e : b + CHUNK, i = b;
    A acc = s.include_self ? load<DT>(o) : load<DT>(src_at<DT>(s, (int64_t)rows[i++], j));
    for (; i < c0; i++) acc = step<DT>(acc, load<DT>(src_at<DT>(s, (int64_t)rows[i], j)), s.reduce);
    for (int64_t c = b + CHUNK; c < e; c += CHUNK)
        acc = step<DT>(acc, parts[(c / CHUNK) * s.row_len + j], s.reduce);
    if (s.reduce == SK_CUDA_MEAN) acc = mean<DT>(acc, e - b + (s.include_self ? 1 : 0));
    store<DT>(o, acc, s.include_self);
}

// A group per sorted position; the first of each target's rows does the target.
template <typename K, int DT>
__global__ void seg_finish(const __grid_constant__ sk_cuda_seg s, const K *keys, const K *rows,
                           const typename Ty<DT>::A *parts) {
    Lanes l = lanes_of(s.group);
    for (int64_t i = l.first; i < s.rows; i += l.step) {
        K key = keys[i];
        if (key == (K)s.sentinel || (i > 0 && keys[i - 1] == key)) continue;
        int64_t e = upper_bound(keys, i + 1, s.rows, key), t = target_of(s, (int64_t)rows[i]);
        for (int64_t j = l.lane; j < s.row_len; j += l.group)
            fold_target<K, DT>(s, rows, parts, i, e, t + j * s.row_target, j);
    }
}

int blocks_for(int64_t items, int group) {
    int64_t per = 256 / group, b = (items + per - 1) / per;
    return (int)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

template <typename K, int DT>
int reduce_typed(const sk_cuda_seg &s, const void *keys, const void *rows, cudaStream_t st) {
    using A = typename Ty<DT>::A;
    const K *k = static_cast<const K *>(keys), *r = static_cast<const K *>(rows);
    A *parts = nullptr;
    int64_t slots = (s.rows + CHUNK - 1) / CHUNK;
    if (s.reduce != SK_CUDA_ASSIGN && s.rows > CHUNK) {
        size_t bytes = (size_t)(slots * s.row_len) * sizeof(A);
        cudaError_t e = cudaMallocAsync((void **)&parts, bytes, st);
        if (e != cudaSuccess) return (int)e;
        SK_LAUNCH(blocks_for(slots, s.group), 256, st, (seg_partials<K, DT>), s, k, r, parts);
    }
    SK_LAUNCH(blocks_for(s.rows, s.group), 256, st, (seg_finish<K, DT>), s, k, r, parts);
    int err = (int)cudaGetLastError();
    if (parts) cudaFreeAsync(parts, st);
    return err;
}

template <typename K>
int reduce_keyed(const sk_cuda_seg &s, const void *keys, const void *rows, cudaStream_t st) {
    switch (s.dtype) {
    case SK_CUDA_BOOL: return reduce_typed<K, SK_CUDA_BOOL>(s, keys, rows, st);
    case SK_CUDA_U8: return reduce_typed<K, SK_CUDA_U8>(s, keys, rows, st);
    case SK_CUDA_I8: return reduce_typed<K, SK_CUDA_I8>(s, keys, rows, st);
    case SK_CUDA_I16: return reduce_typed<K, SK_CUDA_I16>(s, keys, rows, st);
    case SK_CUDA_I32: return reduce_typed<K, SK_CUDA_I32>(s, keys, rows, st);
    case SK_CUDA_I64: return reduce_typed<K, SK_CUDA_I64>(s, keys, rows, st);
    case SK_CUDA_F16: return reduce_typed<K, SK_CUDA_F16>(s, keys, rows, st);
    case SK_CUDA_BF16: return reduce_typed<K, SK_CUDA_BF16>(s, keys, rows, st);
    case SK_CUDA_F32: return reduce_typed<K, SK_CUDA_F32>(s, keys, rows, st);
    default: return reduce_typed<K, SK_CUDA_F64>(s, keys, rows, st);
    }
}

}  // namespace

extern "C" int sk_cuda_launch_seg_reduce(const sk_cuda_seg *s, const void *keys, const void *rows,
                                         void *stream) {
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    if (s->rows == 0) return 0;
    return s->wide ? reduce_keyed<uint64_t>(*s, keys, rows, st)
                   : reduce_keyed<uint32_t>(*s, keys, rows, st);
}

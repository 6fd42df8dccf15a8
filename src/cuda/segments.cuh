// Device helpers of the segment kernels (segments*.cu): a row's offsets,
// its target, binary searches over the sorted keys, and each dtype's
// arithmetic exactly as the CPU's (src/cpu/scatter/reduce.h,
// segments_fold.h, base/scalar.h): integers in int64 wrapping at the dtype's
// width, float32 and 16-bit floats in float (16-bit ones rounded once by the
// CPU's own bit rules), float64 in double. Built with -fmad=false (no
// contraction), IEEE division and denormals, as the CPU.
#ifndef SK_CUDA_SEGMENTS_CUH
#define SK_CUDA_SEGMENTS_CUH

#ifndef SK_CUDA_EMULATE
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include <type_traits>

#include "cuda/body.h"
#include "cuda/segments.h"

namespace sk_seg {

// Offsets of row r's first element: o[0] src, o[1] out (before the index
// components), o[2] linear (the same), o[3] index, o[4] grad_src.
__device__ inline void row_offsets(const sk_cuda_seg &s, int64_t r, int64_t *o) {
    o[0] = o[1] = o[2] = o[3] = o[4] = 0;
    for (int d = s.rdim - 1; d >= 0; d--) {
        int64_t n = s.shape[d], c = d ? r % n : r;
        r = d ? r / n : 0;
        o[0] += c * s.dense_stride[d];
        o[1] += c * s.target_stride[d];
        o[2] += c * s.linear_stride[d];
        o[3] += c * s.index_stride[d];
        o[4] += c * s.aux_stride[d];
    }
}

// Adds the index components at ioff to o[1] and o[2]; false: dropped.
__device__ inline bool resolve(const sk_cuda_seg &s, int64_t ioff, int64_t *o) {
    for (int k = 0; k < s.ncomp; k++) {
        int64_t at = ioff + k * s.comp_stride, v;
        int64_t raw = s.index_is64 ? static_cast<const int64_t *>(s.index)[at]
                                   : (int64_t) static_cast<const int32_t *>(s.index)[at];
        if (!sk_cuda_resolve(raw, s.comp_size[k], s.mode, &v)) return false;
        o[1] += v * s.comp_target_stride[k];
        o[2] += v * s.comp_linear_stride[k];
    }
    return true;
}

// The out offset of row r's first target (r is not dropped: it has a key).
__device__ inline int64_t target_of(const sk_cuda_seg &s, int64_t r) {
    int64_t o[5];
    row_offsets(s, r, o);
    resolve(s, o[3], o);
    return o[1];
}

// The src offset of row r's first element.
__device__ inline int64_t src_of(const sk_cuda_seg &s, int64_t r) {
    int64_t o[5];
    row_offsets(s, r, o);
    return o[0];
}

// First i in [lo, hi) with keys[i] > key (hi when none).
template <typename K>
__device__ inline int64_t upper_bound(const K *keys, int64_t lo, int64_t hi, K key) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] > key) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

// First i in [lo, hi) with keys[i] >= key.
template <typename K>
__device__ inline int64_t lower_bound(const K *keys, int64_t lo, int64_t hi, K key) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// ---- 16-bit floats: base/scalar.h's bit rules, branch for mask ----
__device__ inline float bf16_to_f32(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ inline uint16_t f32_to_bf16(float f) {
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ inline float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    if (a < 0x0400u) return __uint_as_float(__float_as_uint((float)(int32_t)a * 0x1p-24f) | sign);
    uint32_t u = (a << 13) + (112u << 23);
    if (a >= 0x7c00u) u += 112u << 23;
    return __uint_as_float(u | sign);
}

__device__ inline uint16_t f32_to_f16(float f) {
    uint32_t u = __float_as_uint(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, r;
    if (a > 0x7f800000u) r = 0x7e00u | ((a >> 13) & 0x3ffu);
    else if (a >= 0x477ff000u) r = 0x7c00u;
    else if (a < 0x38800000u) r = __float_as_uint(__uint_as_float(a) + 0.5f) - 0x3f000000u;
    else r = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    return (uint16_t)(sign | r);
}

// ---- per-dtype storage, accumulation and steps ----
template <int DT>
struct Ty {
    static constexpr bool half = DT == SK_CUDA_F16 || DT == SK_CUDA_BF16;
    static constexpr bool flt = DT >= SK_CUDA_F16;
    static constexpr int size = DT == SK_CUDA_F64 || DT == SK_CUDA_I64   ? 8
                                : DT == SK_CUDA_F32 || DT == SK_CUDA_I32 ? 4
                                : DT == SK_CUDA_I16 || half              ? 2
                                                                         : 1;
    using A = typename std::conditional<
        DT == SK_CUDA_F64, double, typename std::conditional<flt, float, int64_t>::type>::type;
};

template <int DT>
__device__ inline typename Ty<DT>::A load(const char *p) {
    if constexpr (DT == SK_CUDA_F64) return *reinterpret_cast<const double *>(p);
    else if constexpr (DT == SK_CUDA_F32) return *reinterpret_cast<const float *>(p);
    else if constexpr (DT == SK_CUDA_F16) return f16_to_f32(*reinterpret_cast<const uint16_t *>(p));
    else if constexpr (DT == SK_CUDA_BF16)
        return bf16_to_f32(*reinterpret_cast<const uint16_t *>(p));
    else if constexpr (DT == SK_CUDA_BOOL) return *reinterpret_cast<const uint8_t *>(p) != 0;
    else if constexpr (DT == SK_CUDA_U8) return *reinterpret_cast<const uint8_t *>(p);
    else if constexpr (DT == SK_CUDA_I8) return *reinterpret_cast<const int8_t *>(p);
    else if constexpr (DT == SK_CUDA_I16) return *reinterpret_cast<const int16_t *>(p);
    else if constexpr (DT == SK_CUDA_I32) return *reinterpret_cast<const int32_t *>(p);
    else return *reinterpret_cast<const int64_t *>(p);
}

// Stores v at p; 16-bit floats round once, a NaN result that is the NaN
// already at p (x's: folded in, self) keeping its bits (sk_half_round: the
// GPU's arithmetic returns its own NaN); integers truncate (the wrap).
template <int DT>
__device__ inline void store(char *p, typename Ty<DT>::A v, bool self = false) {
    if constexpr (DT == SK_CUDA_F64 || DT == SK_CUDA_F32) {
        *reinterpret_cast<typename Ty<DT>::A *>(p) = v;
    } else if constexpr (Ty<DT>::half) {
        uint16_t *h = reinterpret_cast<uint16_t *>(p), old = *h;
        bool bf = DT == SK_CUDA_BF16;
        float o = bf ? bf16_to_f32(old) : f16_to_f32(old);
        bool keep = v != v && o != o && (self || __float_as_uint(v) == __float_as_uint(o));
        if (!keep) *h = bf ? f32_to_bf16(v) : f32_to_f16(v);
    } else if constexpr (DT == SK_CUDA_BOOL) {
        *reinterpret_cast<uint8_t *>(p) = v != 0;
    } else if constexpr (Ty<DT>::size == 1) {
        *reinterpret_cast<uint8_t *>(p) = (uint8_t)(uint64_t)v;
    } else if constexpr (Ty<DT>::size == 2) {
        *reinterpret_cast<uint16_t *>(p) = (uint16_t)(uint64_t)v;
    } else if constexpr (Ty<DT>::size == 4) {
        *reinterpret_cast<uint32_t *>(p) = (uint32_t)(uint64_t)v;
    } else {
        *reinterpret_cast<uint64_t *>(p) = (uint64_t)v;
    }
}

// One step of the reduction (mean adds): sk_op_f / sk_op_i.
template <int DT>
__device__ inline typename Ty<DT>::A step(typename Ty<DT>::A a, typename Ty<DT>::A b, int red) {
    if constexpr (Ty<DT>::flt) {
        switch (red) {
        case SK_CUDA_SUM:
        case SK_CUDA_MEAN: return a + b;
        case SK_CUDA_PROD: return a * b;
        case SK_CUDA_AMAX: return ((a >= b) | (a != a)) ? a : b;
        case SK_CUDA_AMIN: return ((a <= b) | (a != a)) ? a : b;
        default: return b;
        }
    } else {
        switch (red) {
        case SK_CUDA_SUM:
        case SK_CUDA_MEAN: return (int64_t)((uint64_t)a + (uint64_t)b);
        case SK_CUDA_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
        case SK_CUDA_AMAX: return DT == SK_CUDA_BOOL ? (a | b) : (a > b ? a : b);
        case SK_CUDA_AMIN: return DT == SK_CUDA_BOOL ? (a & b) : (a < b ? a : b);
        default: return b;
        }
    }
}

// mean's division: float by the count as float (double for float64); an
// integer sum, wrapped to the dtype's width as the CPU accumulates it in
// out, floored over the count.
template <int DT>
__device__ inline typename Ty<DT>::A mean(typename Ty<DT>::A v, int64_t count) {
    if constexpr (Ty<DT>::flt) {
        return v / (typename Ty<DT>::A)count;
    } else {
        char w[8];
        store<DT>(w, v);
        int64_t s = load<DT>(w), q = s / count;
        if (s % count != 0 && ((s < 0) != (count < 0))) q--;
        return q;
    }
}

}  // namespace sk_seg

#endif  // SK_CUDA_SEGMENTS_CUH

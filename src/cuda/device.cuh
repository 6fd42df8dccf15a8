// Device-side rules shared by the backend's kernels.
#ifndef SK_CUDA_DEVICE_CUH
#define SK_CUDA_DEVICE_CUH

#include <stdint.h>

#include "cuda/kernels.h"

// sk_resolve_index (base/scalar.h) on the device: a negative v counts from
// the end; outside [0, n) CLIP clamps, every other mode leaves it unresolved.
__device__ inline bool sk_cuda_resolve(int64_t v, int64_t n, int mode, int64_t *out) {
    if (v < 0) v += n;
    if ((uint64_t)v < (uint64_t)n) {
        *out = v;
        return true;
    }
    if (mode == SK_CUDA_CLIP && n > 0) {
        *out = v < 0 ? 0 : n - 1;
        return true;
    }
    return false;
}

// The element offset of row-major position pos of a tensor (shape, strides).
__device__ inline int64_t sk_cuda_offset(int ndim, const int64_t *shape, const int64_t *strides,
                                         int64_t pos) {
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t n = shape[d], c = d ? pos % n : pos;
        pos = d ? pos / n : 0;
        off += c * strides[d];
    }
    return off;
}

#endif  // SK_CUDA_DEVICE_CUH

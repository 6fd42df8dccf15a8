// The grouping of the segment scheme (cuda/segments.h): every row's key (the
// linear offset of its first target; `sentinel` for a dropped row) and row
// number, then CUB's stable radix sort over the key's bits, so that each
// target's rows come together in position order. And the zero fill of a
// strided tensor (the gather backward's start, grad_src's unread elements).
#ifndef SK_CUDA_EMULATE
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include "cuda/segments.cuh"

namespace {

// THRUST_CUB_WRAPPED_NAMESPACE puts CUB inside sk_cccl
namespace cub = CUB_NS_QUALIFIER;

int blocks_for(int64_t n) {
    int64_t b = (n + 255) / 256;
    return (int)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

template <typename K>
__global__ void seg_keys(const __grid_constant__ sk_cuda_seg s, K *keys, K *rows) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < s.rows; r += step) {
        int64_t o[5];
        sk_seg::row_offsets(s, r, o);
        keys[r] = (K)(sk_seg::resolve(s, o[3], o) ? o[2] : s.sentinel);
        rows[r] = (K)r;
    }
}

template <typename K>
int sort_rows(const sk_cuda_seg &s, void **keys_out, void **rows_out, cudaStream_t st) {
    size_t bytes = (size_t)s.rows * sizeof(K), temp_bytes = 0;
    K *k_in = nullptr, *r_in = nullptr, *k_out = nullptr, *r_out = nullptr;
    void *temp = nullptr;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k_in, k_out, r_in, r_out,
                                                    s.rows, 0, s.end_bit, st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&k_in, bytes, st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&r_in, bytes, st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&k_out, bytes, st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&r_out, bytes, st);
    if (e == cudaSuccess) e = cudaMallocAsync(&temp, temp_bytes ? temp_bytes : 1, st);
    if (e == cudaSuccess) {
        SK_LAUNCH(blocks_for(s.rows), 256, st, (seg_keys<K>), s, k_in, r_in);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k_in, k_out, r_in, r_out, s.rows,
                                            0, s.end_bit, st);
    for (void *p : {(void *)k_in, (void *)r_in, temp})
        if (p) cudaFreeAsync(p, st);
    if (e != cudaSuccess) {
        if (k_out) cudaFreeAsync(k_out, st);
        if (r_out) cudaFreeAsync(r_out, st);
        return (int)e;
    }
    *keys_out = k_out;
    *rows_out = r_out;
    return 0;
}

template <typename T>
__global__ void zero_fill(const __grid_constant__ sk_cuda_dense d) {
    T *out = reinterpret_cast<T *>(d.data);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < d.numel; i += step)
        out[sk_cuda_offset(d.ndim, d.shape, d.strides, i)] = T(0);
}

}  // namespace

extern "C" int sk_cuda_seg_sort(const sk_cuda_seg *s, void **keys, void **rows, void *stream) {
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    *keys = *rows = nullptr;
    return s->wide ? sort_rows<uint64_t>(*s, keys, rows, st)
                   : sort_rows<uint32_t>(*s, keys, rows, st);
}

extern "C" int sk_cuda_launch_zero(const sk_cuda_dense *d, void *stream) {
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    if (d->numel == 0) return 0;
    int b = blocks_for(d->numel);
    switch (d->elem_size) {
    case 1: SK_LAUNCH(b, 256, st, (zero_fill<uint8_t>), *d); break;
    case 2: SK_LAUNCH(b, 256, st, (zero_fill<uint16_t>), *d); break;
    case 4: SK_LAUNCH(b, 256, st, (zero_fill<uint32_t>), *d); break;
    default: SK_LAUNCH(b, 256, st, (zero_fill<uint64_t>), *d); break;
    }
    return (int)cudaGetLastError();
}

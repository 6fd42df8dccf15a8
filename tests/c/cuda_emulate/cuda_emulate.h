// The CUDA backend's kernels compiled as C++ for the CPU (tests/c/
// test_cuda_emulated.c): every kernel launch runs its blocks and threads one
// after another, so kernels without shared memory, barriers or warp
// operations (the walk, the checks, the segment scheme) run their own code
// over host memory; CUB's radix sort is std::stable_sort (stable, as CUB's
// is), atomics are plain read-modify-writes, the stream is ignored. What
// this cannot show: the CUDA compilation, concurrency, CUB itself, device
// memory. Included before each src/cuda/*.cu file (the wrappers beside it).
#ifndef SK_CUDA_EMULATE_H
#define SK_CUDA_EMULATE_H

#define SK_CUDA_EMULATE 1

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __grid_constant__

struct sk_emu_dim3 {
    unsigned x, y, z;
};
extern sk_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct uint2 {
    uint32_t x, y;
};
struct uint4 {
    uint32_t x, y, z, w;
};

typedef int cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };

inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) {
    *p = malloc(n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) {
    free(p);
    return cudaSuccess;
}
inline uint32_t __float_as_uint(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
inline float __uint_as_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
template <typename T>
T atomicMin(T *a, T v) {
    T old = *a;
    if (v < old) *a = v;
    return old;
}

template <typename F>
void sk_emu_launch(int blocks, int threads, F f) {
    gridDim = {(unsigned)blocks, 1, 1};
    blockDim = {(unsigned)threads, 1, 1};
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            blockIdx = {(unsigned)b, 0, 0};
            threadIdx = {(unsigned)t, 0, 0};
            f();
        }
}
#define SK_LAUNCH(blocks, threads, stream, kernel, ...)                                            \
    ((void)(stream), sk_emu_launch((blocks), (threads), [&] { SK_UNPAREN kernel(__VA_ARGS__); }))

// cub::DeviceRadixSort::SortPairs over bits [begin, end) of the keys: stable.
namespace sk_emu_cub {
struct DeviceRadixSort {
    template <typename K, typename V, typename N>
    static cudaError_t SortPairs(void *temp, size_t &bytes, const K *kin, K *kout, const V *vin,
                                 V *vout, N n, int begin, int end, cudaStream_t) {
        if (!temp) {
            bytes = 1;
            return cudaSuccess;
        }
        K mask = end >= (int)(8 * sizeof(K)) ? ~(K)0 : (((K)1 << end) - 1);
        mask &= ~(((K)1 << begin) - 1);
        std::vector<int64_t> order((size_t)n);
        for (int64_t i = 0; i < (int64_t)n; i++) order[(size_t)i] = i;
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return (kin[a] & mask) < (kin[b] & mask);
        });
        for (int64_t i = 0; i < (int64_t)n; i++) {
            kout[i] = kin[order[(size_t)i]];
            vout[i] = vin[order[(size_t)i]];
        }
        return cudaSuccess;
    }
};
}  // namespace sk_emu_cub
#define CUB_NS_QUALIFIER ::sk_emu_cub

#endif  // SK_CUDA_EMULATE_H

// Index validation on the GPU: the lowest row-major position of a bad value
// goes to a device status word by atomicMin, so the position reported is the
// same on every run and equals the CPU's. Values are only compared, never
// used as addresses; nothing asserts or traps, so a bad index leaves the
// CUDA context usable.
#ifndef SK_CUDA_EMULATE
#include <cuda_runtime.h>
#endif
#include <stdint.h>

#include "cuda/body.h"

namespace {

__global__ void check_index(const __grid_constant__ sk_cuda_check c, unsigned long long *word) {
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < c.numel; pos += step)
        if (sk_cuda_check_bad(&c, pos)) atomicMin(word, (unsigned long long)pos);
}

// tensor_scatter's write indices (one per batch): linear needs
// 0 <= w <= n - len, circular w >= 0 and an axis to wrap around.
template <typename IT>
__global__ void check_write_indices(const sk_cuda_ts t, int64_t len, unsigned long long *word) {
    const IT *wi = static_cast<const IT *>(t.write_indices);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < t.batch; b += step) {
        int64_t w = (int64_t)wi[b * t.wi_stride];
        bool ok = t.circular ? (w >= 0 && (t.n > 0 || len == 0)) : (w >= 0 && w <= t.n - len);
        if (!ok) atomicMin(word, (unsigned long long)b);
    }
}

// tensor_scatter's write: a thread per update element (sk_cuda_ts_target);
// the backward's read and zero of the same targets (t.dir).
template <typename T>
__global__ void ts_write(const __grid_constant__ sk_cuda_ts t) {
    const T *u = reinterpret_cast<const T *>(t.update);
    T *out = reinterpret_cast<T *>(t.out);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < t.numel; pos += step) {
        int64_t uoff, ooff;
        if (!sk_cuda_ts_target(&t, pos, &uoff, &ooff)) continue;
        if (t.dir == SK_CUDA_TS_READ) const_cast<T *>(u)[uoff] = out[ooff];
        else out[ooff] = t.dir == SK_CUDA_TS_ZERO ? T(0) : u[uoff];
    }
}

void launch_ts_write(const sk_cuda_ts &t, int blocks, cudaStream_t s) {
    switch (t.elem_size) {
    case 1: SK_LAUNCH(blocks, 256, s, (ts_write<uint8_t>), t); break;
    case 2: SK_LAUNCH(blocks, 256, s, (ts_write<uint16_t>), t); break;
    case 4: SK_LAUNCH(blocks, 256, s, (ts_write<uint32_t>), t); break;
    default: SK_LAUNCH(blocks, 256, s, (ts_write<uint64_t>), t); break;
    }
}

int blocks_for(int64_t n) {
    int64_t b = (n + 255) / 256;
    return (int)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

}  // namespace

extern "C" int sk_cuda_launch_check(const sk_cuda_check *c, uint64_t *word, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    unsigned long long *w = reinterpret_cast<unsigned long long *>(word);
    SK_LAUNCH(c->blocks, c->threads, s, (check_index), *c, w);
    return (int)cudaGetLastError();
}

extern "C" int sk_cuda_launch_ts_check(const sk_cuda_ts *t, uint64_t *word, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    unsigned long long *w = reinterpret_cast<unsigned long long *>(word);
    int64_t len = t->shape[t->axis];
    int b = blocks_for(t->batch);
    if (t->wi_is64) SK_LAUNCH(b, 256, s, (check_write_indices<int64_t>), *t, len, w);
    else SK_LAUNCH(b, 256, s, (check_write_indices<int32_t>), *t, len, w);
    return (int)cudaGetLastError();
}

extern "C" int sk_cuda_launch_ts_write(const sk_cuda_ts *t, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (t->numel == 0) return 0;
    launch_ts_write(*t, blocks_for(t->numel), s);
    return (int)cudaGetLastError();
}

// Index validation on the GPU: the lowest row-major position of a bad value
// goes to a device status word by atomicMin, so the position reported is the
// same on every run and equals the CPU's. Values are only compared, never
// used as addresses; nothing asserts or traps, so a bad index leaves the
// CUDA context usable.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/device.cuh"
#include "cuda/kernels.h"

namespace {

template <typename IT>
__global__ void check_index(const sk_cuda_check c, unsigned long long *word) {
    const IT *ix = static_cast<const IT *>(c.data);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < c.numel; pos += step) {
        int64_t off = 0, rem = pos, k = 0;
        for (int d = c.ndim - 1; d >= 0; d--) {
            int64_t coord = rem % c.shape[d];
            rem /= c.shape[d];
            off += coord * c.strides[d];
            if (d == c.comp_dim) k = coord;
        }
        int64_t v = (int64_t)ix[off], n = c.sizes[k];
        // v in [-n, n) <=> (uint64)(v + n) < 2n
        if ((uint64_t)v + (uint64_t)n >= (uint64_t)n * 2u) atomicMin(word, (unsigned long long)pos);
    }
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

// tensor_scatter's write: a thread per update element; the positions of a
// circular update before `skip` would be overwritten, so they are not
// written at all and every target is written at most once.
template <typename T, typename IT>
__global__ void ts_write(const sk_cuda_ts t) {
    const T *u = reinterpret_cast<const T *>(t.update);
    T *out = reinterpret_cast<T *>(t.out);
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t pos = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; pos < t.numel; pos += step) {
        int64_t uoff = 0, ooff = 0, rem = pos, b = 0, i = 0;
        for (int d = t.ndim - 1; d >= 0; d--) {
            int64_t c = rem % t.shape[d];
            rem /= t.shape[d];
            uoff += c * t.update_stride[d];
            if (d == t.axis) i = c;
            else ooff += c * t.out_stride[d];
            if (d == 0) b = c;
        }
        if (i < t.skip) continue;
        const IT *wi = static_cast<const IT *>(t.write_indices);
        int64_t w = wi ? (int64_t)wi[b * t.wi_stride] : 0;
        int64_t at = t.circular ? (w % t.n + i) % t.n : w + i;
        out[ooff + at * t.out_stride[t.axis]] = u[uoff];
    }
}

template <typename IT>
void launch_ts_write(const sk_cuda_ts &t, int blocks, cudaStream_t s) {
    switch (t.elem_size) {
    case 1: ts_write<uint8_t, IT><<<blocks, 256, 0, s>>>(t); break;
    case 2: ts_write<uint16_t, IT><<<blocks, 256, 0, s>>>(t); break;
    case 4: ts_write<uint32_t, IT><<<blocks, 256, 0, s>>>(t); break;
    default: ts_write<uint64_t, IT><<<blocks, 256, 0, s>>>(t); break;
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
    if (c->is64) check_index<int64_t><<<c->blocks, c->threads, 0, s>>>(*c, w);
    else check_index<int32_t><<<c->blocks, c->threads, 0, s>>>(*c, w);
    return (int)cudaGetLastError();
}

extern "C" int sk_cuda_launch_ts_check(const sk_cuda_ts *t, uint64_t *word, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    unsigned long long *w = reinterpret_cast<unsigned long long *>(word);
    int64_t len = t->shape[t->axis];
    if (t->wi_is64) check_write_indices<int64_t><<<blocks_for(t->batch), 256, 0, s>>>(*t, len, w);
    else check_write_indices<int32_t><<<blocks_for(t->batch), 256, 0, s>>>(*t, len, w);
    return (int)cudaGetLastError();
}

extern "C" int sk_cuda_launch_ts_write(const sk_cuda_ts *t, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (t->numel == 0) return 0;
    if (t->wi_is64) launch_ts_write<int64_t>(*t, blocks_for(t->numel), s);
    else launch_ts_write<int32_t>(*t, blocks_for(t->numel), s);
    return (int)cudaGetLastError();
}

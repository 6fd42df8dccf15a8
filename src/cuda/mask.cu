// masked_scatter and masked_select on the GPU: positions in row-major order
// are cut into tiles (SK_CUDA_MASK_TILE); a count per tile, an exclusive
// device scan of the counts (CUB), then a fill in which each tile ranks its
// True positions by a block scan. The k-th True position is therefore the
// CPU's k-th: the result is the same bytes.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/body.h"

namespace {

// THRUST_CUB_WRAPPED_NAMESPACE puts CUB inside sk_cccl
namespace cub = CUB_NS_QUALIFIER;

constexpr int THREADS = SK_CUDA_MASK_THREADS, PER = SK_CUDA_MASK_PER_THREAD;

// The True positions among this thread's positions of the tile, as bits.
__device__ inline unsigned thread_flags(const sk_cuda_mask_walk &m, int64_t tile) {
    return sk_cuda_mask_flags(&m, tile * SK_CUDA_MASK_TILE + (int64_t)threadIdx.x * PER);
}

// counts[tile] = True positions of the tile; or, counts == NULL, *total += them.
__global__ void mask_count(const __grid_constant__ sk_cuda_mask_walk m,
                           unsigned long long *counts, unsigned long long *total) {
    using Reduce = cub::BlockReduce<int, THREADS>;
    __shared__ typename Reduce::TempStorage tmp;
    for (int64_t tile = blockIdx.x; tile < m.tiles; tile += gridDim.x) {
        int n = __popc(thread_flags(m, tile));
        int sum = Reduce(tmp).Sum(n);
        if (threadIdx.x == 0) {
            if (counts) counts[tile] = (unsigned long long)sum;
            else atomicAdd(total, (unsigned long long)sum);
        }
        __syncthreads();
    }
}

template <typename T>
__global__ void mask_fill(const __grid_constant__ sk_cuda_mask_walk m,
                          const unsigned long long *offsets) {
    using Scan = cub::BlockScan<int, THREADS>;
    __shared__ typename Scan::TempStorage tmp;
    const T *x = reinterpret_cast<const T *>(m.x);
    const T *src = reinterpret_cast<const T *>(m.source);
    T *out = reinterpret_cast<T *>(m.out);
    for (int64_t tile = blockIdx.x; tile < m.tiles; tile += gridDim.x) {
        unsigned bits = thread_flags(m, tile);
        int before;
        Scan(tmp).ExclusiveSum(__popc(bits), before);
        int64_t k = (int64_t)offsets[tile] + before;
        int64_t first = tile * SK_CUDA_MASK_TILE + (int64_t)threadIdx.x * PER;
        for (int j = 0; j < PER && first + j < m.numel; j++) {
            bool is_true = bits >> j & 1u;
            int64_t dst, from;
            int move = sk_cuda_mask_move(&m, first + j, is_true, k, &dst, &from);
            if (move) out[dst] = move == 2 ? src[from] : x[from];
            k += is_true;
        }
        __syncthreads();
    }
}

int tile_blocks(int64_t tiles) { return (int)(tiles < 1 ? 1 : tiles > 8192 ? 8192 : tiles); }

// counts, offsets and CUB's scratch, all stream-ordered; then the fill.
int scan_and_fill(const sk_cuda_mask_walk *m, cudaStream_t s, unsigned long long *counts,
                  unsigned long long *offsets) {
    size_t tmp_bytes = 0;
    void *tmp = nullptr;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, counts, offsets,
                                                  (int)m->tiles, s);
    if (e == cudaSuccess) e = cudaMallocAsync(&tmp, tmp_bytes ? tmp_bytes : 1, s);
    if (e != cudaSuccess) return (int)e;
    mask_count<<<tile_blocks(m->tiles), THREADS, 0, s>>>(*m, counts, nullptr);
    e = cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, counts, offsets, (int)m->tiles, s);
    if (e == cudaSuccess) {
        int blocks = tile_blocks(m->tiles);
        switch (m->elem_size) {
        case 1: mask_fill<uint8_t><<<blocks, THREADS, 0, s>>>(*m, offsets); break;
        case 2: mask_fill<uint16_t><<<blocks, THREADS, 0, s>>>(*m, offsets); break;
        case 4: mask_fill<uint32_t><<<blocks, THREADS, 0, s>>>(*m, offsets); break;
        default: mask_fill<uint64_t><<<blocks, THREADS, 0, s>>>(*m, offsets); break;
        }
        e = cudaGetLastError();
    }
    cudaFreeAsync(tmp, s);
    return (int)e;
}

}  // namespace

extern "C" int sk_cuda_launch_mask_total(const sk_cuda_mask_walk *m, unsigned long long *total,
                                         void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    cudaError_t e = cudaMemsetAsync(total, 0, sizeof *total, s);
    if (e != cudaSuccess || m->numel == 0) return (int)e;
    mask_count<<<tile_blocks(m->tiles), THREADS, 0, s>>>(*m, nullptr, total);
    return (int)cudaGetLastError();
}

extern "C" int sk_cuda_launch_mask_fill(const sk_cuda_mask_walk *m, void *stream) {
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (m->numel == 0) return 0;
    unsigned long long *buf = nullptr;
    cudaError_t e = cudaMallocAsync(&buf, 2 * (size_t)m->tiles * sizeof *buf, s);
    if (e != cudaSuccess) return (int)e;
    int rc = scan_and_fill(m, s, buf, buf + m->tiles);
    cudaFreeAsync(buf, s);
    return rc;
}

// The CUDA runtime calls of src/cuda/runtime.cu over host memory (the
// emulation of cuda_emulate.h: one device, 0, every pointer on it), and the
// thread coordinates the emulated launches set.
#include "cuda_emulate.h"

#include "cuda/body.h"

sk_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

extern "C" int sk_cuda_rt_set_device(int device, int *previous) {
    *previous = 0;
    return device == 0 ? 0 : 101;
}
extern "C" int sk_cuda_rt_restore_device(int) { return 0; }
extern "C" int sk_cuda_rt_device_of(const void *, int *device) {
    *device = 0;
    return 0;
}
extern "C" int sk_cuda_rt_alloc(void **p, size_t bytes, void *s) {
    return cudaMallocAsync(p, bytes, s);
}
extern "C" int sk_cuda_rt_free(void *p, void *s) { return p ? cudaFreeAsync(p, s) : 0; }
extern "C" int sk_cuda_rt_read(void *host, const void *device, size_t bytes, void *) {
    memcpy(host, device, bytes);
    return 0;
}
extern "C" int sk_cuda_rt_fill_status(uint64_t *word, void *) {
    *word = SK_CUDA_NO_ERROR;
    return 0;
}
extern "C" int sk_cuda_rt_zero(void *device, size_t bytes, void *) {
    memset(device, 0, bytes);
    return 0;
}
extern "C" int sk_cuda_rt_last_error(void) { return 0; }
extern "C" const char *sk_cuda_rt_error_string(int err) {
    return err == 101 ? "no such emulated device" : "emulated CUDA error";
}
extern "C" bool sk_cuda_rt_is_oom(int err) { return err == cudaErrorMemoryAllocation; }
extern "C" bool sk_cuda_rt_is_no_device(int err) { return err == 101; }
// The masked count and fill: the positions in row-major order, one after
// another, through the kernels' bodies (the tiles and scans of mask.cu are
// tests/c/test_cuda_bodies.c's).
extern "C" int sk_cuda_launch_mask_total(const sk_cuda_mask_walk *m, unsigned long long *total,
                                         void *) {
    unsigned long long n = 0;
    for (int64_t first = 0; first < m->numel; first += SK_CUDA_MASK_PER_THREAD)
        n += (unsigned long long)__builtin_popcount(sk_cuda_mask_flags(m, first));
    *total = n;
    return 0;
}
extern "C" int sk_cuda_launch_mask_fill(const sk_cuda_mask_walk *m, void *) {
    size_t es = (size_t)m->elem_size;
    int64_t k = 0;
    for (int64_t pos = 0; pos < m->numel; pos++) {
        int64_t o[3], dst, from;
        sk_cuda_mask_offsets(m, pos, o);
        bool is_true = m->mask[o[0]] != 0;
        int move = sk_cuda_mask_move(m, pos, is_true, k, &dst, &from);
        const char *src = move == 2 ? m->source : m->x;
        if (move) memcpy(m->out + dst * (int64_t)es, src + from * (int64_t)es, es);
        k += is_true;
    }
    return 0;
}

// The CUDA runtime calls of src/cuda/runtime.cu over host memory (the
// emulation of cuda_emulate.h: one device, 0, every pointer on it), and the
// thread coordinates the emulated launches set. The masked operators' CUB
// block scans are not emulated: their launchers fail.
#include "cuda_emulate.h"

#include "cuda/kernels.h"

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
    return err == 1 ? "not emulated (CUB block scans)" : "emulated CUDA error";
}
extern "C" bool sk_cuda_rt_is_oom(int err) { return err == cudaErrorMemoryAllocation; }
extern "C" bool sk_cuda_rt_is_no_device(int err) { return err == 101; }
extern "C" int sk_cuda_launch_mask_total(const sk_cuda_mask_walk *, unsigned long long *, void *) {
    return 1;
}
extern "C" int sk_cuda_launch_mask_fill(const sk_cuda_mask_walk *, void *) { return 1; }

// The CUDA runtime calls of the backend, behind the C functions of
// cuda/kernels.h. Only the runtime API (cudart, linked statically): the
// driver library is loaded at run time, so a build with CUDA imports and
// runs CPU work on a machine without a driver. Nothing here synchronises
// the device: the one wait is on the call's own stream (sk_cuda_rt_read).
#include <cuda_runtime.h>

#include "cuda/kernels.h"

static cudaStream_t as_stream(void *s) { return static_cast<cudaStream_t>(s); }

extern "C" int sk_cuda_rt_set_device(int device, int *previous) {
    cudaError_t e = cudaGetDevice(previous);
    if (e != cudaSuccess) return (int)e;
    return *previous == device ? 0 : (int)cudaSetDevice(device);
}

extern "C" int sk_cuda_rt_restore_device(int device) {
    int now = -1;
    if (cudaGetDevice(&now) == cudaSuccess && now == device) return 0;
    return (int)cudaSetDevice(device);
}

extern "C" int sk_cuda_rt_device_of(const void *ptr, int *device) {
    cudaPointerAttributes a;
    if (ptr && cudaPointerGetAttributes(&a, ptr) == cudaSuccess && a.device >= 0 &&
        (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged)) {
        *device = a.device;
        return 0;
    }
    cudaGetLastError();  // an unknown pointer is not this call's error
    return (int)cudaGetDevice(device);
}

extern "C" int sk_cuda_rt_alloc(void **p, size_t bytes, void *stream) {
    return (int)cudaMallocAsync(p, bytes ? bytes : 1, as_stream(stream));
}

extern "C" int sk_cuda_rt_free(void *p, void *stream) {
    return p ? (int)cudaFreeAsync(p, as_stream(stream)) : 0;
}

// Copies device bytes to the host after the work already on `stream`, and
// waits for that stream only.
extern "C" int sk_cuda_rt_read(void *host, const void *device, size_t bytes, void *stream) {
    cudaError_t e = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, as_stream(stream));
    if (e != cudaSuccess) return (int)e;
    return (int)cudaStreamSynchronize(as_stream(stream));
}

extern "C" int sk_cuda_rt_fill_status(uint64_t *word, void *stream) {
    // every byte 0xff: SK_CUDA_NO_ERROR
    return (int)cudaMemsetAsync(word, 0xff, sizeof *word, as_stream(stream));
}

extern "C" int sk_cuda_rt_zero(void *device, size_t bytes, void *stream) {
    return (int)cudaMemsetAsync(device, 0, bytes, as_stream(stream));
}

extern "C" int sk_cuda_rt_last_error(void) { return (int)cudaGetLastError(); }

extern "C" const char *sk_cuda_rt_error_string(int err) {
    return cudaGetErrorString(static_cast<cudaError_t>(err));
}

extern "C" bool sk_cuda_rt_is_oom(int err) { return err == (int)cudaErrorMemoryAllocation; }

extern "C" bool sk_cuda_rt_is_no_device(int err) {
    return err == (int)cudaErrorNoDevice || err == (int)cudaErrorInsufficientDriver ||
           err == (int)cudaErrorInvalidDevice;
}

/*
 * test_devices.c - the device seam. A build without a backend for a device
 * refuses its tensors with SK_STATUS_UNSUPPORTED_DEVICE before any element
 * is read (the data pointers here point at nothing: a read would crash), and
 * a call whose tensors are on different devices is refused with
 * SK_STATUS_INVALID_ARGUMENT (ValueError in Python), naming both devices.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* Addresses no test may read: device pointers, as far as the host knows;
 * each tensor gets its own, so that they do not overlap. */
static uintptr_t nowhere = 0x100000;

static sk_tensor on(int32_t device_type, sk_dtype dt, int32_t ndim, const int64_t *shape,
                    void *host) {
    sk_tensor t;
    nowhere += 0x10000;
    sk_tensor_init(&t, device_type == SK_DEVICE_CPU ? host : (void *)nowhere, dt, ndim, shape,
                   NULL);
    t.device_type = device_type;
    return t;
}

typedef struct {
    float x[12], src[12], out[12];
    int64_t index[12];
    bool mask[12];
} host_buffers;

/* Runs operator `op` with x and out on device xdev, its index-like operand
 * on idev. */
enum { NOPS = 10 };
static const char *const op_names[NOPS] = {"gather", "scatter", "index_select",
                                           "masked_select_count", "masked_scatter",
                                           "slice_scatter", "tensor_scatter", "copy",
                                           "gather_backward", "masked_select_backward"};

static sk_status run_one(int op, int32_t xdev, int32_t idev) {
    static host_buffers h;
    const int64_t s34[2] = {3, 4}, s3[1] = {3}, s4[1] = {4};
    sk_tensor x = on(xdev, SK_DTYPE_FLOAT32, 2, s34, h.x);
    sk_tensor out = on(xdev, SK_DTYPE_FLOAT32, 2, s34, h.out);
    sk_tensor src = on(xdev, SK_DTYPE_FLOAT32, 2, s34, h.src);
    sk_tensor idx2 = on(idev, SK_DTYPE_INT64, 2, s34, h.index);
    sk_tensor idx1 = on(idev, SK_DTYPE_INT64, 1, s3, h.index);
    sk_tensor mask = on(idev, SK_DTYPE_BOOL, 2, s34, h.mask);
    sk_tensor row = on(idev, SK_DTYPE_FLOAT32, 1, s4, h.src);
    sk_tensor wi = on(idev, SK_DTYPE_INT64, 1, s3, h.index);
    sk_tensor cache = on(xdev, SK_DTYPE_FLOAT32, 2, s34, h.x);
    int64_t count = -1;
    const int32_t axes[1] = {0};
    const int64_t start[1] = {0}, stop[1] = {1}, step[1] = {1};
    const int64_t s14[2] = {1, 4}, s31[2] = {3, 1};
    sk_tensor slice = on(idev, SK_DTYPE_FLOAT32, 2, s14, h.src);
    sk_tensor upd = on(idev, SK_DTYPE_FLOAT32, 2, s31, h.src);
    (void)row;
    switch (op) {
    case 0: return sk_gather(&x, &idx2, 0, SK_INDEX_MODE_ERROR, NULL, &out, NULL);
    case 1: return sk_scatter(&x, &idx2, &src, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &out, NULL);
    case 2: return sk_index_select(&x, &idx1, 0, SK_INDEX_MODE_ERROR, NULL, &out, NULL);
    case 3: return sk_masked_select_count(&x, &mask, &count, NULL);
    case 4: return sk_masked_scatter(&x, &mask, &src, &out, NULL);
    case 5: return sk_slice_scatter(&x, &slice, 1, axes, start, stop, step, &out, NULL);
    case 6: return sk_tensor_scatter(&cache, &upd, &wi, 1, SK_TENSOR_SCATTER_LINEAR, &out, NULL);
    case 7: return sk_copy(&src, &out, NULL);
    case 8: return sk_gather_backward(&x, &idx2, 0, SK_INDEX_MODE_ERROR, &out, NULL);
    case 9: { /* x (4,) broadcast against the (3, 4) mask: its buffers are the host's */
        const int64_t s12[1] = {12};
        sk_tensor g = on(xdev, SK_DTYPE_FLOAT32, 1, s12, h.src);
        sk_tensor gx = on(xdev, SK_DTYPE_FLOAT32, 1, s4, h.out);
        return sk_masked_select_backward(&g, &mask, &gx, NULL);
    }
    }
    return SK_STATUS_INTERNAL;
}

int main(void) {
#ifndef SK_HAVE_CUDA /* a CUDA build runs these (test_cuda.c checks its refusal without a GPU) */
    for (int i = 0; i < NOPS; i++) {
        sk_status st = run_one(i, SK_DEVICE_CUDA, SK_DEVICE_CUDA);
        SKT_CHECK(st == SK_STATUS_UNSUPPORTED_DEVICE,
                  "%s with CUDA tensors in a CPU-only build: status %d (%s), want %d", op_names[i],
                  (int)st, sk_last_error(), (int)SK_STATUS_UNSUPPORTED_DEVICE);
    }
#endif
    /* every build: not implemented on CUDA, refused before a device
     * pointer is read (a CUDA build's backend is not even entered) */
    sk_status st9 = run_one(9, SK_DEVICE_CUDA, SK_DEVICE_CUDA);
    SKT_CHECK(st9 == SK_STATUS_UNSUPPORTED_DEVICE &&
                  strstr(sk_last_error(), "masked_select_backward"),
              "masked_select_backward onto a broadcast x on CUDA: status %d (%s), want %d",
              (int)st9, sk_last_error(), (int)SK_STATUS_UNSUPPORTED_DEVICE);
    for (int i = 0; i < NOPS; i++) {
        if (i == 7) continue; /* copy's operands are both on x's device here */
        sk_status st = run_one(i, SK_DEVICE_CPU, SK_DEVICE_CUDA);
        SKT_CHECK(st == SK_STATUS_INVALID_ARGUMENT && strstr(sk_last_error(), "device"),
                  "%s with mixed devices: status %d (%s), want %d", op_names[i], (int)st,
                  sk_last_error(), (int)SK_STATUS_INVALID_ARGUMENT);
    }
    printf("devices: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}

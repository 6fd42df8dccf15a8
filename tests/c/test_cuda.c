/*
 * test_cuda.c - the CUDA backend on a GPU: every data-movement operator on
 * device tensors against the same call on the CPU, bit for bit (status,
 * message and output bytes), including index errors (nothing written, the
 * context usable by the next call). Without a device it checks that a CUDA
 * tensor is refused with SK_STATUS_UNSUPPORTED_DEVICE and exits 77
 * (skipped). Usage: test_cuda [small]  (small: the compute-sanitizer subset).
 */
#include "test_cuda.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CU_MAX_PAIRS = 4096 };
static cu_pair *made[CU_MAX_PAIRS];
static int nmade;

static void cu_abort(const char *what, cudaError_t e) {
    fprintf(stderr, "test_cuda: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
}

/* Room for a tensor's elements wherever its strides put them: the layout
 * starts at offset `lead` elements into the buffer. */
static cu_pair *cu_alloc(sk_dtype dt, int32_t ndim, const int64_t *shape, const int64_t *strides) {
    cu_pair *p = calloc(1, sizeof *p);
    size_t es = sk_dtype_size(dt);
    int64_t lo = 0, hi = 0;
    for (int32_t d = 0; d < ndim; d++) {
        int64_t span = shape[d] > 0 ? (shape[d] - 1) * strides[d] : 0;
        if (span < 0) lo += span;
        else hi += span;
    }
    p->bytes = (size_t)(hi - lo + 1) * es;
    p->hbase = malloc(p->bytes);
    cudaError_t e = cudaMalloc(&p->dbase, p->bytes);
    if (!p->hbase || e != cudaSuccess) cu_abort("allocation", e);
    sk_tensor_init(&p->h, (char *)p->hbase - lo * (int64_t)es, dt, ndim, shape, strides);
    p->d = p->h;
    p->d.data = (char *)p->dbase - lo * (int64_t)es;
    p->d.device_type = SK_DEVICE_CUDA;
    p->d.device_id = 0;
    if (nmade < CU_MAX_PAIRS) made[nmade++] = p;
    return p;
}

void cu_upload(cu_pair *p) {
    cudaError_t e = cudaMemcpy(p->dbase, p->hbase, p->bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) cu_abort("upload", e);
}

void cu_free_all(void) {
    for (int i = 0; i < nmade; i++) {
        free(made[i]->hbase);
        cudaFree(made[i]->dbase);
        free(made[i]);
    }
    nmade = 0;
}

cu_pair *cu_tensor(skt_rng *r, sk_dtype dt, int32_t ndim, const int64_t *shape, int layout) {
    int64_t strides[SK_MAX_DIMS], order[SK_MAX_DIMS], acc = 1;
    for (int32_t d = 0; d < ndim; d++) order[d] = d;
    if (layout == CU_TRANSPOSED && ndim >= 2) { /* the last two dimensions column-major */
        order[ndim - 1] = ndim - 2;
        order[ndim - 2] = ndim - 1;
    }
    for (int32_t k = ndim - 1; k >= 0; k--) {
        strides[order[k]] = acc;
        acc *= shape[order[k]] > 0 ? shape[order[k]] : 1;
    }
    if (layout == CU_FLIPPED && ndim >= 1) strides[0] = -strides[0];
    cu_pair *p = cu_alloc(dt, ndim, shape, strides);
    unsigned char *b = p->hbase;
    for (size_t i = 0; i < p->bytes; i++) b[i] = (unsigned char)skt_next(r);
    if (dt == SK_DTYPE_BOOL)
        for (size_t i = 0; i < p->bytes; i++) b[i] &= 1;
    cu_upload(p);
    return p;
}

cu_pair *cu_index(skt_rng *r, bool is64, int32_t ndim, const int64_t *shape, int64_t lo,
                  int64_t hi) {
    cu_pair *p = cu_tensor(r, is64 ? SK_DTYPE_INT64 : SK_DTYPE_INT32, ndim, shape, CU_CONTIGUOUS);
    int64_t n = skt_numel(ndim, shape);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = skt_range(r, lo, hi);
        if (is64) ((int64_t *)p->h.data)[i] = v;
        else ((int32_t *)p->h.data)[i] = (int32_t)v;
    }
    cu_upload(p);
    return p;
}

cu_pair *cu_mask(skt_rng *r, int32_t ndim, const int64_t *shape, int pct) {
    cu_pair *p = cu_tensor(r, SK_DTYPE_BOOL, ndim, shape, CU_CONTIGUOUS);
    unsigned char *b = p->hbase;
    for (size_t i = 0; i < p->bytes; i++) b[i] = skt_range(r, 0, 99) < pct;
    cu_upload(p);
    return p;
}

sk_status cu_both(const char *what, cu_call fn, const void *arg, cu_pair *const *t, int n,
                  const int *written, int nwritten) {
    sk_tensor *host[16], *dev[16];
    for (int i = 0; i < n && i < 16; i++) {
        host[i] = t[i] ? &t[i]->h : NULL;
        dev[i] = t[i] ? &t[i]->d : NULL;
    }
    sk_status hs = fn(host, arg);
    char hmsg[512];
    snprintf(hmsg, sizeof hmsg, "%s", sk_last_error());
    sk_status ds = fn(dev, arg);
    cudaError_t e = cudaDeviceSynchronize();
    SKT_CHECK(e == cudaSuccess, "%s: CUDA error after the call: %s", what, cudaGetErrorString(e));
    SKT_CHECK(hs == ds, "%s: status cpu %d (%s), cuda %d (%s)", what, (int)hs, hmsg, (int)ds,
              sk_last_error());
    if (hs != SK_STATUS_OK)
        SKT_CHECK(strcmp(hmsg, sk_last_error()) == 0, "%s: message cpu '%s', cuda '%s'", what, hmsg,
                  sk_last_error());
    for (int k = 0; k < nwritten; k++) {
        cu_pair *p = t[written[k]];
        unsigned char *back = malloc(p->bytes);
        cudaMemcpy(back, p->dbase, p->bytes, cudaMemcpyDeviceToHost);
        size_t first = p->bytes;
        for (size_t i = 0; i < p->bytes && first == p->bytes; i++)
            if (back[i] != ((unsigned char *)p->hbase)[i]) first = i;
        SKT_CHECK(first == p->bytes, "%s: output %d differs from the CPU's at byte %zu of %zu",
                  what, written[k], first, p->bytes);
        free(back);
    }
    return hs;
}

/* Without a device: a CUDA tensor is refused cleanly (nothing is read). */
static int no_device(cudaError_t why) {
    const int64_t shape[1] = {4};
    sk_tensor x, index, out;
    sk_tensor_init(&x, (void *)(uintptr_t)0x100000, SK_DTYPE_FLOAT32, 1, shape, NULL);
    sk_tensor_init(&index, (void *)(uintptr_t)0x200000, SK_DTYPE_INT64, 1, shape, NULL);
    sk_tensor_init(&out, (void *)(uintptr_t)0x300000, SK_DTYPE_FLOAT32, 1, shape, NULL);
    x.device_type = index.device_type = out.device_type = SK_DEVICE_CUDA;
    sk_status st = sk_index_select(&x, &index, 0, SK_INDEX_MODE_ERROR, NULL, &out, NULL);
    SKT_CHECK(st == SK_STATUS_UNSUPPORTED_DEVICE &&
                  strstr(sk_last_error(), "no usable CUDA device"),
              "index_select without a device: status %d (%s)", (int)st, sk_last_error());
    printf("cuda: no CUDA device (%s): refusal checked (%ld checks, %ld failures); the GPU "
           "cases are skipped\n", cudaGetErrorString(why), skt_checks, skt_failures);
    return skt_failures ? 1 : 77;
}

int main(int argc, char **argv) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) return no_device(e != cudaSuccess ? e : cudaErrorNoDevice);
    bool small = argc > 1 && strcmp(argv[1], "small") == 0;
    cu_run_cases(small);
    cu_free_all();
    printf("cuda: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}

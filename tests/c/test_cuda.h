/*
 * test_cuda.h - the CUDA tester's pieces: tensors kept twice, in host memory
 * and in device memory with the same bytes and layout, and running one call
 * on both to compare status, message and every byte of the output.
 */
#ifndef SK_TEST_CUDA_H
#define SK_TEST_CUDA_H

#include "harness.h"

/* A tensor in host memory and its device twin (same bytes, same strides). */
typedef struct {
    sk_tensor h, d;
    void *hbase, *dbase;
    size_t bytes;
} cu_pair;

enum { CU_CONTIGUOUS = 0, CU_TRANSPOSED = 1, CU_FLIPPED = 2 };

/* Random bytes in the given layout (transposed: the last two dimensions'
 * strides swapped; flipped: a negative stride on dimension 0). */
cu_pair *cu_tensor(skt_rng *r, sk_dtype dt, int32_t ndim, const int64_t *shape, int layout);
/* An index tensor (int64 or int32) with values in [lo, hi]. */
cu_pair *cu_index(skt_rng *r, bool is64, int32_t ndim, const int64_t *shape, int64_t lo,
                  int64_t hi);
/* A bool mask, True with probability pct / 100. */
cu_pair *cu_mask(skt_rng *r, int32_t ndim, const int64_t *shape, int pct);
/* Copies the host bytes to the device again (after a host-side edit). */
void cu_upload(cu_pair *p);
/* Frees every pair made since the last call. */
void cu_free_all(void);

/* A call on tensors t[0 .. n-1] (host or device twins alike). */
typedef sk_status (*cu_call)(sk_tensor *const *t, const void *arg);

/* Runs fn on the host tensors and on the device twins; checks that the
 * status and the message agree and that every byte of each written tensor
 * (t[i] for i in written[]) is the same on both sides, within its extent.
 * Returns the status. */
sk_status cu_both(const char *what, cu_call fn, const void *arg, cu_pair *const *t, int n,
                  const int *written, int nwritten);

/* The operator cases (test_cuda_ops.c); `small`: the subset run under
 * compute-sanitizer. */
void cu_run_cases(bool small);

#endif /* SK_TEST_CUDA_H */

/* sk_bucketize: the owner bucketing of scatterkit.distributed. The
 * descriptors are checked here; the partition and the index values by the
 * backend, before it writes. */
#include "ops/ops.h"

static sk_status sk_bucket_check_out(const char *arg, sk_tensor *t, int64_t n, bool int32_ok,
                                     const sk_tensor *const *inputs, const char *const *names,
                                     int ninputs) {
    sk_status st = sk_check_tensor("bucketize", arg, t);
    if (st) return st;
    sk_dtype dt = int32_ok && t->dtype == SK_DTYPE_INT32 ? SK_DTYPE_INT32 : SK_DTYPE_INT64;
    return sk_check_out_as("bucketize", arg, t, dt, 1, &n, NULL, inputs, names, ninputs);
}

static sk_status sk_bucket_check_index(const sk_tensor *index, const sk_tensor *partition) {
    sk_status st;
    if ((st = sk_check_tensor("bucketize", "index", index))) return st;
    if ((st = sk_check_index_dtype("bucketize", "index", index))) return st;
    if ((st = sk_check_tensor("bucketize", "partition", partition))) return st;
    if (index->ndim != 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "bucketize: index must be 1-d, got %d dimensions",
                       (int)index->ndim);
    if (partition->dtype != SK_DTYPE_INT64)
        return sk_fail(SK_STATUS_INVALID_DTYPE, "bucketize: partition must be int64, got %s",
                       sk_dtype_name(partition->dtype));
    if (partition->ndim != 1 || partition->shape[0] < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "bucketize: partition must be 1-d with P + 1 >= 2 row offsets");
    return SK_STATUS_OK;
}

sk_status sk_bucketize(const sk_tensor *index, const sk_tensor *partition, sk_index_mode mode,
                       sk_tensor *counts, sk_tensor *perm, sk_tensor *local,
                       const sk_options *opts) {
    sk_status st;
    if ((st = sk_bucket_check_index(index, partition))) return st;
    if ((unsigned)mode > SK_INDEX_MODE_FILL)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "bucketize: unknown mode %d", (int)mode);
    int64_t len = index->shape[0];
    const sk_tensor *in[5] = {index, partition, counts, perm, local};
    static const char *const names[5] = {"index", "partition", "counts", "perm", "local"};
    /* each output against the inputs and the outputs checked before it */
    if ((st = sk_bucket_check_out("counts", counts, partition->shape[0], false, in, names, 2)) ||
        (st = sk_bucket_check_out("perm", perm, len, false, in, names, 3)) ||
        (st = sk_bucket_check_out("local", local, len, true, in, names, 4)))
        return st;
    if ((st = sk_check_same_device("bucketize", "index", index, in + 1, names + 1, 1))) return st;
    sk_bucket_desc d = {"bucketize", index, partition, mode, counts, perm, local};
    return sk_dispatch_bucketize(&d, opts);
}

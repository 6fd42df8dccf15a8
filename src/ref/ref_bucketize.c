/* The reference of sk_bucketize: for each owner in turn (then the ids set
 * aside), the positions whose id it owns, in increasing position. */
#include "ref.h"
#include "ref_internal.h"

static int64_t ref_part(const sk_tensor *partition, int64_t r) {
    return ((const int64_t *)partition->data)[r * partition->strides[0]];
}

/* The owner of position i's id (nranks: set aside), the id resolved in *g. */
static int64_t ref_owner(const sk_tensor *index, const sk_tensor *partition, sk_index_mode mode,
                         int64_t i, int64_t *g) {
    int64_t nranks = partition->shape[0] - 1;
    if (ref_resolve(ref_load_index(index, &i), ref_part(partition, nranks), mode, g) != RES_OK)
        return nranks;
    for (int64_t r = 0; r < nranks; r++)
        if (*g >= ref_part(partition, r) && *g < ref_part(partition, r + 1)) return r;
    return nranks;
}

sk_status skref_bucketize(const sk_tensor *index, const sk_tensor *partition, sk_index_mode mode,
                          sk_tensor *counts, sk_tensor *perm, sk_tensor *local,
                          const sk_options *opts) {
    (void)opts;
    int64_t nb = partition->shape[0], len = index->shape[0], g, k = 0;
    for (int64_t i = 0; i < len; i++)
        if (ref_resolve(ref_load_index(index, &i), ref_part(partition, nb - 1), mode, &g) ==
            RES_ERROR)
            return SK_STATUS_INDEX_OUT_OF_RANGE;
    for (int64_t b = 0; b < nb; b++) {
        int64_t first = k;
        for (int64_t i = 0; i < len; i++) {
            if (ref_owner(index, partition, mode, i, &g) != b) continue;
            int64_t id = b == nb - 1 ? -1 : g - ref_part(partition, b);
            ((int64_t *)perm->data)[k * perm->strides[0]] = i;
            if (local->dtype == SK_DTYPE_INT64) ((int64_t *)local->data)[k * local->strides[0]] = id;
            else ((int32_t *)local->data)[k * local->strides[0]] = (int32_t)id;
            k++;
        }
        ((int64_t *)counts->data)[b * counts->strides[0]] = k - first;
    }
    return SK_STATUS_OK;
}

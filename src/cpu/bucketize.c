/* The CPU kernel of sk_bucketize: a stable counting sort of the index
 * positions by owner, in chunks of positions: (A) each chunk counts its ids
 * per owner, (B) the counts become first places owner by owner, chunk by
 * chunk, (C) each chunk places its positions in order. A position's place
 * depends only on the index, never on which thread ran its chunk. */
#include "cpu/cpu.h"

#include <stdlib.h>

typedef struct sk_bucket_job {
    const sk_bucket_desc *d;
    const int64_t *part; /* the P + 1 offsets, contiguous */
    int64_t nb;          /* buckets: P owners, then the ids set aside */
    int64_t *at;         /* [nchunks][nb]: (A) counts, then (B) next places */
} sk_bucket_job;

/* The owner of resolved id g in [0, part[P]): the last r with part[r] <= g
 * (empty shards share their offset with the next one, which owns g). */
static int64_t sk_bucket_owner(const int64_t *part, int64_t nranks, int64_t g) {
    int64_t lo = 0, hi = nranks - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (part[mid] <= g) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Bucket of position i (nb - 1: set aside) and the resolved id in *g. */
static int64_t sk_bucket_of(const sk_bucket_job *j, int64_t i, int64_t *g) {
    const sk_tensor *ix = j->d->index;
    int64_t v = sk_load_index(ix->data, ix->dtype == SK_DTYPE_INT64, i * ix->strides[0]);
    int64_t nranks = j->nb - 1;
    if (!sk_resolve_index(v, j->part[nranks], j->d->mode, g)) return nranks;
    return sk_bucket_owner(j->part, nranks, *g);
}

static void sk_bucket_count(void *ctx, int tid, int64_t c, int64_t lo, int64_t hi) {
    (void)tid;
    const sk_bucket_job *j = (const sk_bucket_job *)ctx;
    int64_t *at = j->at + c * j->nb, g;
    for (int64_t i = lo; i < hi; i++) at[sk_bucket_of(j, i, &g)]++;
}

static void sk_bucket_place(void *ctx, int tid, int64_t c, int64_t lo, int64_t hi) {
    (void)tid;
    const sk_bucket_job *j = (const sk_bucket_job *)ctx;
    const sk_tensor *perm = j->d->perm, *local = j->d->local;
    int64_t *at = j->at + c * j->nb, *pd = (int64_t *)perm->data, g;
    bool l64 = local->dtype == SK_DTYPE_INT64;
    for (int64_t i = lo; i < hi; i++) {
        int64_t b = sk_bucket_of(j, i, &g), k = at[b]++;
        int64_t id = b == j->nb - 1 ? -1 : g - j->part[b];
        pd[k * perm->strides[0]] = i;
        if (l64) ((int64_t *)local->data)[k * local->strides[0]] = id;
        else ((int32_t *)local->data)[k * local->strides[0]] = (int32_t)id;
    }
}

/* The offsets start at 0 and never decrease; a shard too large for an int32
 * `local` is refused. */
static sk_status sk_bucket_check_partition(const sk_bucket_desc *d, int64_t *part, int64_t n) {
    const sk_tensor *p = d->partition;
    for (int64_t r = 0; r < n; r++) {
        part[r] = ((const int64_t *)p->data)[r * p->strides[0]];
        if (r == 0 && part[0] != 0)
            return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                           "%s: partition[0] = %lld; the row offsets must start at 0", d->op,
                           (long long)part[0]);
        if (r > 0 && part[r] < part[r - 1])
            return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                           "%s: partition[%lld] = %lld is below partition[%lld] = %lld; the row "
                           "offsets must not decrease",
                           d->op, (long long)r, (long long)part[r], (long long)(r - 1),
                           (long long)part[r - 1]);
        if (r > 0 && d->local->dtype == SK_DTYPE_INT32 && part[r] - part[r - 1] > INT32_MAX)
            return sk_fail(SK_STATUS_INVALID_DTYPE,
                           "%s: local is int32 but rank %lld owns %lld rows; use int64", d->op,
                           (long long)(r - 1), (long long)(part[r] - part[r - 1]));
    }
    return SK_STATUS_OK;
}

/* (B): counts into first places, owner by owner, chunk by chunk; the totals
 * into counts. */
static void sk_bucket_places(const sk_bucket_job *j, int64_t nchunks) {
    const sk_tensor *counts = j->d->counts;
    int64_t next = 0;
    for (int64_t b = 0; b < j->nb; b++) {
        int64_t first = next;
        for (int64_t c = 0; c < nchunks; c++) {
            int64_t n = j->at[c * j->nb + b];
            j->at[c * j->nb + b] = next;
            next += n;
        }
        ((int64_t *)counts->data)[b * counts->strides[0]] = next - first;
    }
}

sk_status sk_cpu_bucketize(const sk_bucket_desc *d, const sk_exec *e) {
    int64_t nb = d->partition->shape[0], len = d->index->shape[0];
    int64_t *part = (int64_t *)malloc((size_t)nb * sizeof(int64_t));
    if (!part) return sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory", d->op);
    sk_status st = sk_bucket_check_partition(d, part, nb);
    int nt = sk_threads_for_work(sk_exec_threads(e), len);
    int32_t axis = 0;
    if (st == SK_STATUS_OK)
        st = sk_validate_index(d->op, "index", d->index, -1, &axis, &part[nb - 1], d->mode, nt);
    int64_t nchunks = len > 0 ? sk_chunks_for(nt, len, 1) : 1;
    int64_t *at = NULL;
    if (st == SK_STATUS_OK && !(at = (int64_t *)calloc((size_t)(nchunks * nb), sizeof(int64_t))))
        st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for %lld x %lld counts", d->op,
                     (long long)nchunks, (long long)nb);
    if (st == SK_STATUS_OK) {
        sk_bucket_job j = {d, part, nb, at};
        sk_note_kernel("cpu/bucketize");
        if (len > 0) sk_parallel_chunks(nt, len, nchunks, sk_bucket_count, &j);
        sk_bucket_places(&j, nchunks);
        if (len > 0) sk_parallel_chunks(nt, len, nchunks, sk_bucket_place, &j);
    }
    free(at);
    free(part);
    return st;
}

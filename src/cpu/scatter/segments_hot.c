/* Path "cpu/scatter/segments_hot": segments (segments.h) for a problem
 * in which one key takes so large a share of the update rows that the
 * thread folding it would hold up the rest (sk_seg_hot_suits): the float
 * sums, means and products of message passing into a hub, of a batch
 * whose ids repeat one id, of HOT (BENCH.md).
 *
 * The canonical order cuts a key's rows, in position order, into chunks of
 * SK_CANONICAL_CHUNK: the first folded into the start value, each later one
 * folded from its own first row into a partial row, the partials then
 * folded into the value one after another. The chunks of one key are
 * therefore independent until that last step, so they are the unit of work
 * here: the rows are sorted by key (sk_seg_sort_all), every key's first
 * chunk is folded into its row of out and every later chunk into a partial
 * row of its own, on any thread (two parallel regions of about equal
 * units), and a third region folds each key's partials into its value in
 * order. 16-bit types fold into float32 rows (a value row per key, the
 * partial rows) and are rounded once at the end, as in segments. The bits
 * are those of every other path. */
#include "cpu/scatter/segments_parts.h"

typedef struct {
    sk_seg_job job;       /* the layout: row plan, len, nkeys */
    sk_seg_job sort;      /* the rows by key: perm, end */
    sk_seg_parts pt;      /* the value and partial rows (pt.end: sort.end) */
    int64_t nparts;       /* partial rows: chunks past each key's first */
    int32_t *part_order;  /* [nparts]: the partial rows by their chunk's first row */
} sk_hot_job;

/* Whether the key with the most rows, in a sample of SK_SEG_HOT_SAMPLE rows
 * spread evenly over the index, takes more than SK_SEG_HOT_SHARE_TENTHS
 * tenths of what one of `groups` threads would fold in segments_direct.
 * The sample is fixed by the problem; either answer gives the same bits.
 * Its keys are counted in a small open-addressing table: every call that
 * segments_direct could take asks this first, so it must cost little. */
static bool sk_hot_key_in_sample(const sk_seg_job *layout, int groups) {
    enum { SLOTS = 2 * SK_SEG_HOT_SAMPLE }; /* a power of two, half empty at most */
    sk_seg_job j = *layout;
    sk_seg_window(&j, 0, j.nkeys, 0);
    int32_t slot_key[SLOTS];
    uint16_t slot_count[SLOTS];
    memset(slot_key, 0xff, sizeof slot_key); /* -1: empty */
    int64_t n = j.nrows < SK_SEG_HOT_SAMPLE ? j.nrows : SK_SEG_HOT_SAMPLE, best = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t k;
        int64_t r = i * j.nrows / n;
        sk_seg_keys_of(&j, &k, r, r + 1);
        if (k < 0) continue; /* dropped */
        uint32_t s = ((uint32_t)k * 2654435761u) & (SLOTS - 1);
        while (slot_key[s] >= 0 && slot_key[s] != k) s = (s + 1) & (SLOTS - 1);
        if (slot_key[s] < 0) {
            slot_key[s] = k;
            slot_count[s] = 0;
        }
        if (++slot_count[s] > best) best = slot_count[s];
    }
    return best * groups * 10 > n * SK_SEG_HOT_SHARE_TENTHS;
}

/* This path's own scratch: the value and partial rows (segments_parts.h),
 * the partials' order and its counts (nparts + 2 at most:
 * sk_hot_order_parts). Carved into h where `at` is not NULL (*count: the
 * order's counts). Returns its bytes. */
static size_t sk_hot_scratch(const sk_seg_job *job, char *at, sk_hot_job *h, int32_t **count) {
    const size_t order = (size_t)(sk_seg_parts_most(job->nrows) + 2) * sizeof(int32_t);
    size_t parts = sk_seg_parts_scratch(job, at ? &at : NULL, at ? &h->pt : NULL);
    if (at) {
        h->part_order = sk_scratch_carve(&at, order);
        *count = sk_scratch_carve(&at, order);
    }
    return parts + 2 * sk_scratch_round(order);
}

/* The layout of a float sum, mean or prod that segments_direct takes
 * (contiguous rows of 64 bytes or more) in two groups or more, whose
 * scratch (sk_seg_sort_all's and this path's, *own) fits the budget. */
static bool sk_hot_layout(sk_seg_job *job, const sk_plan *p, const sk_exec *ex, size_t *own) {
    if (!sk_scatter_folds_chunks(p) || !sk_seg_layout(job, p, ex, true) || !job->out_row_major ||
        job->ngroups < 2)
        return false;
    *own = sk_hot_scratch(job, NULL, NULL, NULL);
    double bytes = (double)sk_seg_sort_all_bytes(job->nrows, job->nkeys) + (double)*own;
    return bytes <= sk_scatter_budget(p, ex);
}

/* ... with a hot key in the sample. */
static bool sk_hot_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                           sk_path_need *need) {
    (void)copy_from;
    sk_seg_job job;
    size_t own;
    if (!sk_hot_layout(&job, p, ex, &own) || !sk_hot_key_in_sample(&job, (int)job.ngroups))
        return false;
    need->scratch_bytes = own;
    need->fuses_copy = false;
    return true;
}

/* Rows [i0, i1) of perm (one chunk of one key, in position order) into
 * `dest`: from its first row (first), else into the value there. */
SK_INLINE void sk_hot_chunk(const sk_hot_job *h, char *dest, int64_t i0, int64_t i1, bool first,
                            const sk_dtype DT, const sk_reduce OP) {
    const sk_seg_job *job = &h->job;
    const int64_t len = job->len;
    const sk_seg_src_rows src = sk_seg_src_rows_of(job);
    const int src_lines = sk_seg_src_lines(job, &src);
    const int32_t *restrict perm = h->sort.perm;
    for (int64_t i = i0; i < i1; i++) {
        if (i + SK_SEG_AHEAD < i1)
            sk_prefetch_lines_l2(sk_seg_src_rows_at(job, &src, perm[i + SK_SEG_AHEAD]), src_lines);
        const char *row = sk_seg_src_rows_at(job, &src, perm[i]);
        sk_seg_parts_step(dest, row, len, first && i == i0, DT, OP);
    }
}

/* The first chunk of keys [k0, k1), into their values. */
static void sk_hot_firsts(const sk_hot_job *h, int64_t k0, int64_t k1, const sk_dtype DT,
                          const sk_reduce OP) {
    for (int64_t k = k0; k < k1; k++) {
        int64_t b = sk_seg_begin(&h->sort, k), e = h->sort.end[k];
        if (e - b > SK_CANONICAL_CHUNK) e = b + SK_CANONICAL_CHUNK;
        if (b >= e) continue;
        bool set = sk_seg_parts_start_value(&h->pt, k, DT);
        sk_hot_chunk(h, sk_seg_parts_value_row(&h->pt, k), b, e, set, DT, OP);
    }
}

/* The key whose partial rows hold u: ps[k] <= u < ps[k + 1]. */
static int64_t sk_hot_key_of_part(const int32_t *ps, int64_t nkeys, int64_t u) {
    int64_t lo = 0, hi = nkeys;
    while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        if (ps[mid] <= u) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Where in perm the chunk of partial row u (of key k) begins. */
SK_INLINE int64_t sk_hot_part_begin(const sk_hot_job *h, int64_t k, int64_t u) {
    return sk_seg_begin(&h->sort, k) + (u - h->pt.part_start[k] + 1) * SK_CANONICAL_CHUNK;
}

/* The partial rows part_order[v0, v1): the chunk past its key's first that
 * each stands for. */
static void sk_hot_parts(const sk_hot_job *h, int64_t v0, int64_t v1, const sk_dtype DT,
                         const sk_reduce OP) {
    const int32_t *ps = h->pt.part_start;
    for (int64_t v = v0; v < v1; v++) {
        int64_t u = h->part_order[v], k = sk_hot_key_of_part(ps, h->job.nkeys, u);
        int64_t b = sk_hot_part_begin(h, k, u);
        int64_t e = b + SK_CANONICAL_CHUNK < h->sort.end[k] ? b + SK_CANONICAL_CHUNK : h->sort.end[k];
        sk_hot_chunk(h, sk_seg_parts_row(&h->pt, u), b, e, true, DT, OP);
    }
}

/* part_order: the partial rows by the position of their chunk's first row
 * (a counting sort by position ranges; within a range in key order). The
 * threads of the partials region then take ranges of positions, in which
 * they fold the chunks of every key: each reads a stretch of src whole,
 * where a range of one key's chunks would read a share of every line of
 * most of src (HOT: a tenth). Bits do not depend on it. */
static void sk_hot_order_parts(sk_hot_job *h, int32_t *count) {
    const int64_t np = h->nparts, nkeys = h->job.nkeys;
    if (np == 0) return;
    int shift = 0; /* nrows >> shift <= np: nb + 1 <= np + 2 counts */
    while ((h->job.nrows >> shift) > np) shift++;
    const int64_t nb = (h->job.nrows >> shift) + 1;
    memset(count, 0, (size_t)(nb + 1) * sizeof(int32_t));
    const int32_t *ps = h->pt.part_start;
    for (int64_t k = 0; k < nkeys; k++)
        for (int64_t u = ps[k]; u < ps[k + 1]; u++)
            count[(h->sort.perm[sk_hot_part_begin(h, k, u)] >> shift) + 1]++;
    for (int64_t b = 0; b < nb; b++) count[b + 1] += count[b];
    for (int64_t k = 0; k < nkeys; k++)
        for (int64_t u = ps[k]; u < ps[k + 1]; u++)
            h->part_order[count[h->sort.perm[sk_hot_part_begin(h, k, u)] >> shift]++] = (int32_t)u;
}

/* One task of a region: 0 firsts, 1 partials, 2 the finish; the dtype and
 * reduction made constants for the fold loops. */
typedef struct {
    const sk_hot_job *h;
    int stage;
} sk_hot_task;

#define SK_HOT_STAGE(DT, RED, OP)                                                                  \
    do {                                                                                           \
        if (t->stage == 0) sk_hot_firsts(t->h, lo, hi, DT, OP);                                    \
        else if (t->stage == 1) sk_hot_parts(t->h, lo, hi, DT, OP);                                \
        else sk_seg_parts_finish(&t->h->pt, lo, hi, DT, RED);                                      \
    } while (0)

SK_HOT static void sk_hot_region(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_hot_task *t = arg;
    (void)tid, (void)chunk;
    SK_SEG_PARTS_DISPATCH(t->h->job.p, SK_HOT_STAGE);
}
#undef SK_HOT_STAGE

static sk_status sk_hot_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            void *scratch) {
    (void)copy_from;
    sk_hot_job h;
    size_t own;
    memset(&h, 0, sizeof h);
    if (!sk_hot_layout(&h.job, p, ex, &own)) return SK_PATH_DECLINED; /* as applies() found */
    int nt = sk_seg_threads(&h.job, ex);
    const int64_t nkeys = h.job.nkeys;
    if (!sk_seg_sort_all(&h.sort, &h.job.rows, nkeys, nt)) return SK_PATH_DECLINED;
    int32_t *order_count = NULL;
    sk_hot_scratch(&h.job, scratch, &h, &order_count);
    h.pt.end = h.sort.end;
    h.nparts = sk_seg_parts_count(&h.pt);
    sk_hot_order_parts(&h, order_count);
    const int64_t unit = SK_CANONICAL_CHUNK * h.job.len;
    sk_hot_task t = {&h, 0};
    sk_parallel_chunks(nt, nkeys, sk_chunks_for(nt, nkeys, h.job.nrows / nkeys * h.job.len + 1),
                       sk_hot_region, &t);
    t.stage = 1;
    sk_parallel_chunks(nt, h.nparts, sk_chunks_for(nt, h.nparts, unit), sk_hot_region, &t);
    t.stage = 2;
    sk_parallel_chunks(nt, nkeys, sk_chunks_for(nt, nkeys, h.job.len), sk_hot_region, &t);
    sk_seg_sort_free(&h.sort);
    return SK_STATUS_OK;
}

const sk_path sk_path_segments_hot = {"cpu/scatter/segments_hot", false, true, sk_hot_applies,
                                      sk_hot_run};

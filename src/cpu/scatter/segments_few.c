/* Path "cpu/scatter/segments_few": a float sum, mean or prod of rows that
 * segments_direct would take, into few keys that each get many rows
 * (sk_few_suits): HOT (BENCH.md), a batch reduced into a handful of
 * classes or graphs.
 *
 * segments_direct gives each thread a group of keys; with few keys each
 * thread then reads a share of every row of src (HOT at 2 threads: every
 * other row), and the prefetcher brings in the rest, so a second thread
 * added traffic and no speed. Here each thread takes a stretch of
 * positions and reads its rows of src once, in order, as a stream.
 *
 * The canonical order cuts a key's rows into chunks of SK_CANONICAL_CHUNK;
 * a chunk belongs to the stretch in which its first row lies. A first pass
 * counts each key's rows in every stretch, so each stretch knows where its
 * keys' chunks begin. A stretch folds the rows of its own chunks in
 * position order (a key's first chunk into its value, each later one into
 * a partial row: segments_parts.h), skips the rows of chunks begun before
 * it, and reads on past its end for the chunks it began that are still
 * open. The partials are then folded into each value in order: the bits of
 * every other path. A layout in which an open chunk would run on past the
 * next stretch (a rare key among the few) is declined after the count, so
 * that no thread reads much of the index twice. */
#include "cpu/scatter/segments_parts.h"

enum { SK_FEW_BLOCK = 256 }; /* keys of this many rows decoded at a time */

typedef struct {
    sk_seg_job job;   /* the layout: row plan, len, nkeys (one key window) */
    sk_seg_parts pt;  /* the value and partial rows */
    int64_t nstretch; /* stretches of positions: sk_partition(nrows, c, nstretch) */
    int64_t *before;  /* [nstretch + 1][nkeys]: each key's rows before each stretch */
    int32_t *end;     /* [nkeys]: pt.end, each key's rows summed over the keys */
} sk_few_job;

/* Stretches: SK_SEG_FEW_STRETCHES_PER_THREAD per thread, each with
 * SK_SEG_FEW_ROWS_PER_KEY rows per key at least (so a chunk rarely runs on
 * past the next stretch). */
static int64_t sk_few_stretches(const sk_seg_job *job, int nt) {
    int64_t most = job->nrows / (SK_SEG_FEW_ROWS_PER_KEY * job->nkeys);
    int64_t want = (int64_t)nt * SK_SEG_FEW_STRETCHES_PER_THREAD;
    return most < want ? most : want;
}

/* The scratch: before, end, and the value and partial rows; carved into f
 * where `at` is not NULL. Returns its bytes. */
static size_t sk_few_scratch(const sk_seg_job *job, int64_t nstretch, char *at, sk_few_job *f) {
    const size_t before = (size_t)((nstretch + 1) * job->nkeys) * sizeof(int64_t);
    const size_t end = (size_t)job->nkeys * sizeof(int32_t);
    size_t parts = sk_seg_parts_scratch(job, at ? &at : NULL, at ? &f->pt : NULL);
    if (at) {
        f->before = sk_scratch_carve(&at, before);
        f->pt.end = f->end = sk_scratch_carve(&at, end);
    }
    return parts + sk_scratch_round(before) + sk_scratch_round(end);
}

/* Whether the path suits: a float sum, mean or prod that segments_direct
 * takes (contiguous rows of 64 bytes or more) into at most
 * SK_SEG_FEW_MAX_KEYS keys of a row-major out, on two threads or more,
 * with a stretch per thread at least; sets the job, threads, stretches and
 * the scratch's bytes. */
static bool sk_few_suits(sk_few_job *f, const sk_plan *p, const sk_exec *ex, int *nt, size_t *own) {
    sk_seg_job *job = &f->job;
    if (!sk_scatter_folds_chunks(p) || !sk_seg_layout(job, p, ex, true) || !job->out_row_major ||
        job->nkeys > SK_SEG_FEW_MAX_KEYS)
        return false;
    *nt = sk_seg_threads(job, ex);
    if (*nt > sk_exec_cpus(ex)) *nt = sk_exec_cpus(ex); /* more would only take turns on a core */
    f->nstretch = sk_few_stretches(job, *nt);
    if (*nt < 2 || f->nstretch < *nt) return false;
    sk_seg_window(job, 0, job->nkeys, 0);
    job->w0 = 0;
    *own = sk_few_scratch(job, f->nstretch, NULL, NULL);
    return (double)*own <= sk_scatter_budget(p, ex);
}

static bool sk_few_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                           sk_path_need *need) {
    (void)copy_from;
    sk_few_job f;
    int nt;
    size_t own;
    if (!sk_few_suits(&f, p, ex, &nt, &own)) return false;
    need->scratch_bytes = own;
    need->fuses_copy = false;
    return true;
}

/* Stretch c's rows of each key into before[c + 1] (the first pass). */
static void sk_few_count(const sk_few_job *f, int64_t c, int64_t lo, int64_t hi) {
    const int64_t nkeys = f->job.nkeys;
    int64_t *n = f->before + (c + 1) * nkeys;
    int32_t key[SK_FEW_BLOCK];
    /* four counts per key, a row's by its position mod 4: with few keys one
     * count would be incremented back to back, each add waiting on the last */
    int32_t lane[4][SK_SEG_FEW_MAX_KEYS + 1];
    memset(lane, 0, sizeof lane);
    for (int64_t r0 = lo; r0 < hi; r0 += SK_FEW_BLOCK) {
        int64_t r1 = r0 + SK_FEW_BLOCK < hi ? r0 + SK_FEW_BLOCK : hi;
        sk_seg_keys_of(&f->job, key, r0, r1);
        for (int64_t i = 0; i < r1 - r0; i++) /* a dropped row (-1) counts in the spare slot */
            lane[i & 3][key[i] < 0 ? SK_SEG_FEW_MAX_KEYS : key[i]]++;
    }
    for (int64_t k = 0; k < nkeys; k++)
        n[k] = (int64_t)lane[0][k] + lane[1][k] + lane[2][k] + lane[3][k];
}

/* The counts into rows before each stretch, and end; false where the chunk
 * open at some stretch's end would run on past the next stretch. */
static bool sk_few_prefix(sk_few_job *f) {
    const int64_t nkeys = f->job.nkeys, ns = f->nstretch;
    int64_t *b = f->before;
    memset(b, 0, (size_t)nkeys * sizeof(int64_t));
    for (int64_t c = 1; c <= ns; c++)
        for (int64_t k = 0; k < nkeys; k++) b[c * nkeys + k] += b[(c - 1) * nkeys + k];
    const int64_t *total = b + ns * nkeys;
    for (int64_t c = 1; c + 1 < ns; c++) {
        for (int64_t k = 0; k < nkeys; k++) {
            int64_t at = b[c * nkeys + k], rest = at % SK_CANONICAL_CHUNK;
            int64_t close = at - rest + SK_CANONICAL_CHUNK;
            if (close > total[k]) close = total[k];
            if (rest != 0 && close > b[(c + 1) * nkeys + k]) return false;
        }
    }
    for (int64_t k = 0, sum = 0; k < nkeys; k++) {
        sum += total[k];
        f->end[k] = (int32_t)sum;
    }
    return true;
}

/* Where key k's n-th row (in position order) goes: the value (the first
 * chunk) or the chunk's partial row; *set: the row starts it (a chunk's
 * first row from the identity, or the value's with include_self=False). */
SK_INLINE char *sk_few_dest(const sk_few_job *f, int64_t k, int64_t n, const sk_dtype DT,
                            bool *set) {
    const sk_seg_parts *pt = &f->pt;
    const int64_t chunk = n / SK_CANONICAL_CHUNK;
    const bool first = n % SK_CANONICAL_CHUNK == 0;
    if (chunk == 0) {
        *set = first && sk_seg_parts_start_value(pt, k, DT);
        return sk_seg_parts_value_row(pt, k);
    }
    *set = first;
    return sk_seg_parts_row(pt, pt->part_start[k] + chunk - 1);
}

/* Key k's n-th row into its chunk. */
SK_INLINE void sk_few_row(const sk_few_job *f, int64_t k, int64_t n, const char *row,
                          const sk_dtype DT, const sk_reduce OP) {
    bool set;
    char *dest = sk_few_dest(f, k, n, DT, &set);
    sk_seg_parts_step(dest, row, f->job.len, set, DT, OP);
}

/* Whether key k's chunk at its n-th row is open and stretch `from`'s own:
 * begun within it (n - n % chunk >= from), not yet ended. */
SK_INLINE bool sk_few_open(int64_t n, int64_t from, int64_t total) {
    int64_t rest = n % SK_CANONICAL_CHUNK;
    return rest != 0 && n < total && n - rest >= from;
}

/* Stretch c, rows [lo, hi): the rows of its own chunks folded in position
 * order, then the rows past hi of the chunks still open. */
SK_INLINE void sk_few_fold(const sk_few_job *f, int64_t c, int64_t lo, int64_t hi, const sk_dtype DT,
                           const sk_reduce OP) {
    const sk_seg_job *job = &f->job;
    const int64_t nkeys = job->nkeys;
    const int64_t *from = f->before + c * nkeys, *total = f->before + f->nstretch * nkeys;
    const sk_seg_src_rows src = sk_seg_src_rows_of(job);
    int64_t next[SK_SEG_FEW_MAX_KEYS];
    int32_t key[SK_FEW_BLOCK];
    /* per key, the row its chunk in progress folds into and the rows that
     * chunk still takes: a row then costs its fold alone, the chunk's
     * bookkeeping once per chunk (each row paid for it before: HOT's rows are
     * short, and few keys keep them in L1) */
    char *dest[SK_SEG_FEW_MAX_KEYS];
    int32_t left[SK_SEG_FEW_MAX_KEYS];
    const int64_t len = job->len;
    memcpy(next, from, (size_t)nkeys * sizeof(int64_t));
    memset(left, 0, (size_t)nkeys * sizeof(int32_t));
    for (int64_t r0 = lo; r0 < hi; r0 += SK_FEW_BLOCK) {
        int64_t r1 = r0 + SK_FEW_BLOCK < hi ? r0 + SK_FEW_BLOCK : hi;
        sk_seg_keys_of(job, key, r0, r1);
        for (int64_t r = r0; r < r1; r++) {
            int32_t k = key[r - r0];
            if (k < 0) continue;
            int64_t n = next[k]++;
            const char *row = sk_seg_src_rows_at(job, &src, r);
            if (left[k] > 0) {
                left[k]--;
                sk_seg_parts_fold(dest[k], row, len, DT, OP);
                continue;
            }
            if (n - n % SK_CANONICAL_CHUNK < from[k]) continue; /* an earlier stretch's chunk */
            bool set;
            dest[k] = sk_few_dest(f, k, n, DT, &set);
            left[k] = SK_CANONICAL_CHUNK - 1 - (int32_t)(n % SK_CANONICAL_CHUNK);
            sk_seg_parts_step(dest[k], row, len, set, DT, OP);
        }
    }
    bool open[SK_SEG_FEW_MAX_KEYS];
    int64_t nopen = 0;
    for (int64_t k = 0; k < nkeys; k++) nopen += open[k] = sk_few_open(next[k], from[k], total[k]);
    for (int64_t r0 = hi; nopen > 0 && r0 < job->nrows; r0 += SK_FEW_BLOCK) {
        int64_t r1 = r0 + SK_FEW_BLOCK < job->nrows ? r0 + SK_FEW_BLOCK : job->nrows;
        sk_seg_keys_of(job, key, r0, r1);
        for (int64_t r = r0; r < r1 && nopen > 0; r++) {
            int32_t k = key[r - r0];
            if (k < 0 || !open[k]) continue;
            int64_t n = next[k]++;
            sk_few_row(f, k, n, sk_seg_src_rows_at(job, &src, r), DT, OP);
            if (!sk_few_open(n + 1, from[k], total[k])) open[k] = false, nopen--;
        }
    }
}

/* One task of a region: 0 the counts, 1 the folds, 2 the finish. */
typedef struct {
    sk_few_job *f;
    int stage;
} sk_few_task;

#define SK_FEW_STAGE(DT, RED, OP)                                                                  \
    do {                                                                                           \
        if (t->stage == 1) sk_few_fold(t->f, chunk, lo, hi, DT, OP);                               \
        else sk_seg_parts_finish(&t->f->pt, lo, hi, DT, RED);                                      \
    } while (0)

SK_HOT static void sk_few_region(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_few_task *t = arg;
    (void)tid;
    if (t->stage == 0) sk_few_count(t->f, chunk, lo, hi);
    else SK_SEG_PARTS_DISPATCH(t->f->job.p, SK_FEW_STAGE);
}
#undef SK_FEW_STAGE

static sk_status sk_few_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            void *scratch) {
    (void)copy_from;
    sk_few_job f;
    int nt;
    size_t own;
    memset(&f, 0, sizeof f);
    if (!sk_few_suits(&f, p, ex, &nt, &own)) return SK_PATH_DECLINED; /* as applies() found */
    sk_few_scratch(&f.job, f.nstretch, scratch, &f);
    const int64_t nrows = f.job.nrows, nkeys = f.job.nkeys;
    sk_few_task t = {&f, 0};
    sk_parallel_chunks(nt, nrows, f.nstretch, sk_few_region, &t);
    if (!sk_few_prefix(&f)) return SK_PATH_DECLINED; /* nothing written yet */
    int64_t nparts = sk_seg_parts_count(&f.pt);
    t.stage = 1;
    sk_parallel_chunks(nt, nrows, f.nstretch, sk_few_region, &t);
    t.stage = 2;
    int64_t per_key = (nparts / nkeys + 1) * f.job.len;
    sk_parallel_chunks(nt, nkeys, sk_chunks_for(nt, nkeys, per_key), sk_few_region, &t);
    return SK_STATUS_OK;
}

const sk_path sk_path_segments_few = {"cpu/scatter/segments_few", false, true, sk_few_applies,
                                      sk_few_run};

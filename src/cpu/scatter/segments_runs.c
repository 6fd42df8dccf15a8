/* Path "cpu/scatter/segments_runs": rows whose index is sorted (a CSR
 * graph's targets, a batch sorted by key, W5 with a sorted index), every
 * reduction, every dtype. Each key's rows are one run of positions, so a
 * thread that takes a stretch of positions whose ends fall between runs
 * owns every key it meets: it folds each run in position order into its
 * key's row, in the canonical order (docs/CONTRACT.md), reading the index,
 * src and out once each, in order, as streams, and copies x's rows on the
 * way where it fuses the copy. No per-key state, no sort, no merge: the
 * segments engine's sort would only find the order the index already has.
 *
 * A first pass reads every key and checks that none decreases (and that
 * each is valid, where the caller lets the path check the index): an index
 * that is not sorted is declined before anything is written, and the
 * sample of applies() keeps a random index from paying for that pass. The
 * stretches' ends then move forward to the next change of key (a binary
 * search: the keys are sorted). A stretch of more than half a thread's
 * share of the rows (or twice a stretch's, sk_runs_longest; a key holding
 * many of them) is declined:
 * segments_few and segments_hot split a key's chunks among threads. */
#include "cpu/scatter/reduce.h"
#include "cpu/scatter/segments.h"

enum { SK_RUNS_BLOCK = 256 }; /* keys decoded at a time by the check */

/* The layout: the row plan of segments, all keys one window; threads and
 * stretches. False where the path does not take the plan. */
static bool sk_runs_layout(sk_seg_runs *rn, const sk_plan *p, const sk_exec *ex, int *nt) {
    sk_seg_job *job = &rn->job;
    memset(rn, 0, sizeof *rn);
    job->p = p;
    job->ex = ex;
    int64_t target_numel = sk_tensor_numel(ex->out);
    if (p->reduce == SK_REDUCE_NONE || target_numel == 0 || !sk_seg_rows_of(job, p)) return false;
    if (!sk_scatter_needs_chunks(p) && (job->len < 2 || job->nrows < SK_SEG_MIN_ROWS)) return false;
    /* the fold reads a row's elements one after another */
    if (job->len > 1 && job->src_col != 1) return false;
    job->nkeys = target_numel / job->len;
    if (job->nkeys > INT32_MAX || !sk_seg_runs_kernels[p->dtype][p->reduce]) return false;
    job->out_row_major = sk_row_major(ex->out);
    job->acc_size = SK_IS_HALF(p->dtype) ? sizeof(float) : p->elem_size;
    job->nwin = job->kwin = job->nkeys;
    job->wrows = job->win_rows = job->nrows;
    *nt = sk_seg_threads(job, ex);
    if (*nt > sk_exec_cpus(ex)) *nt = sk_exec_cpus(ex); /* more would only take turns on a core */
    int64_t most = job->nrows / SK_SEG_RUNS_LEAST_ROWS;
    rn->nstretch = (int64_t)*nt * SK_SEG_RUNS_STRETCHES_PER_THREAD;
    if (rn->nstretch > most) rn->nstretch = most > 0 ? most : 1;
    return true;
}

/* The key of row r (-1: a value that is out of range or skipped). */
static int32_t sk_runs_key(const sk_seg_job *job, int64_t r) {
    int32_t k;
    sk_seg_keys_of(job, &k, r, r + 1);
    return k;
}

/* The longest stretch allowed: half a thread's share of the rows, or twice
 * a stretch's where fewer rows than SK_SEG_RUNS_LEAST_ROWS per stretch cut
 * fewer stretches (more threads than the rows need: each stretch is then
 * longer than half a share before any key's run lengthens it). */
static int64_t sk_runs_longest(const sk_seg_runs *rn, int nt) {
    if (nt < 2) return rn->job.nrows;
    int64_t half_share = rn->job.nrows / (2 * (int64_t)nt);
    int64_t twice_stretch = 2 * ((rn->job.nrows + rn->nstretch - 1) / rn->nstretch);
    return half_share > twice_stretch ? half_share : twice_stretch;
}

/* Whether a sample of keys, evenly spaced, is valid and sorted, with no
 * run in it longer than a stretch may be. */
static bool sk_runs_sample(const sk_seg_runs *rn, int nt) {
    const int64_t last = rn->job.nrows - 1, longest = sk_runs_longest(rn, nt);
    int64_t run_from = 0;
    int32_t prev = -1;
    for (int64_t i = 0; i < SK_SEG_RUNS_SAMPLE; i++) {
        int64_t r = last * i / (SK_SEG_RUNS_SAMPLE - 1);
        int32_t k = sk_runs_key(&rn->job, r);
        if (k < 0 || k < prev) return false;
        if (k != prev) run_from = r;
        if (r - run_from > longest) return false;
        prev = k;
    }
    return true;
}

/* The scratch: stretch starts and first keys, the check's findings, and
 * per thread the partial row and the 16-bit value row; carved into rn where
 * `at` is not NULL. Returns its bytes. */
static size_t sk_runs_scratch(sk_seg_runs *rn, int nt, char *at, int32_t **found) {
    const sk_seg_job *job = &rn->job;
    const size_t ends = (size_t)(rn->nstretch + 1) * sizeof(int64_t);
    const size_t check = (size_t)(3 * rn->nstretch) * sizeof(int32_t);
    const size_t row = sk_scratch_round((size_t)job->len * job->acc_size);
    rn->thread_bytes = SK_IS_HALF(job->p->dtype) ? 2 * row : row;
    if (at) {
        rn->at = sk_scratch_carve(&at, ends);
        rn->first_key = sk_scratch_carve(&at, ends);
        *found = sk_scratch_carve(&at, check);
        rn->rows = sk_scratch_carve(&at, (size_t)nt * rn->thread_bytes);
    }
    return 2 * sk_scratch_round(ends) + sk_scratch_round(check) + (size_t)nt * rn->thread_bytes;
}

static bool sk_runs_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                            sk_path_need *need) {
    sk_seg_runs rn;
    int nt;
    if (!sk_runs_layout(&rn, p, ex, &nt) || !sk_runs_sample(&rn, nt)) return false;
    need->scratch_bytes = sk_runs_scratch(&rn, nt, NULL, NULL);
    need->fuses_copy = sk_copy_source(copy_from, ex->out) != NULL;
    return (double)need->scratch_bytes <= sk_scatter_budget(p, ex);
}

/* The check of one stretch of positions: found[3c] its first key,
 * found[3c + 1] its last, found[3c + 2] 1 where a key is invalid, 2 where
 * one decreases. */
typedef struct {
    const sk_seg_runs *rn;
    int32_t *found;
} sk_runs_check_task;

static void sk_runs_check(void *arg, int tid, int64_t c, int64_t lo, int64_t hi) {
    const sk_runs_check_task *t = arg;
    (void)tid;
    int32_t key[SK_RUNS_BLOCK + 1], *f = t->found + 3 * c;
    int32_t least = INT32_MAX, down = 0;
    key[SK_RUNS_BLOCK] = -1; /* the previous block's last key, at key[-1] of the next */
    f[0] = f[1] = -1;
    for (int64_t r0 = lo; r0 < hi; r0 += SK_RUNS_BLOCK) {
        int64_t r1 = hi - r0 < SK_RUNS_BLOCK ? hi : r0 + SK_RUNS_BLOCK;
        int32_t prev = key[SK_RUNS_BLOCK];
        sk_seg_keys_of(&t->rn->job, key, r0, r1);
        if (r0 == lo) f[0] = prev = key[0];
        /* no branch per key: the compiler vectorises the two reductions */
        for (int64_t i = 0; i < r1 - r0; i++) {
            least = key[i] < least ? key[i] : least;
            down |= key[i] < (i > 0 ? key[i - 1] : prev);
        }
        f[1] = key[SK_RUNS_BLOCK] = key[r1 - r0 - 1];
    }
    f[2] = least < 0 ? 1 : down ? 2 : 0;
}

/* Sets the stretches' ends (moved forward to a change of key) and first
 * keys from the check's findings; false where a stretch is longer than
 * `longest`. */
static bool sk_runs_ends(sk_seg_runs *rn, const int32_t *found, int64_t longest) {
    const sk_seg_job *job = &rn->job;
    const int64_t ns = rn->nstretch, nrows = job->nrows;
    rn->at[0] = 0;
    rn->first_key[0] = 0;
    for (int64_t s = 1; s < ns; s++) {
        int64_t lo, hi, from;
        sk_partition(nrows, (int)s, (int)ns, &from, &hi);
        int32_t before = found[3 * (s - 1) + 1];
        /* the first row in [from, nrows] whose key is past `before` */
        for (lo = from, hi = nrows; lo < hi;) {
            int64_t mid = lo + (hi - lo) / 2;
            if (sk_runs_key(job, mid) > before) hi = mid;
            else lo = mid + 1;
        }
        rn->at[s] = lo;
        rn->first_key[s] = lo < nrows ? sk_runs_key(job, lo) : job->nkeys;
    }
    rn->at[ns] = nrows;
    rn->first_key[ns] = job->nkeys;
    for (int64_t s = 0; s < ns; s++)
        if (rn->at[s + 1] - rn->at[s] > longest) return false;
    return true;
}

typedef struct {
    const sk_seg_runs *rn;
    sk_seg_runs_fn fold;
} sk_runs_fold_task;

static void sk_runs_fold(void *arg, int tid, int64_t chunk, int64_t s0, int64_t s1) {
    const sk_runs_fold_task *t = arg;
    (void)chunk;
    for (int64_t s = s0; s < s1; s++) t->fold(t->rn, s, tid);
}

static sk_status sk_runs_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                             void *scratch) {
    sk_seg_runs rn;
    int nt;
    int32_t *found = NULL;
    if (!sk_runs_layout(&rn, p, ex, &nt)) return SK_PATH_DECLINED; /* as applies() found */
    sk_runs_scratch(&rn, nt, scratch, &found);
    rn.job.copy_src = sk_copy_source(copy_from, ex->out);
    sk_runs_check_task check = {&rn, found};
    sk_parallel_chunks(nt, rn.job.nrows, rn.nstretch, sk_runs_check, &check);
    bool invalid = false, sorted = true;
    for (int64_t c = 0; c < rn.nstretch; c++) {
        invalid |= found[3 * c + 2] == 1;
        sorted &= found[3 * c + 2] == 0 && (c == 0 || found[3 * c - 2] <= found[3 * c]);
    }
    if (invalid && ex->invalid) { /* out is thrown away: the full check names the value */
        *ex->invalid = 1;
        return SK_STATUS_OK;
    }
    /* nothing written yet: the next path runs */
    if (invalid || !sorted || !sk_runs_ends(&rn, found, sk_runs_longest(&rn, nt)))
        return SK_PATH_DECLINED;
    sk_runs_fold_task fold = {&rn, sk_seg_runs_kernels[p->dtype][p->reduce]};
    sk_parallel_chunks(nt, rn.nstretch, rn.nstretch, sk_runs_fold, &fold);
    return SK_STATUS_OK;
}

const sk_path sk_path_segments_runs = {"cpu/scatter/segments_runs", true, true, sk_runs_applies,
                                       sk_runs_run};

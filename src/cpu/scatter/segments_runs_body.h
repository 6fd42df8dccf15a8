/* The fold kernel of segments_runs (a sorted index) for one working type,
 * included by segments_fold.h after segments_fold_body.h, with SK_SEG_SUF
 * defined: the same pieces (set, start, fold, fold_acc, mean), the same
 * canonical order (docs/CONTRACT.md). A stretch's keys are its own, each
 * key's rows one run of positions, so the value of the key being folded and
 * the partial row of its chunk in progress live in the thread's rows (or in
 * out's row), not in per-key state. */
#define SK_RUNS_CAT2(a, b) a##_##b
#define SK_RUNS_CAT(a, b) SK_RUNS_CAT2(a, b)
#define SK_RUNS_NAME(x) SK_RUNS_CAT(x, SK_SEG_SUF)

/* Key k's row of out. */
SK_INLINE char *SK_RUNS_NAME(sk_runs_out_row)(const sk_seg_job *job, int64_t k, size_t es) {
    return job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)es;
}

/* Before key k's first row: its value v starts from x's row where the
 * reduction includes it (v is out's row, which holds x's row already
 * unless the path fuses the copy; or the thread's float32 row). */
SK_INLINE void SK_RUNS_NAME(sk_runs_begin)(const sk_seg_job *job, char *v, int64_t k,
                                           const sk_dtype DT) {
    const size_t ES = sk_es(DT);
    if (!job->p->include_self) return;
    if (SK_IS_HALF(DT)) SK_RUNS_NAME(sk_seg_set)(v, sk_seg_x_row(job, k, ES), job->len, DT);
    else if (job->copy_src) memcpy(v, sk_seg_x_row(job, k, ES), (size_t)job->len * ES);
}

/* The key's n-th row into its value v, or into the partial row of its
 * chunk in progress past the first (sk_seg_step's order). */
SK_INLINE void SK_RUNS_NAME(sk_runs_step)(char *v, char *part, int64_t n, const char *row,
                                          int64_t len, bool self, const sk_dtype DT,
                                          const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const bool CHUNKED = SK_IS_FLOAT(DT) && (OP == SK_REDUCE_SUM || OP == SK_REDUCE_PROD);
    if (n == 0 && !self) {
        SK_RUNS_NAME(sk_seg_start)(v, row, len, DT, OP);
    } else if (!CHUNKED || n < SK_CANONICAL_CHUNK) {
        SK_RUNS_NAME(sk_seg_fold)(v, row, len, DT, OP);
    } else if (n % SK_CANONICAL_CHUNK != 0) {
        SK_RUNS_NAME(sk_seg_fold)(part, row, len, DT, OP);
    } else {
        if (n > SK_CANONICAL_CHUNK) SK_RUNS_NAME(sk_seg_fold_acc)(v, part, len, DT, OP);
        SK_RUNS_NAME(sk_seg_start)(part, row, len, DT, OP);
    }
}

/* After key k's n rows: the chunk in progress folded in, mean divided by
 * its count, a 16-bit value rounded once into out (a NaN already in x keeps
 * its bits, as in sk_seg_finish). */
SK_INLINE void SK_RUNS_NAME(sk_runs_end)(const sk_seg_job *job, char *v, const char *part, int64_t k,
                                         int64_t n, const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const bool CHUNKED = SK_IS_FLOAT(DT) && (OP == SK_REDUCE_SUM || OP == SK_REDUCE_PROD);
    const int64_t len = job->len;
    if (CHUNKED && n > SK_CANONICAL_CHUNK) SK_RUNS_NAME(sk_seg_fold_acc)(v, part, len, DT, OP);
    int64_t count = n + (job->p->include_self ? 1 : 0);
    for (int64_t j = 0; RED == SK_REDUCE_MEAN && j < len; j++)
        SK_RUNS_NAME(sk_seg_put)(v, j, SK_RUNS_NAME(sk_seg_mean)(SK_RUNS_NAME(sk_seg_at)(v, j, DT), count, DT), DT);
    if (SK_IS_HALF(DT))
        sk_f32_run_to_half((uint16_t *)(void *)SK_RUNS_NAME(sk_runs_out_row)(job, k, 2), 1,
                           (const uint16_t *)(const void *)sk_seg_x_row(job, k, 2), 1,
                           (const float *)(const void *)v, len, DT == SK_DTYPE_BFLOAT16,
                           job->p->include_self);
}

/* Keys [k0, k1), which get no rows: x's rows into out where the path fuses
 * the copy (out and x row-major: one block), else nothing (out holds x). */
SK_INLINE void SK_RUNS_NAME(sk_runs_untouched)(const sk_seg_job *job, int64_t k0, int64_t k1,
                                               const sk_dtype DT) {
    if (!job->copy_src || k1 <= k0) return;
    const size_t ES = sk_es(DT);
    memcpy(SK_RUNS_NAME(sk_runs_out_row)(job, k0, ES), sk_seg_x_row(job, k0, ES),
           (size_t)((k1 - k0) * job->len) * ES);
}

/* Stretch s of rn: its rows in position order, a run per key. */
SK_INLINE void SK_RUNS_NAME(sk_seg_runs)(const sk_seg_runs *rn, int64_t s, int tid, const sk_dtype DT,
                                         const sk_reduce RED) {
    enum { BLOCK = 256 };
    const sk_seg_job *job = &rn->job;
    const size_t ES = sk_es(DT);
    const int64_t hi = rn->at[s + 1];
    char *part = rn->rows + (size_t)tid * rn->thread_bytes;
    /* a 16-bit value accumulates in the thread's float32 row, after the partial row */
    char *v = SK_IS_HALF(DT) ? part + sk_scratch_round((size_t)job->len * job->acc_size) : NULL;
    /* in locals: the fold's stores (through char pointers) would make the
     * compiler read the job's fields again at every row */
    const int64_t len = job->len;
    const bool self = job->p->include_self;
    const sk_seg_src_rows src = sk_seg_src_rows_of(job);
    const int src_lines = sk_seg_src_lines(job, &src);
    int32_t key[BLOCK];
    int64_t k = -1, n = 0, next = rn->first_key[s]; /* next: the first key not written yet */
    for (int64_t r0 = rn->at[s]; r0 < hi; r0 += BLOCK) {
        int64_t r1 = hi - r0 < BLOCK ? hi : r0 + BLOCK;
        sk_seg_keys_of(job, key, r0, r1);
        for (int64_t r = r0; r < r1; r++) {
            int32_t kr = key[r - r0];
            if (kr != k) {
                if (k >= 0) SK_RUNS_NAME(sk_runs_end)(job, v, part, k, n, DT, RED);
                SK_RUNS_NAME(sk_runs_untouched)(job, next, kr, DT);
                k = kr;
                next = k + 1;
                n = 0;
                if (!SK_IS_HALF(DT)) v = SK_RUNS_NAME(sk_runs_out_row)(job, k, ES);
                SK_RUNS_NAME(sk_runs_begin)(job, v, k, DT);
            }
            const char *row = sk_seg_src_rows_at(job, &src, r);
            /* the stream's next rows into L2: the hardware's prefetcher
             * starts again at every 4 KiB page */
            if (r + SK_SEG_AHEAD < hi)
                sk_prefetch_lines_l2(sk_seg_src_rows_at(job, &src, r + SK_SEG_AHEAD), src_lines);
            SK_RUNS_NAME(sk_runs_step)(v, part, n++, row, len, self, DT, RED);
        }
    }
    if (k >= 0) SK_RUNS_NAME(sk_runs_end)(job, v, part, k, n, DT, RED);
    SK_RUNS_NAME(sk_runs_untouched)(job, next, rn->first_key[s + 1], DT);
}

#undef SK_RUNS_NAME
#undef SK_RUNS_CAT
#undef SK_RUNS_CAT2

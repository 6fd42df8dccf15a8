/* The fold kernels of segments for one working type, included by
 * segments_fold.h once per type with SK_SEG_SUF (the suffix of every name)
 * defined, after sk_seg_get_<suf> (a src
 * element), sk_seg_op_<suf> (one step of the reduction) and
 * sk_seg_at_<suf>/sk_seg_put_<suf> (an element where keys accumulate: out
 * itself, or a float32 row for 16-bit types).
 *
 * The canonical order (docs/CONTRACT.md): a key's rows in position order,
 * the first SK_CANONICAL_CHUNK folded one after another into the start
 * value, each later chunk folded from its own first row (into the key's
 * partial row) and then into the running value. */
#define SK_SEG_CAT2(a, b) a##_##b
#define SK_SEG_CAT(a, b) SK_SEG_CAT2(a, b)
#define SK_SEG_NAME(x) SK_SEG_CAT(x, SK_SEG_SUF)

/* a[j] = src element j, a[j] (op)= it, or a[j] (op)= b[j] (b a row where keys accumulate). */
SK_INLINE void SK_SEG_NAME(sk_seg_set)(char *restrict a, const char *restrict s, int64_t n,
                                       const sk_dtype DT) {
    const size_t ES = sk_es(DT);
    for (int64_t j = 0; j < n; j++)
        SK_SEG_NAME(sk_seg_put)(a, j, SK_SEG_NAME(sk_seg_get)(s + (size_t)j * ES, DT), DT);
}
/* a[j] = the identity folded with src element j: the element, a NaN
 * quieted where OP folds (a target's or a chunk's first row). */
SK_INLINE void SK_SEG_NAME(sk_seg_start)(char *restrict a, const char *restrict s, int64_t n,
                                         const sk_dtype DT, const sk_reduce OP) {
    const size_t ES = sk_es(DT);
    for (int64_t j = 0; j < n; j++)
        SK_SEG_NAME(sk_seg_put)(a, j, SK_SEG_NAME(sk_seg_quiet)(SK_SEG_NAME(sk_seg_get)(s + (size_t)j * ES, DT), OP), DT);
}
SK_INLINE void SK_SEG_NAME(sk_seg_fold)(char *restrict a, const char *restrict s, int64_t n,
                                        const sk_dtype DT, const sk_reduce OP) {
    const size_t ES = sk_es(DT);
    for (int64_t j = 0; j < n; j++)
        SK_SEG_NAME(sk_seg_put)(a, j, SK_SEG_NAME(sk_seg_op)(SK_SEG_NAME(sk_seg_at)(a, j, DT),
                                SK_SEG_NAME(sk_seg_get)(s + (size_t)j * ES, DT), OP, DT), DT);
}
SK_INLINE void SK_SEG_NAME(sk_seg_fold_acc)(char *restrict a, const char *restrict b, int64_t n,
                                            const sk_dtype DT, const sk_reduce OP) {
    for (int64_t j = 0; j < n; j++)
        SK_SEG_NAME(sk_seg_put)(a, j, SK_SEG_NAME(sk_seg_op)(SK_SEG_NAME(sk_seg_at)(a, j, DT),
                                SK_SEG_NAME(sk_seg_at)(b, j, DT), OP, DT), DT);
}

/* Where key k accumulates: its row of the working rows, or out's row. */
SK_INLINE char *SK_SEG_NAME(sk_seg_acc_row)(const sk_seg_job *job, int64_t k, const sk_dtype DT) {
    if (job->acc) return job->acc + (size_t)(k * job->len) * job->acc_size;
    return job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)sk_es(DT);
}
SK_INLINE char *SK_SEG_NAME(sk_seg_loop_acc)(const sk_seg_job *job, const sk_seg_loop *lp,
                                            int64_t k, const sk_dtype DT, const bool LEAN) {
    if (LEAN || lp->flat_acc) return lp->acc + (size_t)k * lp->acc_row;
    return SK_SEG_NAME(sk_seg_acc_row)(job, k, DT);
}
SK_INLINE char *SK_SEG_NAME(sk_seg_part_row)(const sk_seg_job *job, int64_t k) {
    return job->parts + (size_t)job->part_slot[k] * (size_t)job->len * job->acc_size;
}

/* One row of key k, the key's s-th, into its value at a. */
SK_INLINE void SK_SEG_NAME(sk_seg_step)(const sk_seg_job *job, const sk_seg_loop *lp, int64_t k,
                                        int64_t s, char *a, const char *row, const sk_dtype DT,
                                        const sk_reduce RED, const bool LEAN) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const bool CHUNKED = SK_IS_FLOAT(DT) && (OP == SK_REDUCE_SUM || OP == SK_REDUCE_PROD);
    const int64_t len = lp->len;
    if (s == 0 && !lp->include_self) {
        SK_SEG_NAME(sk_seg_start)(a, row, len, DT, OP);
        return;
    }
    if (s == 0 && !LEAN && lp->set_from_x) /* the working row starts from x */
        SK_SEG_NAME(sk_seg_set)(a, sk_seg_x_row(job, k, sk_es(DT)), len, DT);
    if (!CHUNKED || s < SK_CANONICAL_CHUNK) {
        SK_SEG_NAME(sk_seg_fold)(a, row, len, DT, OP);
    } else if (s % SK_CANONICAL_CHUNK != 0) {
        SK_SEG_NAME(sk_seg_fold)(SK_SEG_NAME(sk_seg_part_row)(job, k), row, len, DT, OP);
    } else {
        if (s == SK_CANONICAL_CHUNK)
            job->part_slot[k] = atomic_fetch_add(job->next_part, 1);
        else
            SK_SEG_NAME(sk_seg_fold_acc)(a, SK_SEG_NAME(sk_seg_part_row)(job, k), len, DT, OP);
        SK_SEG_NAME(sk_seg_start)(SK_SEG_NAME(sk_seg_part_row)(job, k), row, len, DT, OP);
    }
}

/* Rows asked for ahead (SK_SEG_AHEAD rows early): key ka's row where it
 * accumulates, its count, the src row, and x's row where a working row
 * starts from it (at random: only for a key not seen yet). */
SK_INLINE void SK_SEG_NAME(sk_seg_ask)(const sk_seg_job *job, const sk_seg_loop *lp, int32_t ka,
                                       const char *src_row, const sk_dtype DT, const bool LEAN) {
    sk_prefetch_lines_l2(SK_SEG_NAME(sk_seg_loop_acc)(job, lp, ka, DT, LEAN), lp->acc_lines);
    __builtin_prefetch(lp->seen + ka, 1, 3); /* a miss per row otherwise */
    if (src_row) sk_prefetch_lines_l2(src_row, lp->src_lines);
    if (!LEAN && lp->x_start && lp->seen[ka] == 0)
        sk_prefetch_lines_l2(sk_seg_x_row(job, ka, sk_es(DT)), lp->src_lines);
}

/* Scan (direct, few groups): group g's rows of the window, found by
 * scanning every key of the window a block at a time into a ring of the
 * group's rows, each folded into its key's value in position order. */
SK_INLINE void SK_SEG_NAME(sk_seg_scan)(const sk_seg_job *job, const sk_seg_loop *lp, int64_t g,
                                        const sk_dtype DT, const sk_reduce RED, const bool LEAN) {
    enum { BLOCK = 256, RING = 512 }; /* RING: a power of two, >= BLOCK + SK_SEG_AHEAD */
    _Static_assert(RING >= BLOCK + SK_SEG_AHEAD && (RING & (RING - 1)) == 0, "the scan's ring");
    int32_t ring[RING];
    const uint32_t lo = (uint32_t)job->scan_lo[g], span = (uint32_t)job->scan_lo[g + 1] - lo;
    const int32_t *restrict key = job->key;
    const int64_t wrows = job->wrows;
    uint32_t head = 0, tail = 0;
    for (int64_t b0 = 0; b0 < wrows; b0 += BLOCK) {
        int64_t b1 = wrows - b0 < BLOCK ? wrows : b0 + BLOCK;
        /* the keys of the block after next: the hardware's stream of them competes with
         * the fold's misses */
        if (b1 + BLOCK < wrows) sk_prefetch_row_l2(key + b1 + BLOCK, BLOCK * sizeof(int32_t));
        /* no branch per key: a dropped key (-1) is far outside any span */
        for (int64_t i = b0; i < b1; i++) {
            ring[tail % RING] = (int32_t)i;
            tail += (uint32_t)key[i] - lo < span;
        }
        uint32_t until = b1 == wrows ? tail : tail > SK_SEG_AHEAD ? tail - SK_SEG_AHEAD : 0;
        for (; head < until; head++) {
            if (head + SK_SEG_AHEAD < tail) {
                int32_t ia = ring[(head + SK_SEG_AHEAD) % RING];
                const char *row_a = sk_seg_loop_src(job, lp, ia, LEAN);
                SK_SEG_NAME(sk_seg_ask)(job, lp, key[ia], row_a, DT, LEAN);
            }
            int32_t i = ring[head % RING], k = key[i];
            char *a = SK_SEG_NAME(sk_seg_loop_acc)(job, lp, k, DT, LEAN);
            const char *row = sk_seg_loop_src(job, lp, i, LEAN);
            SK_SEG_NAME(sk_seg_step)(job, lp, k, lp->seen[k]++, a, row, DT, RED, LEAN);
        }
    }
}

/* Bucket b's staged rows (direct: group b's), in position order, each into
 * its key's value (the keys' rows of later rows asked for SK_SEG_AHEAD rows
 * early). */
SK_INLINE void SK_SEG_NAME(sk_seg_bucket_as)(const sk_seg_job *job, const sk_seg_loop *lp,
                                             int64_t b, const sk_dtype DT, const sk_reduce RED,
                                             const bool LEAN) {
    if (job->scan) {
        SK_SEG_NAME(sk_seg_scan)(job, lp, b, DT, RED, LEAN);
        return;
    }
    const int64_t i0 = b > 0 ? job->bucket_end[b - 1] : 0, i1 = job->bucket_end[b];
    const int32_t *restrict skey = job->staged_key;
    for (int64_t i = i0; i < i1; i++) {
        if (i + SK_SEG_AHEAD < i1) /* direct: src rows are not in order, only increasing */
            SK_SEG_NAME(sk_seg_ask)(job, lp, skey[i + SK_SEG_AHEAD],
                                    lp->direct ? sk_seg_loop_row(job, lp, i + SK_SEG_AHEAD, LEAN)
                                               : NULL,
                                    DT, LEAN);
        int32_t k = skey[i];
        char *a = SK_SEG_NAME(sk_seg_loop_acc)(job, lp, k, DT, LEAN);
        const char *row = sk_seg_loop_row(job, lp, i, LEAN);
        SK_SEG_NAME(sk_seg_step)(job, lp, k, lp->seen[k]++, a, row, DT, RED, LEAN);
    }
}
/* The fold of bucket b, its loop compiled twice: for the common layout
 * (sk_seg_loop_lean) with the other layouts' tests gone, else general. */
SK_INLINE void SK_SEG_NAME(sk_seg_bucket)(const sk_seg_job *job, int64_t b, const sk_dtype DT,
                                          const sk_reduce RED) {
    const sk_seg_loop lp = sk_seg_loop_of(job);
    if (sk_seg_loop_lean(&lp)) SK_SEG_NAME(sk_seg_bucket_as)(job, &lp, b, DT, RED, true);
    else SK_SEG_NAME(sk_seg_bucket_as)(job, &lp, b, DT, RED, false);
}

/* Keys [klo, khi) after the last window: the chunk in progress folded in,
 * mean divided by its count, the working rows stored into out (16-bit
 * values rounded once). */
SK_INLINE void SK_SEG_NAME(sk_seg_finish)(const sk_seg_job *job, int64_t klo, int64_t khi,
                                          const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const bool CHUNKED = SK_IS_FLOAT(DT) && (OP == SK_REDUCE_SUM || OP == SK_REDUCE_PROD);
    const int64_t len = job->len;
    for (int64_t k = klo; k < khi; k++) {
        int64_t n = job->seen[k];
        if (n == 0) { /* untouched: out keeps x */
            if (job->copy_src)
                memcpy(job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)sk_es(DT),
                       sk_seg_x_row(job, k, sk_es(DT)), (size_t)len * sk_es(DT));
            continue;
        }
        char *a = SK_SEG_NAME(sk_seg_acc_row)(job, k, DT);
        if (CHUNKED && n > SK_CANONICAL_CHUNK)
            SK_SEG_NAME(sk_seg_fold_acc)(a, SK_SEG_NAME(sk_seg_part_row)(job, k), len, DT, OP);
        int64_t count = n + (job->p->include_self ? 1 : 0);
        if (RED == SK_REDUCE_MEAN)
            for (int64_t j = 0; j < len; j++)
                SK_SEG_NAME(sk_seg_put)(a, j, SK_SEG_NAME(sk_seg_mean)(SK_SEG_NAME(sk_seg_at)(a, j, DT), count, DT), DT);
        if (!job->acc) continue;
        char *o = job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)sk_es(DT);
        if (SK_IS_HALF(DT)) /* a NaN already in x keeps its bits (sk_half_round) */
            sk_f32_run_to_half((uint16_t *)(void *)o, 1,
                               (const uint16_t *)(const void *)sk_seg_x_row(job, k, 2), 1,
                               (const float *)(const void *)a, len, DT == SK_DTYPE_BFLOAT16,
                               job->p->include_self);
        else
            memcpy(o, a, (size_t)len * sk_es(DT));
    }
}

#undef SK_SEG_NAME
#undef SK_SEG_CAT
#undef SK_SEG_CAT2

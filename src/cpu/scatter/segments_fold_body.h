/* The fold kernels of segments for one working type, included by
 * segments_fold.h once per type with SK_SEG_FT (the type) and SK_SEG_SUF
 * (the suffix of every name) defined, after sk_seg_get_<suf> (one src
 * element as SK_SEG_FT) and sk_seg_op_<suf> (one step of the reduction).
 *
 * The canonical order (docs/CONTRACT.md): a key's rows in position order,
 * the first SK_CANONICAL_CHUNK folded one after another into the start value,
 * each later chunk folded from its own first row and then into the running
 * value. */
#define SK_SEG_CAT2(a, b) a##_##b
#define SK_SEG_CAT(a, b) SK_SEG_CAT2(a, b)
#define SK_SEG_NAME(x) SK_SEG_CAT(x, SK_SEG_SUF)
#define FT SK_SEG_FT

/* d[j] = src element j (stride ss), or d[j] (op)= it. */
SK_INLINE void SK_SEG_NAME(sk_seg_row_set)(FT *restrict d, const char *restrict s, int64_t ss,
                                           int64_t n, const sk_dtype DT) {
    const size_t ES = sk_es(DT);
    for (int64_t j = 0; j < n; j++) d[j] = SK_SEG_NAME(sk_seg_get)(s + (size_t)(j * ss) * ES, DT);
}
SK_INLINE void SK_SEG_NAME(sk_seg_row_op)(FT *restrict d, const char *restrict s, int64_t ss,
                                          int64_t n, const sk_dtype DT, const sk_reduce OP) {
    const size_t ES = sk_es(DT);
    if (ss == 1)
        for (int64_t j = 0; j < n; j++)
            d[j] = SK_SEG_NAME(sk_seg_op)(d[j], SK_SEG_NAME(sk_seg_get)(s + (size_t)j * ES, DT), OP, DT);
    else
        for (int64_t j = 0; j < n; j++)
            d[j] = SK_SEG_NAME(sk_seg_op)(d[j], SK_SEG_NAME(sk_seg_get)(s + (size_t)(j * ss) * ES, DT),
                                          OP, DT);
}
SK_INLINE void SK_SEG_NAME(sk_seg_vals_op)(FT *restrict d, const FT *restrict s, int64_t n,
                                           const sk_dtype DT, const sk_reduce OP) {
    for (int64_t j = 0; j < n; j++) d[j] = SK_SEG_NAME(sk_seg_op)(d[j], s[j], OP, DT);
}

/* Column c0 of the src row at perm position i. */
SK_INLINE const char *SK_SEG_NAME(sk_seg_src)(const sk_seg_job *job, int64_t i, int64_t c0,
                                              const size_t ES) {
    int64_t off = sk_seg_src_offset(job, job->perm[i]) + c0 * job->src_col;
    return job->p->dense + (ptrdiff_t)off * (ptrdiff_t)ES;
}

/* acc (op)= the rows at perm positions [i0, i1), columns [c0, c0 + n); the
 * rows up to perm position ahead_end asked for SK_SEG_AHEAD rows early. */
SK_INLINE void SK_SEG_NAME(sk_seg_fold_rows)(const sk_seg_job *job, FT *restrict acc, int64_t i0,
                                             int64_t i1, int64_t c0, int64_t n, int64_t ahead_end,
                                             const sk_dtype DT, const sk_reduce OP) {
    const size_t ES = sk_es(DT);
    const size_t bytes = (size_t)n * ES < 256 ? (size_t)n * ES : 256;
    for (int64_t i = i0; i < i1; i++) {
        if (i + SK_SEG_AHEAD < ahead_end && job->src_col == 1)
            sk_prefetch_row_l2(SK_SEG_NAME(sk_seg_src)(job, i + SK_SEG_AHEAD, c0, ES), bytes);
        SK_SEG_NAME(sk_seg_row_op)(acc, SK_SEG_NAME(sk_seg_src)(job, i, c0, ES), job->src_col, n,
                                   DT, OP);
    }
}

/* The canonical fold of the segment at perm positions [b, e), columns
 * [c0, c0 + n), into acc (holding the start value when `self`); part has
 * room for n values. */
SK_INLINE void SK_SEG_NAME(sk_seg_fold_segment)(const sk_seg_job *job, FT *restrict acc,
                                                FT *restrict part, int64_t b, int64_t e, bool self,
                                                int64_t c0, int64_t n, int64_t ahead_end,
                                                const sk_dtype DT, const sk_reduce OP) {
    const size_t ES = sk_es(DT);
    int64_t i = b, e0 = e - b < SK_CANONICAL_CHUNK ? e : b + SK_CANONICAL_CHUNK;
    if (!self) SK_SEG_NAME(sk_seg_row_set)(acc, SK_SEG_NAME(sk_seg_src)(job, i++, c0, ES), job->src_col, n, DT);
    SK_SEG_NAME(sk_seg_fold_rows)(job, acc, i, e0, c0, n, ahead_end, DT, OP);
    for (int64_t c = e0; c < e; c += SK_CANONICAL_CHUNK) {
        int64_t ce = e - c < SK_CANONICAL_CHUNK ? e : c + SK_CANONICAL_CHUNK;
        SK_SEG_NAME(sk_seg_row_set)(part, SK_SEG_NAME(sk_seg_src)(job, c, c0, ES), job->src_col, n, DT);
        SK_SEG_NAME(sk_seg_fold_rows)(job, part, c + 1, ce, c0, n, ahead_end, DT, OP);
        SK_SEG_NAME(sk_seg_vals_op)(acc, part, n, DT, OP);
    }
}

/* Keys [klo, khi) of the window whose hotness is `hot`: each folded in
 * strips of columns, then stored (mean divided by its count); with the
 * copy fused, the untouched ones copied from x in the pass that is not
 * hot. */
SK_INLINE void SK_SEG_NAME(sk_seg_keys)(const sk_seg_job *job, int64_t klo, int64_t khi, bool hot,
                                        const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const size_t ES = sk_es(DT);
    const bool self = job->p->include_self;
    const int64_t len = job->len, ahead_end = khi > klo ? job->end[khi - 1] : 0;
    FT acc[SK_SEG_STRIP], part[SK_SEG_STRIP];
    for (int64_t k = klo; k < khi; k++) {
        int64_t b = sk_seg_begin(job, k), e = job->end[k];
        char *o = job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)ES;
        const char *from = sk_seg_start_row(job, k, o, ES);
        if (b == e) { /* untouched: out keeps x */
            if (job->copy_src && !hot) memcpy(o, from, (size_t)len * ES);
            continue;
        }
        if (sk_seg_is_hot(e - b) != hot) continue;
        for (int64_t c0 = 0; c0 < len; c0 += SK_SEG_STRIP) {
            int64_t n = len - c0 < SK_SEG_STRIP ? len - c0 : SK_SEG_STRIP;
            const char *fc = from + (size_t)c0 * ES;
            if (self) SK_SEG_NAME(sk_seg_row_set)(acc, fc, 1, n, DT);
            SK_SEG_NAME(sk_seg_fold_segment)(job, acc, part, b, e, self, c0, n, ahead_end, DT, OP);
            SK_SEG_NAME(sk_seg_store)(o + (size_t)c0 * ES, fc, acc, n, e - b + (self ? 1 : 0), DT, RED);
        }
    }
}

/* Canonical chunk c of hot key k into part (job->len values): chunk 0
 * starts from out's row (include_self) or its first row, later chunks
 * from their first row. */
SK_INLINE void SK_SEG_NAME(sk_seg_chunk)(const sk_seg_job *job, int64_t k, int64_t c,
                                         FT *restrict part, const sk_dtype DT,
                                         const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const size_t ES = sk_es(DT);
    int64_t b = sk_seg_begin(job, k) + c * SK_CANONICAL_CHUNK, e = job->end[k];
    if (e - b > SK_CANONICAL_CHUNK) e = b + SK_CANONICAL_CHUNK;
    if (c == 0 && job->p->include_self) {
        char *o = job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)ES;
        SK_SEG_NAME(sk_seg_row_set)(part, sk_seg_start_row(job, k, o, ES), 1, job->len, DT);
    } else {
        SK_SEG_NAME(sk_seg_row_set)(part, SK_SEG_NAME(sk_seg_src)(job, b++, 0, ES), job->src_col,
                                    job->len, DT);
    }
    SK_SEG_NAME(sk_seg_fold_rows)(job, part, b, e, 0, job->len, e, DT, OP);
}

/* Hot key k: its chunks' partials (parts, job->len values each) folded in
 * order into the first, then stored. */
SK_INLINE void SK_SEG_NAME(sk_seg_merge)(const sk_seg_job *job, int64_t k, FT *restrict parts,
                                         const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const size_t ES = sk_es(DT);
    const int64_t len = job->len, rows = job->end[k] - sk_seg_begin(job, k);
    const int64_t nc = (rows + SK_CANONICAL_CHUNK - 1) / SK_CANONICAL_CHUNK;
    for (int64_t c = 1; c < nc; c++) SK_SEG_NAME(sk_seg_vals_op)(parts, parts + c * len, len, DT, OP);
    char *o = job->p->target + (ptrdiff_t)sk_seg_out_offset(job, k) * (ptrdiff_t)ES;
    SK_SEG_NAME(sk_seg_store)(o, sk_seg_start_row(job, k, o, ES), parts, len,
                              rows + (job->p->include_self ? 1 : 0), DT, RED);
}

#undef FT
#undef SK_SEG_NAME
#undef SK_SEG_CAT
#undef SK_SEG_CAT2

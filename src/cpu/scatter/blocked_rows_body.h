/* The kernels of blocked rows (blocked_rows.c), as static inline bodies
 * stamped per dtype group (blocked_rows_<group>.c, through
 * blocked_rows_stamp.h): a block's walk over its update rows into its
 * partial (or out), and the merge of the partials. */
#ifndef SK_CPU_SCATTER_BLOCKED_ROWS_BODY_H
#define SK_CPU_SCATTER_BLOCKED_ROWS_BODY_H

#include "cpu/cursor.h"
#include "cpu/scatter/blocked_rows.h"
#include "cpu/scatter/reduce.h"
#include "cpu/scatter/stamp.h"

/* Float rows go in whole 64-byte lines (W elements of the value type FT)
 * with fixed-length inner loops: the compiler unrolls them, and a row of a
 * few lines then issues all its loads at once (a loop of runtime length
 * here halved the speed). LOAD(s, i, DT) is src element i as FT. */
#define SK_DEFINE_ROW_LINES(NAME, FT, ST, W, LOAD)                                                 \
    SK_INLINE void NAME(char *restrict dst, const char *restrict src, int64_t n, bool first,      \
                        const sk_dtype DT, const sk_reduce OP) {                                   \
        FT *restrict d = (FT *)(void *)dst;                                                        \
        const ST *restrict s = (const ST *)(const void *)src;                                      \
        int64_t j = 0;                                                                             \
        if (first) {                                                                               \
            for (; j + W <= n; j += W)                                                             \
                for (int u = 0; u < W; u++) d[j + u] = LOAD(s, j + u, DT);                         \
            for (; j < n; j++) d[j] = LOAD(s, j, DT);                                              \
        } else {                                                                                   \
            for (; j + W <= n; j += W)                                                             \
                for (int u = 0; u < W; u++)                                                        \
                    d[j + u] = (FT)sk_op_f(d[j + u], LOAD(s, j + u, DT), OP, DT);                  \
            for (; j < n; j++) d[j] = (FT)sk_op_f(d[j], LOAD(s, j, DT), OP, DT);                   \
        }                                                                                          \
    }
SK_INLINE float sk_row_load_half(const uint16_t *s, int64_t i, const sk_dtype DT) {
    return DT == SK_DTYPE_BFLOAT16 ? sk_bf16_to_f32(s[i]) : sk_f16_to_f32(s[i]);
}
#define SK_ROW_LOAD(s, i, DT) ((s)[i])
SK_DEFINE_ROW_LINES(sk_row_lines_half, float, uint16_t, 16, sk_row_load_half)
SK_DEFINE_ROW_LINES(sk_row_lines_f32, float, float, 16, SK_ROW_LOAD)
SK_DEFINE_ROW_LINES(sk_row_lines_f64, double, double, 8, SK_ROW_LOAD)
#undef SK_ROW_LOAD
#undef SK_DEFINE_ROW_LINES

/* d = first ? s : d (op) s over n elements; d holds the block's value type
 * (float32 when src is 16-bit). mean sums here and divides in the merge. */
SK_INLINE void sk_block_row(char *restrict dst, const char *restrict src, int64_t n, bool first,
                            const sk_dtype DT, const sk_reduce RED) {
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    const size_t ES = sk_es(DT);
    if (SK_IS_HALF(DT)) sk_row_lines_half(dst, src, n, first, DT, OP); /* float32 partials */
    else if (DT == SK_DTYPE_FLOAT32) sk_row_lines_f32(dst, src, n, first, DT, OP);
    else if (DT == SK_DTYPE_FLOAT64) sk_row_lines_f64(dst, src, n, first, DT, OP);
    else if (first) memcpy(dst, src, (size_t)n * ES);
    else
        for (int64_t j = 0; j < n; j++)
            sk_store_i(dst + j * ES,
                       sk_op_i(sk_load_i(dst + j * ES, DT), sk_load_i(src + j * ES, DT), OP, DT),
                       DT);
}


/* The common case of sk_block_walk, kept to a few instructions per row (the
 * loads of a row overlap with those of the next rows only while the loop is
 * short): one row dimension that does not move the target, one index
 * component, values already checked. Row r goes to base + v * vstride. */
SK_INLINE void sk_block_tight(const sk_blocks_job *job, int64_t r0, int64_t r1, int64_t klo,
                              int64_t khi, char *base, size_t vstride, int32_t *cnt,
                              bool replace_first, const bool IS64, const int64_t len,
                              const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    const int64_t n = rp->comp_size[0], cks = rp->comp_linear_stride[0],
                  is = rp->index_stride[0], ds = rp->dense_stride[0];
    /* lines of a target row and of a src row asked for ahead (up to 4) */
    const size_t part_row = (size_t)len * PES < 256 ? (size_t)len * PES : 256,
                 src_row = (size_t)len * ES < 256 ? (size_t)len * ES : 256;
    /* more threads than blocks: this thread applies the rows of keys [klo, khi) */
    const bool whole = klo == 0 && khi == job->nkeys;
    const char *src = rp->dense;
    const int64_t *ix64 = (const int64_t *)rp->index;
    const int32_t *ix32 = (const int32_t *)rp->index;
    /* target rows are random (into L2, far ahead); src is a stream (near) */
    enum { TARGET_AHEAD = SK_ROWS_AHEAD, SRC_AHEAD = SK_SRC_ROWS_AHEAD };
    for (int64_t r = r0; r < r1; r++) {
        if (r + TARGET_AHEAD < r1) { /* a negative value prefetches a harmless wrong line */
            int64_t va = IS64 ? ix64[(r + TARGET_AHEAD) * is] : ix32[(r + TARGET_AHEAD) * is];
            if (whole || (uint64_t)((va + (va < 0 ? n : 0)) * cks - klo) < (uint64_t)(khi - klo))
                sk_prefetch_row_l2(base + va * (ptrdiff_t)vstride, part_row);
        }
        if (r + SRC_AHEAD < r1) {
            /* src is read once: asked for with the non-temporal hint, so
             * that it displaces fewer of the target rows from the caches */
            const char *sq = src + (size_t)((r + SRC_AHEAD) * ds) * ES;
            for (size_t o = 0; o < src_row; o += 64) __builtin_prefetch(sq + o, 0, 0);
        }
        int64_t v = IS64 ? ix64[r * is] : ix32[r * is];
        v += v < 0 ? n : 0;
        if (!whole && (uint64_t)(v * cks - klo) >= (uint64_t)(khi - klo)) continue;
        bool first = cnt[v * cks]++ == 0 && replace_first;
        sk_block_row(base + (size_t)v * vstride, src + (size_t)(r * ds) * ES, len, first, DT, RED);
    }
}

/* A src whose rows are not contiguous (transposed: each element of a row in
 * a line, or a page, of its own) is read a group of rows at a time: each
 * column's run of the group in order, into a row-major buffer in L1 (and
 * the next group's runs asked for meanwhile). The rows are then applied
 * from the buffer in the same order as by sk_block_tight, so the bits are
 * the same. */

/* Rows [g0, g0 + rows) of a strided src (row stride ds, column stride dj,
 * in elements) into buf, row-major: each column's run of the group in order,
 * the next group's run asked for first when `ahead`. */
static void sk_pack_rows(char *restrict buf, const char *src, int64_t g0, int64_t rows, int64_t ds,
                         int64_t dj, int64_t len, size_t es, bool ahead) {
    for (int64_t j = 0; j < len; j++) {
        const char *c = src + (ptrdiff_t)(g0 * ds + j * dj) * (ptrdiff_t)es;
        if (ahead) sk_prefetch_row_l2(c + (size_t)rows * es, (size_t)rows * es); /* follows these */
        sk_move(buf + (size_t)j * es, len, c, ds, rows, es, false);
    }
}

SK_INLINE void sk_block_packed(const sk_blocks_job *job, int64_t r0, int64_t r1, int64_t klo,
                               int64_t khi, char *base, size_t vstride, int32_t *cnt,
                               bool replace_first, const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    const int64_t n = rp->comp_size[0], cks = rp->comp_linear_stride[0],
                  is = rp->index_stride[0], ds = rp->dense_stride[0], len = job->len;
    const size_t part_row = (size_t)len * PES < 256 ? (size_t)len * PES : 256;
    const bool whole = klo == 0 && khi == job->nkeys;
    const int64_t group = SK_BLOCK_PACK_BYTES / (len * (int64_t)ES);
    _Alignas(64) char buf[SK_BLOCK_PACK_BYTES];
    enum { AHEAD = SK_ROWS_AHEAD };
    for (int64_t g0 = r0; g0 < r1; g0 += group) {
        int64_t g1 = g0 + group < r1 ? g0 + group : r1;
        sk_pack_rows(buf, rp->dense, g0, g1 - g0, ds, job->src_col, len, ES, ds == 1 && g1 < r1);
        for (int64_t r = g0; r < g1; r++) {
            if (r + AHEAD < r1) {
                int64_t va = sk_load_index(rp->index, rp->index_is64, (r + AHEAD) * is);
                if (whole || (uint64_t)((va + (va < 0 ? n : 0)) * cks - klo) < (uint64_t)(khi - klo))
                    sk_prefetch_row_l2(base + va * (ptrdiff_t)vstride, part_row);
            }
            int64_t v = sk_load_index(rp->index, rp->index_is64, r * is);
            v += v < 0 ? n : 0;
            if (!whole && (uint64_t)(v * cks - klo) >= (uint64_t)(khi - klo)) continue;
            bool first = cnt[v * cks]++ == 0 && replace_first;
            sk_block_row(base + (size_t)v * vstride, buf + (size_t)((r - g0) * len) * ES, len, first,
                         DT, RED);
        }
    }
}

/* The update rows of block b. When block 0 reduces into out itself (no
 * partial for it), its row updates cost more than those of block 1, which go
 * to huge-page scratch (TLB misses on a caller's 4 KiB pages): block 0 then
 * takes SK_ROW_BLOCK0_NUM / SK_ROW_BLOCK0_DEN of the rows, so that two
 * threads finish closer together. The cut still depends only on the problem
 * (the budget decides all_partials), never on the thread count. */
static void sk_block_rows(const sk_blocks_job *job, int b, int64_t *r0, int64_t *r1) {
    if (job->all_partials || job->nblocks != 2) {
        sk_partition(job->nrows, b, job->nblocks, r0, r1);
        return;
    }
    int64_t cut = job->nrows / SK_ROW_BLOCK0_DEN * SK_ROW_BLOCK0_NUM;
    *r0 = b == 0 ? 0 : cut;
    *r1 = b == 0 ? cut : job->nrows;
}


/* Block b's rows [r0, r1) of the tight pattern (sk_block_is_tight): rows
 * of 32 elements with the length a constant, so that the row loops unroll
 * and the loop keeps its state in registers. */
SK_INLINE void sk_block_walk_tight(const sk_blocks_job *job, int b, int64_t r0, int64_t r1,
                                   int64_t klo, int64_t khi, const sk_dtype DT,
                                   const sk_reduce RED) {
    const sk_plan *p = job->p, *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    char *part = job->part[b];
    int32_t *cnt = job->cnt[b];
    const bool replace_first = part != NULL || !p->include_self;
    const int64_t len = job->len;
    char *base = part ? part : p->target;
    size_t vstride = part ? (size_t)(rp->comp_linear_stride[0] * len) * PES
                          : (size_t)rp->comp_target_stride[0] * ES;
    if (job->src_col != 1) {
        sk_block_packed(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, DT, RED);
        return;
    }
    if (len == 32 && rp->index_is64)
        sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, true, 32, DT, RED);
    else if (len == 32)
        sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, false, 32, DT, RED);
    else if (rp->index_is64)
        sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, true, len, DT, RED);
    else
        sk_block_tight(job, r0, r1, klo, khi, base, vstride, cnt, replace_first, false, len, DT, RED);
}

/* Block b's rows, applying those whose key is in [klo, khi). */
SK_INLINE void sk_block_walk(const sk_blocks_job *job, int b, int64_t klo, int64_t khi,
                             const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *p = job->p, *rp = &job->rows;
    const size_t ES = sk_es(DT), PES = SK_IS_HALF(DT) ? 4 : ES;
    int64_t r0, r1;
    sk_block_rows(job, b, &r0, &r1);
    if (sk_block_is_tight(rp)) {
        sk_block_walk_tight(job, b, r0, r1, klo, khi, DT, RED);
        return;
    }
    char *part = job->part[b];
    int32_t *cnt = job->cnt[b];
    const bool replace_first = part != NULL || !p->include_self;
    const int64_t len = job->len;
    const size_t row_bytes = (size_t)len * PES;
    const int d = rp->ndim - 1;
    const int64_t ds = rp->dense_stride[d], ts = rp->target_stride[d], ks = rp->linear_stride[d],
                  is = rp->index_stride[d];
    enum { AHEAD = SK_ROWS_AHEAD };
    sk_cursor c;
    sk_cursor_seek(rp, &c, r0);
    for (int64_t pos = r0; pos < r1;) {
        int64_t run = sk_cursor_run(rp, &c);
        if (run > r1 - pos) run = r1 - pos;
        for (int64_t r = 0; r < run; r++) {
            if (r + AHEAD < run) { /* the target rows are random: fetch them early */
                int64_t t = c.target + (r + AHEAD) * ts, k = c.linear + (r + AHEAD) * ks;
                if (sk_plan_resolve(rp, c.index + (r + AHEAD) * is, &t, &k) && k >= klo &&
                    k < khi) {
                    const char *q = part ? part + (size_t)(k * len) * PES : p->target + (size_t)t * ES;
                    sk_prefetch_row_l2(q, row_bytes < 256 ? row_bytes : 256);
                }
            }
            int64_t t = c.target + r * ts, k = c.linear + r * ks;
            if (!sk_plan_resolve(rp, c.index + r * is, &t, &k) || k < klo || k >= khi) continue;
            bool first = cnt[k]++ == 0 && replace_first;
            char *dst = part ? part + (size_t)(k * len) * PES : p->target + (size_t)t * ES;
            sk_block_row(dst, p->dense + (size_t)(c.dense + r * ds) * ES, len, first, DT, RED);
        }
        pos += run;
        if (pos < r1) sk_cursor_advance(rp, &c, run);
    }
}

/* Row k of a 16-bit out: x's value (include_self) and the float32 partials
 * folded in block order a strip at a time, rounded once. */
SK_INLINE void sk_block_merge_half(const sk_blocks_job *job, int64_t k, uint16_t *oh,
                                   int64_t total, const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *p = job->p;
    const int64_t len = job->len, self = p->include_self ? 1 : 0;
    const sk_reduce OP = RED == SK_REDUCE_MEAN ? SK_REDUCE_SUM : RED;
    enum { STRIP = 256 };
    float a[STRIP];
    for (int64_t j0 = 0; j0 < len; j0 += STRIP) {
        int64_t n = len - j0 < STRIP ? len - j0 : STRIP;
        bool have = p->include_self;
        if (have) sk_half_run_to_f32(a, oh + j0, 1, n, DT == SK_DTYPE_BFLOAT16);
        for (int b = 0; b < job->nblocks; b++) {
            if (job->cnt[b][k] == 0) continue;
            const float *pv = (const float *)(const void *)job->part[b] + k * len + j0;
            if (have) for (int64_t j = 0; j < n; j++) a[j] = (float)sk_op_f(a[j], pv[j], OP, DT);
            else memcpy(a, pv, (size_t)n * sizeof(float));
            have = true;
        }
        if (RED == SK_REDUCE_MEAN)
            for (int64_t j = 0; j < n; j++) a[j] = a[j] / (float)(total + self);
        /* a NaN already in out keeps its bits (sk_half_round) */
        sk_f32_run_to_half(oh + j0, 1, oh + j0, 1, a, n, DT == SK_DTYPE_BFLOAT16);
    }
}

/* Row k of out (o, len elements) for other types: the partials folded on
 * top of out in block order (block 0 reduced into out itself unless it has
 * a partial too), then mean's division. */
SK_INLINE void sk_block_merge_row(const sk_blocks_job *job, int64_t k, char *o, int64_t total,
                                  const sk_dtype DT, const sk_reduce RED) {
    const sk_plan *p = job->p;
    const size_t ES = sk_es(DT);
    const int64_t len = job->len, self = p->include_self ? 1 : 0;
    bool have = p->include_self || (!job->part[0] && job->cnt[0][k] > 0);
    for (int b = job->part[0] ? 0 : 1; b < job->nblocks; b++) {
        if (job->cnt[b][k] == 0) continue;
        sk_block_row(o, job->part[b] + (size_t)(k * len) * ES, len, !have, DT, RED);
        have = true;
    }
    if (RED != SK_REDUCE_MEAN) return;
    int64_t n = total + self;
    if (DT == SK_DTYPE_FLOAT32) {
        float *d = (float *)(void *)o;
        for (int64_t j = 0; j < len; j++) d[j] = d[j] / (float)n;
    } else if (DT == SK_DTYPE_FLOAT64) {
        double *d = (double *)(void *)o;
        for (int64_t j = 0; j < len; j++) d[j] = d[j] / (double)n;
    } else {
        for (int64_t j = 0; j < len; j++)
            sk_store_i(o + j * ES, sk_floor_div(sk_load_i(o + j * ES, DT), n), DT);
    }
}

/* Folds the blocks of keys [klo, khi) into out, in block order. */
SK_INLINE void sk_block_merge(const sk_blocks_job *job, int64_t klo, int64_t khi,
                              const sk_dtype DT, const sk_reduce RED) {
    const sk_tensor *out = job->ex->out;
    const size_t ES = sk_es(DT);
    const int64_t len = job->len;
    const bool row_major = sk_row_major(out); /* a key's row at k * len, no division per key */
    const int64_t out_numel = sk_tensor_numel(out);
    for (int64_t k = klo; k < khi; k++) {
        int64_t total = 0;
        for (int b = 0; b < job->nblocks; b++) total += job->cnt[b][k];
        if (job->copy_src) { /* row k of x, then the blocks on top */
            int64_t at = k * len, n = len < out_numel - at ? len : out_numel - at;
            memcpy((char *)out->data + (size_t)at * ES, job->copy_src + (size_t)at * ES,
                   (size_t)n * ES);
        }
        if (total == 0) continue; /* untouched: out keeps x */
        int64_t rem = k * len, off = 0;
        if (row_major) off = rem;
        else
            for (int dd = out->ndim - 1; dd >= 0; dd--) {
                off += rem % out->shape[dd] * out->strides[dd];
                rem /= out->shape[dd];
            }
        char *o = (char *)out->data + (size_t)off * ES;
        if (SK_IS_HALF(DT)) sk_block_merge_half(job, k, (uint16_t *)(void *)o, total, DT, RED);
        else sk_block_merge_row(job, k, o, total, DT, RED);
    }
}

#endif /* SK_CPU_SCATTER_BLOCKED_ROWS_BODY_H */

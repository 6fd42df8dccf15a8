/* The gather engine: out[p] = x[target(p)] over a plan's iteration space.
 * Threads own disjoint ranges of output positions, so any split gives the
 * same bytes. Data moves by element width only (1, 2, 4 or 8 bytes). */
#include "cpu/cursor.h"

typedef struct {
    const sk_plan *p;
    int64_t total;
    bool rows;    /* the row pattern: chunks count rows */
    int64_t tile; /* column tiles (sk_plan_column_tile): chunks count tiles; else 0 */
    char *pack;   /* per thread, pack_bytes each: a tile of x's target rows, packed */
    size_t pack_bytes;
} sk_gather_job;

/* An index value could not be resolved: in ERROR mode (checked in the
 * kernel) that is the error; otherwise the fill value is written. */
SK_INLINE void sk_gather_unresolved(const sk_plan *p) {
    if (p->mode == SK_INDEX_MODE_ERROR && p->invalid)
        __atomic_store_n(p->invalid, 1, __ATOMIC_RELAXED);
}

/* Whether a bad value was found (in-kernel check): the result will be thrown
 * away, so the walks stop at their next run instead of finishing the whole
 * out (an index_select with a bad value near the start and a 16 GiB result
 * took 31 s to report it). */
SK_INLINE bool sk_gather_failed(const sk_plan *p) {
    return p->invalid && __atomic_load_n(p->invalid, __ATOMIC_RELAXED);
}

SK_INLINE void sk_fill_run(char *dst, int64_t ds, const void *value, int64_t n, size_t es) {
    static const uint64_t zero = 0;
    if (!value) value = &zero;
    for (int64_t j = 0; j < n; j++) memcpy(dst + (size_t)(j * ds) * es, value, es);
}

/* Whether every value of ix[0, m) lies in [0, n), for n < 2^31. Checked
 * ahead of a block so that the block's copy loop is three instructions per
 * element (load index, load value, store); a per-element check in the copy
 * loop made it compute-bound (10.5 against 6.6 ms for W1). Negative values
 * fail here and take the careful loop, which wraps them. */
#if defined(__x86_64__) || defined(_M_X64)
/* With AVX2 (picked at run time): four values per compare, 64-bit compares
 * (v < 0 or v > n - 1), a quarter of the SSE2 loop's instructions; the check
 * was a third of W1's time (W1 in one process: 1 thread 7.7-10 against
 * 8.8-11.2 ms, 2 threads 4.8-5.8 against 4.8-6.5). */
#if defined(__GNUC__) || defined(__clang__)
#include <immintrin.h>
__attribute__((target("avx2"))) static bool sk_block_in_range_i64_avx2(const int64_t *ix, int64_t m,
                                                                       int64_t n) {
    const __m256i zero = _mm256_setzero_si256(), last = _mm256_set1_epi64x(n - 1);
    __m256i bad = zero;
    int64_t j = 0;
    for (; j + 8 <= m; j += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(ix + j));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(ix + j + 4));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(zero, a),
                                                   _mm256_cmpgt_epi64(a, last)));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(zero, b),
                                                   _mm256_cmpgt_epi64(b, last)));
    }
    bool ok = _mm256_testz_si256(bad, bad);
    for (; j < m; j++) ok &= (uint64_t)ix[j] < (uint64_t)n;
    return ok;
}
#endif
SK_INLINE bool sk_block_in_range_i64(const int64_t *ix, int64_t m, int64_t n) {
#if defined(__GNUC__) || defined(__clang__)
    if (__builtin_cpu_supports("avx2")) return sk_block_in_range_i64_avx2(ix, m, n);
#endif
    /* SSE2 has no 64-bit compare: a value is in range when its high half
     * is zero (OR-ed over the block) and its low half is below n unsigned
     * (a signed compare after flipping the sign bits) */
    const __m128i sign = _mm_set1_epi32((int)0x80000000u);
    const __m128i nb = _mm_set1_epi32((int)((uint32_t)n ^ 0x80000000u));
    __m128i high = _mm_setzero_si128(), below = _mm_set1_epi32(-1);
    int64_t j = 0;
    for (; j + 2 <= m; j += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(ix + j));
        high = _mm_or_si128(high, v);
        below = _mm_and_si128(below, _mm_cmpgt_epi32(nb, _mm_xor_si128(v, sign)));
    }
    /* lanes 0, 2: low halves; 1, 3: high halves */
    bool ok = (_mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) & 0xF0F0) == 0xF0F0 &&
              (_mm_movemask_epi8(below) & 0x0F0F) == 0x0F0F;
    for (; j < m; j++) ok &= (uint64_t)ix[j] < (uint64_t)n;
    return ok;
}
SK_INLINE bool sk_block_in_range_i32(const int32_t *ix, int64_t m, int64_t n) {
    const __m128i sign = _mm_set1_epi32((int)0x80000000u);
    const __m128i nb = _mm_set1_epi32((int)((uint32_t)n ^ 0x80000000u));
    __m128i below = _mm_set1_epi32(-1);
    int64_t j = 0;
    for (; j + 4 <= m; j += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(ix + j));
        below = _mm_and_si128(below, _mm_cmpgt_epi32(nb, _mm_xor_si128(v, sign)));
    }
    bool ok = _mm_movemask_epi8(below) == 0xFFFF;
    for (; j < m; j++) ok &= (uint32_t)ix[j] < (uint64_t)n;
    return ok;
}
#else
SK_INLINE bool sk_block_in_range_i64(const int64_t *ix, int64_t m, int64_t n) {
    uint64_t bad = 0;
    for (int64_t j = 0; j < m; j++) bad |= (uint64_t)ix[j] >= (uint64_t)n;
    return !bad;
}
SK_INLINE bool sk_block_in_range_i32(const int32_t *ix, int64_t m, int64_t n) {
    uint64_t bad = 0;
    for (int64_t j = 0; j < m; j++) bad |= (uint32_t)ix[j] >= (uint64_t)n;
    return !bad;
}
#endif

/* The index 2 KiB ahead, with the non-temporal hint: it is read once, and
 * so displaces less of the row of x being gathered from (W1 at 2 threads, one
 * process: 3.9-4.5 against 4.3-5.3 ms). An address only, never read. */
#define SK_PREFETCH_INDEX_NTA(at)                                                                  \
    do {                                                                                           \
        uintptr_t ia_ = (uintptr_t)(at) + 2048;                                                    \
        __builtin_prefetch((const void *)ia_, 0, 0);                                               \
        if (sizeof(*(at)) == 8) __builtin_prefetch((const void *)(ia_ + 64), 0, 0);                \
    } while (0)

/* A block of 4-byte elements with the AVX2 gather instruction (picked at
 * run time), the range check fused in: each vector of index values is
 * compared with [0, n) as it is loaded, a value outside reads element 0
 * instead (never out of bounds), and false sends the block to the careful
 * loop, which redoes it. One instruction fetches 4 or 8 elements where the
 * scalar copy spends a load of the index, a load and a store per element
 * and is compute-bound at one thread, and the index is read once instead of
 * twice (W1's shape in C with a fresh out, against the checked scalar copy
 * in the same process: 1 thread 4.9 against 7.6 ms, 2 threads 3.0 against
 * 4.1). For 8-byte elements, and where x and the index sit in the caches
 * (see the caller), the instruction was slower than the scalar loop. Into a
 * large out (nt) the stores are 16-byte non-temporal ones. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SK_GATHER_SCALAR_CHECKED(cond)                                                             \
    for (; cond; j++) {                                                                            \
        uint64_t v_ = (uint64_t)ix[j];                                                             \
        bool in_ = v_ < (uint64_t)n;                                                               \
        bad |= !in_;                                                                               \
        o[j] = x[in_ ? v_ : 0];                                                                    \
    }
/* VECTORS: a statement storing 32 bytes of out from ix + j + k into v_, with
 * ok_ AND-ed with the lanes' range masks */
#define SK_GATHER_BLOCK(IT, ...)                                                                   \
    __attribute__((target("avx2"))) static bool sk_gather_block_##IT(                              \
        uint32_t *restrict o, const uint32_t *restrict x, const IT *restrict ix, int64_t m,        \
        int64_t n, bool nt, uintptr_t *ahead, size_t ahead_step) {                                 \
        bool bad = false;                                                                          \
        int64_t j = 0;                                                                             \
        if (nt) SK_GATHER_SCALAR_CHECKED(j < m && ((uintptr_t)(o + j) & 15))                       \
        __m256i ok_ = _mm256_set1_epi32(-1);                                                       \
        const int *xi_ = (const int *)(const void *)x;                                             \
        for (; j + 16 <= m; j += 16, *ahead += ahead_step) {                                       \
            if (ahead_step) __builtin_prefetch((const void *)*ahead);                              \
            SK_PREFETCH_INDEX_NTA(ix + j);                                                         \
            for (int k = 0; k < 16; k += 8) {                                                      \
                __m256i v_;                                                                        \
                __VA_ARGS__;                                                                       \
                __m128i *to_ = (__m128i *)(void *)(o + j + k);                                     \
                if (nt) {                                                                          \
                    _mm_stream_si128(to_, _mm256_castsi256_si128(v_));                             \
                    _mm_stream_si128(to_ + 1, _mm256_extracti128_si256(v_, 1));                    \
                } else {                                                                           \
                    _mm256_storeu_si256((__m256i *)(void *)to_, v_);                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        SK_GATHER_SCALAR_CHECKED(j < m)                                                            \
        return !bad && _mm256_testc_si256(ok_, _mm256_set1_epi32(-1));                             \
    }
#define SK_LOAD256(at) _mm256_loadu_si256((const __m256i *)(const void *)(at))
/* a value is in [0, n) when (v ^ sign) < (n ^ sign) as signed numbers */
#define SK_IN_RANGE64(v) _mm256_cmpgt_epi64(nb_, _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)))
#define SK_IN_RANGE32(v) _mm256_cmpgt_epi32(nb_, _mm256_xor_si256(v, _mm256_set1_epi32(INT32_MIN)))
/* int64: 4 elements per instruction, so two per 8 */
SK_GATHER_BLOCK(int64_t, {
    const __m256i nb_ = _mm256_set1_epi64x((int64_t)((uint64_t)n ^ (1ull << 63)));
    __m256i a_ = SK_LOAD256(ix + j + k), b_ = SK_LOAD256(ix + j + k + 4);
    __m256i ia_ = SK_IN_RANGE64(a_), ib_ = SK_IN_RANGE64(b_);
    ok_ = _mm256_and_si256(ok_, _mm256_and_si256(ia_, ib_));
    v_ = _mm256_set_m128i(_mm256_i64gather_epi32(xi_, _mm256_and_si256(b_, ib_), 4),
                          _mm256_i64gather_epi32(xi_, _mm256_and_si256(a_, ia_), 4));
})
SK_GATHER_BLOCK(int32_t, {
    const __m256i nb_ = _mm256_set1_epi32((int32_t)((uint32_t)n ^ 0x80000000u));
    __m256i a_ = SK_LOAD256(ix + j + k);
    __m256i ia_ = SK_IN_RANGE32(a_);
    ok_ = _mm256_and_si256(ok_, ia_);
    v_ = _mm256_i32gather_epi32(xi_, _mm256_and_si256(a_, ia_), 4);
})
#undef SK_LOAD256
#undef SK_IN_RANGE64
#undef SK_IN_RANGE32
#undef SK_GATHER_BLOCK
#undef SK_GATHER_SCALAR_CHECKED
#define SK_CAN_GATHER_BLOCK __builtin_cpu_supports("avx2")
#else
#define SK_CAN_GATHER_BLOCK false
#define sk_gather_block_int64_t(o, x, ix, m, n, nt, ahead, step) false
#define sk_gather_block_int32_t(o, x, ix, m, n, nt, ahead, step) false
#endif

/* Along the last axis with everything contiguous, in blocks of 512: a block
 * whose values are all in [0, n) is copied without further checks; any other
 * block takes the careful one-pass loop, where a bad value reads element 0
 * instead (never out of bounds) and the run is then redone by the caller's
 * loop (false). A function of its own so that its few variables stay in
 * registers.
 *
 * While one row is gathered, the row of x that follows it in memory (the next
 * run's row when x is packed, as in torch.gather on a contiguous tensor) is
 * prefetched one cache line per 16 elements. Without it every line of that
 * row is first touched at a random place, and the random misses, not the
 * bandwidth, set the pace: W1 at 1 thread took 11 ms, with it 7 ms (plain C
 * loop, same machine; a copy of the same bytes takes 3.3). Prefetches never
 * fault, so a row past the end of x costs nothing but the hint. Only rows up
 * to 64 KiB: a longer row would not stay in L2 until it is used.
 *
 * Into a large out (p->stream) 4- and 8-byte elements are written 16 bytes
 * at a time with non-temporal stores: no read for ownership of out, a
 * quarter less memory traffic. Plain C at 2 threads: 4.2-5.0 against
 * 4.8-8.4 ms; at 1 thread 7.3-8.0 against 8.1-9.5. */
#define SK_LAST_AXIS(T, IT)                                                                        \
    SK_HOT __attribute__((noinline)) static bool sk_gather_last_axis_##T##_##IT(                   \
        T *restrict o, const T *restrict x, const IT *restrict ix, int64_t run, int64_t n,         \
        bool stream, bool past_l2) {                                                               \
        uint64_t bad = 0;                                                                          \
        const bool nt = stream && (sizeof(T) == 4 || sizeof(T) == 8);                              \
        /* the gather instruction pays off only where x's rows miss (above) */                   \
        const bool gather4 = sizeof(T) == 4 && past_l2 && n >= 1024 && run >= 256 &&             \
                             n <= INT32_MAX && SK_CAN_GATHER_BLOCK;                                \
        /* the next row of x, an address never read; a longer row stays on its first line */      \
        uintptr_t ahead = (uintptr_t)x + (uintptr_t)n * sizeof(T);                                 \
        size_t ahead_step = 0;                                                                     \
        if (run > 0 && (uint64_t)n * sizeof(T) <= 65536)                                           \
            ahead_step = (size_t)(n * 16) * sizeof(T) / (size_t)run;                               \
        for (int64_t j0 = 0; j0 < run; j0 += 512) {                                                \
            int64_t m = run - j0 < 512 ? run - j0 : 512;                                           \
            if (gather4 && sk_gather_block_##IT((uint32_t *)(void *)(o + j0),                      \
                                                (const uint32_t *)(const void *)x, ix + j0, m, n,  \
                                                nt, &ahead, ahead_step))                           \
                continue;                                                                          \
            if (!gather4 && n <= INT32_MAX && sk_block_in_range_##IT(ix + j0, m, n)) {             \
                int64_t j = j0;                                                                    \
                if (nt) /* up to a 16-byte boundary of out */                                      \
                    for (; j < j0 + m && ((uintptr_t)(o + j) & 15); j++) o[j] = x[ix[j]];          \
                for (; j + 16 <= j0 + m; j += 16, ahead += ahead_step) { /* 16 at a time */        \
                    if (ahead_step) __builtin_prefetch((const void *)ahead);                       \
                    SK_PREFETCH_INDEX_NTA(ix + j);                                                 \
                    const IT *q = ix + j;                                                          \
                    if (!nt)                                                                       \
                        for (int k = 0; k < 16; k++) o[j + k] = x[q[k]];                           \
                    else if (sizeof(T) == 4)                                                       \
                        for (int k = 0; k < 16; k += 4)                                            \
                            sk_stream_4x32(o + j + k, (uint32_t)x[q[k]], (uint32_t)x[q[k + 1]],    \
                                           (uint32_t)x[q[k + 2]], (uint32_t)x[q[k + 3]]);          \
                    else                                                                           \
                        for (int k = 0; k < 16; k += 2)                                            \
                            sk_stream_2x64(o + j + k, (uint64_t)x[q[k]], (uint64_t)x[q[k + 1]]);   \
                }                                                                                  \
                for (; j < j0 + m; j++) o[j] = x[ix[j]];                                           \
                continue;                                                                          \
            }                                                                                      \
            for (int64_t j = j0; j < j0 + m; j++) {                                                \
                int64_t v = ix[j];                                                                 \
                v += v < 0 ? n : 0;                                                                \
                bool in = (uint64_t)v < (uint64_t)n;                                               \
                bad |= !in;                                                                        \
                o[j] = x[in ? v : 0];                                                              \
            }                                                                                      \
        }                                                                                          \
        return !bad;                                                                               \
    }
#define sk_block_in_range_int64_t sk_block_in_range_i64
#define sk_block_in_range_int32_t sk_block_in_range_i32
SK_LAST_AXIS(uint8_t, int32_t)
SK_LAST_AXIS(uint8_t, int64_t)
SK_LAST_AXIS(uint16_t, int32_t)
SK_LAST_AXIS(uint16_t, int64_t)
SK_LAST_AXIS(uint32_t, int32_t)
SK_LAST_AXIS(uint32_t, int64_t)
SK_LAST_AXIS(uint64_t, int32_t)
SK_LAST_AXIS(uint64_t, int64_t)
#undef SK_LAST_AXIS
#undef sk_block_in_range_int64_t
#undef sk_block_in_range_int32_t

/* One run whose index varies along it: each element resolves its own target.
 * Typed by element width so the copy is a plain load/store. */
SK_INLINE void sk_gather_varying(const sk_plan *p, const sk_cursor *c, int64_t run,
                                 const size_t ES, const bool IS64) {
    int d = p->ndim - 1;
    char *dense = p->dense + (size_t)c->dense * ES;
    const char *target = p->target;
    int64_t ds = p->dense_stride[d], ts = p->target_stride[d], is = p->index_stride[d];
    if (p->ncomp == 1) {
        int64_t n = p->comp_size[0], cts = p->comp_target_stride[0];
        const char *base = target + (size_t)c->target * ES;
#define SK_VARYING_LOOP(T, IT)                                                                     \
    do {                                                                                           \
        T *o_ = (T *)(void *)dense;                                                                \
        const T *x_ = (const T *)(const void *)base;                                               \
        const IT *ix_ = (const IT *)p->index + c->index;                                           \
        if (ds == 1 && is == 1 && ts == 0 && cts == 1 && n > 0) {                                   \
            if (sk_gather_last_axis_##T##_##IT(o_, x_, ix_, run, n, p->stream, p->past_l2))        \
                break;                                                                             \
        }                                                                                          \
        for (int64_t j = 0; j < run; j++) {                                                        \
            int64_t v = ix_[j * is];                                                               \
            if (v < 0) v += n;                                                                     \
            if (SK_UNLIKELY((uint64_t)v >= (uint64_t)n)) {                                         \
                if (!sk_resolve_index(ix_[j * is], n, p->mode, &v)) {                              \
                    sk_gather_unresolved(p);                                                       \
                    sk_fill_run((char *)(o_ + j * ds), 1, p->fill, 1, ES);                         \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            o_[j * ds] = x_[j * ts + v * cts];                                                     \
        }                                                                                          \
    } while (0)
#define SK_VARYING_WIDTH(IT)                                                                       \
    switch (ES) {                                                                                  \
    case 1: SK_VARYING_LOOP(uint8_t, IT); break;                                                   \
    case 2: SK_VARYING_LOOP(uint16_t, IT); break;                                                  \
    case 4: SK_VARYING_LOOP(uint32_t, IT); break;                                                  \
    default: SK_VARYING_LOOP(uint64_t, IT); break;                                                 \
    }
        if (IS64) SK_VARYING_WIDTH(int64_t) else SK_VARYING_WIDTH(int32_t)
#undef SK_VARYING_WIDTH
#undef SK_VARYING_LOOP
        return;
    }
    for (int64_t j = 0; j < run; j++) {
        int64_t toff = c->target + j * ts, lin = 0;
        if (!sk_plan_resolve(p, c->index + j * is, &toff, &lin)) {
            sk_gather_unresolved(p);
            sk_fill_run(dense + (size_t)(j * ds) * ES, 1, p->fill, 1, ES);
            continue;
        }
        sk_move(dense + (size_t)(j * ds) * ES, 1, target + (size_t)toff * ES, 1, 1, ES, false);
    }
}

/* Rows: the index is constant along a contiguous inner dimension (embedding
 * lookups, index_select along a leading axis). The rows come from random
 * places, so the rows SK_ROWS_AHEAD ahead are prefetched into L2 to keep
 * many misses in flight (sk_prefetch_row_l2).
 *
 * The loop runs with the row size as a constant for the common sizes (16,
 * 32, 64 floats): its prefetches and copies are then straight-line code, and
 * measured on W7 (plain C, 1 thread) the same loop with a variable size took
 * 36-42 ms against 30-31 ms. With misses in flight the limit is how many rows
 * fit in the out-of-order window, so every instruction per row counts. */
SK_INLINE void sk_gather_rows_sized(const sk_plan *p, const sk_cursor *c, int64_t nrows,
                                    const size_t ES, const bool IS64, const size_t ROW_BYTES,
                                    bool stream) {
    int d = p->ndim - 1, r2 = p->ndim - 2;
    int64_t len = p->shape[d], n = p->comp_size[0];
    /* everything the loop needs in locals: the stores go through char
     * pointers, which may alias the plan, and would make the compiler reload
     * its fields on every row */
    const char *index = IS64 ? (const char *)((const int64_t *)p->index + c->index)
                             : (const char *)((const int32_t *)p->index + c->index);
    ptrdiff_t istep = (ptrdiff_t)(p->index_stride[r2] * (IS64 ? 8 : 4));
    const char *target = p->target + (size_t)c->target * ES;
    ptrdiff_t tstep = (ptrdiff_t)(p->target_stride[r2] * (int64_t)ES);
    ptrdiff_t vstep = (ptrdiff_t)(p->comp_target_stride[0] * (int64_t)ES);
    char *dst = p->dense + (size_t)c->dense * ES;
    ptrdiff_t dstep = (ptrdiff_t)(p->dense_stride[r2] * (int64_t)ES);
    sk_index_mode mode = p->mode;
    enum { AHEAD = SK_ROWS_AHEAD };
    for (int64_t r = 0; r < nrows; r++, index += istep, target += tstep, dst += dstep) {
        if (r + AHEAD < nrows) {
            /* an address only (a bad value's row is never read: prefetches
             * do not fault), so computed in integers */
            uintptr_t q = (uintptr_t)target + (uintptr_t)(AHEAD * tstep) +
                          (uintptr_t)sk_load_index(index + AHEAD * istep, IS64, 0) * (uintptr_t)vstep;
            sk_prefetch_row_l2((const void *)q, ROW_BYTES);
        }
        int64_t v = sk_load_index(index, IS64, 0);
        if (!sk_resolve_index(v, n, mode, &v)) {
            sk_gather_unresolved(p);
            if (sk_gather_failed(p)) return;
            sk_fill_run(dst, 1, p->fill, len, ES);
            continue;
        }
        const char *row = target + (ptrdiff_t)v * vstep;
        if (stream) sk_stream_row(dst, row, ROW_BYTES);
        else memcpy(dst, row, ROW_BYTES);
    }
}

SK_INLINE void sk_gather_rows(const sk_plan *p, const sk_cursor *c, int64_t nrows,
                              const size_t ES, const bool IS64) {
    int r2 = p->ndim - 2;
    size_t row_bytes = (size_t)p->shape[p->ndim - 1] * ES;
    /* rows written with non-temporal stores when every row starts 16-byte
     * aligned: a large out is not read for ownership first (sk_gather_task
     * fences once at the end) */
    bool stream = p->stream && row_bytes % 16 == 0 && (p->dense_stride[r2] * (int64_t)ES) % 16 == 0 &&
                  ((uintptr_t)(p->dense + (size_t)c->dense * ES) & 15) == 0;
    switch (row_bytes) {
    case 64: sk_gather_rows_sized(p, c, nrows, ES, IS64, 64, stream); break;
    case 128: sk_gather_rows_sized(p, c, nrows, ES, IS64, 128, stream); break;
    case 256: sk_gather_rows_sized(p, c, nrows, ES, IS64, 256, stream); break;
    default: sk_gather_rows_sized(p, c, nrows, ES, IS64, row_bytes, stream); break;
    }
}

SK_INLINE void sk_gather_range(const sk_plan *p, int64_t lo, int64_t hi, const size_t ES,
                               const bool IS64) {
    if (lo >= hi) return;
    sk_cursor c;
    sk_cursor_seek(p, &c, lo);
    int d = p->ndim - 1;
    for (int64_t pos = lo; pos < hi;) {
        if (sk_gather_failed(p)) return;
        int64_t run = sk_cursor_run(p, &c);
        if (run > hi - pos) run = hi - pos;
        if (p->ncomp == 0 || p->index_stride[d] == 0) {
            /* the index is constant along the run: one strided copy */
            int64_t toff = c.target, lin = 0;
            if (sk_plan_resolve(p, c.index, &toff, &lin))
                sk_move(p->dense + (size_t)c.dense * ES, p->dense_stride[d],
                        p->target + (size_t)toff * ES, p->target_stride[d], run, ES, p->stream);
            else {
                sk_gather_unresolved(p);
                sk_fill_run(p->dense + (size_t)c.dense * ES, p->dense_stride[d], p->fill, run, ES);
            }
        } else {
            sk_gather_varying(p, &c, run, ES, IS64);
        }
        pos += run;
        if (pos < hi) sk_cursor_advance(p, &c, run);
    }
}

/* Row pattern: one index component constant along a contiguous inner
 * dimension, varying along the next one. */
static bool sk_gather_is_rows(const sk_plan *p) {
    int d = p->ndim - 1;
    return p->ndim >= 2 && p->ncomp == 1 && p->index_stride[d] == 0 && p->dense_stride[d] == 1 &&
           p->target_stride[d] == 1 && p->index_stride[d - 1] != 0;
}

/* Rows [lo, hi) of the row pattern: the plan without its inner dimension is
 * walked run by run; each element of a run is a whole row. */
SK_INLINE void sk_gather_row_range(const sk_plan *p, int64_t lo, int64_t hi, const size_t ES,
                                   const bool IS64) {
    if (lo >= hi) return;
    sk_plan outer = *p;
    outer.ndim--;
    sk_cursor c;
    sk_cursor_seek(&outer, &c, lo);
    for (int64_t pos = lo; pos < hi;) {
        if (sk_gather_failed(p)) return;
        int64_t run = sk_cursor_run(&outer, &c);
        if (run > hi - pos) run = hi - pos;
        sk_gather_rows(p, &c, run, ES, IS64);
        pos += run;
        if (pos < hi) sk_cursor_advance(&outer, &c, run);
    }
}

SK_HOT static void sk_gather_chunk_range(const sk_gather_job *job, const sk_plan *p, int64_t lo,
                                         int64_t hi);

/* A strip of a packed column tile (sk_plan_walk_tile), all of it. */
static void sk_gather_strip(void *ctx, const sk_plan *strip) {
    sk_gather_chunk_range(ctx, strip, 0, sk_plan_numel(strip));
}

/* Positions [lo, hi) of the output, rows [lo, hi) for the row pattern, or
 * column tiles [lo, hi). */
static void sk_gather_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_gather_job *job = arg;
    const sk_plan *p = job->p;
    (void)chunk;
    if (job->tile) { /* tiles [lo, hi): each packed, then gathered from strip by strip */
        for (int64_t t = lo; t < hi; t++) {
            int64_t c0 = t * job->tile, c1 = c0 + job->tile < p->shape[1] ? c0 + job->tile : p->shape[1];
            sk_plan_walk_tile(p, c0, c1, p->target + (size_t)c0 * p->elem_size,
                              job->pack + (size_t)tid * job->pack_bytes, sk_gather_strip, (void *)job);
        }
        return;
    }
    sk_gather_chunk_range(job, p, lo, hi);
}

/* Positions [lo, hi) of plan p, or its rows [lo, hi) for the row pattern. */
SK_HOT static void sk_gather_chunk_range(const sk_gather_job *job, const sk_plan *p, int64_t lo,
                                         int64_t hi) {
#define SK_GATHER_CASE(ES)                                                                 \
    case ES:                                                                               \
        if (job->rows) {                                                                   \
            if (p->index_is64) sk_gather_row_range(p, lo, hi, ES, true);                   \
            else sk_gather_row_range(p, lo, hi, ES, false);                                \
        } else if (p->index_is64) {                                                        \
            sk_gather_range(p, lo, hi, ES, true);                                          \
        } else {                                                                           \
            sk_gather_range(p, lo, hi, ES, false);                                         \
        }                                                                                  \
        break;
    switch (p->elem_size) {
        SK_GATHER_CASE(1)
        SK_GATHER_CASE(2)
        SK_GATHER_CASE(4)
        SK_GATHER_CASE(8)
    }
#undef SK_GATHER_CASE
    if (p->stream) sk_stream_fence(); /* streamed rows are visible before the call returns */
}

/* ---- Transposing copies ------------------------------------------------ */
/* A plain copy (no index) whose source is contiguous along one dimension (b)
 * and the output along another (a), such as x.T into a row-major out. Walked
 * in output order every element of a row comes from a line of its own (and
 * with power-of-two strides all of them from one L1 set), gone before the
 * next row would use it: 1024 x 4096 float32 from a transposed source took
 * 33-61 ms at 2 threads against 13-27 for PyTorch's contiguous(). A strip of
 * TB elements along b is read a tile of TA source runs at a time into a
 * buffer and written out as TB runs of TA elements along a. */
typedef struct {
    const sk_plan *p;
    int a, b;            /* output-contiguous and source-contiguous dimensions */
    int64_t strips_b;    /* strips of TB along b per outer position */
} sk_transpose_job;

/* Tile sizes measured on the development machine (1024 x 4096 float32 from
 * its transpose, 1 thread, CPU time): TA x B bytes of 8 x 1024 took 4.4 ms,
 * 8 x 512 7.8, 16 x 512 13, 64 x 128 10; the old row-by-row walk 33. Long
 * strips of the source (B) keep its page and prefetch streams; few output
 * columns per tile (TA) keep the buffer and the output rows in L1. */
enum { SK_TRANSPOSE_TA = 8, SK_TRANSPOSE_BYTES_B = 1024 };

/* The two dimensions of a copy plan worth tiling, or false. */
static bool sk_transpose_dims(const sk_plan *p, int *a, int *b) {
    if (p->ncomp != 0 || p->ndim < 2) return false;
    int64_t es = (int64_t)p->elem_size;
    int da = -1, db = -1;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] < 8) continue;
        if (da < 0 || llabs(p->dense_stride[d]) < llabs(p->dense_stride[da])) da = d;
        if (db < 0 || llabs(p->target_stride[d]) < llabs(p->target_stride[db])) db = d;
    }
    if (da < 0 || db < 0 || da == db) return false;
    /* each side near-contiguous along its own dimension, and a line or more
     * apart along the other one's */
    if (llabs(p->dense_stride[da]) * es > 16 || llabs(p->target_stride[db]) * es > 16) return false;
    if (llabs(p->target_stride[da]) * es < 64 || llabs(p->dense_stride[db]) * es < 64) return false;
    *a = da;
    *b = db;
    return true;
}

/* Strips [lo, hi): an outer position (the plan's other dimensions, row-major)
 * and TB elements along b, all of a, in tiles of TA along a; ES a constant. */
SK_INLINE void sk_transpose_strips(const sk_transpose_job *job, int64_t lo, int64_t hi,
                                   const size_t ES) {
    const sk_plan *p = job->p;
    const int64_t TB = SK_TRANSPOSE_BYTES_B / (int64_t)ES;
    const int64_t na = p->shape[job->a], nb = p->shape[job->b];
    const int64_t dsa = p->dense_stride[job->a], dsb = p->dense_stride[job->b];
    const int64_t tsa = p->target_stride[job->a], tsb = p->target_stride[job->b];
    /* through a buffer: the source lines of a tile are often a page apart,
     * all in one L1 set, so each is read whole at once */
    uint64_t buf[SK_TRANSPOSE_TA * SK_TRANSPOSE_BYTES_B / sizeof(uint64_t)];
    char *tile = (char *)buf;
    for (int64_t s = lo; s < hi; s++) {
        int64_t outer = s / job->strips_b, b0 = (s % job->strips_b) * TB;
        int64_t nbt = (b0 + TB < nb ? b0 + TB : nb) - b0, doff = b0 * dsb, toff = b0 * tsb;
        for (int d = p->ndim - 1; d >= 0; d--) { /* the outer position's offsets */
            if (d == job->a || d == job->b) continue;
            int64_t c = outer % p->shape[d];
            outer /= p->shape[d];
            doff += c * p->dense_stride[d];
            toff += c * p->target_stride[d];
        }
        char *dst = p->dense + (ptrdiff_t)doff * (ptrdiff_t)ES;
        const char *src = p->target + (ptrdiff_t)toff * (ptrdiff_t)ES;
        for (int64_t a0 = 0; a0 < na; a0 += SK_TRANSPOSE_TA) {
            int64_t ta = na - a0 < SK_TRANSPOSE_TA ? na - a0 : SK_TRANSPOSE_TA;
            for (int64_t j = 0; j < ta; j++) /* source runs along b into the tile's rows */
                sk_move(tile + (size_t)(j * TB) * ES, 1,
                        src + (ptrdiff_t)((a0 + j) * tsa) * (ptrdiff_t)ES, tsb, nbt, ES, false);
            for (int64_t i = 0; i < nbt; i++) /* the tile's columns into out's runs along a */
                sk_move(dst + (ptrdiff_t)(i * dsb + a0 * dsa) * (ptrdiff_t)ES, dsa,
                        tile + (size_t)i * ES, TB, ta, ES, false);
        }
    }
}

static void sk_transpose_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_transpose_job *job = arg;
    (void)tid;
    (void)chunk;
    switch (job->p->elem_size) {
    case 1: sk_transpose_strips(job, lo, hi, 1); break;
    case 2: sk_transpose_strips(job, lo, hi, 2); break;
    case 4: sk_transpose_strips(job, lo, hi, 4); break;
    default: sk_transpose_strips(job, lo, hi, 8); break;
    }
}

sk_status sk_run_gather(sk_plan *p, int nthreads) {
    sk_plan_normalize(p);
    sk_gather_job job = {p, sk_plan_numel(p), sk_gather_is_rows(p), 0, NULL, 0};
    if (job.total == 0) return SK_STATUS_OK;
    int nt = sk_threads_for_work(nthreads, job.total);
    sk_transpose_job tj = {p, 0, 0, 0};
    if (sk_transpose_dims(p, &tj.a, &tj.b)) {
        int64_t tb = SK_TRANSPOSE_BYTES_B / (int64_t)p->elem_size;
        tj.strips_b = (p->shape[tj.b] + tb - 1) / tb;
        int64_t units = job.total / p->shape[tj.a] / p->shape[tj.b] * tj.strips_b;
        sk_parallel_chunks(nt, units, sk_chunks_for(nt, units, tb * p->shape[tj.a]),
                           sk_transpose_chunk, &tj);
        return SK_STATUS_OK;
    }
    if (!job.rows && (job.tile = sk_plan_column_tile(p))) {
        /* gather of elements along a leading axis, x[index[r, c], c]: a tile
         * of columns at a time, packed (x and index 1024 x 4096, float32,
         * in C at 1 thread: 55-110 against 15-22 ms) */
        job.pack_bytes = (size_t)(p->comp_size[0] * job.tile) * p->elem_size;
        if ((double)nt * (double)job.pack_bytes <= 16.0 * (double)job.total &&
            (job.pack = sk_scratch_get((size_t)nt * job.pack_bytes))) {
            int64_t units = (p->shape[1] + job.tile - 1) / job.tile;
            sk_parallel_chunks(nt, units, units, sk_gather_chunk, &job);
            sk_scratch_put(job.pack, (size_t)nt * job.pack_bytes);
            return SK_STATUS_OK;
        }
        job.tile = 0;
    }
    int64_t len = job.rows ? p->shape[p->ndim - 1] : 1, units = job.total / len;
    sk_parallel_chunks(nt, units, sk_chunks_for(nt, units, len), sk_gather_chunk, &job);
    return SK_STATUS_OK;
}

/* Internal API of scatterkit: shared by the core and the operator files. */
#ifndef SK_INTERNAL_H
#define SK_INTERNAL_H

#include "scatterkit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Hot kernels get an AVX2 clone chosen at load time (x86-64 with GCC or
 * Clang and ifunc support); elsewhere the portable build only. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#define SK_HOT __attribute__((target_clones("avx2", "default")))
#else
#define SK_HOT
#endif
/* Internal functions that are not static: a cloned one (SK_HOT) is an ifunc,
 * which -fvisibility=hidden alone leaves exported from the shared library. */
#if defined(__GNUC__)
#define SK_INTERNAL __attribute__((visibility("hidden")))
#else
#define SK_INTERNAL
#endif

#if defined(__GNUC__)
#define SK_INLINE static inline __attribute__((always_inline))
#define SK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SK_INLINE static inline
#define SK_PRINTF(a, b)
#define SK_LIKELY(x) (x)
#define SK_UNLIKELY(x) (x)
#endif

/* ---- errors (status.c) ---- */
/* Formats the thread-local message and returns `status`. */
sk_status sk_fail(sk_status status, const char *fmt, ...) SK_PRINTF(2, 3);
void sk_clear_error(void);

/* ---- checked 64-bit arithmetic ---- */
SK_INLINE bool sk_mul_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_mul_overflow(a, b, r);
}
SK_INLINE bool sk_add_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_add_overflow(a, b, r);
}

/* ---- float16 / bfloat16 (dtype.c has the out-of-line versions) ---- */
SK_INLINE uint32_t sk_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
SK_INLINE float sk_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
SK_INLINE float sk_bf16_to_f32(uint16_t b) { return sk_bits_f32((uint32_t)b << 16); }
SK_INLINE uint16_t sk_f32_to_bf16(float f) {
    uint32_t u = sk_f32_bits(f);
    /* NaN: keep sign and top payload, force quiet; else round to nearest
     * even (a mask, not a branch, so that loops vectorise) */
    uint32_t nan = 0u - (uint32_t)((u & 0x7fffffffu) > 0x7f800000u);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((((u >> 16) | 0x0040u) & nan) | (r & ~nan));
}
/* float16 <-> float32 with selects instead of branches, so that the loops
 * calling them vectorise (out of line and branching, they made float16 W2
 * four times slower than bfloat16). Exact; NaN payloads kept on the way in,
 * NaNs made quiet on the way out, round to nearest even. */
SK_INLINE float sk_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    /* normal: the exponent rebiased by 127 - 15; inf/NaN (exponent 31) get
     * the same again to reach 255, the payload shifted as it is */
    uint32_t special = 0u - (uint32_t)(a >= 0x7c00u), small = 0u - (uint32_t)(a < 0x0400u);
    uint32_t u = (a << 13) + (112u << 23) + ((112u << 23) & special);
    /* subnormal or zero: a * 2^-24, exact in float */
    uint32_t sub = sk_f32_bits((float)(int32_t)a * 0x1p-24f);
    return sk_bits_f32((sub & small) | (u & ~small) | sign);
}
SK_INLINE uint16_t sk_f32_to_f16(float f) {
    uint32_t u = sk_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    /* normal: rebias, round the 13 dropped bits to nearest even */
    uint32_t r = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    /* below the smallest normal half: |f| + 0.5 lies in [0.5, 0.5 + 2^-14),
     * where float's unit is 2^-24, the half subnormal unit; the FPU's round
     * to nearest even then leaves the half's bits in the low bits of the sum */
    uint32_t tb = sk_f32_bits(sk_bits_f32(a) + 0.5f);
    /* masks, not ?: (which GCC left as branches, so no loop vectorised) */
    uint32_t sub = 0u - (uint32_t)(a < 0x38800000u), inf = 0u - (uint32_t)(a >= 0x477ff000u),
             nan = 0u - (uint32_t)(a > 0x7f800000u);
    r = ((tb - 0x3f000000u) & sub) | (r & ~sub);
    r = (0x7c00u & inf) | (r & ~inf);                                 /* >= 65520: infinity */
    r = ((0x7e00u | ((a >> 13) & 0x3ffu)) & nan) | (r & ~nan);       /* NaN, quiet */
    return (uint16_t)(sign | r);
}

/* One floating element as a double, and back (16-bit types round once from
 * float32). With a constant dtype the switch folds away. */
SK_INLINE double sk_load_f(const char *ptr, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: return sk_f16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_BFLOAT16: return sk_bf16_to_f32(*(const uint16_t *)(const void *)ptr);
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)ptr;
    default: return *(const double *)(const void *)ptr;
    }
}
SK_INLINE void sk_store_f(char *ptr, double v, const sk_dtype DT) {
    switch (DT) {
    case SK_DTYPE_FLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_f16((float)v); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)(void *)ptr = sk_f32_to_bf16((float)v); break;
    case SK_DTYPE_FLOAT32: *(float *)(void *)ptr = (float)v; break;
    default: *(double *)(void *)ptr = v; break;
    }
}

/* ---- tensors and layouts (tensor.c, layout.c) ---- */
/* Checks a tensor argument: not NULL, valid dtype, ndim, non-negative shape,
 * CPU device, data not NULL when it has elements, byte extent fits. */
sk_status sk_check_tensor(const char *op, const char *arg, const sk_tensor *t);
/* The name of the operator's x in messages: the backward of a gather-type
 * operator writes grad_x where the forward reads x. */
SK_INLINE const char *sk_x_arg(const char *op) {
    size_t n = strlen(op);
    return n > 9 && strcmp(op + n - 9, "_backward") == 0 ? "grad_x" : "x";
}
/* Wraps a possibly negative axis into [0, ndim). */
sk_status sk_wrap_axis(const char *op, const char *arg, int64_t axis, int32_t ndim,
                       int32_t *wrapped);
/* Checks that index is int32/int64. */
sk_status sk_check_index_dtype(const char *op, const char *arg, const sk_tensor *index);
/* Checks that t has exactly the shape (ndim, shape). */
sk_status sk_check_shape(const char *op, const char *arg, const sk_tensor *t, int32_t ndim,
                         const int64_t *shape);
/* Checks that t has dtype `dtype` (the dtype of x). */
sk_status sk_check_same_dtype(const char *op, const char *arg, const sk_tensor *t,
                              sk_dtype dtype);
/* Checks out: shape == (ndim, shape), dtype, no internal overlap, and no
 * overlap with any of `inputs` (argument names in `names`, for the message)
 * except that out may be exactly `alias` (the in-place form; may be NULL). */
sk_status sk_check_out(const char *op, const sk_tensor *out, sk_dtype dtype, int32_t ndim,
                       const int64_t *shape, const sk_tensor *alias,
                       const sk_tensor *const *inputs, const char *const *names, int ninputs);
/* sk_check_out for a result argument of another name (grad_x, grad_src...). */
sk_status sk_check_out_as(const char *op, const char *arg, const sk_tensor *out, sk_dtype dtype,
                          int32_t ndim, const int64_t *shape, const sk_tensor *alias,
                          const sk_tensor *const *inputs, const char *const *names, int ninputs);
bool sk_same_layout(const sk_tensor *a, const sk_tensor *b);
/* Whether t is laid out row-major without gaps (size-1 dimensions aside). */
bool sk_row_major(const sk_tensor *t);
/* Formats a shape as "[2, 3]" into buf. */
const char *sk_format_shape(char *buf, size_t size, int32_t ndim, const int64_t *shape);
int64_t sk_numel(int32_t ndim, const int64_t *shape);
/* Parses a reduce / mode value and rejects what the operator cannot do. */
sk_status sk_check_reduce(const char *op, sk_reduce reduce, sk_dtype dtype);
sk_status sk_check_mode(const char *op, sk_index_mode mode, bool scatter_type);
sk_status sk_check_fill(const char *op, const sk_tensor *fill, sk_dtype dtype);

/* Checks that src broadcasts to (ndim, shape). */
sk_status sk_check_broadcast(const char *op, const char *arg, const sk_tensor *src, int32_t ndim,
                             const int64_t *shape);
/* Checks shared by every scatter-type operator: x, out present, reduce, mode. */
sk_status sk_scatter_check_common(const char *op, const sk_tensor *x, sk_reduce reduce,
                                  sk_index_mode mode, const sk_tensor *out, bool backward);
/* The gradient tensors of a scatter-type backward call. */
typedef struct {
    const sk_tensor *grad_out;
    sk_tensor *grad_x, *grad_src;
} sk_backward_args;
/* Wraps a tuple of distinct axes. */
sk_status sk_wrap_axes(const char *op, const int32_t *axes, int32_t naxes, int32_t ndim,
                       int32_t *wrapped);
/* Size and stride of an axis; a 0-d tensor counts as one element on axis 0. */
SK_INLINE int64_t sk_axis_size(const sk_tensor *t, int32_t axis) {
    return t->ndim ? t->shape[axis] : 1;
}
SK_INLINE int64_t sk_axis_stride(const sk_tensor *t, int32_t axis) {
    return t->ndim ? t->strides[axis] : 0;
}
/* Copies x into out (same shape); used by every scatter-type operator
 * when out is not x. Assumes validated arguments. */
void sk_copy_unchecked(const sk_tensor *src, sk_tensor *out, int nthreads);

/* ---- threads (threads.c) ---- */
int sk_threads_for(const sk_options *opts);
/* Runs fn(ctx, tid, nthreads) for tid in [0, nthreads). Tasks must be
 * independent: when the pool is busy they run one after another. */
void sk_parallel_run(int nthreads, void (*fn)(void *ctx, int tid, int nthreads), void *ctx);
/* Runs fn(ctx, tid, c, lo, hi) for the chunks c in [0, nchunks) of [0, n)
 * (chunk c is sk_partition(n, c, nchunks)), each claimed by the next free
 * thread. A thread that shares its core with another program's busy threads
 * (PyTorch's OpenMP workers spin for milliseconds after each of its parallel
 * calls) then does less of the work instead of holding up the others. In C,
 * with a thread spinning beside the call, 2 threads, out on 4 KiB pages: W1
 * 16.9 against 18.5 ms, W10 16.4 against 19.2 (static halves); with nothing
 * beside it W1 11.5-12.6 against 13.3-14.6. Only for work whose result does
 * not depend on which thread does a chunk. */
enum { SK_CHUNKS_PER_THREAD = 8 };
void sk_parallel_chunks(int nthreads, int64_t n, int64_t nchunks,
                        void (*fn)(void *ctx, int tid, int64_t chunk, int64_t lo, int64_t hi),
                        void *ctx);
/* Chunks for n units of unit_elems elements each at nthreads: about
 * SK_CHUNKS_PER_THREAD per thread, none of fewer than SK_CHUNK_GRAIN
 * elements (256 KB of float32) unless that leaves fewer than nthreads. */
enum { SK_CHUNK_GRAIN = 1 << 16 };
int64_t sk_chunks_for(int nthreads, int64_t n, int64_t unit_elems);
/* Element offsets of a tensor in row-major order: sk_walk_seek puts coord
 * at position pos and returns its offset; sk_walk_next steps to the next. */
SK_INLINE int64_t sk_walk_seek(const sk_tensor *t, int64_t pos, int64_t *coord) {
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        coord[d] = pos % t->shape[d];
        pos /= t->shape[d];
        off += coord[d] * t->strides[d];
    }
    return off;
}
SK_INLINE void sk_walk_next(const sk_tensor *t, int64_t *coord, int64_t *off) {
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        *off += t->strides[d];
        if (++coord[d] < t->shape[d]) return;
        *off -= coord[d] * t->strides[d];
        coord[d] = 0;
    }
}
/* Static partition of [0, n) among nthreads: thread tid gets [*lo, *hi). */
SK_INLINE void sk_partition(int64_t n, int tid, int nthreads, int64_t *lo, int64_t *hi) {
    int64_t q = n / nthreads, r = n % nthreads;
    *lo = q * tid + (tid < r ? tid : r);
    *hi = *lo + q + (tid < r ? 1 : 0);
}
/* How many threads are worth starting for `work` element operations. */
int sk_threads_for_work(int nthreads, int64_t work);

/* ---- index values (indexing.c) ---- */
SK_INLINE int64_t sk_load_index(const void *base, bool is64, int64_t off) {
    return is64 ? ((const int64_t *)base)[off] : (int64_t)((const int32_t *)base)[off];
}
/* Resolves index value v against an axis of size n: wraps [-n, -1], then
 * clamps (CLIP) or reports invalid (false) for DROP/FILL. In ERROR mode the
 * values were validated beforehand. */
SK_INLINE bool sk_resolve_index(int64_t v, int64_t n, sk_index_mode mode, int64_t *out) {
    if (v < 0) v += n;
    if (SK_LIKELY((uint64_t)v < (uint64_t)n)) {
        *out = v;
        return true;
    }
    if (mode == SK_INDEX_MODE_CLIP && n > 0) {
        *out = v < 0 ? 0 : n - 1;
        return true;
    }
    return false;
}
/* The first j < run with p[j * is] outside [-n, n) (span = 2n), or -1;
 * blocks of values tested without a branch each (indexing.c). */
SK_INTERNAL int64_t sk_scan_run64(const int64_t *p, int64_t run, int64_t is, int64_t n,
                                  uint64_t span);
SK_INTERNAL int64_t sk_scan_run32(const int32_t *p, int64_t run, int64_t is, int64_t n,
                                  uint64_t span);
/* Validates every value of `index` before anything is written (ERROR mode),
 * and refuses CLIP into an empty axis. comp_dim < 0: all values address one
 * axis (axes[0], sizes[0]); otherwise index dimension comp_dim selects the
 * component k, which addresses axes[k] of size sizes[k]. */
sk_status sk_validate_index(const char *op, const char *arg, const sk_tensor *index,
                            int32_t comp_dim, const int32_t *axes, const int64_t *sizes,
                            sk_index_mode mode, int nthreads);

/* ---- access plans and the two engines (engine_*.c) ---- */
#define SK_PLAN_MAX_DIMS (2 * SK_MAX_DIMS + 2)

typedef struct sk_plan {
    const char *op;
    int ndim;                                   /* iteration space */
    int64_t shape[SK_PLAN_MAX_DIMS];
    int64_t dense_stride[SK_PLAN_MAX_DIMS];     /* gather: out;  scatter: src */
    int64_t target_stride[SK_PLAN_MAX_DIMS];    /* gather: x;    scatter: out (direct dims) */
    int64_t linear_stride[SK_PLAN_MAX_DIMS];    /* scatter: row-major linear stride of out */
    int64_t index_stride[SK_PLAN_MAX_DIMS];     /* index tensor, in index elements */
    int64_t aux_stride[SK_PLAN_MAX_DIMS];       /* scatter backward: grad_src */
    int ncomp;                                  /* index components per position (0: none) */
    int64_t comp_stride;                        /* index elements between components */
    int64_t comp_size[SK_MAX_DIMS];             /* size of the axis each component addresses */
    int64_t comp_target_stride[SK_MAX_DIMS];
    int64_t comp_linear_stride[SK_MAX_DIMS];
    char *dense;                                /* base pointers */
    char *target;
    const void *index;
    bool index_is64;
    sk_dtype dtype;
    size_t elem_size;
    sk_index_mode mode;
    const void *fill;                           /* gather FILL: one element; NULL = zeros */
    int *invalid;  /* ERROR mode checked in the kernel: set when a value is out of range */
    /* scatter only */
    sk_reduce reduce;
    bool include_self;
    const sk_tensor *out;                       /* its shape/strides map linear index -> offset */
    int64_t col_lo, col_hi;  /* scatter rows: the inner-dimension block this thread owns */
    int64_t index_numel;     /* scatter: elements of the caller's index (sets the scratch budget) */
    bool stream;             /* gather: out is far larger than the caches: stream its stores */
    bool past_l2;            /* gather: out is past what a core keeps (SK_PAST_L2_BYTES) */
} sk_plan;

/* Starts a plan: zero strides, no components. */
void sk_plan_init(sk_plan *p, const char *op, sk_dtype dtype);
/* Appends an iteration dimension. */
void sk_plan_add_dim(sk_plan *p, int64_t size, int64_t dense_stride, int64_t target_stride,
                     int64_t linear_stride, int64_t index_stride);
/* Drops size-1 dimensions and merges dimensions that are contiguous in every
 * stride array at once. Keeps row-major order of the iteration. */
void sk_plan_normalize(sk_plan *p);
int64_t sk_plan_numel(const sk_plan *p);
/* Column tiles: a 2-d plan whose one index component replaces the row
 * coordinate (gather or scatter of elements along a leading axis, columns
 * contiguous in the target) reaches, from each row of the iteration, one
 * element in each of n target rows at random. Walked row by row, every access
 * misses (each target row is its own lines and pages). A tile of columns at a
 * time is packed instead into a buffer of n short rows (not left in place:
 * with the power-of-two row strides of most tensors the tile's lines fall in
 * a few cache sets, and missed as much). Returns the tile width in columns
 * (0: the pattern differs, the tile would not fit, or the whole plan is
 * small). Per column, the rows are still visited in order. */
int64_t sk_plan_column_tile(const sk_plan *p);
/* Positions [lo, hi) of dimension d of a plan (its rows or, for column
 * tiles, its columns): base pointers moved, so linear offsets then count
 * from position lo. */
sk_plan sk_plan_slice(const sk_plan *p, int d, int64_t lo, int64_t hi);
/* Walks the columns [c0, c1) of a column-tiled plan: packs the tile's n
 * target rows, read from `from` (column c0 of target row 0, in the target or
 * in a row-major copy source laid out like it), into `pack`, then calls fn
 * on strips of a few rows of the tile's plan, whose target is the pack (the
 * next strip's index and dense lines prefetched). The caller writes a
 * scatter's pack back. */
void sk_plan_walk_tile(const sk_plan *p, int64_t c0, int64_t c1, const char *from, char *pack,
                       void (*fn)(void *ctx, const sk_plan *strip), void *ctx);
/* n rows of `bytes` each, from rows `from_step` bytes apart to rows
 * `to_step` apart (packing and unpacking column tiles). */
SK_INLINE void sk_copy_rows(char *to, ptrdiff_t to_step, const char *from, ptrdiff_t from_step,
                            int64_t n, size_t bytes) {
    for (int64_t v = 0; v < n; v++) memcpy(to + v * to_step, from + v * from_step, bytes);
}

sk_status sk_run_gather(sk_plan *p, int nthreads);
/* Pools of 2 MiB-aligned huge-page blocks kept between calls (memory.c):
 * get rounds bytes up to 2 MiB and reuses a kept block of that size or maps
 * one (NULL: none, or no mmap here); put keeps it (or unmaps it past the pool's limits) and
 * takes the size given to get; trim unmaps blocks until at most `limit`
 * bytes are kept (set_limit: and keeps that limit); returns bytes freed. */
typedef enum { SK_POOL_SCRATCH, SK_POOL_RESULTS, SK_POOL_COUNT } sk_pool_id;
void *sk_pool_get(sk_pool_id id, size_t bytes);
void sk_pool_put(sk_pool_id id, void *ptr, size_t bytes);
size_t sk_pool_trim(sk_pool_id id, size_t limit, bool set_limit);
void sk_pool_info(sk_pool_id id, int *blocks, size_t *held, size_t *limit);
/* Scratch memory: large blocks from SK_POOL_SCRATCH. sk_scratch_put takes
 * the size given to sk_scratch_get. */
void *sk_scratch_get(size_t bytes);
void sk_scratch_put(void *ptr, size_t bytes);
/* out was allocated for this call (memory.c): fault its pages in cheaply. */
void sk_prepare_fresh(void *data, size_t bytes);
/* memcpy with non-temporal stores (memory.c), for destinations far larger
 * than the caches. */
void sk_stream_copy(void *dst, const void *src, size_t n);

/* Copies `n` elements of width ES from src (stride ss) to dst (stride ds). */
SK_INLINE void sk_move(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,
                       const size_t ES, bool stream) {
    if (ds == 1 && ss == 1) {
        if (stream && (size_t)n * ES >= 4096) sk_stream_copy(dst, src, (size_t)n * ES);
        else memcpy(dst, src, (size_t)n * ES);
        return;
    }
#define SK_MOVE_LOOP(T)                                                                    \
    do {                                                                                   \
        T *d_ = (T *)(void *)dst;                                                          \
        const T *s_ = (const T *)(const void *)src;                                        \
        if (ds == 2 && ss == 1) /* a step-2 slice: a fixed stride the compiler vectorises */ \
            for (int64_t j = 0; j < n; j++) d_[j * 2] = s_[j];                             \
        else if (ds == 1 && ss == 2)                                                       \
            for (int64_t j = 0; j < n; j++) d_[j] = s_[j * 2];                             \
        else                                                                               \
            for (int64_t j = 0; j < n; j++) d_[j * ds] = s_[j * ss];                       \
    } while (0)
    switch (ES) {
    case 1: SK_MOVE_LOOP(uint8_t); break;
    case 2: SK_MOVE_LOOP(uint16_t); break;
    case 4: SK_MOVE_LOOP(uint32_t); break;
    default: SK_MOVE_LOOP(uint64_t); break;
    }
#undef SK_MOVE_LOOP
}
/* Copies at least this large stream their stores (about the L3 of one chip). */
#define SK_STREAM_MIN_BYTES ((int64_t)32 << 20)
/* Gathers whose out is at least this large read x and the index mostly from
 * memory, not from a core's caches. */
#define SK_PAST_L2_BYTES ((int64_t)4 << 20)
/* Rows that come from random places (a row gather, the target rows of a
 * scatter) are asked for SK_ROWS_AHEAD rows before they are used, into L2
 * only (the T1 hint, for reading even where the row is then written): a
 * prefetch into L1 holds one of the core's few L1 miss buffers until its
 * line arrives, and those capped the misses in flight. W7 in C, same
 * process: 1 thread 19 against 51 ms, 2 threads 14 against 37 (with 24 rows
 * ahead: 25 and 18.5); W2 at 2 threads 11.2 against 13.4, W5 12.8 against
 * 16, W8 14.5 against 17.6 (a write prefetch into L1 16 rows ahead on top
 * of it gained nothing). An address only: prefetches never fault. */
enum { SK_ROWS_AHEAD = 64 };
SK_INLINE void sk_prefetch_row_l2(const void *row, size_t bytes) {
    for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch((const char *)row + b, 0, 2);
}

/* Copies n bytes, a multiple of 16, to a 16-byte aligned dst with
 * non-temporal stores where the CPU has them, without the fence: many small
 * rows are streamed and one sk_stream_fence() ends the batch. */
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2: part of every x86-64 */
SK_INLINE void sk_stream_row(void *dst, const void *src, size_t n) {
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(void *)((char *)dst + i),
                         _mm_loadu_si128((const __m128i *)(const void *)((const char *)src + i)));
}
SK_INLINE void sk_stream_fence(void) { _mm_sfence(); }
/* 16 bytes made of four 4-byte or two 8-byte values, streamed to a 16-byte
 * aligned dst (gathered elements go out without a read for ownership) */
SK_INLINE void sk_stream_4x32(void *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    _mm_stream_si128((__m128i *)dst, _mm_setr_epi32((int)a, (int)b, (int)c, (int)d));
}
SK_INLINE void sk_stream_2x64(void *dst, uint64_t a, uint64_t b) {
    _mm_stream_si128((__m128i *)dst, _mm_set_epi64x((long long)b, (long long)a));
}
#else
SK_INLINE void sk_stream_4x32(void *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    uint32_t v[4] = {a, b, c, d};
    memcpy(dst, v, sizeof v);
}
SK_INLINE void sk_stream_2x64(void *dst, uint64_t a, uint64_t b) {
    uint64_t v[2] = {a, b};
    memcpy(dst, v, sizeof v);
}
SK_INLINE void sk_stream_row(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
SK_INLINE void sk_stream_fence(void) {}
#endif
/* Whether index checks may run inside the gather kernel (SK_OPTION_FRESH_OUT). */
SK_INLINE bool sk_fused_check(const sk_options *opts, sk_index_mode mode) {
    return opts && (opts->flags & SK_OPTION_FRESH_OUT) && mode == SK_INDEX_MODE_ERROR;
}

/* Scatter backward (engine_scatter_backward.c). p is the forward plan with
 * linear strides, dense = src, aux_stride = grad_src's strides. x and out are
 * the forward input and result (x's shape), grad_out the result's gradient.
 * grad_x / grad_src may be NULL. Arguments are validated by the caller. */
sk_status sk_run_scatter_backward(sk_plan *p, const sk_tensor *x, const sk_tensor *out,
                                  const sk_tensor *grad_out, sk_tensor *grad_x,
                                  sk_tensor *grad_src, int nthreads);
/* Checks the tensors of a scatter-type backward: out (forward result, needed
 * for prod/amax/amin) and grad_out with x's shape and dtype, grad_x with x's
 * shape, grad_src with src's shape, floating dtype, no overlaps. */
sk_status sk_check_scatter_backward_args(const char *op, const sk_tensor *x, const sk_tensor *src,
                                         const char *src_name, const sk_tensor *index,
                                         sk_reduce reduce,
                                         const sk_tensor *out, const sk_tensor *grad_out,
                                         const sk_tensor *grad_x, const sk_tensor *grad_src);
/* Copies copy_from into p->out first when it is not NULL (out != x), after
 * every allocation has succeeded, so a failure leaves out untouched. With
 * `unchecked` (a fresh out, ERROR mode) the index values are not checked yet:
 * the kernels that read each value anyway (an element scatter along the last
 * axis) check them there and set *p->invalid on a bad one, skipping it;
 * every other path runs the check first. */
struct sk_index_check;
sk_status sk_run_scatter(sk_plan *p, const sk_tensor *copy_from,
                         const struct sk_index_check *unchecked, int nthreads);

/* ---- running an operator (execute.c) ---- */
/* What sk_validate_index needs to check an operator's index values. */
typedef struct sk_index_check {
    const char *op;
    const sk_tensor *index;
    int32_t comp_dim;
    const int32_t *axes;
    const int64_t *sizes;
    sk_index_mode mode;
} sk_index_check;

/* Checks an operator's index values (sk_validate_index). */
sk_status sk_check_values(const sk_index_check *c, int nthreads);

/* Gather-type: checks the index values (before, or inside the kernel for a
 * fresh out), then runs p forward, or backward into grad_x when `lin` (the
 * plan over sk_row_major_like(grad_x)) is given. */
sk_status sk_gather_execute(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                            sk_tensor *grad_x, const sk_options *opts);

/* Scatter-type: checks the index values (before, or for a fresh out inside
 * the kernels that can, see sk_run_scatter), then runs p forward (bwd == NULL;
 * out = x first unless in place) or backward; grad_src_plan is the same plan
 * built over grad_src (its dense strides locate grad_src). */
sk_status sk_scatter_execute(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                             const sk_tensor *x, const sk_tensor *out,
                             const sk_backward_args *bwd, const sk_options *opts);

/* ---- backward helpers (backward.c) ---- */
/* grad_x: floating dtype, writable, not overlapping grad_out or index;
 * grad_out: grad_x's dtype and the forward result's shape (ndim, shape). */
sk_status sk_check_backward_args(const char *op, const sk_tensor *grad_out, int32_t ndim,
                                 const int64_t *shape, const sk_tensor *grad_x,
                                 const sk_tensor *index);
/* A descriptor with t's shape and row-major strides (no data): building a
 * plan over it yields row-major linear strides. */
sk_tensor sk_row_major_like(const sk_tensor *t);
/* Runs a gather plan backwards: grad_x = 0, then grad_x[target(p)] +=
 * grad_out[p]. `lin` is the same plan built over sk_row_major_like(grad_x). */
sk_status sk_run_gather_backward(sk_plan *p, const sk_plan *lin, sk_tensor *grad_x, int nthreads);
/* dst = big summed over the dimensions along which dst broadcasts to big
 * (a plain copy when the shapes are equal). Deterministic, float32
 * accumulation for 16-bit types. */
sk_status sk_sum_to(const sk_tensor *big, sk_tensor *dst, int nthreads);
/* A 0-d zero of any dtype (for zero-filling through sk_copy_unchecked). */
sk_tensor sk_zero_scalar(sk_dtype dtype);

/* Row-major linear strides of a shape. */
void sk_linear_strides(int32_t ndim, const int64_t *shape, int64_t *lin);

#endif /* SK_INTERNAL_H */

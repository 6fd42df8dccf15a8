/* The CPU backend's internal interface: threads, memory, the index check,
 * data-movement helpers and the engines' entry points. Only code under
 * src/cpu/ includes it. */
#ifndef SK_CPU_H
#define SK_CPU_H

#include <stdatomic.h>

#include "base/scalar.h"
#include "backend.h"
#include "plan/exec.h"
#include "plan/plan.h"
#include "cpu/tuning.h"
#include "cpu/arch/x86/stream.h"

/* Hot kernels get an AVX2 clone chosen at load time (x86-64 with GCC and
 * ifunc support); elsewhere the portable build only. Clang refuses
 * target_clones beside a visibility attribute (SK_INTERNAL), exports the
 * resolvers, and names the ifunc of a non-static clone apart from its plain
 * declaration in other files, so a Clang build has no clones. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(__SANITIZE_ADDRESS__)
#define SK_HOT __attribute__((target_clones("avx2", "default")))
#else
#define SK_HOT
#endif

/* ---- threads (threads.c) ---- */
int sk_threads_for(const sk_options *opts);
/* The CPUs this process may use: its affinity mask, capped by its cgroup's
 * CPU quota (what threads run at once, however many are asked for). */
int sk_usable_cpu_count(void);
/* The whole number >= 0 in environment variable `name`, at most `most`;
 * `fallback` where it is unset, empty or not such a number. */
long sk_env_count(const char *name, long fallback, long most);
/* sk_env_count read once per process: the value kept in *cached (start it
 * at -1), for tuning and testing overrides asked for on every call. */
int sk_env_count_once(atomic_int *cached, const char *name, long fallback, long most);
/* Runs fn(ctx, tid, nthreads) for tid in [0, nthreads). Tasks must be
 * independent: when the pool is busy they run one after another. */
void sk_parallel_run(int nthreads, void (*fn)(void *ctx, int tid, int nthreads), void *ctx);
/* Runs fn(ctx, tid, c, lo, hi) for the chunks c in [0, nchunks) of [0, n)
 * (chunk c is sk_partition(n, c, nchunks)), each claimed by the next free
 * thread. A thread that shares its core with another program's busy threads
 * (PyTorch's OpenMP workers spin for milliseconds after each of its parallel
 * calls) then does less of the work instead of holding up the others. Only
 * for work whose result does not depend on which thread does a chunk. */
void sk_parallel_chunks(int nthreads, int64_t n, int64_t nchunks,
                        void (*fn)(void *ctx, int tid, int64_t chunk, int64_t lo, int64_t hi),
                        void *ctx);
/* Chunks for n units of unit_elems elements each at nthreads: about
 * SK_CHUNKS_PER_THREAD per thread, none of fewer than SK_CHUNK_GRAIN
 * elements unless that leaves fewer than nthreads. */
int64_t sk_chunks_for(int nthreads, int64_t n, int64_t unit_elems);
/* How many threads are worth starting for `work` element operations. */
int sk_threads_for_work(int nthreads, int64_t work);

/* ---- index values (index_check.c) ---- */
/* The first j < run with p[j * is] outside [-n, n) (span = 2n), or -1;
 * blocks of values tested without a branch each. */
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

/* Checks an operator's index values (sk_validate_index). */
sk_status sk_check_values(const sk_index_check *c, int nthreads);

/* ---- plan walking helpers (tile.c) ---- */
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


/* ---- memory (memory.c) ---- */
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
/* Asks for a row into L2 only (see SK_ROWS_AHEAD). An address only:
 * prefetches never fault. Every line the bytes touch: a row that does not
 * start on a line (a NumPy array starts 16 bytes past one) spans one line
 * more than bytes / 64. */
SK_INLINE void sk_prefetch_row_l2(const void *row, size_t bytes) {
    uintptr_t last = (uintptr_t)row + (bytes ? bytes - 1 : 0);
    for (uintptr_t a = (uintptr_t)row & ~(uintptr_t)63; a <= last; a += 64)
        __builtin_prefetch((const void *)a, 0, 2);
}
/* Asks for `lines` (1 to 4) lines into L2 from the line of `row`, without
 * a loop: the segments loops' look-ahead, where sk_prefetch_row_l2's loop
 * over the lines showed in the fold's time (docs/PERF-LOG.md, 2026-11-29,
 * thirteenth session). A row that does not start on a line gets its first
 * `lines` lines only. */
SK_INLINE void sk_prefetch_lines_l2(const void *row, int lines) {
    const char *a = (const char *)((uintptr_t)row & ~(uintptr_t)63);
    switch (lines) {
    case 4: __builtin_prefetch(a + 192, 0, 2); /* fall through */
    case 3: __builtin_prefetch(a + 128, 0, 2); /* fall through */
    case 2: __builtin_prefetch(a + 64, 0, 2);  /* fall through */
    default: __builtin_prefetch(a, 0, 2);
    }
}
/* The lines sk_prefetch_lines_l2 asks for rows of `bytes`: up to 4, one
 * more where the rows may not start on a line (on_lines false; rows laid
 * out by a plan rather than base + i * step are taken as such). */
SK_INLINE int sk_prefetch_lines_of(bool on_lines, size_t bytes) {
    size_t n = (bytes + (on_lines ? 63 : 127)) / 64;
    return n > 4 ? 4 : n < 1 ? 1 : (int)n;
}
/* Whether rows at base + i * step all start on a line. */
SK_INLINE bool sk_rows_on_lines(const void *base, ptrdiff_t step) {
    return (uintptr_t)base % 64 == 0 && step % 64 == 0;
}
/* Asks for a row about to be written (into L1), every line it touches. */
SK_INLINE void sk_prefetch_row_w(const void *row, size_t bytes) {
    uintptr_t last = (uintptr_t)row + (bytes ? bytes - 1 : 0);
    for (uintptr_t a = (uintptr_t)row & ~(uintptr_t)63; a <= last; a += 64)
        __builtin_prefetch((const void *)a, 1, 3);
}
/* Whether index checks may run inside the gather kernel (SK_OPTION_FRESH_OUT). */
SK_INLINE bool sk_fused_check(const sk_options *opts, sk_index_mode mode) {
    return opts && (opts->flags & SK_OPTION_FRESH_OUT) && mode == SK_INDEX_MODE_ERROR;
}


/* ---- the backend's entries (the sk_backend table in backend.c) ---- */
sk_status sk_cpu_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                        sk_tensor *grad_x, const sk_gather_args *args, const sk_options *opts);
sk_status sk_cpu_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                         const sk_tensor *x, const sk_tensor *out, const sk_backward_args *bwd,
                         const sk_options *opts);
/* The operators without an index (view.c, mask.c, tensor_scatter.c). */
sk_status sk_cpu_view(const sk_view_desc *d, const sk_exec *e);
sk_status sk_cpu_mask_count(sk_mask_desc *d, const sk_exec *e, int64_t *ntrue);
sk_status sk_cpu_mask(sk_mask_desc *d, const sk_exec *e);
/* SK_MASK_GRAD_SUM (backward/mask_sum.c): counts d's True positions itself
 * (no mask_count first) into d->ntrue; SK_STATUS_INVALID_SHAPE, nothing
 * written, where the source's length differs. */
sk_status sk_cpu_mask_grad_sum(sk_mask_desc *d, const sk_exec *e);
sk_status sk_cpu_tensor_scatter(const sk_tensor_scatter_desc *d, const sk_exec *e);
sk_status sk_cpu_bucketize(const sk_bucket_desc *d, const sk_exec *e);
/* The threads of a call: the exec's count when set, else the options' rule. */
SK_INLINE int sk_exec_threads(const sk_exec *e) {
    return e->nthreads > 0 ? e->nthreads : sk_threads_for(e->opts);
}

/* ---- the engines ---- */
/* Runs a normalised gather plan by the first path of gather/paths.c that
 * applies, and records its name (sk_note_kernel). With ex->invalid set, the
 * index values are checked by the path (ERROR mode) and a bad one sets it. */
sk_status sk_run_gather(const sk_plan *p, const sk_exec *ex);
/* Scatter backward (engine_scatter_backward.c). p is the forward plan with
 * linear strides, dense = src, aux_stride = grad_src's strides. x and out are
 * the forward input and result (x's shape), grad_out the result's gradient.
 * grad_x / grad_src may be NULL. Arguments are validated by the caller. */
sk_status sk_run_scatter_backward(sk_plan *p, const sk_tensor *x, const sk_tensor *out,
                                  const sk_tensor *grad_out, sk_tensor *grad_x,
                                  sk_tensor *grad_src, int nthreads);
/* Runs a scatter plan (normalised here) by the first path of
 * cpu/scatter/paths.c that applies, and records its name (sk_note_kernel).
 * ex->out is the result; copy_from, when not NULL (out != x), is copied into
 * it first (or read by the path itself) after every allocation has
 * succeeded, so a failure leaves out untouched. `unchecked`: the index
 * values are not checked yet; they are checked before the path runs, or by
 * the path itself where it checks inline and out is fresh (sk_fused_check). */
sk_status sk_run_scatter(sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                         const sk_index_check *unchecked);

/* Copies src into out (same shape, or src broadcasting); used by every
 * scatter-type operator when out is not x. Assumes validated arguments. */
void sk_copy_unchecked(const sk_tensor *src, sk_tensor *out, int nthreads);
/* The same as the operator sk_copy: where the tests force a path
 * (sk_force_kernel), that path or nothing. */
void sk_copy_operator(const sk_tensor *src, sk_tensor *out, int nthreads);
/* Runs a gather plan backwards: grad_x = 0, then grad_x[target(p)] +=
 * grad_out[p]. `lin` is the same plan built over sk_row_major_like(grad_x). */
sk_status sk_run_gather_backward(sk_plan *p, const sk_plan *lin, sk_tensor *grad_x,
                                 const sk_exec *ex);
/* dst = big summed over the dimensions along which dst broadcasts to big
 * (a plain copy when the shapes are equal). Deterministic, float32
 * accumulation for 16-bit types. */
sk_status sk_sum_to(const sk_tensor *big, sk_tensor *dst, int nthreads);
/* A 0-d zero of any dtype (for zero-filling through sk_copy_unchecked). */
sk_tensor sk_zero_scalar(sk_dtype dtype);

#endif /* SK_CPU_H */

/* The scatter paths of the CPU backend: one strategy per file, each
 * exporting one sk_path, tried in the order of sk_cpu_scatter_paths
 * (paths.c); the first that applies runs. */
#ifndef SK_CPU_SCATTER_PATH_H
#define SK_CPU_SCATTER_PATH_H

#include "cpu/cpu.h"

/* What a path that applies needs of the caller: one block of scratch and
 * whether it reads x itself (copy_from), so that out needs no copy first. */
typedef struct sk_path_need {
    size_t scratch_bytes; /* 0: none */
    bool fuses_copy;
} sk_path_need;

typedef struct sk_path {
    const char *name; /* "cpu/scatter/segments": sk_last_kernel() after it ran */
    /* reads every index value anyway and checks it there when ex->invalid
     * is set: it then skips what a bad value reaches and sets *ex->invalid */
    bool checks_index_inline;
    /* folds float sum, mean and prod in the canonical order however many
     * contributors a target has; a path without it folds each target's
     * updates one after another, which is the canonical order only up to
     * SK_CANONICAL_CHUNK of them, and runs only where sk_scatter_needs_chunks is
     * false */
    bool canonical;
    /* whether the path takes this normalized plan (never reading element
     * data; it may sample index values, whose check comes later: a value
     * out of range must not be used to address memory), and what it
     * needs; copy_from: x when out must become its copy */
    bool (*applies)(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                    sk_path_need *need);
    /* copy_from: non-NULL only when the path fuses the copy (the caller has
     * copied x into out otherwise); scratch: need.scratch_bytes of it */
    sk_status (*run)(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                     void *scratch);
} sk_path;

extern const sk_path sk_path_winners, sk_path_inner_axis, sk_path_inner_elems, sk_path_tiles,
    sk_path_segments_runs, sk_path_segments_few, sk_path_segments_hot, sk_path_segments_direct,
    sk_path_segments, sk_path_cols, sk_path_owner_chunks, sk_path_owner;
/* Ordered, NULL-terminated; the last, owner-computes, always applies. */
extern const sk_path *const sk_cpu_scatter_paths[];

/* Runs `path` (it applies, with `need`): takes the scratch, copies
 * copy_from into ex->out unless the path fuses the copy, runs it and records
 * its name. SK_STATUS_OUT_OF_MEMORY, nothing written, when the scratch
 * cannot be had. */
sk_status sk_scatter_run_path(const sk_path *path, const sk_plan *p, const sk_exec *ex,
                              const sk_tensor *copy_from, const sk_path_need *need);

/* A path that finds, before writing anything, that it cannot take the
 * plan after all returns this from run: the next path runs. */
#define SK_PATH_DECLINED SK_STATUS_OUT_OF_MEMORY

/* ---- shared by the paths (paths.c) ---- */
/* Whether the canonical order differs from folding each target's updates
 * one after another: a float sum, mean or prod whose targets may get more
 * than SK_CANONICAL_CHUNK contributors. A target's contributors differ only in
 * the plan dimensions that do not move the target (linear stride 0), so
 * their product bounds them. */
bool sk_scatter_needs_chunks(const sk_plan *p);
/* Element offset in t of its row-major linear index lin. */
SK_INLINE int64_t sk_offset_of_linear(const sk_tensor *t, int64_t lin) {
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += lin % t->shape[d] * t->strides[d];
        lin /= t->shape[d];
    }
    return off;
}
/* Row pattern: the index is constant along a contiguous inner dimension of
 * src and out (message passing, embedding gradients, index_add on axis 0). */
SK_INLINE bool sk_scatter_is_rows(const sk_plan *p) {
    int d = p->ndim - 1;
    return p->ndim >= 2 && p->ncomp >= 1 && p->index_stride[d] == 0 && p->target_stride[d] == 1 &&
           p->linear_stride[d] == 1 && p->index_stride[d - 1] != 0;
}
/* The data of copy_from when out = copy_from can be copied piece by piece at
 * the same offsets (both row-major with as many elements), else NULL. The
 * backward passes a 0-d zero to broadcast, which only a whole copy handles. */
const char *sk_copy_source(const sk_tensor *copy_from, const sk_tensor *out);
/* Threads for an owner-style walk: by the work (updates or targets, the
 * larger), at most SK_SCATTER_MAX_THREADS and at most one per target. */
int sk_scatter_threads(const sk_plan *p, const sk_exec *ex);
/* Threads of a path in which every thread walks every update: no more than
 * the CPUs that run them at once (a thread more would walk them again for
 * nothing). */
int sk_scatter_walkers(const sk_plan *p, const sk_exec *ex);
/* One more update counted in a saturating count of a target's contributors:
 * counts stop at SK_CANONICAL_CHUNK + 1, which is all a check for "past one
 * canonical chunk" asks (and what fits a uint16). Returns the new count. */
SK_INLINE uint16_t sk_chunk_count_add(uint16_t *count) {
    *count = (uint16_t)(*count + (*count <= SK_CANONICAL_CHUNK));
    return *count;
}

/* The call's usable CPUs (sk_exec.cpus, read once by sk_run_scatter). */
SK_INLINE int sk_exec_cpus(const sk_exec *ex) {
    return ex->cpus > 0 ? ex->cpus : sk_usable_cpu_count();
}
/* Scratch budget of a call: SK_SCRATCH_BYTES_PER_INDEX per element of the
 * caller's index; a plan without index components (a sum onto a broadcast
 * shape) has one implicit index element per update. */
SK_INLINE double sk_scatter_budget(const sk_plan *p, const sk_exec *ex) {
    double n = (double)ex->index_numel, updates = (double)sk_plan_numel(p);
    return (double)SK_SCRATCH_BYTES_PER_INDEX * (p->ncomp == 0 && updates > n ? updates : n);
}
/* Float sum, mean and prod: the reductions whose association the canonical
 * order fixes (docs/CONTRACT.md). */
SK_INLINE bool sk_scatter_folds_chunks(const sk_plan *p) {
    return p->dtype >= SK_DTYPE_FLOAT16 && (p->reduce == SK_REDUCE_SUM ||
                                            p->reduce == SK_REDUCE_MEAN ||
                                            p->reduce == SK_REDUCE_PROD);
}
/* Pieces of one scratch block: `bytes` from *at, the next piece 64-byte
 * aligned after it. */
SK_INLINE void *sk_scratch_carve(char **at, size_t bytes) {
    void *piece = *at;
    *at += (bytes + 63) / 64 * 64;
    return piece;
}
SK_INLINE size_t sk_scratch_round(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* ---- owner_chunks' canonical fold of a span of targets (owner_chunks.c) ---- */
/* The updates of `walk` (p itself, or a slice of p's rows whose linear
 * index starts at lin_base) whose targets lie in [clo, chi) of out's
 * row-major linear index, folded element by element in the canonical order
 * and stored; scratch: sk_canonical_span_bytes(chi - clo). */
void sk_canonical_span(const sk_plan *p, const sk_exec *ex, const sk_plan *walk, int64_t lin_base,
                       int64_t clo, int64_t chi, void *scratch);
size_t sk_canonical_span_bytes(int64_t targets);
/* Whether a target of [clo, chi) may get more than SK_CANONICAL_CHUNK
 * updates of `walk` (as above): counted for a 2-d walk with one index
 * component (values out of range skipped), else assumed; scratch as above.
 * Where none can, folding each target's updates one after another is the
 * canonical order. */
bool sk_span_passes_chunk(const sk_plan *walk, int64_t lin_base, int64_t clo, int64_t chi,
                          void *scratch);

/* ---- the owner-computes walk (pass.c), used by several paths ---- */
/* Which updates a walk applies: those whose target (row-major linear
 * index) is in [clo, chi); of a row pattern, only the columns
 * [col_lo, col_hi) of each row. */
typedef struct sk_span {
    int64_t clo, chi;
    int64_t col_lo, col_hi;
} sk_span;
/* One walk over every update of p in row-major order. acc (16-bit types,
 * a float32 per target of the span) and cnt (counted reductions) are the
 * span's scratch, or NULL when the kernel needs none. */
typedef void (*sk_pass_fn)(const sk_plan *p, const sk_exec *ex, const sk_span *s, float *acc,
                           int64_t *cnt);
/* Ends a span: mean divides by the counts, 16-bit types round acc once. */
typedef void (*sk_finish_fn)(const sk_plan *p, const sk_exec *ex, int64_t clo, int64_t chi,
                             const float *acc, const int64_t *cnt);
SK_INTERNAL extern const sk_pass_fn sk_pass_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_pass_fn sk_pass_counted_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
SK_INTERNAL extern const sk_finish_fn sk_finish_kernels[SK_DTYPE_COUNT][SK_REDUCE_AMIN + 1];
/* A span of all targets, every column. */
SK_INLINE sk_span sk_span_all(int64_t clo, int64_t chi) {
    sk_span s = {clo, chi, 0, INT64_MAX};
    return s;
}

#endif /* SK_CPU_SCATTER_PATH_H */

/* The plan layer: an operator's access pattern as device-neutral geometry
 * (an iteration space with per-dimension strides into each operand, and
 * index components), built and normalised from descriptors only. It never
 * reads element data. */
#ifndef SK_PLAN_H
#define SK_PLAN_H

#include "base/base.h"

#define SK_PLAN_MAX_DIMS (2 * SK_MAX_DIMS + 2)

/* The canonical order of float sum, mean and prod (docs/CONTRACT.md) cuts
 * each target's contributors into chunks of this many: every backend folds
 * by it, so that all give the same bits. */
enum { SK_CANONICAL_CHUNK = 256 };

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
    /* scatter only */
    sk_reduce reduce;
    bool include_self;
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
/* A gather's plan p turned into its backward's: a scatter-sum from zero
 * into grad_x, whose row-major offsets (lin: the plan of the same gather
 * over grad_x's row-major layout) become the linear ones; a position that
 * gather filled read nothing, so it sends nothing back. */
void sk_plan_gather_to_backward(sk_plan *p, const sk_plan *lin);

/* What a backend needs to check an operator's index values: comp_dim < 0:
 * all values address one axis (axes[0], sizes[0]); otherwise index
 * dimension comp_dim selects the component k, which addresses axes[k] of
 * size sizes[k]. */
typedef struct sk_index_check {
    const char *op;
    const sk_tensor *index;
    int32_t comp_dim;
    const int32_t *axes;
    const int64_t *sizes;
    sk_index_mode mode;
} sk_index_check;


/* The gradient tensors of a scatter-type backward call. */
typedef struct {
    const sk_tensor *grad_out;
    sk_tensor *grad_x, *grad_src;
} sk_backward_args;

/* The operands of a gather along axes (gather, gather_axes): the plan of
 * out[p] = x[p with p[axes] = index[p]] is built from them
 * (gather_plan.c), by src/ops and again by a backend that repacks x or the
 * index. axes are wrapped; the index carries a trailing component
 * dimension when has_comp_dim. */
typedef struct sk_gather_args {
    const sk_tensor *x, *index, *out;
    const int32_t *axes;
    int32_t naxes;
    bool has_comp_dim;
} sk_gather_args;

/* The gather plan over a's tensors; for the backward the same plan with
 * grad_x as x and grad_out as out is a scatter-sum. */
void sk_gather_plan(sk_plan *p, const char *op, const sk_gather_args *a);

#endif /* SK_PLAN_H */

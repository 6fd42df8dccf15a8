/*
 * ref_internal.h - what the reference's files share: coordinate walking,
 * index resolution, and the update list.
 *
 * Every operator, gather-type or scatter-type, first lists its element
 * moves in the row-major order of its iteration space: an update says that
 * element `slot` (a row-major linear index into the operator's data tensor:
 * src/updates/source for a scatter, out for a gather) meets element
 * `target` (a row-major linear index into x). The forward and the backward
 * of an operator share that one list, so they cannot disagree on where an
 * element goes.
 */
#ifndef SK_REF_INTERNAL_H
#define SK_REF_INTERNAL_H

#include "ref.h"

size_t ref_esize(sk_dtype dt);
int64_t ref_numel(int32_t ndim, const int64_t *shape);
/* Row-major: the last coordinate varies fastest. */
void ref_unravel(int64_t lin, int32_t ndim, const int64_t *shape, int64_t *coord);
int64_t ref_ravel(int32_t ndim, const int64_t *shape, const int64_t *coord);
/* Address of element `coord` of t. */
char *ref_at(const sk_tensor *t, const int64_t *coord);
/* Address of element `lin` (row-major linear index) of t. */
char *ref_at_linear(const sk_tensor *t, int64_t lin);
int64_t ref_load_index(const sk_tensor *idx, const int64_t *coord);
int32_t ref_wrap_axis(int32_t axis, int32_t ndim);
/* A 0-d tensor counts as one element on axis 0. */
int64_t ref_axis_size(const sk_tensor *t, int32_t axis);

enum { RES_OK, RES_DROP, RES_FILL, RES_ERROR };
/* docs/CONTRACT.md, Indices: [-n, -1] wraps; outside [-n, n-1] the mode decides. */
int ref_resolve(int64_t v, int64_t n, sk_index_mode mode, int64_t *out);
/* The element of t that broadcasts onto position p of a shape of ndim >=
 * t->ndim dimensions (trailing dimensions aligned). */
char *ref_at_broadcast(const sk_tensor *t, int32_t ndim, const int64_t *p);
/* Every value of index against its axis size (sizes[0], or with comp_dim >=
 * 0 sizes[its coordinate there]): INDEX_OUT_OF_RANGE where mode makes one
 * an error, whether or not an output position reads it (an empty out). */
sk_status ref_check_index_values(const sk_tensor *index, int32_t comp_dim, const int64_t *sizes,
                                 sk_index_mode mode);
/* Is the mask element that broadcasts onto position p True? */
bool ref_mask_at(const sk_tensor *mask, int32_t ndim, const int64_t *p);
/* The broadcast shape of a and b (either may have more dimensions); its ndim. */
int32_t ref_broadcast_shape(const sk_tensor *a, const sk_tensor *b, int64_t *shape);

typedef struct {
    int64_t target; /* row-major linear index into x (== out) */
    int64_t order;  /* position in the list: the row-major order of the update */
    int64_t slot;   /* row-major linear index into the data tensor */
} ref_update;

typedef struct {
    int64_t n, cap;
    ref_update *item;
} ref_updates;

bool ref_push(ref_updates *u, int64_t target, int64_t slot);
void ref_updates_free(ref_updates *u);
/* Sorts by target (or slot), then by list order, so that the updates of
 * one target (slot) end up together and still in row-major order. */
void ref_sort_by_target(ref_updates *u);
void ref_sort_by_slot(ref_updates *u);

/* Scatter-type forward: out = x, then src element `slot` of every listed
 * update reduced into its target in list order; frees the list. Applies
 * nothing when st (the status of building the list) is not OK. */
sk_status ref_finish(const sk_tensor *x, const sk_tensor *src, sk_tensor *out, sk_reduce reduce,
                     bool include_self, ref_updates *u, sk_status st);

/* The lists. Gather-type (slot: position in out, whose shape `out` gives;
 * x gives the shape targets index): */
sk_status ref_list_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                          sk_index_mode mode, ref_updates *u);
sk_status ref_list_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                               int32_t naxes, sk_index_mode mode, const sk_tensor *out,
                               ref_updates *u);
sk_status ref_list_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                sk_index_mode mode, const sk_tensor *out, ref_updates *u);
sk_status ref_list_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                             sk_index_mode mode, const sk_tensor *out, ref_updates *u);
/* Scatter-type (src/updates give only their shapes): */
sk_status ref_list_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                           int32_t axis, sk_index_mode mode, ref_updates *u);
sk_status ref_list_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                ref_updates *u);
sk_status ref_list_index_scatter(const sk_tensor *x, const sk_tensor *index,
                                 const sk_tensor *updates, int32_t axis, sk_index_mode mode,
                                 ref_updates *u);
sk_status ref_list_scatter_nd(const sk_tensor *x, const sk_tensor *index,
                              const sk_tensor *updates, sk_index_mode mode, ref_updates *u);
/* src == NULL: slot is the position in the slice (no broadcast). */
sk_status ref_list_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                                 const int32_t *axes, const int64_t *starts, const int64_t *stops,
                                 const int64_t *steps, ref_updates *u);
sk_status ref_list_diagonal_scatter(const sk_tensor *x, int64_t offset, int32_t axis1,
                                    int32_t axis2, ref_updates *u);
sk_status ref_list_select_scatter(const sk_tensor *x, int32_t axis, int64_t index,
                                  ref_updates *u);
sk_status ref_list_masked_scatter(const sk_tensor *x, const sk_tensor *mask, ref_updates *u);
sk_status ref_list_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                                  const sk_tensor *write_indices, int32_t axis,
                                  sk_tensor_scatter_mode mode, ref_updates *u);

/* Floating values for the backward, as double: float64 computes in double,
 * the other floating dtypes in float (docs/CONTRACT.md, Reductions: float16/bfloat16
 * compute in float32 and round once, on the final store). */
double ref_load_f(sk_dtype dt, const char *p);
void ref_store_f(sk_dtype dt, char *p, double v);
/* v rounded to the working precision of dt (float below float64). Each
 * operation below is done in double and rounded with this: for +, *, /
 * of two floats that gives exactly the float operation's result. */
double ref_wp(sk_dtype dt, double v);

#endif /* SK_REF_INTERNAL_H */

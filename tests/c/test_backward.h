/*
 * test_backward.h - what the two files of test_backward share: the
 * arguments of every backward, the runner that compares the library with
 * the reference, and tensor builders.
 */
#ifndef SK_TEST_BACKWARD_H
#define SK_TEST_BACKWARD_H

#include "harness.h"
#include "ref.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(ref, name) ((ref) ? skref_##name : sk_##name)
#define T(b) ((b) ? &(b)->t : NULL)

/* Every argument any backward takes besides its gradient outputs. */
typedef struct {
    const skt_buf *x, *index, *src, *out, *grad_out, *mask;
    int32_t axis, axis2, naxes, batch_dims;
    int32_t axes[SK_MAX_DIMS];
    int64_t starts[SK_MAX_DIMS], stops[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    int64_t offset, select;
    sk_reduce reduce;
    bool include_self;
    sk_index_mode mode;
    sk_tensor_scatter_mode ts_mode;
} bwd_args;

/* Calls a backward (the reference when ref) with gradient outputs g1, g2
 * (grad_x and grad_src or its like; NULL: not wanted). */
typedef sk_status (*bwd_fn)(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                            const sk_options *o, bool ref);

/* Runs the reference once and the library at 1 and 3 threads, on fresh
 * copies of g1 and g2 (either may be NULL): the library must match the
 * reference (exactly, or within tol), give the same bytes at 3 threads as
 * at 1, and leave its inputs untouched; when the reference reports an index
 * out of range, the library must too, with the outputs unwritten. */
void bwd_run(const char *what, bwd_fn fn, const bwd_args *a, const skt_buf *g1, const skt_buf *g2,
             double tol);

/* A description of a case: what, dtype, reduce, include_self, mode. */
void bwd_desc(char *buf, size_t n, const char *what, const bwd_args *a);

extern const sk_dtype bwd_dtypes[4];   /* the floating dtypes */
extern const sk_dtype bwd_index_dt[2]; /* int32, int64 */

/* An input in a random layout (zero strides included) with values v. */
void bwd_input(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_values v,
               skt_rng *r);
/* A gradient output in a random layout without overlap. */
void bwd_output(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_rng *r);
/* An index tensor; comp_dim >= 0: component k (along comp_dim) indexes an
 * axis of size n[k], else every value indexes n[0]. All values valid in
 * error mode (when the axis has any), a few out of range otherwise, and
 * with `hot` only 0 and -1 (every update on one or two targets). */
void bwd_index(skt_buf *b, sk_dtype it, int32_t ndim, const int64_t *shape, int32_t comp_dim,
               const int64_t *n, sk_index_mode mode, bool hot, skt_rng *r);
/* Values that keep the forward and the products exact: prod gets
 * {-2, -1, -0.5, 0, 0.5, 1, 2}, amax/amin small integers with NaNs (ties),
 * the rest small integers. */
void bwd_fill_values(skt_buf *b, sk_reduce reduce, skt_rng *r);

/* The testers of the scatter-type operators (test_backward_scatter.c). */
void test_scatter_bwd(void);
void test_scatter_axes_bwd(void);
void test_index_scatter_bwd(void);
void test_scatter_nd_bwd(void);
void test_slice_scatter_bwd(void);
void test_diagonal_scatter_bwd(void);
void test_select_scatter_bwd(void);
void test_masked_scatter_bwd(void);
void test_tensor_scatter_bwd(void);

#endif /* SK_TEST_BACKWARD_H */

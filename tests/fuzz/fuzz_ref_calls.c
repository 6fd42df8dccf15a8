/* The reference's side of every entry of include/scatterkit_ops.def: each
 * sk_ operator and backward named as its skref_ twin (src/ref). The shape
 * queries have no twin and call the library; fuzz_ops.c compares only what
 * has one. */
#include "fuzz_call_macros.h"
#include "ref.h"

#define sk_gather skref_gather
#define sk_gather_axes skref_gather_axes
#define sk_index_select skref_index_select
#define sk_gather_nd skref_gather_nd
#define sk_masked_select skref_masked_select
#define sk_scatter skref_scatter
#define sk_scatter_axes skref_scatter_axes
#define sk_index_scatter skref_index_scatter
#define sk_scatter_nd skref_scatter_nd
#define sk_slice_scatter skref_slice_scatter
#define sk_diagonal_scatter skref_diagonal_scatter
#define sk_select_scatter skref_select_scatter
#define sk_masked_scatter skref_masked_scatter
#define sk_tensor_scatter skref_tensor_scatter
#define sk_copy skref_copy
#define sk_gather_backward skref_gather_backward
#define sk_gather_axes_backward skref_gather_axes_backward
#define sk_index_select_backward skref_index_select_backward
#define sk_gather_nd_backward skref_gather_nd_backward
#define sk_masked_select_backward skref_masked_select_backward
#define sk_scatter_backward skref_scatter_backward
#define sk_scatter_axes_backward skref_scatter_axes_backward
#define sk_index_scatter_backward skref_index_scatter_backward
#define sk_scatter_nd_backward skref_scatter_nd_backward
#define sk_slice_scatter_backward skref_slice_scatter_backward
#define sk_diagonal_scatter_backward skref_diagonal_scatter_backward
#define sk_select_scatter_backward skref_select_scatter_backward
#define sk_masked_scatter_backward skref_masked_scatter_backward
#define sk_tensor_scatter_backward skref_tensor_scatter_backward
#define sk_masked_select_count skref_masked_select_count
#define sk_bucketize skref_bucketize

#define SK_OP(name, kind, spec, call)                                                              \
    sk_status fz_ref_##name(fz_args *A, const sk_options *o);                                      \
    sk_status fz_ref_##name(fz_args *A, const sk_options *o) {                                     \
        (void)o;                                                                                   \
        return call;                                                                               \
    }
#include "scatterkit_ops.def"
#undef SK_OP

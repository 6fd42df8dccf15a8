/* The argument macros of include/scatterkit_ops.def's calls over fz_args. */
#ifndef SK_FUZZ_CALL_MACROS_H
#define SK_FUZZ_CALL_MACROS_H

#include "fuzz.h"

#define T(i) (A->t[i])
#define OPT(i) (A->t[i])
#define OUT(i) (A->t[i])
#define OPTOUT(i) (A->t[i])
#define I32(i) ((int32_t)A->v[i])
#define I64(i) (A->v[i])
#define BOOL(i) (A->v[i] != 0)
#define RED(i) ((sk_reduce)A->v[i])
#define MODE(i) ((sk_index_mode)A->v[i])
#define TSMODE(i) ((sk_tensor_scatter_mode)A->v[i])
#define AXES_PTR(i) (A->axes[i])
#define AXES_N(i) (A->naxes[i])
#define BOUNDS(i) (A->bounds[i])
#define STEPS(i) (A->bounds[i])
#define SHAPE_NDIM(i) (&A->shape_nd)
#define SHAPE_DIMS(i) (A->shape_dims)
#define COUNT(i) (&A->count)
#define OPTS (o)

#endif /* SK_FUZZ_CALL_MACROS_H */

/* Shared by the scatter backward's files (walk.c, rows.c, entry.c): the
 * working arrays and the scalar rules both paths follow, so that each
 * computes a gradient element from the same operations.
 *
 * x, the forward result and grad_out are copied into row-major working
 * arrays of double for float64 and of float otherwise (every 16- and 32-bit
 * float value is a float, and the arithmetic is in float anyway). */
#ifndef SK_CPU_BACKWARD_H
#define SK_CPU_BACKWARD_H

#include "cpu/cursor.h"

#include <math.h>

/* What a backward path gets: the normalised forward plan (linear strides,
 * dense = src, aux_stride = grad_src's strides) and the working arrays. */
typedef struct {
    const sk_plan *p;
    int64_t total, n;      /* updates (positions of p), targets (elements of x) */
    void *gd;              /* grad_out (the row pattern turns it into the shares) */
    const void *xd, *od;   /* x and the result, NULL where the reduction needs none */
    sk_tensor *grad_x;     /* may be NULL */
    sk_tensor *grad_src;   /* may be NULL */
} sk_bwd_work;

/* Bytes of one element of a working array. */
SK_INLINE size_t sk_bwd_ws(const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT64 ? sizeof(double) : sizeof(float);
}

/* Element i of a working array. */
SK_INLINE double sk_bwd_at(const void *a, int64_t i, const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT64 ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

SK_INLINE void sk_bwd_set(void *a, int64_t i, double v, const sk_dtype DT) {
    if (DT == SK_DTYPE_FLOAT64) ((double *)a)[i] = v;
    else ((float *)a)[i] = (float)v;
}

/* Rounds an intermediate to the working precision (float below float64). */
SK_INLINE double sk_bwd_round(double v, const sk_dtype DT) {
    return DT == SK_DTYPE_FLOAT64 ? v : (double)(float)v;
}

/* a and b tie: equal, or both NaN. */
SK_INLINE bool sk_bwd_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* The walk over every update, per target (walk.c): any plan, any reduction. */
sk_status sk_bwd_run_walk(const sk_bwd_work *w, const sk_exec *e);
/* Whether the row pattern applies (rows.c), and its passes; false (nothing
 * written) without memory for the counts. */
bool sk_bwd_is_rows(const sk_plan *p);
bool sk_bwd_run_rows(const sk_bwd_work *w, const sk_exec *e);

#endif /* SK_CPU_BACKWARD_H */

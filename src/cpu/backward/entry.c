/* The scatter backward's entry: the working arrays, then the row pattern
 * (rows.c) where it applies, else the walk (walk.c). */
#include "cpu/backward/backward.h"

#include <limits.h>

/* Copies a tensor into a row-major working array. Always a copy, even of a
 * row-major float32 tensor: the scratch has huge pages, and the backward
 * reaches targets at random. float32/float64: the parallel copy. */
static void sk_to_work(const sk_tensor *t, void *dst, sk_dtype work_of, int nthreads) {
    int64_t n = sk_tensor_numel(t), coord[SK_MAX_DIMS] = {0}, off = 0;
    size_t es = sk_dtype_size(t->dtype);
    if (t->dtype == work_of && (work_of == SK_DTYPE_FLOAT32 || work_of == SK_DTYPE_FLOAT64)) {
        sk_tensor w;
        if (sk_tensor_init(&w, dst, work_of, t->ndim, t->shape, NULL) == SK_STATUS_OK) {
            sk_copy_unchecked(t, &w, nthreads);
            return;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double v = sk_load_f((const char *)t->data + (ptrdiff_t)off * (ptrdiff_t)es, t->dtype);
        if (work_of == SK_DTYPE_FLOAT64) ((double *)dst)[i] = v;
        else ((float *)dst)[i] = (float)v;
        sk_walk_next(t, coord, &off);
    }
}

/* The row pattern applies: grad_src (if asked) is all covered by the
 * updates; counts are ints (at most total + 1 contributors). */
static bool sk_bwd_rows_apply(const sk_bwd_work *w) {
    bool covers = w->grad_src && sk_tensor_numel(w->grad_src) == w->total;
    return w->n > 0 && w->total > 0 && w->total < INT_MAX && sk_bwd_is_rows(w->p) &&
           (covers || !w->grad_src);
}

sk_status sk_run_scatter_backward(sk_plan *p, const sk_tensor *x, const sk_tensor *out,
                                  const sk_tensor *grad_out, sk_tensor *grad_x,
                                  sk_tensor *grad_src, int nthreads) {
    sk_plan_normalize(p);
    sk_exec e = {.nthreads = nthreads};
    sk_bwd_work w = {p, sk_plan_numel(p), sk_tensor_numel(x), NULL, NULL, NULL, grad_x, grad_src};
    bool amx = p->reduce == SK_REDUCE_AMAX || p->reduce == SK_REDUCE_AMIN;
    bool need_x = p->include_self && (p->reduce == SK_REDUCE_PROD || amx);
    size_t n = (size_t)(w.n > 0 ? w.n : 1), ws = sk_bwd_ws(p->dtype);
    void *gd = sk_scratch_get(n * ws);
    void *xd = need_x ? sk_scratch_get(n * ws) : NULL;
    void *od = amx ? sk_scratch_get(n * ws) : NULL;
    sk_status st = SK_STATUS_OK;
    if (!gd || (need_x && !xd) || (amx && !od)) {
        st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the backward scratch", p->op);
    } else {
        sk_to_work(grad_out, gd, p->dtype, nthreads);
        if (xd) sk_to_work(x, xd, p->dtype, nthreads);
        if (od) sk_to_work(out, od, p->dtype, nthreads);
        w.gd = gd, w.xd = xd, w.od = od;
        if (!sk_bwd_rows_apply(&w)) st = sk_bwd_run_walk(&w, &e);
        else if (!sk_bwd_run_rows(&w, &e)) /* no memory for the counts; nothing written */
            st = sk_fail(SK_STATUS_OUT_OF_MEMORY, "%s: out of memory for the backward scratch",
                         p->op);
    }
    sk_scratch_put(gd, n * ws);
    sk_scratch_put(xd, n * ws);
    sk_scratch_put(od, n * ws);
    return st;
}

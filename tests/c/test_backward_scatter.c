/*
 * test_backward_scatter.c - the scatter-type backwards against the
 * reference (see test_backward.c). Their gradients are exact: a share is
 * grad_out itself, one division (mean, amax/amin) or a product of values
 * that keep it exact; only a src broadcast over a slice sums.
 */
#include "test_backward.h"

#include <stdio.h>
#include <string.h>

static sk_status call_scatter(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                              const sk_options *o, bool ref) {
    return PICK(ref, scatter_backward)(T(a->x), T(a->index), T(a->src), a->axis, a->reduce,
                                       a->include_self, a->mode, T(a->out), T(a->grad_out), g1,
                                       g2, o);
}
static sk_status call_scatter_axes(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                   const sk_options *o, bool ref) {
    return PICK(ref, scatter_axes_backward)(T(a->x), T(a->index), T(a->src), a->axes, a->naxes,
                                            a->reduce, a->include_self, a->mode, T(a->out),
                                            T(a->grad_out), g1, g2, o);
}
static sk_status call_index_scatter(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                    const sk_options *o, bool ref) {
    return PICK(ref, index_scatter_backward)(T(a->x), T(a->index), T(a->src), a->axis, a->reduce,
                                             a->include_self, a->mode, T(a->out), T(a->grad_out),
                                             g1, g2, o);
}
static sk_status call_scatter_nd(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                 const sk_options *o, bool ref) {
    return PICK(ref, scatter_nd_backward)(T(a->x), T(a->index), T(a->src), a->reduce, a->mode,
                                          T(a->out), T(a->grad_out), g1, g2, o);
}

/* The forward result for the reduce rules (amax/amin ties read it). */
static sk_status forward(int kind, const bwd_args *a, sk_tensor *out) {
    const sk_tensor *x = T(a->x), *i = T(a->index), *s = T(a->src);
    switch (kind) {
    case 0: return skref_scatter(x, i, s, a->axis, a->reduce, a->include_self, a->mode, out, NULL);
    case 1:
        return skref_scatter_axes(x, i, s, a->axes, a->naxes, a->reduce, a->include_self, a->mode,
                                  out, NULL);
    case 2:
        return skref_index_scatter(x, i, s, a->axis, a->reduce, a->include_self, a->mode, out,
                                   NULL);
    default: return skref_scatter_nd(x, i, s, a->reduce, a->mode, out, NULL);
    }
}

typedef enum { S_SCATTER, S_AXES, S_INDEX, S_ND } scatter_kind;
typedef struct {
    scatter_kind kind;
    skt_shape x, idx, src; /* src: scatter and scatter_axes only */
    int32_t axis, naxes, axes[3];
    bool hot;
} scatter_case;

static const scatter_case scatter_cases[] = {
    {S_SCATTER, {1, {5}}, {1, {8}}, {1, {8}}, 0, 0, {0}, false},
    {S_SCATTER, {2, {4, 3}}, {2, {6, 3}}, {2, {6, 4}}, 0, 0, {0}, false},
    {S_SCATTER, {3, {3, 4, 5}}, {3, {3, 2, 8}}, {3, {3, 2, 8}}, -1, 0, {0}, false},
    {S_SCATTER, {2, {4, 3}}, {2, {0, 3}}, {2, {0, 3}}, 0, 0, {0}, false},
    {S_SCATTER, {2, {3, 0}}, {2, {3, 2}}, {2, {3, 2}}, 1, 0, {0}, false}, /* empty axis */
    {S_SCATTER, {2, {2, 3}}, {2, {600, 3}}, {2, {600, 3}}, 0, 0, {0}, true},
    {S_SCATTER, {2, {200, 64}}, {2, {1200, 64}}, {2, {1200, 64}}, 0, 0, {0}, false},
    {S_AXES, {2, {4, 5}}, {3, {3, 6, 2}}, {2, {3, 6}}, 0, 2, {0, 1}, false},
    {S_AXES, {3, {3, 4, 5}}, {4, {3, 3, 2, 1}}, {3, {4, 3, 2}}, 0, 1, {-2}, false},
    {S_AXES, {3, {2, 2, 3}}, {4, {300, 4, 3, 2}}, {3, {300, 4, 3}}, 0, 2, {1, 0}, true},
    {S_INDEX, {1, {5}}, {0, {0}}, {0, {0}}, 0, 0, {0}, false}, /* 0-d index and updates */
    {S_INDEX, {2, {4, 3}}, {1, {6}}, {0, {0}}, 0, 0, {0}, false},
    {S_INDEX, {3, {3, 4, 5}}, {1, {7}}, {0, {0}}, -2, 0, {0}, false},
    {S_INDEX, {2, {4, 3}}, {1, {0}}, {0, {0}}, 1, 0, {0}, false},
    {S_INDEX, {2, {3, 64}}, {1, {400}}, {0, {0}}, 0, 0, {0}, true},
    {S_ND, {2, {4, 3}}, {2, {5, 2}}, {0, {0}}, 0, 0, {0}, false},
    {S_ND, {2, {4, 3}}, {2, {7, 1}}, {0, {0}}, 0, 0, {0}, false},
    {S_ND, {2, {4, 3}}, {1, {2}}, {0, {0}}, 0, 0, {0}, false}, /* one 0-d update */
    {S_ND, {3, {2, 3, 4}}, {3, {2, 2, 3}}, {0, {0}}, 0, 0, {0}, false},
    {S_ND, {2, {0, 3}}, {2, {2, 1}}, {0, {0}}, 0, 0, {0}, false},
    {S_ND, {2, {2, 64}}, {2, {500, 1}}, {0, {0}}, 0, 0, {0}, true},
};

/* src's shape (derived for index_scatter and scatter_nd), and the axis
 * sizes the index components address. */
static void scatter_geometry(const scatter_case *c, skt_shape *src, int64_t *n, int32_t *comp) {
    int32_t x = c->x.ndim, ax = c->axis < 0 ? c->axis + x : c->axis;
    *src = c->src;
    *comp = -1;
    n[0] = x > 0 ? c->x.d[ax] : 0;
    if (c->kind == S_AXES) {
        for (int32_t k = 0; k < c->naxes; k++) n[k] = c->x.d[(c->axes[k] + x) % x];
        *comp = c->idx.ndim - 1;
    } else if (c->kind == S_INDEX) {
        src->ndim = 0;
        for (int32_t d = 0; d < x; d++)
            if (d != ax || c->idx.ndim == 1)
                src->d[src->ndim++] = d == ax ? c->idx.d[0] : c->x.d[d];
    } else if (c->kind == S_ND) {
        int32_t k = (int32_t)c->idx.d[c->idx.ndim - 1];
        src->ndim = 0;
        for (int32_t d = 0; d < c->idx.ndim - 1; d++) src->d[src->ndim++] = c->idx.d[d];
        for (int32_t d = k; d < x; d++) src->d[src->ndim++] = c->x.d[d];
        for (int32_t j = 0; j < k; j++) n[j] = c->x.d[j];
        *comp = c->idx.ndim - 1;
    }
}

/* A gradient output, or (one time in five) none. */
static skt_buf *maybe_output(skt_buf *b, sk_dtype dt, const skt_shape *s, skt_rng *r) {
    bwd_output(b, dt, s->ndim, s->d, r);
    if (skt_next(r) % 5) return b;
    skt_free(b);
    return NULL;
}

static void run_scatter_case(const scatter_case *c, bwd_args *a, sk_dtype dt, sk_dtype it,
                             skt_rng *r) {
    static const bwd_fn fns[] = {call_scatter, call_scatter_axes, call_index_scatter,
                                 call_scatter_nd};
    static const char *const names[] = {"scatter_backward", "scatter_axes_backward",
                                        "index_scatter_backward", "scatter_nd_backward"};
    skt_shape ss;
    int64_t n[SK_MAX_DIMS];
    int32_t comp;
    scatter_geometry(c, &ss, n, &comp);
    skt_buf x, idx, src, out, go, gx, gs;
    bwd_input(&x, dt, c->x.ndim, c->x.d, SKT_VAL_SMALL, r);
    bwd_fill_values(&x, a->reduce, r);
    bwd_index(&idx, it, c->idx.ndim, c->idx.d, comp, n, a->mode, c->hot, r);
    bwd_input(&src, dt, ss.ndim, ss.d, SKT_VAL_SMALL, r);
    bwd_fill_values(&src, a->reduce, r);
    skt_make(&out, dt, c->x.ndim, c->x.d, SKT_CONTIG, 0, r);
    bwd_input(&go, dt, c->x.ndim, c->x.d, SKT_VAL_SMALL, r);
    a->x = &x, a->index = &idx, a->src = &src, a->out = &out, a->grad_out = &go;
    forward(c->kind, a, &out.t);
    skt_buf *g1 = maybe_output(&gx, dt, &c->x, r), *g2 = maybe_output(&gs, dt, &ss, r);
    char what[1024];
    bwd_desc(what, sizeof what, names[c->kind], a);
    bwd_run(what, fns[c->kind], a, g1, g2, 0);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&src);
    skt_free(&out);
    skt_free(&go);
    if (g1) skt_free(g1);
    if (g2) skt_free(g2);
}

static void test_scatter_kind(scatter_kind kind, uint64_t seed) {
    static const sk_index_mode modes[] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                          SK_INDEX_MODE_DROP};
    skt_rng r;
    skt_seed(&r, seed);
    for (size_t ci = 0; ci < COUNT(scatter_cases); ci++) {
        const scatter_case *c = &scatter_cases[ci];
        if (c->kind != kind) continue;
        /* a case large enough for several threads: float16 and float32, error mode */
        bool big = skt_numel(c->idx.ndim, c->idx.d) > 10000;
        for (int di = 0; di < 4; di++)
            for (int red = 0; red < 6; red++)
                for (int self = kind == S_ND; self < 2; self++)
                    for (size_t mi = 0; mi < (big ? 1 : COUNT(modes)); mi++) {
                        if (big && di % 2) continue;
                        bwd_args a = {.axis = c->axis, .naxes = c->naxes, .reduce = (sk_reduce)red,
                                      .include_self = self, .mode = modes[mi]};
                        memcpy(a.axes, c->axes, sizeof c->axes);
                        run_scatter_case(c, &a, bwd_dtypes[di], bwd_index_dt[(red + mi) % 2], &r);
                    }
    }
}

void test_scatter_bwd(void) { test_scatter_kind(S_SCATTER, 401); }
void test_scatter_axes_bwd(void) { test_scatter_kind(S_AXES, 402); }
void test_index_scatter_bwd(void) { test_scatter_kind(S_INDEX, 403); }
void test_scatter_nd_bwd(void) { test_scatter_kind(S_ND, 404); }

static sk_status call_slice(const bwd_args *a, sk_tensor *g1, sk_tensor *g2, const sk_options *o,
                            bool ref) {
    return PICK(ref, slice_scatter_backward)(T(a->grad_out), a->naxes, a->axes, a->starts,
                                             a->stops, a->steps, g1, g2, o);
}
static sk_status call_diagonal(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                               const sk_options *o, bool ref) {
    return PICK(ref, diagonal_scatter_backward)(T(a->grad_out), a->offset, a->axis, a->axis2, g1,
                                                g2, o);
}
static sk_status call_select(const bwd_args *a, sk_tensor *g1, sk_tensor *g2, const sk_options *o,
                             bool ref) {
    return PICK(ref, select_scatter_backward)(T(a->grad_out), a->axis, a->select, g1, g2, o);
}
static sk_status call_masked_scatter(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                     const sk_options *o, bool ref) {
    return PICK(ref, masked_scatter_backward)(T(a->grad_out), T(a->mask), g1, g2, o);
}
static sk_status call_tensor_scatter(const bwd_args *a, sk_tensor *g1, sk_tensor *g2,
                                     const sk_options *o, bool ref) {
    return PICK(ref, tensor_scatter_backward)(T(a->grad_out), T(a->index), a->axis, a->ts_mode,
                                              g1, g2, o);
}

/* One case of a view backward: grad_out of x's shape xs, gradient outputs
 * of shapes xs and ss (the second one always given when need2). */
static void run_view(const char *name, bwd_fn fn, bwd_args *a, sk_dtype dt, const skt_shape *xs,
                     const skt_shape *ss, bool need2, double tol, skt_rng *r) {
    skt_buf go, gx, gs;
    bwd_input(&go, dt, xs->ndim, xs->d, SKT_VAL_SMALL, r);
    a->grad_out = &go;
    skt_buf *g1 = maybe_output(&gx, dt, xs, r), *g2 = &gs;
    if (need2) bwd_output(&gs, dt, ss->ndim, ss->d, r);
    else g2 = maybe_output(&gs, dt, ss, r);
    char what[1024];
    bwd_desc(what, sizeof what, name, a);
    if (g2) skt_desc(what, sizeof what, "grad_src", &g2->t);
    bwd_run(what, fn, a, g1, g2, tol);
    skt_free(&go);
    if (g1) skt_free(g1);
    if (g2) skt_free(g2);
}

#define NONE SK_SLICE_NONE
typedef struct {
    skt_shape x;
    int32_t naxes, axes[3];
    int64_t starts[3], stops[3], steps[3];
} slice_case;

static const slice_case slice_cases[] = {
    {{1, {10}}, 1, {0}, {2}, {8}, {2}},
    {{1, {10}}, 1, {0}, {NONE}, {NONE}, {-1}},
    {{1, {10}}, 1, {0}, {20}, {30}, {1}},
    {{2, {4, 6}}, 2, {0, 1}, {1, NONE}, {NONE, -1}, {2, 3}},
    {{2, {4, 6}}, 2, {1, 0}, {NONE, 3}, {NONE, NONE}, {-2, -1}},
    {{3, {3, 4, 5}}, 3, {0, 1, 2}, {0, 3, 4}, {NONE, 0, 0}, {2, -1, -2}},
    {{2, {4, 6}}, 0, {0}, {0}, {0}, {1}},
    {{0, {0}}, 0, {0}, {0}, {0}, {1}},
    {{2, {0, 4}}, 1, {1}, {1}, {3}, {1}},
    {{2, {300, 256}}, 1, {1}, {NONE}, {NONE}, {2}},
};

void test_slice_scatter_bwd(void) {
    skt_rng r;
    skt_seed(&r, 405);
    for (size_t ci = 0; ci < COUNT(slice_cases); ci++)
        for (int di = 0; di < 4; di++)
            for (int variant = 0; variant < 3; variant++) {
                const slice_case *c = &slice_cases[ci];
                bwd_args a = {.naxes = c->naxes};
                skt_shape ss = c->x;
                for (int32_t k = 0; k < c->naxes; k++) {
                    int32_t ax = c->axes[k] < 0 ? c->axes[k] + c->x.ndim : c->axes[k];
                    int64_t first;
                    a.axes[k] = c->axes[k], a.starts[k] = c->starts[k];
                    a.stops[k] = c->stops[k], a.steps[k] = c->steps[k];
                    skref_slice_indices(c->x.d[ax], c->starts[k], c->stops[k], c->steps[k],
                                        &first, &ss.d[ax]);
                }
                /* src broadcast to the slice: without its first dimension, or with size 1 */
                if (variant > 0 && ss.ndim == 0) continue;
                if (variant == 1) {
                    ss.ndim--;
                    memmove(ss.d, ss.d + 1, sizeof(int64_t) * (size_t)ss.ndim);
                } else if (variant == 2) {
                    ss.d[0] = 1;
                }
                double tol = variant ? skt_tolerance(bwd_dtypes[di]) : 0;
                run_view("slice_scatter_backward", call_slice, &a, bwd_dtypes[di], &c->x, &ss,
                         false, tol, &r);
            }
}

typedef struct {
    skt_shape x;
    int64_t offset;
    int32_t axis1, axis2;
} diag_case;

static const diag_case diag_cases[] = {
    {{2, {4, 4}}, 0, 0, 1},   {{2, {4, 5}}, 1, 0, 1},   {{2, {4, 5}}, -2, 0, 1},
    {{2, {4, 5}}, 7, 0, 1},   {{2, {4, 5}}, 2, 1, 0},   {{3, {3, 4, 5}}, 1, 2, 0},
    {{3, {3, 4, 5}}, -1, -1, -2}, {{2, {0, 3}}, 0, 0, 1}, {{3, {300, 20, 20}}, 0, 1, 2},
};

void test_diagonal_scatter_bwd(void) {
    skt_rng r;
    skt_seed(&r, 406);
    for (size_t ci = 0; ci < COUNT(diag_cases); ci++)
        for (int di = 0; di < 4; di++) {
            const diag_case *c = &diag_cases[ci];
            int32_t n = c->x.ndim, a1 = (c->axis1 + n) % n, a2 = (c->axis2 + n) % n;
            skt_shape ss = {0, {0}};
            for (int32_t d = 0; d < n; d++)
                if (d != a1 && d != a2) ss.d[ss.ndim++] = c->x.d[d];
            ss.d[ss.ndim++] = skref_diagonal_length(c->x.d[a1], c->x.d[a2], c->offset);
            bwd_args a = {.offset = c->offset, .axis = c->axis1, .axis2 = c->axis2};
            run_view("diagonal_scatter_backward", call_diagonal, &a, bwd_dtypes[di], &c->x, &ss,
                     false, 0, &r);
        }
}

static const struct {
    skt_shape x;
    int32_t axis;
    int64_t index;
} sel_cases[] = {
    {{1, {5}}, 0, 2}, /* src is 0-d */
    {{1, {5}}, 0, -1},       {{2, {4, 3}}, 1, 0},    {{2, {4, 3}}, 0, -4},
    {{3, {3, 4, 5}}, -2, -4}, {{2, {0, 3}}, 1, 2},   {{3, {4, 300, 64}}, 0, -2},
};

void test_select_scatter_bwd(void) {
    skt_rng r;
    skt_seed(&r, 407);
    for (size_t ci = 0; ci < COUNT(sel_cases); ci++)
        for (int di = 0; di < 4; di++) {
            const skt_shape *xs = &sel_cases[ci].x;
            int32_t ax = (sel_cases[ci].axis + xs->ndim) % xs->ndim;
            skt_shape ss = {0, {0}};
            for (int32_t d = 0; d < xs->ndim; d++)
                if (d != ax) ss.d[ss.ndim++] = xs->d[d];
            bwd_args a = {.axis = sel_cases[ci].axis, .select = sel_cases[ci].index};
            run_view("select_scatter_backward", call_select, &a, bwd_dtypes[di], xs, &ss, false, 0,
                     &r);
        }
}

/* x and a mask that broadcasts onto it */
static const skt_shape masked_cases[][2] = {
    {{0, {0}}, {0, {0}}},          {{1, {5}}, {1, {5}}},    {{2, {4, 3}}, {1, {3}}},
    {{3, {2, 3, 4}}, {3, {1, 3, 1}}}, {{2, {4, 0}}, {2, {4, 0}}}, {{2, {300, 256}}, {2, {300, 1}}},
};

void test_masked_scatter_bwd(void) {
    skt_rng r;
    skt_seed(&r, 408);
    for (size_t ci = 0; ci < COUNT(masked_cases); ci++)
        for (int di = 0; di < 4; di++)
            for (int pct = 0; pct <= 100; pct += 50) {
                const skt_shape *xs = &masked_cases[ci][0], *ms = &masked_cases[ci][1];
                skt_buf mask;
                skt_make(&mask, SK_DTYPE_BOOL, ms->ndim, ms->d,
                         (skt_layout)skt_range(&r, 0, SKT_LAYOUT_COUNT - 1), 0, &r);
                skt_fill_mask(&mask, &r, pct);
                sk_tensor shape_of_x = mask.t; /* masked_select_count reads only the shape */
                shape_of_x.ndim = xs->ndim;
                memcpy(shape_of_x.shape, xs->d, sizeof xs->d);
                memset(shape_of_x.strides, 0, sizeof shape_of_x.strides);
                skt_shape ss = {1, {0}};
                if (skref_masked_select_count(&shape_of_x, &mask.t, &ss.d[0], NULL) != SK_STATUS_OK)
                    skt_fail("masked_select_count: %s", sk_last_error());
                ss.d[0] += skt_range(&r, 0, 3); /* source elements never read */
                bwd_args a = {.mask = &mask};
                run_view("masked_scatter_backward", call_masked_scatter, &a, bwd_dtypes[di], xs,
                         &ss, false, 0, &r);
                skt_free(&mask);
            }
}

static const struct {
    skt_shape cache;
    int64_t seq;
    int32_t axis;
} ts_cases[] = {
    {{3, {2, 5, 3}}, 2, -2}, {{3, {3, 4, 6}}, 2, 2},  {{4, {2, 3, 6, 4}}, 3, 2},
    {{3, {2, 5, 3}}, 0, 1},  {{3, {0, 5, 3}}, 2, 1},  {{2, {3, 7}}, 7, -1},
    {{2, {3, 4}}, 9, 1}, /* circular only: longer than the axis */
    {{4, {4, 2, 256, 64}}, 100, 2},
};

void test_tensor_scatter_bwd(void) {
    skt_rng r;
    skt_seed(&r, 409);
    for (size_t ci = 0; ci < COUNT(ts_cases); ci++)
        for (int di = 0; di < 4; di++)
            for (int mode = 0; mode < 2; mode++)
                for (int wi = 0; wi < 3; wi++) { /* write_indices: none, int32, int64 */
                    const skt_shape *cs = &ts_cases[ci].cache;
                    int32_t ax = (ts_cases[ci].axis + cs->ndim) % cs->ndim;
                    int64_t n = cs->d[ax], seq = ts_cases[ci].seq;
                    if (mode == 0 && seq > n) continue;
                    skt_shape us = *cs;
                    us.d[ax] = seq;
                    skt_buf w;
                    int64_t lo = 0, hi = mode ? 2 * n : n - seq;
                    if (wi) {
                        bwd_index(&w, bwd_index_dt[wi - 1], 1, cs->d, -1, &n, SK_INDEX_MODE_ERROR,
                                  false, &r);
                        skt_fill_index(&w, &r, -1, &lo, &hi);
                    }
                    bwd_args a = {.index = wi ? &w : NULL, .axis = ts_cases[ci].axis,
                                  .ts_mode = (sk_tensor_scatter_mode)mode};
                    run_view(mode ? "tensor_scatter_backward circular" : "tensor_scatter_backward",
                             call_tensor_scatter, &a, bwd_dtypes[di], cs, &us, true, 0, &r);
                    if (wi) skt_free(&w);
                }
}

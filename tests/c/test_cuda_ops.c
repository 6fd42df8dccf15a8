/*
 * test_cuda_ops.c - the operator cases of the CUDA tester: every
 * data-movement operator, every dtype (all ten: bytes move by width), the
 * index modes and the fill value, int32 and int64 indices, contiguous,
 * transposed and flipped operands, empty tensors, and index errors followed
 * by a good call. Each case runs on the CPU and on the GPU (cu_both).
 */
#include "test_cuda.h"

#include <stdio.h>

typedef struct {
    int32_t axis, naxes, axes[3];
    sk_index_mode mode;
    int64_t i64;
} cu_args;

static const sk_dtype all_dtypes[] = {SK_DTYPE_BOOL,    SK_DTYPE_UINT8,    SK_DTYPE_INT8,
                                      SK_DTYPE_INT16,   SK_DTYPE_INT32,    SK_DTYPE_INT64,
                                      SK_DTYPE_FLOAT16, SK_DTYPE_BFLOAT16, SK_DTYPE_FLOAT32,
                                      SK_DTYPE_FLOAT64};

/* t: x, index, fill (or NULL), out */
static sk_status call_gather(sk_tensor *const *t, const void *arg) {
    const cu_args *a = arg;
    if (a->naxes)
        return sk_gather_axes(t[0], t[1], a->axes, a->naxes, a->mode, t[2], t[3], NULL);
    return sk_gather(t[0], t[1], a->axis, a->mode, t[2], t[3], NULL);
}
/* A fresh out (the Python binding's out=None): the walk checks the values. */
static sk_status call_gather_fresh(sk_tensor *const *t, const void *arg) {
    const cu_args *a = arg;
    const sk_options fresh = {.flags = SK_OPTION_FRESH_OUT};
    return sk_gather(t[0], t[1], a->axis, a->mode, t[2], t[3], &fresh);
}
static sk_status call_index_select(sk_tensor *const *t, const void *arg) {
    const cu_args *a = arg;
    return sk_index_select(t[0], t[1], a->axis, a->mode, t[2], t[3], NULL);
}
static sk_status call_gather_nd(sk_tensor *const *t, const void *arg) {
    const cu_args *a = arg;
    return sk_gather_nd(t[0], t[1], a->axis, a->mode, t[2], t[3], NULL);
}

static void run4(const char *what, cu_call fn, const cu_args *a, cu_pair *x, cu_pair *ix,
                 cu_pair *fill, cu_pair *out) {
    cu_pair *t[4] = {x, ix, fill, out};
    int w = 3;
    cu_both(what, fn, a, t, 4, &w, 1);
}

static cu_pair *fill_for(skt_rng *r, sk_dtype dt) {
    return cu_tensor(r, dt, 0, NULL, CU_CONTIGUOUS);
}

static const sk_index_mode gather_modes[3] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                              SK_INDEX_MODE_FILL};

/* gather along an int axis and a tuple of axes, every mode, both index types. */
static void gather_cases(skt_rng *r, sk_dtype dt, int layout) {
    char what[128];
    const int64_t xs[2] = {9, 13}, is[2] = {9, 7}, xs3[3] = {4, 6, 5}, os3[3] = {4, 3, 5},
                  is3[4] = {4, 3, 5, 2};
    for (int m = 0; m < 3; m++) {
        cu_args a = {1, 0, {0}, gather_modes[m], 0};
        bool error = gather_modes[m] == SK_INDEX_MODE_ERROR;
        int64_t lo = error ? -13 : -20, hi = error ? 12 : 20;
        snprintf(what, sizeof what, "gather %s layout %d mode %d", sk_dtype_name(dt), layout, m);
        cu_pair *x = cu_tensor(r, dt, 2, xs, layout);
        cu_pair *ix = cu_index(r, m != 1, 2, is, lo, hi);
        cu_pair *fill = gather_modes[m] == SK_INDEX_MODE_FILL ? fill_for(r, dt) : NULL;
        run4(what, call_gather, &a, x, ix, fill, cu_tensor(r, dt, 2, is, CU_CONTIGUOUS));
        cu_args t = {0, 2, {2, 1}, gather_modes[m], 0};
        snprintf(what, sizeof what, "gather axes (2, 1) %s layout %d mode %d", sk_dtype_name(dt),
                 layout, m);
        cu_pair *x3 = cu_tensor(r, dt, 3, xs3, layout);
        cu_pair *ix3 = cu_index(r, m != 2, 4, is3, error ? -5 : -9, error ? 4 : 9);
        run4(what, call_gather, &t, x3, ix3, fill, cu_tensor(r, dt, 3, os3, CU_CONTIGUOUS));
    }
}

/* index_select of rows (the row scheme) and of inner elements, gather_nd. */
static void select_cases(skt_rng *r, sk_dtype dt, int layout) {
    char what[128];
    const int64_t xs[2] = {40, 37}, is[1] = {23}, os0[2] = {23, 37}, os1[2] = {40, 23};
    const int64_t xs3[3] = {6, 5, 11}, ins[2] = {7, 2}, ons[2] = {7, 11};
    for (int m = 0; m < 3; m++) {
        bool error = gather_modes[m] == SK_INDEX_MODE_ERROR;
        cu_pair *fill = gather_modes[m] == SK_INDEX_MODE_FILL ? fill_for(r, dt) : NULL;
        for (int32_t axis = 0; axis < 2; axis++) {
            cu_args a = {axis, 0, {0}, gather_modes[m], 0};
            snprintf(what, sizeof what, "index_select axis %d %s layout %d mode %d", (int)axis,
                     sk_dtype_name(dt), layout, m);
            cu_pair *x = cu_tensor(r, dt, 2, xs, layout);
            cu_pair *ix = cu_index(r, axis == 0, 1, is, error ? -xs[axis] : -60,
                                   error ? xs[axis] - 1 : 60);
            run4(what, call_index_select, &a, x, ix, fill,
                 cu_tensor(r, dt, 2, axis ? os1 : os0, CU_CONTIGUOUS));
        }
        cu_args nd = {0, 0, {0}, gather_modes[m], 0};
        snprintf(what, sizeof what, "gather_nd %s layout %d mode %d", sk_dtype_name(dt), layout, m);
        run4(what, call_gather_nd, &nd, cu_tensor(r, dt, 3, xs3, layout),
             cu_index(r, m != 1, 2, ins, error ? -5 : -8, error ? 4 : 8), fill,
             cu_tensor(r, dt, 2, ons, CU_CONTIGUOUS));
    }
}

/* t: x, src, out */
static sk_status call_slice(sk_tensor *const *t, const void *arg) {
    (void)arg;
    const int32_t axes[1] = {1};
    const int64_t start[1] = {1}, stop[1] = {SK_SLICE_NONE}, step[1] = {2};
    return sk_slice_scatter(t[0], t[1], 1, axes, start, stop, step, t[2], NULL);
}
static sk_status call_diagonal(sk_tensor *const *t, const void *arg) {
    (void)arg;
    return sk_diagonal_scatter(t[0], t[1], 1, 0, 1, t[2], NULL);
}
static sk_status call_select(sk_tensor *const *t, const void *arg) {
    (void)arg;
    return sk_select_scatter(t[0], t[1], 0, -2, t[2], NULL);
}
static sk_status call_masked_scatter(sk_tensor *const *t, const void *arg) {
    (void)arg;
    return sk_masked_scatter(t[0], t[1], t[2], t[3], NULL);
}
static sk_status call_masked_select(sk_tensor *const *t, const void *arg) {
    (void)arg;
    return sk_masked_select(t[0], t[1], t[2], NULL);
}

static void view_cases(skt_rng *r, sk_dtype dt, int layout) {
    char what[128];
    const int64_t xs[2] = {6, 9}, ss[2] = {6, 4}, ds[1] = {6}, sel[1] = {9};
    struct { const char *name; cu_call fn; int ndim; const int64_t *src; } v[3] = {
        {"slice_scatter", call_slice, 2, ss},
        {"diagonal_scatter", call_diagonal, 1, ds},
        {"select_scatter", call_select, 1, sel}};
    for (int i = 0; i < 3; i++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            snprintf(what, sizeof what, "%s %s layout %d%s", v[i].name, sk_dtype_name(dt), layout,
                     inplace ? " in place" : "");
            cu_pair *x = cu_tensor(r, dt, 2, xs, layout);
            cu_pair *t[3] = {x, cu_tensor(r, dt, v[i].ndim, v[i].src, layout),
                             inplace ? x : cu_tensor(r, dt, 2, xs, CU_CONTIGUOUS)};
            int w = 2;
            cu_both(what, v[i].fn, NULL, t, 3, &w, 1);
        }
    }
}

static void mask_cases(skt_rng *r, sk_dtype dt, int layout) {
    char what[128];
    const int64_t xs[2] = {37, 301}, ms[1] = {301}, src[1] = {37 * 301};
    for (int pct = 0; pct <= 100; pct += 50) {
        snprintf(what, sizeof what, "masked_scatter %s layout %d %d%% True", sk_dtype_name(dt),
                 layout, pct);
        cu_pair *t[4] = {cu_tensor(r, dt, 2, xs, layout), cu_mask(r, 2, xs, pct),
                         cu_tensor(r, dt, 1, src, CU_CONTIGUOUS),
                         cu_tensor(r, dt, 2, xs, CU_CONTIGUOUS)};
        int w = 3;
        cu_both(what, call_masked_scatter, NULL, t, 4, &w, 1);
        cu_pair *m = cu_mask(r, 1, ms, pct);
        int64_t n = -1, dn = -1;
        sk_masked_select_count(&t[0]->h, &m->h, &n, NULL);
        sk_masked_select_count(&t[0]->d, &m->d, &dn, NULL);
        SKT_CHECK(n == dn, "masked_select_count %s: cpu %lld, cuda %lld", sk_dtype_name(dt),
                  (long long)n, (long long)dn);
        snprintf(what, sizeof what, "masked_select %s layout %d %d%% True (broadcast mask)",
                 sk_dtype_name(dt), layout, pct);
        cu_pair *s[3] = {t[0], m, cu_tensor(r, dt, 1, &n, CU_CONTIGUOUS)};
        w = 2;
        cu_both(what, call_masked_select, NULL, s, 3, &w, 1);
    }
}

/* t: cache, update, write_indices, out */
static sk_status call_tensor_scatter(sk_tensor *const *t, const void *arg) {
    const cu_args *a = arg;
    return sk_tensor_scatter(t[0], t[1], t[2], 1, (sk_tensor_scatter_mode)a->i64, t[3], NULL);
}

static void tensor_scatter_cases(skt_rng *r, sk_dtype dt) {
    char what[128];
    const int64_t cs[3] = {3, 8, 5}, us[3] = {3, 3, 5}, ul[3] = {3, 11, 5}, ws[1] = {3};
    for (int circular = 0; circular < 2; circular++) {
        cu_args a = {0, 0, {0}, SK_INDEX_MODE_ERROR, circular};
        snprintf(what, sizeof what, "tensor_scatter %s %s", sk_dtype_name(dt),
                 circular ? "circular" : "linear");
        cu_pair *t[4] = {cu_tensor(r, dt, 3, cs, CU_CONTIGUOUS),
                         cu_tensor(r, dt, 3, circular ? ul : us, CU_TRANSPOSED),
                         cu_index(r, circular, 1, ws, 0, circular ? 20 : 5),
                         cu_tensor(r, dt, 3, cs, CU_CONTIGUOUS)};
        int w = 3;
        cu_both(what, call_tensor_scatter, &a, t, 4, &w, 1);
        snprintf(what, sizeof what, "tensor_scatter %s bad write index", sk_dtype_name(dt));
        if (circular) ((int64_t *)t[2]->h.data)[1] = -1;
        else ((int32_t *)t[2]->h.data)[1] = 6; /* 6 + 3 > 8 */
        cu_upload(t[2]);
        cu_both(what, call_tensor_scatter, &a, t, 4, &w, 1);
    }
}

/* A bad index: the same IndexError and message as the CPU, out untouched,
 * and the next (good) call on the same context works. */
static void error_cases(skt_rng *r) {
    const int64_t xs[2] = {50, 64}, is[2] = {50, 64}, ns[3] = {5, 5, 2}, xn[2] = {8, 9},
                  on[2] = {5, 5};
    for (int rep = 0; rep < 3; rep++) {
        cu_args a = {1, 0, {0}, SK_INDEX_MODE_ERROR, 0};
        cu_pair *x = cu_tensor(r, SK_DTYPE_FLOAT32, 2, xs, CU_CONTIGUOUS);
        cu_pair *ix = cu_index(r, true, 2, is, -64, 63);
        ((int64_t *)ix->h.data)[rep * 1000 + 7] = 64 + rep; /* bad values at two positions */
        ((int64_t *)ix->h.data)[rep * 1000 + 900] = -65;
        cu_upload(ix);
        cu_pair *out = cu_tensor(r, SK_DTYPE_FLOAT32, 2, is, CU_CONTIGUOUS);
        run4("gather with a bad index", call_gather, &a, x, ix, NULL, out);
        cu_pair *t[4] = {x, ix, NULL, out}; /* a fresh out may differ after an error */
        cu_both("gather into a fresh out with a bad index", call_gather_fresh, &a, t, 4, NULL, 0);
        ((int64_t *)ix->h.data)[rep * 1000 + 7] = 3;
        ((int64_t *)ix->h.data)[rep * 1000 + 900] = 0;
        cu_upload(ix);
        run4("gather after the bad call", call_gather, &a, x, ix, NULL, out);
        run4("gather into a fresh out after the bad call", call_gather_fresh, &a, x, ix, NULL,
             out);
        cu_args nd = {0, 0, {0}, SK_INDEX_MODE_ERROR, 0};
        cu_pair *ixn = cu_index(r, false, 3, ns, -8, 7);
        ((int32_t *)ixn->h.data)[2 * rep + 1] = 9; /* component 1, axis 1 of size 9: the first */
        ((int32_t *)ixn->h.data)[2 * rep + 12] = -9; /* component 0, axis 0 of size 8 */
        cu_upload(ixn);
        run4("gather_nd with a bad index", call_gather_nd, &nd,
             cu_tensor(r, SK_DTYPE_INT16, 2, xn, CU_CONTIGUOUS), ixn, NULL,
             cu_tensor(r, SK_DTYPE_INT16, 2, on, CU_CONTIGUOUS));
    }
}

static void empty_cases(skt_rng *r) {
    const int64_t xs[2] = {5, 0}, is[1] = {0}, xs2[2] = {4, 3}, os[2] = {0, 3}, os2[2] = {5, 0};
    cu_args a = {0, 0, {0}, SK_INDEX_MODE_ERROR, 0};
    run4("index_select of an empty index", call_index_select, &a,
         cu_tensor(r, SK_DTYPE_FLOAT64, 2, xs2, CU_CONTIGUOUS), cu_index(r, true, 1, is, 0, 0),
         NULL, cu_tensor(r, SK_DTYPE_FLOAT64, 2, os, CU_CONTIGUOUS));
    run4("index_select from an empty x", call_index_select, &a,
         cu_tensor(r, SK_DTYPE_UINT8, 2, xs, CU_CONTIGUOUS), cu_index(r, true, 1, xs, 0, 4),
         NULL, cu_tensor(r, SK_DTYPE_UINT8, 2, os2, CU_CONTIGUOUS));
}

void cu_run_cases(bool small) {
    skt_rng r;
    skt_seed(&r, 22);
    error_cases(&r);
    empty_cases(&r);
    int ndt = small ? 3 : (int)(sizeof all_dtypes / sizeof all_dtypes[0]);
    for (int i = 0; i < ndt; i++) {
        sk_dtype dt = all_dtypes[small ? 2 * i + 3 : i];
        for (int layout = 0; layout < (small ? 1 : 3); layout++) {
            gather_cases(&r, dt, layout);
            select_cases(&r, dt, layout);
            view_cases(&r, dt, layout);
            mask_cases(&r, dt, layout);
        }
        tensor_scatter_cases(&r, dt);
        cu_free_all();
    }
}

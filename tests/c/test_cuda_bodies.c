/*
 * test_cuda_bodies.c - the CUDA kernels' per-position bodies (src/cuda/
 * body.h, compiled here as plain C) run on the CPU over host memory, looped
 * as the kernels loop them (every position of the elements scheme; every
 * (row, chunk) item and lane of the rows scheme; every update element of
 * tensor_scatter; the masked fill's tiles and threads, its scans done
 * serially), and compared byte for byte with the CPU backend on the same
 * plans. Validation: the first bad position the body finds is the one
 * the CPU reports. Runs in every build, GPU or not.
 */
#include "cuda/body.h"
#include "cuda/cuda.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* The walk w as the kernels run it, over host memory. */
static void emulate_walk(const sk_cuda_walk *w) {
    size_t es = (size_t)w->elem_size;
    const char *fill = w->fill;
    if (w->scheme == SK_CUDA_ELEMENTS) {
        for (int64_t pos = 0; pos < w->numel; pos++) {
            int64_t o[3];
            sk_cuda_walk_offsets(w, pos, o);
            char *dst = w->dense + o[0] * (int64_t)es;
            if (sk_cuda_walk_resolve(w, o[2], &o[1]))
                memcpy(dst, w->target + o[1] * (int64_t)es, es);
            else if (fill) memcpy(dst, fill, es);
            else memset(dst, 0, es);
        }
        return;
    }
    for (int64_t it = 0; it < w->rows * w->chunks; it++) {
        for (int64_t lane = 0; lane < w->group; lane++) {
            int64_t r, lo, hi, o[3], v = w->vec;
            sk_cuda_row_item(w, it, &r, &lo, &hi);
            sk_cuda_walk_offsets(w, r * w->row_len, o);
            char *dst = w->dense + o[0] * (int64_t)es;
            if (sk_cuda_walk_resolve(w, o[2], &o[1])) {
                for (int64_t j = lo + lane; j < hi; j += w->group)
                    memcpy(dst + j * v, w->target + o[1] * (int64_t)es + j * v, (size_t)v);
                continue;
            }
            for (int64_t b = lo * v + lane; b < hi * v; b += w->group)
                dst[b] = fill ? fill[b % (int64_t)es] : 0;
        }
    }
}

static void fill_bytes(skt_rng *r, void *p, size_t n) {
    for (size_t i = 0; i < n; i++) ((unsigned char *)p)[i] = (unsigned char)skt_next(r);
}

/* gather(x, index, axis) through sk_gather on the CPU and through the
 * bodies on the same plan; x [R, C] of dtype dt, index [R, K] (stride 0 along
 * K when expanded), values in [lo, hi]. Returns the scheme the plan took. */
static int gather_case(skt_rng *r, sk_dtype dt, int64_t R, int64_t C, int64_t K, int32_t axis,
                       bool expanded, sk_index_mode mode, int64_t lo, int64_t hi) {
    size_t es = sk_dtype_size(dt);
    int64_t xs[2] = {R, C}, is[2] = {R, K}, ist[2] = {expanded ? 1 : K, expanded ? 0 : 1};
    char *xb = malloc((size_t)(R * C) * es), *o1 = malloc((size_t)(R * K) * es + 1);
    char *o2 = malloc((size_t)(R * K) * es + 1), fillv[8];
    int64_t *ib = malloc(sizeof(int64_t) * (size_t)(R * K));
    fill_bytes(r, xb, (size_t)(R * C) * es);
    fill_bytes(r, fillv, sizeof fillv);
    for (int64_t i = 0; i < R * K; i++) ib[i] = skt_range(r, lo, hi);
    sk_tensor x, index, out, fill;
    sk_tensor_init(&x, xb, dt, 2, xs, NULL);
    sk_tensor_init(&index, ib, SK_DTYPE_INT64, 2, is, ist);
    sk_tensor_init(&out, o1, dt, 2, is, NULL);
    sk_tensor_init(&fill, fillv, dt, 0, NULL, NULL);
    sk_status st = sk_gather(&x, &index, axis, mode, mode == SK_INDEX_MODE_FILL ? &fill : NULL,
                             &out, NULL);
    SKT_CHECK(st == SK_STATUS_OK, "gather on the CPU: %s", sk_last_error());
    const int32_t axes[1] = {axis};
    sk_gather_args a = {&x, &index, &out, axes, 1, false};
    sk_plan p;
    sk_gather_plan(&p, "gather", &a);
    p.dense = o2;
    p.mode = mode;
    p.fill = mode == SK_INDEX_MODE_FILL ? fillv : NULL;
    sk_plan_normalize(&p);
    sk_cuda_walk w;
    sk_cuda_plan_walk(&p, &w);
    emulate_walk(&w);
    SKT_CHECK(memcmp(o1, o2, (size_t)(R * K) * es) == 0,
              "gather %s [%lld, %lld] axis %d%s mode %d: the bodies differ from the CPU",
              sk_dtype_name(dt), (long long)R, (long long)C, (int)axis,
              expanded ? " expanded" : "", (int)mode);
    free(xb), free(o1), free(o2), free(ib);
    return w.scheme;
}

static void test_walks(skt_rng *r) {
    static const sk_dtype dts[4] = {SK_DTYPE_UINT8, SK_DTYPE_BFLOAT16, SK_DTYPE_FLOAT32,
                                    SK_DTYPE_INT64};
    for (int i = 0; i < 4; i++) {
        sk_dtype dt = dts[i];
        int s = gather_case(r, dt, 37, 13, 9, 1, false, SK_INDEX_MODE_ERROR, -13, 12);
        SKT_CHECK(s == SK_CUDA_ELEMENTS, "gather along the last axis: elements scheme");
        gather_case(r, dt, 37, 13, 9, 1, false, SK_INDEX_MODE_CLIP, -40, 40);
        gather_case(r, dt, 37, 13, 9, 1, false, SK_INDEX_MODE_FILL, -40, 40);
        /* axis 0 with an index constant along each row: the rows scheme */
        s = gather_case(r, dt, 50, 600, 600, 0, true, SK_INDEX_MODE_ERROR, -50, 49);
        SKT_CHECK(s == SK_CUDA_ROWS, "expanded index along axis 0: rows scheme, got %d", s);
        gather_case(r, dt, 50, 33, 33, 0, true, SK_INDEX_MODE_FILL, -90, 90);
        gather_case(r, dt, 50, 7, 5, 0, true, SK_INDEX_MODE_CLIP, -90, 90);
    }
}

/* A broadcasting copy (the view scatters' and sk_copy's walk). */
static void test_copy(skt_rng *r) {
    const int64_t ss[2] = {1, 1000}, os[2] = {300, 1000};
    float *src = malloc(sizeof(float) * 1000), *o1 = malloc(sizeof(float) * 300000),
          *o2 = malloc(sizeof(float) * 300000);
    fill_bytes(r, src, sizeof(float) * 1000);
    sk_tensor s, a, b;
    sk_tensor_init(&s, src, SK_DTYPE_FLOAT32, 2, ss, NULL);
    sk_tensor_init(&a, o1, SK_DTYPE_FLOAT32, 2, os, NULL);
    sk_tensor_init(&b, o2, SK_DTYPE_FLOAT32, 2, os, NULL);
    SKT_CHECK(sk_copy(&s, &a, NULL) == SK_STATUS_OK, "copy on the CPU");
    sk_plan p;
    sk_cuda_walk w;
    sk_cuda_copy_plan(&s, &b, &p);
    sk_cuda_plan_walk(&p, &w);
    emulate_walk(&w);
    SKT_CHECK(w.scheme == SK_CUDA_ROWS && memcmp(o1, o2, sizeof(float) * 300000) == 0,
              "broadcast copy: the bodies differ from the CPU");
    free(src), free(o1), free(o2);
}

/* The first bad position the body finds is the CPU's, expanded index too. */
static void test_check(void) {
    int32_t data[6 * 7];
    for (int i = 0; i < 42; i++) data[i] = i % 5 - 2;
    data[4 * 7 + 1] = 5; /* [4, 1] */
    data[2 * 7 + 3] = -6; /* [2, 3]: the first */
    const int64_t shape[2] = {6, 7}, eshape[3] = {6, 4, 7}, estr[3] = {7, 0, 1};
    const int32_t axes[1] = {0};
    const int64_t sizes[1] = {5};
    sk_tensor t;
    sk_tensor_init(&t, data, SK_DTYPE_INT32, 2, shape, NULL);
    for (int expanded = 0; expanded < 2; expanded++) {
        if (expanded) sk_tensor_init(&t, data, SK_DTYPE_INT32, 3, eshape, estr);
        sk_index_check c = {"gather", &t, -1, axes, sizes, SK_INDEX_MODE_ERROR};
        sk_cuda_check k;
        sk_cuda_plan_check(&c, &k);
        int64_t first = -1, coord[3];
        for (int64_t pos = 0; pos < k.numel && first < 0; pos++)
            if (sk_cuda_check_bad(&k, pos)) first = pos;
        sk_cuda_check_coords(&k, first, t.ndim, coord);
        SKT_CHECK(first >= 0 && coord[0] == 2 && coord[t.ndim - 1] == 3 &&
                      (!expanded || coord[1] == 0),
                  "first bad value%s: position %lld", expanded ? " (expanded)" : "",
                  (long long)first);
    }
}

/* tensor_scatter's targets against the CPU, linear and circular. */
static void test_tensor_scatter(skt_rng *r) {
    const int64_t cs[3] = {3, 8, 5}, ws[1] = {3};
    for (int circular = 0; circular < 2; circular++) {
        int64_t us[3] = {3, circular ? 11 : 3, 5}, wi[3] = {0, circular ? 13 : 5, 2};
        double cache[120], upd[165], o1[120], o2[120];
        fill_bytes(r, cache, sizeof cache);
        fill_bytes(r, upd, sizeof upd);
        sk_tensor c, u, w, a, b;
        sk_tensor_init(&c, cache, SK_DTYPE_FLOAT64, 3, cs, NULL);
        sk_tensor_init(&u, upd, SK_DTYPE_FLOAT64, 3, us, NULL);
        sk_tensor_init(&w, wi, SK_DTYPE_INT64, 1, ws, NULL);
        sk_tensor_init(&a, o1, SK_DTYPE_FLOAT64, 3, cs, NULL);
        sk_tensor_init(&b, o2, SK_DTYPE_FLOAT64, 3, cs, NULL);
        sk_tensor_scatter_mode mode =
            circular ? SK_TENSOR_SCATTER_CIRCULAR : SK_TENSOR_SCATTER_LINEAR;
        SKT_CHECK(sk_tensor_scatter(&c, &u, &w, 1, mode, &a, NULL) == SK_STATUS_OK,
                  "tensor_scatter on the CPU: %s", sk_last_error());
        sk_tensor_scatter_desc d = {"tensor_scatter", false, &c, &u, &w, &b, NULL, 1, mode};
        sk_cuda_ts t;
        sk_cuda_plan_ts(&d, &t);
        memcpy(o2, cache, sizeof cache);
        for (int64_t pos = 0; pos < t.numel; pos++) {
            int64_t uo, oo;
            if (sk_cuda_ts_target(&t, pos, &uo, &oo)) o2[oo] = upd[uo];
        }
        SKT_CHECK(memcmp(o1, o2, sizeof o1) == 0, "tensor_scatter %s: the bodies differ",
                  circular ? "circular" : "linear");
    }
}

/* The masked fill as the kernels run it: the tiles' exclusive scan, then in
 * each tile every thread's rank from the threads before it (serially here,
 * a block scan on the GPU). */
static void emulate_mask(const sk_cuda_mask_walk *m) {
    size_t es = (size_t)m->elem_size;
    int64_t k = 0;
    for (int64_t tile = 0; tile < m->tiles; tile++) {
        for (int64_t t = 0; t < SK_CUDA_MASK_THREADS; t++) {
            int64_t first = tile * SK_CUDA_MASK_TILE + t * SK_CUDA_MASK_PER_THREAD;
            unsigned bits = sk_cuda_mask_flags(m, first);
            for (int j = 0; j < SK_CUDA_MASK_PER_THREAD && first + j < m->numel; j++) {
                bool is_true = bits >> j & 1u;
                int64_t dst, from;
                int move = sk_cuda_mask_move(m, first + j, is_true, k, &dst, &from);
                if (move)
                    memcpy(m->out + dst * (int64_t)es,
                           (move == 2 ? m->source : m->x) + from * (int64_t)es, es);
                k += is_true;
            }
        }
    }
}

/* masked_scatter (x [R, C] transposed, a mask row broadcast over R) and
 * masked_select of the same, through the CPU backend and the bodies. */
static void test_masked(skt_rng *r) {
    enum { R = 70, C = 61 };
    static int16_t x[R * C], source[R * C], o1[R * C], o2[R * C];
    static bool mask[C];
    fill_bytes(r, x, sizeof x);
    fill_bytes(r, source, sizeof source);
    for (int c = 0; c < C; c++) mask[c] = skt_range(r, 0, 2) == 0;
    const int64_t xs[2] = {R, C}, xst[2] = {1, R}, ms[1] = {C}, ss[1] = {R * C};
    sk_tensor tx, tm, ts, a;
    sk_tensor_init(&tx, x, SK_DTYPE_INT16, 2, xs, xst);
    sk_tensor_init(&tm, mask, SK_DTYPE_BOOL, 1, ms, NULL);
    sk_tensor_init(&ts, source, SK_DTYPE_INT16, 1, ss, NULL);
    sk_tensor_init(&a, o1, SK_DTYPE_INT16, 2, xs, NULL);
    for (int select = 0; select < 2; select++) {
        int64_t n = 0;
        sk_masked_select_count(&tx, &tm, &n, NULL);
        a.ndim = select ? 1 : 2;
        a.shape[0] = select ? n : R;
        a.strides[0] = select ? 1 : C;
        sk_status st = select ? sk_masked_select(&tx, &tm, &a, NULL)
                              : sk_masked_scatter(&tx, &tm, &ts, &a, NULL);
        SKT_CHECK(st == SK_STATUS_OK, "masked on the CPU: %s", sk_last_error());
        sk_mask_desc *d = calloc(1, sizeof *d);
        sk_plan_init(&d->p, "masked", SK_DTYPE_INT16);
        sk_plan_add_dim(&d->p, R, select ? 0 : C, 1, 0, 0);
        sk_plan_add_dim(&d->p, C, select ? 0 : 1, R, 0, 1);
        d->p.target = (char *)x;
        d->p.index = mask;
        d->p.dense = (char *)o2;
        sk_plan_normalize(&d->p);
        sk_plan_init(&d->source_plan, "masked", SK_DTYPE_INT16);
        sk_plan_add_dim(&d->source_plan, R * C, 0, 1, 0, 0);
        d->source_plan.target = (char *)source;
        d->kind = select ? SK_MASK_SELECT : SK_MASK_SCATTER;
        d->write_unmasked = true;
        d->out_stride = 1;
        sk_cuda_mask_walk m;
        sk_cuda_plan_mask(d, &m);
        emulate_mask(&m);
        SKT_CHECK(memcmp(o1, o2, sizeof(int16_t) * (size_t)(select ? n : R * C)) == 0,
                  "masked_%s: the bodies differ from the CPU", select ? "select" : "scatter");
        free(d);
    }
}

int main(void) {
    skt_rng r;
    skt_seed(&r, 2222);
    test_walks(&r);
    test_copy(&r);
    test_check();
    test_tensor_scatter(&r);
    test_masked(&r);
    printf("cuda_bodies: %ld checks, %ld failures\n", skt_checks, skt_failures);
    return skt_failures ? 1 : 0;
}

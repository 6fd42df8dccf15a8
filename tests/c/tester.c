/* tester.c - see tester.h. */
#include "tester.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sk_options skt_three_threads = {.num_threads = 3};
const sk_dtype skt_index_dtypes[2] = {SK_DTYPE_INT32, SK_DTYPE_INT64};
static const sk_index_mode gather_modes[3] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                              SK_INDEX_MODE_FILL};
static const sk_index_mode scatter_modes[3] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                               SK_INDEX_MODE_DROP};
static const int densities[3] = {0, 50, 100};

/* ---- buffers ---- */

skt_buf *skt_new(skt_bufs *b, const char *name) {
    if (b->n == SKT_MAX_BUFS) {
        fprintf(stderr, "tester: more than %d tensors in one case\n", SKT_MAX_BUFS);
        exit(2);
    }
    b->name[b->n] = name;
    skt_buf *s = &b->buf[b->n++];
    memset(s, 0, sizeof *s);
    return s;
}

skt_buf *skt_view(skt_bufs *b, const sk_tensor *t) {
    skt_buf *s = skt_new(b, NULL);
    s->t = *t;
    return s;
}

void skt_set_inputs(skt_bufs *b, int n, ...) {
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) b->inputs[i] = va_arg(ap, const skt_buf *);
    va_end(ap);
    b->ninputs = n;
}

void skt_bufs_free(skt_bufs *b) {
    for (int i = 0; i < b->n; i++) skt_free(&b->buf[i]);
    b->n = 0;
}

/* ---- the sweep ---- */

typedef struct {
    const skt_op *op;
    const skt_args *a;
} run_ctx;

static sk_status run_call(void *ctx, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                          bool ref) {
    const run_ctx *c = (const run_ctx *)ctx;
    return c->op->call(c->a, x, out, ref, o);
}

static void describe_one(skt_bufs *b, int i) {
    if (!b->name[i]) return;
    if (strchr(b->name[i], '=')) skt_appendf(b->desc, sizeof b->desc, " %s", b->name[i]);
    else skt_desc(b->desc, sizeof b->desc, b->name[i], &b->buf[i].t);
}

/* Appends every named tensor, out last. */
static void describe(skt_bufs *b) {
    int out = b->out ? (int)(b->out - b->buf) : -1;
    for (int i = 0; i < b->n; i++)
        if (i != out) describe_one(b, i);
    if (out >= 0) describe_one(b, out);
}

void skt_run(const skt_op *op, skt_bufs *b, double tol) {
    describe(b);
    run_ctx c = {op, &b->a};
    skt_run_case(b->desc, run_call, &c, b->x, b->out, b->inplace, tol, b->inputs, b->ninputs);
    skt_bufs_free(b);
}

bool skt_reduce_ok(sk_dtype dt, sk_reduce r) {
    return dt != SK_DTYPE_BOOL || r == SK_REDUCE_NONE || r == SK_REDUCE_AMAX || r == SK_REDUCE_AMIN;
}

double skt_reduce_tol(sk_dtype dt, sk_reduce r) {
    return r == SK_REDUCE_MEAN && sk_dtype_is_floating(dt) ? skt_tolerance(dt) : 0;
}

/* The sweep's dimensions, slowest first: dtype, index dtype, reduction,
 * include_self, mode, density, repetition. */
enum { DIMS = 7 };
static void sweep_dims(const skt_op *op, bool big, int n[DIMS]) {
    unsigned s = op->sweep;
    n[0] = SK_DTYPE_COUNT;
    n[1] = s & SKT_INDEX_DTYPES ? 2 : 1;
    n[2] = s & SKT_REDUCES ? 6 : 1;
    n[3] = s & SKT_SELF ? 2 : 1;
    n[4] = s & (SKT_GATHER_MODES | SKT_SCATTER_MODES) ? 3 : 1;
    n[5] = s & SKT_DENSITIES ? 3 : 1;
    n[6] = big || op->reps < 1 ? 1 : op->reps;
}

/* The point with digits k; false where the sweep leaves it out. */
static bool sweep_point(const skt_op *op, const int k[DIMS], skt_params *p) {
    unsigned s = op->sweep;
    p->di = k[0];
    p->dt = skt_all_dtypes[k[0]];
    p->it = s & SKT_INDEX_DTYPES ? skt_index_dtypes[k[1]] : SK_DTYPE_INT64;
    p->reduce = (sk_reduce)k[2];
    p->include_self = s & SKT_SELF ? k[3] == 0 : true;
    p->mode = s & SKT_GATHER_MODES    ? gather_modes[k[4]]
              : s & SKT_SCATTER_MODES ? scatter_modes[k[4]]
                                      : SK_INDEX_MODE_ERROR;
    p->density = densities[k[5]];
    p->rep = k[6];
    if ((s & SKT_REDUCES) && !skt_reduce_ok(p->dt, p->reduce)) return false;
    if (!p->big) return true;
    /* big cases exist to make the library use several threads */
    if (!skt_big_dtype(p->dt) || ((s & SKT_INDEX_DTYPES) && k[1] == 0)) return false;
    if ((s & SKT_GATHER_MODES) && p->mode == SK_INDEX_MODE_CLIP) return false;
    return !(s & SKT_SCATTER_MODES) || p->mode == SK_INDEX_MODE_ERROR;
}

static void sweep_case(const skt_op *op, const void *c, skt_rng *r, int *variant) {
    skt_params p;
    memset(&p, 0, sizeof p);
    p.big = *(const bool *)((const char *)c + op->big_offset);
    int n[DIMS], k[DIMS], total = 1;
    sweep_dims(op, p.big, n);
    for (int d = 0; d < DIMS; d++) total *= n[d];
    for (int point = 0; point < total; point++) {
        for (int d = DIMS - 1, rest = point; d >= 0; d--) {
            k[d] = rest % n[d];
            rest /= n[d];
        }
        p.caseno = point;
        if (!sweep_point(op, k, &p)) continue;
        for (p.sub = 0; p.sub < (op->subs > 1 ? op->subs : 1); p.sub++) {
            skt_bufs b;
            memset(&b, 0, sizeof b);
            p.variant = *variant;
            if (!op->make(c, &p, &b, r)) {
                skt_bufs_free(&b);
                continue;
            }
            (*variant)++;
            skt_run(op, &b, op->sweep & SKT_REDUCES ? skt_reduce_tol(p.dt, p.reduce) : 0);
        }
    }
}

static void run_errors(const skt_op *op) {
    skt_rng r;
    skt_seed(&r, op->error_seed);
    for (size_t i = 0; i < op->nerrors; i++) {
        const skt_error_case *e = &op->errors[i];
        skt_bufs b;
        memset(&b, 0, sizeof b);
        op->fixture(&b, &r);
        if (e->mutate) e->mutate(&b, e->arg, &r);
        if (!b.watch) b.watch = b.out;
        unsigned char *snap = skt_snapshot(b.watch);
        sk_status st = e->call ? e->call(&b)
                               : op->call(&b.a, b.x ? &b.x->t : NULL, b.out ? &b.out->t : NULL,
                                          false, b.opts);
        skt_expect_fail(e->what, st, e->want, b.watch, snap, e->words[0], e->words[1],
                        e->words[2]);
        free(snap);
        skt_bufs_free(&b);
    }
}

void skt_sweep(const skt_op *op) {
    for (size_t i = 0; i < SKT_COUNT(op->requires) && op->requires[i].name; i++)
        if (!op->requires[i].fn) {
            skt_fail("%s is not exported by the library (not implemented yet)",
                     op->requires[i].name);
            return;
        }
    skt_rng r;
    skt_seed(&r, op->seed);
    int variant = 0;
    for (size_t ci = 0; ci < op->ncases; ci++)
        sweep_case(op, (const char *)op->cases + ci * op->case_size, &r, &variant);
    if (op->fixture) run_errors(op);
    if (op->extra) op->extra();
}

/* ---- what the makes share ---- */

skt_layout skt_in_layout(skt_rng *r) { return (skt_layout)skt_range(r, 0, SKT_LAYOUT_COUNT - 1); }
skt_layout skt_out_layout(skt_rng *r) { return (skt_layout)skt_range(r, 0, SKT_OUT_LAYOUTS - 1); }
int32_t skt_wrap_axis(int32_t axis, int32_t ndim) { return axis < 0 ? axis + ndim : axis; }

void skt_index_bounds(int64_t n, sk_index_mode mode, int64_t *lo, int64_t *hi) {
    if (mode == SK_INDEX_MODE_ERROR && n > 0) {
        *lo = -n;
        *hi = n - 1;
    } else {
        *lo = -n - 3;
        *hi = n + 2;
    }
}

void skt_sprinkle_extremes(const skt_buf *idx, sk_index_mode mode, skt_rng *r) {
    if (mode == SK_INDEX_MODE_ERROR) return;
    bool i32 = idx->t.dtype == SK_DTYPE_INT32;
    int64_t n = skt_numel(idx->t.ndim, idx->t.shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = skt_next(r) % 24;
        if (v > 1) continue;
        skt_unravel(i, idx->t.ndim, idx->t.shape, c);
        skt_set_index(idx, c, v ? (i32 ? INT32_MAX : INT64_MAX) : (i32 ? INT32_MIN : INT64_MIN));
    }
}

skt_values skt_values_for(sk_reduce r) {
    switch (r) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SKT_VAL_WIDE;
    case SK_REDUCE_PROD: return SKT_VAL_UNIT;
    default: return SKT_VAL_NAN;
    }
}

/* Big cases only run a few dtypes: they exist to make the library use
 * several threads (it splits work above ~32k element operations). */
bool skt_big_dtype(sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT32 || dt == SK_DTYPE_BFLOAT16 || dt == SK_DTYPE_INT32 ||
           dt == SK_DTYPE_FLOAT16;
}

void skt_make_x_out(skt_bufs *b, sk_dtype dt, const skt_shape *xs, bool inplace, skt_values v,
                    skt_rng *r) {
    b->x = skt_new(b, "x");
    skt_make(b->x, dt, xs->ndim, xs->d, inplace ? skt_out_layout(r) : skt_in_layout(r), 0, r);
    skt_fill(b->x, r, v);
    b->out = skt_new(b, "out");
    if (inplace) skt_clone(b->out, b->x);
    else skt_make(b->out, dt, xs->ndim, xs->d, skt_out_layout(r), 0, r);
    b->inplace = inplace;
}

const sk_tensor *skt_make_fill(skt_buf *fb, sk_dtype dt, int variant, skt_rng *r) {
    skt_make(fb, dt, 0, NULL, SKT_CONTIG, 0, r);
    skt_set(fb, NULL, dt == SK_DTYPE_BOOL ? 1 : 7);
    return variant % 2 ? &fb->t : NULL;
}

void skt_gather_fill(skt_bufs *b, sk_dtype dt, int variant, skt_rng *r) {
    skt_buf *fb = skt_new(b, NULL);
    b->a.fill = skt_make_fill(fb, dt, variant, r);
    skt_set_inputs(b, 3, b->x, b->a.index, fb);
}

skt_buf *skt_mk(skt_bufs *b, const char *name, sk_dtype dt, int32_t ndim, const int64_t *shape,
                skt_rng *r) {
    skt_buf *s = skt_new(b, name);
    skt_make(s, dt, ndim, shape, SKT_CONTIG, 0, r);
    skt_fill(s, r, SKT_VAL_SMALL);
    return s;
}

skt_buf *skt_mk_index(skt_bufs *b, const char *name, sk_dtype it, int32_t ndim,
                      const int64_t *shape, int64_t hi, skt_rng *r) {
    int64_t lo = 0;
    skt_buf *s = skt_new(b, name);
    skt_make(s, it, ndim, shape, SKT_CONTIG, 0, r);
    skt_fill_index(s, r, -1, &lo, &hi);
    return s;
}

bool skt_shape_probe(const skt_params *p) {
    return p->dt == SK_DTYPE_FLOAT32 && p->it == SK_DTYPE_INT64 && p->mode == SK_INDEX_MODE_ERROR;
}

void skt_check_shape(const char *what, sk_status st, int32_t nd, const int64_t *shape,
                     int32_t want_nd, const int64_t *want) {
    char a[160], b[160];
    skt_checks++;
    if (st != SK_STATUS_OK) {
        skt_fail("%s: status '%s' (%s)", what, sk_status_string(st), sk_last_error());
        return;
    }
    bool same = nd == want_nd;
    for (int32_t d = 0; same && d < nd; d++) same = shape[d] == want[d];
    if (!same)
        skt_fail("%s: expected shape %s, got %s", what, skt_shape_str(a, sizeof a, want_nd, want),
                 skt_shape_str(b, sizeof b, nd, shape));
}

void skt_reduce_desc(skt_bufs *b, const char *op, const skt_params *p) {
    snprintf(b->desc, sizeof b->desc, "%s reduce=%s include_self=%d mode=%s%s", op,
             skt_reduce_names[p->reduce], (int)p->include_self, skt_mode_names[p->mode],
             b->inplace ? " in-place" : "");
}

skt_shape skt_broadcast_variant(const skt_shape *s, int variant) {
    skt_shape b = *s;
    switch (variant % 4) {
    case 1:
        if (b.ndim > 0) {
            b.ndim--;
            memmove(b.d, b.d + 1, sizeof(int64_t) * (size_t)b.ndim);
        }
        break;
    case 2:
        for (int32_t d = 0; d < b.ndim; d += 2) b.d[d] = 1;
        break;
    case 3: b.ndim = 0; break;
    default: break;
    }
    return b;
}

/* ---- mutations ---- */

void skt_mut_x_null(skt_bufs *b, int64_t arg, skt_rng *r) { (void)arg, (void)r, b->x = NULL; }
void skt_mut_out_null(skt_bufs *b, int64_t arg, skt_rng *r) { (void)arg, (void)r, b->out = NULL; }
void skt_mut_index_null(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)arg, (void)r, b->a.index = NULL;
}
void skt_mut_src_null(skt_bufs *b, int64_t arg, skt_rng *r) { (void)arg, (void)r, b->a.src = NULL; }
void skt_mut_mask_null(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)arg, (void)r, b->a.mask = NULL;
}
void skt_mut_axes_null(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)arg, (void)r, b->a.axes = NULL;
}
void skt_mut_axis(skt_bufs *b, int64_t arg, skt_rng *r) { (void)r, b->a.axis = (int32_t)arg; }
void skt_mut_mode(skt_bufs *b, int64_t arg, skt_rng *r) { (void)r, b->a.mode = (sk_index_mode)arg; }
void skt_mut_reduce(skt_bufs *b, int64_t arg, skt_rng *r) { (void)r, b->a.reduce = (sk_reduce)arg; }

void skt_mut_bad_index(skt_bufs *b, int64_t arg, skt_rng *r) {
    (void)r;
    skt_set_index(b->a.index, b->bad_at, arg);
}
void skt_mut_bad_index_3t(skt_bufs *b, int64_t arg, skt_rng *r) {
    skt_mut_bad_index(b, arg, r);
    b->opts = &skt_three_threads;
}

/* A contiguous SMALL tensor of dtype arg and t's shape. */
static skt_buf *like(skt_bufs *b, const skt_buf *t, int64_t arg, skt_rng *r) {
    return skt_mk(b, NULL, (sk_dtype)arg, t->t.ndim, t->t.shape, r);
}
void skt_mut_index_dtype(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.index = like(b, b->a.index, arg, r);
}
void skt_mut_src_dtype(skt_bufs *b, int64_t arg, skt_rng *r) {
    b->a.src = like(b, b->a.src, arg, r);
}
void skt_mut_out_dtype(skt_bufs *b, int64_t arg, skt_rng *r) { b->out = like(b, b->out, arg, r); }

void skt_mut_zero_stride_out(skt_bufs *b, int64_t arg, skt_rng *r) {
    sk_tensor zo = b->out->t;
    zo.strides[arg] = 0;
    b->watch = b->out;
    b->out = skt_view(b, &zo);
    (void)r;
}

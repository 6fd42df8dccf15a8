/* LLVMFuzzerTestOneInput: decode (fuzz_decode.c), run, compare (fuzz.h). */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fz_world *fz_current; /* the call being checked, for fz_die */

static double fz_value(const sk_tensor *t, int64_t i) {
    int64_t off = 0, c[SK_MAX_DIMS];
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        c[d] = i % t->shape[d];
        i /= t->shape[d];
        off += c[d] * t->strides[d];
    }
    const char *p = (const char *)t->data + off * (int64_t)sk_dtype_size(t->dtype);
    switch (t->dtype) {
    case SK_DTYPE_BOOL: case SK_DTYPE_UINT8: return *(const uint8_t *)p;
    case SK_DTYPE_INT8: return *(const int8_t *)p;
    case SK_DTYPE_INT16: return *(const int16_t *)p;
    case SK_DTYPE_INT32: return *(const int32_t *)p;
    case SK_DTYPE_INT64: return (double)*(const int64_t *)p;
    case SK_DTYPE_FLOAT16: return sk_half_to_float(*(const uint16_t *)p);
    case SK_DTYPE_BFLOAT16: return sk_bfloat16_to_float(*(const uint16_t *)p);
    case SK_DTYPE_FLOAT32: return *(const float *)p;
    default: return *(const double *)p;
    }
}

/* The decoded call, one argument a line (the input that failed, readable). */
static void fz_describe(const fz_op *op, const fz_world *w) {
    for (int k = 0; k < op->nargs; k++) {
        const char *end = strchr(op->arg[k], ' ');
        int len = end ? (int)(end - op->arg[k]) : (int)strlen(op->arg[k]);
        fprintf(stderr, "  %.*s = ", len, op->arg[k]);
        const sk_tensor *t = w->a.t[k];
        if (op->type[k] <= FZ_OPTOUT && !t) fprintf(stderr, "NULL");
        else if (op->type[k] <= FZ_OPTOUT) {
            fprintf(stderr, "%s%s ndim %d:", t != &w->t[k] ? "(alias) " : "",
                    sk_dtype_name(t->dtype), (int)t->ndim);
            for (int32_t d = 0; d < t->ndim && d < SK_MAX_DIMS; d++)
                fprintf(stderr, " %lld/%lld", (long long)t->shape[d], (long long)t->strides[d]);
            int64_t n = t->data && t->ndim <= SK_MAX_DIMS ? sk_tensor_numel(t) : 0;
            fprintf(stderr, " {");
            for (int64_t i = 0; i < n && i < 12; i++) fprintf(stderr, " %g", fz_value(t, i));
            fprintf(stderr, " }");
        } else if (op->type[k] == FZ_AXES || op->type[k] == FZ_BOUNDS || op->type[k] == FZ_STEPS) {
            const int64_t *b = w->a.bounds[k];
            const int32_t *a = w->a.axes[k];
            for (int i = 0; i < 4; i++)
                fprintf(stderr, " %lld", a ? (long long)a[i] : b ? (long long)b[i] : -999LL);
            if (op->type[k] == FZ_AXES) fprintf(stderr, " (n %d)", (int)w->a.naxes[k]);
        } else fprintf(stderr, "%lld", (long long)w->a.v[k]);
        fprintf(stderr, "\n");
    }
}

static void fz_die(const fz_op *op, sk_status st, const char *what) {
    fprintf(stderr, "fuzz: %s (status %d): %s\n  last error: %s\n", op->name, (int)st, what,
            sk_last_error());
    if (fz_current) fz_describe(op, fz_current);
    abort();
}

static bool fz_same_blocks(const fz_world *a, const fz_world *b) {
    for (int i = 0; i < a->nblk; i++)
        if (a->blk[i].bytes && memcmp(a->blk[i].mem, b->blk[i].mem, a->blk[i].bytes)) return false;
    return true;
}

/* Element at of a float tensor, as a double. */
static double fz_load(const unsigned char *at, sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_FLOAT64: return *(const double *)(const void *)at;
    case SK_DTYPE_FLOAT32: return *(const float *)(const void *)at;
    case SK_DTYPE_FLOAT16: return sk_half_to_float(*(const uint16_t *)(const void *)at);
    default: return sk_bfloat16_to_float(*(const uint16_t *)(const void *)at);
    }
}

/* Visits an element of a written float tensor: at in one world, also in
 * the other (the same place), or NULL. */
typedef void (*fz_visit)(unsigned char *at, unsigned char *also, sk_dtype dt);

/* Every element of every written float tensor of w (an out that is x: x's
 * tensor), and the same element of other, a clone of w, unless NULL. */
static void fz_each_written(fz_world *w, fz_world *other, fz_visit visit) {
    for (int k = 0; k < FZ_MAX_ARGS; k++) {
        int j = k;
        while (w->tblk[j] <= -2) j = -2 - w->tblk[j];
        const sk_tensor *t = &w->t[j];
        if (!w->written[k] || w->tblk[j] < 0 || !sk_dtype_is_floating(t->dtype)) continue;
        size_t es = sk_dtype_size(t->dtype);
        int64_t n = sk_tensor_numel(t), coord[SK_MAX_DIMS] = {0};
        for (int64_t i = 0; i < n; i++) {
            int64_t off = 0;
            for (int32_t d = 0; d < t->ndim; d++) off += coord[d] * t->strides[d];
            ptrdiff_t at = (ptrdiff_t)off * (ptrdiff_t)es;
            visit((unsigned char *)t->data + at,
                  other ? (unsigned char *)other->t[j].data + at : NULL, t->dtype);
            for (int32_t d = t->ndim - 1; d >= 0 && ++coord[d] == t->shape[d]; d--) coord[d] = 0;
        }
    }
}

/* Every NaN of a written float tensor as one bit pattern: the reference and
 * the library may differ in which NaN they propagate, never in whether. */
static void fz_one_nan(unsigned char *at, unsigned char *also, sk_dtype dt) {
    (void)also;
    size_t es = sk_dtype_size(dt);
    if (!isnan(fz_load(at, dt))) return;
    memset(at, 0xff, es); /* every magnitude bit set, the sign clear (little-endian) */
    at[es - 1] = 0x7f;
}

/* With zeros too (a backward): the reference sums gradients into +0.0 in
 * the canonical order (docs/CONTRACT.md), which the library's backward does
 * not follow yet where a gradient is copied (-0.0 stays -0.0); until it
 * lands, the sign of a zero gradient is not compared. */
static void fz_one_nan_zero(unsigned char *at, unsigned char *also, sk_dtype dt) {
    fz_one_nan(at, also, dt);
    if (fz_load(at, dt) == 0) memset(at, 0, sk_dtype_size(dt));
}

/* Magnitude and sign of a float element's bits. */
static uint64_t fz_bits(const unsigned char *at, size_t es, bool *neg) {
    uint64_t v = 0, sign = (uint64_t)1 << (8 * es - 1);
    memcpy(&v, at, es); /* little-endian: the element's bits */
    *neg = (v & sign) != 0;
    return v & (sign - 1);
}

/* reduce="prod"'s gradient, g times the product of the other contributors,
 * comes from the library by one division (src/base/prod_grad.h) and
 * from the reference by multiplication, both exact but for double rounding
 * errors (at most 129 factors here) until rounded once into the dtype: where
 * both are finite they may differ by one unit in the last place (float64:
 * 2^13 units, 2^-40 relative); the library's value then counts as the
 * reference's. NaN, infinities and every other element compare exactly. */
static void fz_prod_close(unsigned char *lib, unsigned char *ref, sk_dtype dt) {
    size_t es = sk_dtype_size(dt);
    if (!memcmp(lib, ref, es) || !isfinite(fz_load(lib, dt)) || !isfinite(fz_load(ref, dt)))
        return;
    bool nl, nr;
    uint64_t ml = fz_bits(lib, es, &nl), mr = fz_bits(ref, es, &nr);
    uint64_t ulps = ml > mr ? ml - mr : mr - ml, tol = es == 8 ? (uint64_t)1 << 13 : 1;
    if (nl == nr && ulps <= tol) memcpy(lib, ref, es);
}

static bool fz_is_prod_backward(const fz_op *op, const fz_world *w) {
    for (int k = 0; k < op->nargs; k++)
        if (op->kind == SK_KIND_BACKWARD && op->type[k] == FZ_RED && w->a.v[k] == SK_REDUCE_PROD)
            return true;
    return false;
}

static bool fz_same_answers(const fz_world *a, const fz_world *b, int kind) {
    if (kind != SK_KIND_SHAPE) return true;
    if (a->a.count != b->a.count || a->a.shape_nd != b->a.shape_nd) return false;
    for (int32_t d = 0; d < a->a.shape_nd && d < SK_MAX_DIMS; d++)
        if (a->a.shape_dims[d] != b->a.shape_dims[d]) return false;
    return true;
}

/* The reference on its own copy: the same status as the library where the
 * library accepted the arguments (an index error included), the same
 * results where it succeeded. */
static void fz_against_ref(const fz_op *op, const fz_world *w0, fz_world *lib, sk_status st) {
    bool has_ref = op->kind != SK_KIND_SHAPE || strcmp(op->name, "masked_select_count") == 0;
    if (!has_ref || (st != SK_STATUS_OK && st != SK_STATUS_INDEX_OUT_OF_RANGE)) return;
    fz_world ref;
    if (!fz_world_clone(&ref, w0)) return;
    sk_status rs = op->ref(&ref.a, NULL);
    if (rs != st) fz_die(op, st, "the reference returned another status");
    if (st == SK_STATUS_OK) {
        fz_visit canon = op->kind == SK_KIND_BACKWARD ? fz_one_nan_zero : fz_one_nan;
        if (fz_is_prod_backward(op, w0)) fz_each_written(lib, &ref, fz_prod_close);
        fz_each_written(&ref, NULL, canon);
        fz_each_written(lib, NULL, canon);
        if (!fz_same_blocks(&ref, lib) || !fz_same_answers(&ref, lib, op->kind)) {
            fprintf(stderr, "after the library:\n");
            fz_describe(op, lib);
            fprintf(stderr, "after the reference:\n");
            fz_describe(op, &ref);
            fz_die(op, st, "the result differs from the reference");
        }
    }
    fz_world_free(&ref);
}

static void fz_run(const fz_op *op, const fz_world *w0, uint32_t flags) {
    fz_world one, three;
    if (!fz_world_clone(&one, w0)) return;
    if (!fz_world_clone(&three, w0)) { fz_world_free(&one); return; }
    sk_options o1 = {.num_threads = 1, .flags = flags};
    sk_options o3 = {.num_threads = 3, .flags = flags};
    sk_status st = op->lib(&one.a, &o1), st3 = op->lib(&three.a, &o3);
    if (st != st3) fz_die(op, st, "another status at 3 threads");
    if (st != SK_STATUS_OK && !(flags & SK_OPTION_FRESH_OUT) && !fz_same_blocks(&one, w0))
        fz_die(op, st, "written on error");
    if (st == SK_STATUS_OK && (!fz_same_blocks(&one, &three) || !fz_same_answers(&one, &three, op->kind)))
        fz_die(op, st, "other bytes at 3 threads than at 1");
    fz_against_ref(op, w0, &one, st);
    fz_world_free(&one);
    fz_world_free(&three);
}

/* A backward that takes the forward's out (amax, amin, prod and mean read
 * it): the out the forward gives, through the reference. With an out of the
 * caller's own making, which gradients match is left unspecified: false
 * (no call) when the forward refuses the arguments. */
static bool fz_forward_out(const fz_op *op, fz_world *w) {
    const fz_op *fwd = &fz_ops[op->forward];
    for (int k = 0; k < fwd->nargs; k++)
        if (fwd->type[k] <= FZ_OPTOUT && fwd->type[k] != FZ_OPT && !w->a.t[k]) return true;
    fz_world tmp;
    if (!fz_world_clone(&tmp, w)) return false;
    sk_options one = {.num_threads = 1};
    bool ok = fwd->lib(&tmp.a, &one) == SK_STATUS_OK; /* the library validates */
    fz_world_free(&tmp);
    return ok && fwd->ref(&w->a, NULL) == SK_STATUS_OK; /* the reference computes */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool parsed;
    if (!parsed) {
        fz_parse_specs();
        parsed = true;
    }
    if (size < 2) return 0;
    fz_reader r = {data, size, 0};
    const fz_op *op = &fz_ops[fz_u8(&r) % fz_nops];
    uint32_t flags = fz_u8(&r) == 0xFF ? SK_OPTION_FRESH_OUT : 0;
    fz_world w;
    fz_current = &w;
    if (fz_decode(op, &r, &w)) {
        if (op->forward < 0 || fz_forward_out(op, &w)) fz_run(op, &w, flags);
    }
    fz_current = NULL;
    fz_world_free(&w);
    return 0;
}

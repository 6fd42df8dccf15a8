/* harness.c - see harness.h. */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long skt_checks;
long skt_failures;

const sk_dtype skt_all_dtypes[SK_DTYPE_COUNT] = {
    SK_DTYPE_BOOL,    SK_DTYPE_UINT8,    SK_DTYPE_INT8,    SK_DTYPE_INT16,   SK_DTYPE_INT32,
    SK_DTYPE_INT64,   SK_DTYPE_FLOAT16,  SK_DTYPE_BFLOAT16, SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64,
};
const char *const skt_reduce_names[6] = {"none", "sum", "prod", "mean", "amax", "amin"};
const char *const skt_mode_names[4] = {"error", "clip", "drop", "fill"};

void skt_fail(const char *fmt, ...) {
    skt_failures++;
    if (skt_failures > SKT_MAX_PRINTED) {
        if (skt_failures == SKT_MAX_PRINTED + 1) printf("FAIL: (further failures not printed)\n");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

void skt_seed(skt_rng *r, uint64_t seed) { r->state = seed * 0x9e3779b97f4a7c15ull + 1; }

uint64_t skt_next(skt_rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t skt_range(skt_rng *r, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0 means the full 64-bit range */
    uint64_t v = skt_next(r);
    return (int64_t)((uint64_t)lo + (span ? v % span : v));
}

int64_t skt_numel(int32_t ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

void skt_unravel(int64_t lin, int32_t ndim, const int64_t *shape, int64_t *coord) {
    for (int32_t d = ndim - 1; d >= 0; d--) {
        coord[d] = lin % shape[d];
        lin /= shape[d];
    }
}

void skt_appendf(char *buf, size_t n, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

const char *skt_shape_str(char *buf, size_t n, int32_t ndim, const int64_t *shape) {
    buf[0] = '\0';
    skt_appendf(buf, n, "[");
    for (int32_t d = 0; d < ndim; d++)
        skt_appendf(buf, n, d ? ", %lld" : "%lld", (long long)shape[d]);
    skt_appendf(buf, n, "]");
    return buf;
}

const char *skt_layout_name(skt_layout l) {
    static const char *names[] = {"contig",  "transposed", "padded", "negative",
                                  "mixed",   "broadcast",  "scalar"};
    return (unsigned)l < SKT_LAYOUT_COUNT ? names[l] : "?";
}

static size_t skt_esize(sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_INT16:
    case SK_DTYPE_FLOAT16:
    case SK_DTYPE_BFLOAT16: return 2;
    case SK_DTYPE_INT32:
    case SK_DTYPE_FLOAT32: return 4;
    case SK_DTYPE_INT64:
    case SK_DTYPE_FLOAT64: return 8;
    default: return 1;
    }
}

static bool skt_is_float(sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT16 || dt == SK_DTYPE_BFLOAT16 || dt == SK_DTYPE_FLOAT32 ||
           dt == SK_DTYPE_FLOAT64;
}

void skt_make(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_layout lay,
              uint32_t no_bcast, skt_rng *r) {
    size_t es = skt_esize(dt);
    int32_t order[SK_MAX_DIMS]; /* order[0] is the innermost dimension in memory */
    int64_t sign[SK_MAX_DIMS];
    bool zero[SK_MAX_DIMS];
    for (int32_t i = 0; i < ndim; i++) {
        order[i] = lay == SKT_TRANSPOSED ? i : ndim - 1 - i;
        sign[i] = lay == SKT_NEGATIVE ? -1 : 1;
        bool may = !((no_bcast >> i) & 1u);
        zero[i] = may && ((lay == SKT_BROADCAST && i % 2 == 0) || lay == SKT_SCALAR);
    }
    if (lay == SKT_MIXED && ndim >= 2) {
        order[ndim - 1] = 1; /* dimension 1 outermost, dimension 0 next */
        order[ndim - 2] = 0;
        for (int32_t i = 0; i < ndim - 2; i++) order[i] = ndim - 1 - i;
        sign[ndim - 1] = -1;
    }
    bool pad = lay == SKT_PADDED || lay == SKT_MIXED;
    int64_t s = pad ? 2 : 1, lo = 0, hi = 0;
    memset(&b->t, 0, sizeof b->t);
    for (int32_t i = 0; i < ndim; i++) {
        int32_t d = order[i];
        if (zero[d]) {
            b->t.strides[d] = 0;
            continue;
        }
        b->t.strides[d] = s * sign[d];
        s = s * (shape[d] > 0 ? shape[d] : 1) + (pad ? 1 : 0);
    }
    int64_t n = skt_numel(ndim, shape);
    for (int32_t d = 0; d < ndim && n > 0; d++) {
        int64_t span = (shape[d] - 1) * b->t.strides[d];
        if (span < 0) lo += span;
        else hi += span;
    }
    int64_t slots = n > 0 ? hi - lo + 1 : 0;
    b->nbytes = (size_t)slots * es;
    b->base = (unsigned char *)malloc(b->nbytes ? b->nbytes : es);
    if (!b->base) {
        fprintf(stderr, "out of memory in the test harness\n");
        exit(2);
    }
    for (size_t i = 0; i < b->nbytes; i++) b->base[i] = (unsigned char)skt_next(r);
    b->t.data = b->base + (size_t)(-lo) * es;
    b->t.dtype = dt;
    b->t.ndim = ndim;
    for (int32_t d = 0; d < ndim; d++) b->t.shape[d] = shape[d];
    b->t.device_type = SK_DEVICE_CPU;
    b->t.device_id = 0;
}

void skt_clone(skt_buf *dst, const skt_buf *src) {
    size_t es = skt_esize(src->t.dtype);
    *dst = *src;
    dst->base = (unsigned char *)malloc(src->nbytes ? src->nbytes : es);
    if (!dst->base) {
        fprintf(stderr, "out of memory in the test harness\n");
        exit(2);
    }
    if (src->nbytes) memcpy(dst->base, src->base, src->nbytes);
    dst->t.data = dst->base + ((unsigned char *)src->t.data - src->base);
}

void skt_free(skt_buf *b) {
    free(b->base);
    b->base = NULL;
}

void *skt_at(const skt_buf *b, const int64_t *coord) {
    int64_t off = 0;
    for (int32_t d = 0; d < b->t.ndim; d++) off += coord[d] * b->t.strides[d];
    return (char *)b->t.data + off * (int64_t)skt_esize(b->t.dtype);
}

static void skt_store(sk_dtype dt, void *p, double v) {
    switch (dt) {
    case SK_DTYPE_BOOL: { uint8_t x = v != 0; memcpy(p, &x, 1); } break;
    case SK_DTYPE_UINT8: { uint8_t x = (uint8_t)(int64_t)v; memcpy(p, &x, 1); } break;
    case SK_DTYPE_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); } break;
    case SK_DTYPE_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); } break;
    case SK_DTYPE_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); } break;
    case SK_DTYPE_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); } break;
    case SK_DTYPE_FLOAT16: { uint16_t x = sk_float_to_half((float)v); memcpy(p, &x, 2); } break;
    case SK_DTYPE_BFLOAT16: {
        uint16_t x = sk_float_to_bfloat16((float)v);
        memcpy(p, &x, 2);
    } break;
    case SK_DTYPE_FLOAT32: { float x = (float)v; memcpy(p, &x, 4); } break;
    case SK_DTYPE_FLOAT64: memcpy(p, &v, 8); break;
    default: break;
    }
}

static double skt_load(sk_dtype dt, const void *p) {
    switch (dt) {
    case SK_DTYPE_BOOL:
    case SK_DTYPE_UINT8: { uint8_t x; memcpy(&x, p, 1); return x; }
    case SK_DTYPE_INT8: { int8_t x; memcpy(&x, p, 1); return x; }
    case SK_DTYPE_INT16: { int16_t x; memcpy(&x, p, 2); return x; }
    case SK_DTYPE_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case SK_DTYPE_INT64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case SK_DTYPE_FLOAT16: { uint16_t x; memcpy(&x, p, 2); return sk_half_to_float(x); }
    case SK_DTYPE_BFLOAT16: { uint16_t x; memcpy(&x, p, 2); return sk_bfloat16_to_float(x); }
    case SK_DTYPE_FLOAT32: { float x; memcpy(&x, p, 4); return x; }
    case SK_DTYPE_FLOAT64: { double x; memcpy(&x, p, 8); return x; }
    default: return 0;
    }
}

void skt_set(const skt_buf *b, const int64_t *coord, double v) {
    skt_store(b->t.dtype, skt_at(b, coord), v);
}

double skt_get(const skt_buf *b, const int64_t *coord) {
    return skt_load(b->t.dtype, skt_at(b, coord));
}

void skt_fill(skt_buf *b, skt_rng *r, skt_values kind) {
    static const double unit[] = {-2, -1, -0.5, 0.5, 1, 2};
    sk_dtype dt = b->t.dtype;
    size_t es = skt_esize(dt);
    for (size_t off = 0; off < b->nbytes; off += es) {
        unsigned char *p = b->base + off;
        uint64_t bits = skt_next(r);
        if (dt == SK_DTYPE_BOOL) {
            p[0] = (unsigned char)(bits & 1u);
        } else if (!skt_is_float(dt)) {
            if (kind == SKT_VAL_SMALL)
                skt_store(dt, p, (double)skt_range(r, dt == SK_DTYPE_UINT8 ? 0 : -4,
                                                   dt == SK_DTYPE_UINT8 ? 8 : 4));
            else
                memcpy(p, &bits, es); /* any bit pattern is a valid integer */
        } else if (kind == SKT_VAL_UNIT) {
            skt_store(dt, p, unit[bits % 6]);
        } else if (kind == SKT_VAL_REAL) {
            skt_store(dt, p, (double)(bits >> 11) * 0x1p-52 - 1.0);
        } else if (kind == SKT_VAL_NAN && bits % 6 == 0) {
            skt_store(dt, p, bits & 64 ? NAN : -NAN);
        } else {
            skt_store(dt, p, (double)skt_range(r, -4, 4)); /* 0 is +0.0: no signed zeros */
        }
    }
}

void skt_set_index(const skt_buf *b, const int64_t *coord, int64_t v) {
    void *p = skt_at(b, coord);
    if (b->t.dtype == SK_DTYPE_INT32) {
        int32_t x = (int32_t)v;
        memcpy(p, &x, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

void skt_fill_index(skt_buf *b, skt_rng *r, int32_t comp_dim, const int64_t *lo,
                    const int64_t *hi) {
    int64_t n = skt_numel(b->t.ndim, b->t.shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        skt_unravel(i, b->t.ndim, b->t.shape, c);
        int64_t k = comp_dim >= 0 ? c[comp_dim] : 0;
        skt_set_index(b, c, skt_range(r, lo[k], hi[k]));
    }
}

void skt_fill_mask(skt_buf *b, skt_rng *r, int percent) {
    for (size_t i = 0; i < b->nbytes; i++) b->base[i] = (skt_next(r) % 100) < (uint64_t)percent;
}

bool skt_compare(const skt_buf *got, const skt_buf *want, double tol, char *why, size_t n) {
    sk_dtype dt = want->t.dtype;
    size_t es = skt_esize(dt);
    for (size_t off = 0; off < want->nbytes; off += es) {
        const unsigned char *g = got->base + off, *w = want->base + off;
        if (memcmp(g, w, es) == 0) continue;
        double a = skt_load(dt, g), e = skt_load(dt, w);
        if (skt_is_float(dt)) {
            if (isnan(a) && isnan(e)) continue;
            if (tol > 0 && fabs(a - e) <= tol * fmax(1.0, fabs(e))) continue;
        }
        /* find which element lives in this slot, for the message */
        int64_t ne = skt_numel(want->t.ndim, want->t.shape), c[SK_MAX_DIMS];
        const unsigned char *slot = want->base + off;
        why[0] = '\0';
        for (int64_t i = 0; i < ne; i++) {
            skt_unravel(i, want->t.ndim, want->t.shape, c);
            if ((const unsigned char *)skt_at(want, c) == slot) {
                char s[128];
                skt_appendf(why, n, "out%s", skt_shape_str(s, sizeof s, want->t.ndim, c));
                break;
            }
        }
        if (!why[0]) skt_appendf(why, n, "a byte outside out's elements (slot %zu)", off / es);
        uint64_t gb = 0, wb = 0;
        memcpy(&gb, g, es);
        memcpy(&wb, w, es);
        skt_appendf(why, n, ": expected %.17g (bits 0x%llx), got %.17g (bits 0x%llx)", e,
                    (unsigned long long)wb, a, (unsigned long long)gb);
        return false;
    }
    return true;
}

void skt_desc(char *buf, size_t n, const char *name, const sk_tensor *t) {
    char s[160];
    skt_appendf(buf, n, " %s=%s%s", name, sk_dtype_name(t->dtype),
                skt_shape_str(s, sizeof s, t->ndim, t->shape));
    skt_appendf(buf, n, "{%s}", skt_shape_str(s, sizeof s, t->ndim, t->strides));
}

unsigned char *skt_snapshot(const skt_buf *b) {
    if (!b) return NULL;
    unsigned char *s = (unsigned char *)malloc(b->nbytes ? b->nbytes : 1);
    if (!s) {
        fprintf(stderr, "out of memory in the test harness\n");
        exit(2);
    }
    if (b->nbytes) memcpy(s, b->base, b->nbytes);
    return s;
}

/* SKT_VERBOSE=1 names each case before it runs, so that a crash or a
 * sanitizer abort inside the library can be tied to its case. */
static void skt_name_case(const char *desc) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("SKT_VERBOSE") != NULL;
    if (verbose) {
        printf("case: %s\n", desc);
        fflush(stdout);
    }
}

/* Inputs are exactly as they were before the calls (and the snapshots go). */
static void skt_check_inputs(const char *desc, const skt_buf *const *inputs,
                             unsigned char **snaps, int ninputs) {
    for (int i = 0; i < ninputs; i++) {
        skt_checks++;
        if (memcmp(inputs[i]->base, snaps[i], inputs[i]->nbytes) != 0)
            skt_fail("%s: the library modified input #%d", desc, i);
        free(snaps[i]);
    }
}

void skt_run_case(const char *desc, skt_op_fn fn, void *ctx, const skt_buf *x,
                  const skt_buf *out0, bool inplace, double tol, const skt_buf *const *inputs,
                  int ninputs) {
    skt_buf want, got, first;
    unsigned char *snaps[8];
    skt_name_case(desc);
    for (int i = 0; i < ninputs; i++) snaps[i] = skt_snapshot(inputs[i]);

    skt_clone(&want, out0);
    sk_status rs = fn(ctx, inplace ? &want.t : &x->t, &want.t, NULL, true);
    skt_checks++;
    if (rs != SK_STATUS_OK && rs != SK_STATUS_INDEX_OUT_OF_RANGE) {
        skt_fail("%s: the reference itself failed with %s (test bug)", desc, sk_status_string(rs));
        skt_free(&want);
        for (int i = 0; i < ninputs; i++) free(snaps[i]);
        return;
    }
    first.base = NULL;
    /* threads 1, 2, 3, then opts == NULL (the process-wide setting) as "0" */
    for (int nt = 1; nt <= 4; nt++) {
        sk_options opts = {.num_threads = nt};
        skt_clone(&got, out0);
        sk_status st = fn(ctx, inplace ? &got.t : &x->t, &got.t, nt == 4 ? NULL : &opts, false);
        skt_checks++;
        if (rs != SK_STATUS_OK) {
            /* an out-of-range index in error mode */
            if (st != rs)
                skt_fail("%s [threads=%d]: expected status '%s', got '%s' (%s)", desc, nt,
                         sk_status_string(rs), sk_status_string(st), sk_last_error());
            else if (memcmp(got.base, out0->base, out0->nbytes) != 0)
                skt_fail("%s [threads=%d]: failed with '%s' but wrote to out", desc, nt,
                         sk_status_string(st));
            skt_free(&got);
            continue;
        }
        if (st != SK_STATUS_OK) {
            skt_fail("%s [threads=%d]: status '%s' for valid input: %s", desc, nt,
                     sk_status_string(st), sk_last_error());
            skt_free(&got);
            break;
        }
        char why[512];
        if (nt == 1) {
            if (!skt_compare(&got, &want, tol, why, sizeof why))
                skt_fail("%s [threads=1]: %s", desc, why);
            first = got;
            continue;
        }
        if (first.base && memcmp(got.base, first.base, got.nbytes) != 0) {
            skt_compare(&got, &first, 0, why, sizeof why);
            skt_fail("%s: %s differ from 1 thread: %s", desc,
                     nt == 4 ? "default options" : nt == 2 ? "2 threads" : "3 threads", why);
        }
        skt_free(&got);
    }
    if (first.base) skt_free(&first);
    skt_free(&want);
    skt_check_inputs(desc, inputs, snaps, ninputs);
}

void skt_expect_fail(const char *what, sk_status got, sk_status want, const skt_buf *out,
                     const unsigned char *snapshot, const char *word1, const char *word2,
                     const char *word3) {
    skt_checks++;
    if (got != want) {
        skt_fail("%s: expected status '%s', got '%s' (message: \"%s\")", what,
                 sk_status_string(want), sk_status_string(got), sk_last_error());
        return;
    }
    if (out && snapshot && memcmp(out->base, snapshot, out->nbytes) != 0)
        skt_fail("%s: the call failed but out was modified", what);
    const char *words[3] = {word1, word2, word3};
    const char *msg = sk_last_error();
    for (int i = 0; i < 3; i++)
        if (words[i] && (!msg || !strstr(msg, words[i])))
            skt_fail("%s: the message \"%s\" does not contain \"%s\"", what, msg ? msg : "(null)",
                     words[i]);
}

double skt_tolerance(sk_dtype dt) {
    switch (dt) {
    case SK_DTYPE_FLOAT16: return 2e-3;  /* 2 ulp of a 11-bit significand */
    case SK_DTYPE_BFLOAT16: return 1.6e-2; /* 2 ulp of an 8-bit significand */
    case SK_DTYPE_FLOAT32: return 1e-5;
    case SK_DTYPE_FLOAT64: return 1e-12;
    default: return 0;
    }
}

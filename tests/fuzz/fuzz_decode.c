/* Decoding an input into one call's allocations, tensors and scalars. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

uint8_t fz_u8(fz_reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

static const struct {
    const char *name;
    fz_type type;
} fz_type_names[] = {
    {"in", FZ_IN},       {"opt", FZ_OPT},       {"out", FZ_OUT},       {"optout", FZ_OPTOUT},
    {"i32", FZ_I32},     {"i64", FZ_I64},       {"bool", FZ_BOOL},     {"reduce", FZ_RED},
    {"mode", FZ_MODE},   {"tsmode", FZ_TSMODE}, {"axes", FZ_AXES},     {"bounds", FZ_BOUNDS},
    {"steps", FZ_STEPS}, {"shape", FZ_SHAPE},   {"count", FZ_COUNT},
};

/* Whether op is fwd's backward and its arguments begin with fwd's (by name). */
static bool fz_begins_with_forward(const fz_op *op, const fz_op *fwd) {
    size_t n = strlen(op->name), m = strlen(fwd->name);
    if (n != m + 9 || strcmp(op->name + m, "_backward") || strncmp(op->name, fwd->name, m) ||
        op->nargs < fwd->nargs)
        return false;
    for (int k = 0; k < fwd->nargs; k++) {
        size_t len = (size_t)(strchr(fwd->arg[k], ':') - fwd->arg[k]);
        if (strncmp(op->arg[k], fwd->arg[k], len + 1)) return false;
    }
    return true;
}

void fz_parse_specs(void) {
    for (int i = 0; i < fz_nops; i++) {
        fz_op *op = &fz_ops[i];
        const char *s = op->spec;
        op->nargs = 0;
        while (*s && op->nargs < FZ_MAX_ARGS) {
            const char *colon = strchr(s, ':'), *end = strchr(s, ' ');
            if (!end) end = s + strlen(s);
            size_t tl = (size_t)(end - colon - 1);
            op->arg[op->nargs] = s;
            op->type[op->nargs] = FZ_BAD;
            for (size_t k = 0; k < sizeof fz_type_names / sizeof fz_type_names[0]; k++)
                if (strlen(fz_type_names[k].name) == tl && !strncmp(colon + 1, fz_type_names[k].name, tl))
                    op->type[op->nargs] = fz_type_names[k].type;
            op->nargs++;
            s = *end ? end + 1 : end;
        }
    }
    for (int i = 0; i < fz_nops; i++) /* "scatter_backward" begins with "scatter"'s arguments */
        for (int j = 0; j < fz_nops; j++)
            if (fz_begins_with_forward(&fz_ops[i], &fz_ops[j])) fz_ops[i].forward = j;
}

static bool fz_named(const char *arg, const char *prefix) {
    return strncmp(arg, prefix, strlen(prefix)) == 0;
}

/* The dtype of a tensor argument: index-like ones int32/int64, a mask bool,
 * the rest mostly the call's own dtype (a few bytes in 8 try another). */
static sk_dtype fz_dtype(const char *arg, sk_dtype main, uint8_t b) {
    if ((b & 7) == 7) return (sk_dtype)((b >> 3) % (SK_DTYPE_COUNT + 1)); /* an invalid one too */
    if (fz_named(arg, "index") || fz_named(arg, "write_indices"))
        return b & 8 ? SK_DTYPE_INT32 : SK_DTYPE_INT64;
    if (fz_named(arg, "mask")) return SK_DTYPE_BOOL;
    return main;
}

static const int64_t fz_sizes[16] = {0, 1, 2, 3, 4, 5, 1, 2, 3, 1, 2, 7, 8, 16,
                                     ((int64_t)1 << 31) + 7, (int64_t)1 << 62};

/* Shape: that of an earlier tensor (whose dims the fuzzer can then edit),
 * or decoded; sizes above 16 only where another is 0 (fz_check_size). */
static void fz_shape(fz_reader *r, fz_world *w, int k, sk_tensor *t) {
    uint8_t b = fz_u8(r);
    int like = -1;
    for (int j = k - 1; j >= 0 && (b & 0x80); j--)
        if (w->tblk[j] >= 0 || w->t[j].ndim) { like = j; break; }
    if (like >= 0 && (b & 0x40) == 0) {
        t->ndim = w->t[like].ndim;
        memcpy(t->shape, w->t[like].shape, sizeof t->shape);
        int tweak = (b & 0x3f) % 16; /* some size, or none (>= ndim) */
        if (tweak < t->ndim && tweak < SK_MAX_DIMS) t->shape[tweak] = fz_sizes[fz_u8(r) % 16];
        return;
    }
    t->ndim = (b & 31) == 31 ? 5 + fz_u8(r) % 8 : (b & 31) % 5;
    if ((b & 0x60) == 0x60 && t->ndim == 0) t->ndim = 13; /* refused: too many dims */
    for (int32_t d = 0; d < t->ndim && d < SK_MAX_DIMS; d++) t->shape[d] = fz_sizes[fz_u8(r) % 16];
}

/* Strides in one of several layouts; where a dimension has size 0 or 1 its
 * stride reaches no element, and the extreme layout makes it huge. */
static void fz_strides(fz_reader *r, sk_tensor *t) {
    uint8_t lay = fz_u8(r), bits = fz_u8(r);
    int64_t run = 1;
    for (int32_t d = (t->ndim < SK_MAX_DIMS ? t->ndim : SK_MAX_DIMS) - 1; d >= 0; d--) {
        int64_t s = run, n = t->shape[d] > 0 && t->shape[d] <= 4096 ? t->shape[d] : 1;
        switch (lay % 6) {
        case 1: s = -run; break;                       /* every stride negative */
        case 2: s = 2 * run; n *= 2; break;            /* gaps */
        case 3: s = (bits >> (d % 8)) & 1 ? 0 : run; break; /* broadcast dims */
        case 4: if (t->shape[d] <= 1) s = bits & 1 ? INT64_MAX / 3 : INT64_MIN + 1; break;
        case 5: s = (bits >> (d % 8)) & 1 ? -run : run; break;
        }
        t->strides[d] = s;
        if (run <= ((int64_t)1 << 40) / n) run *= n; /* else: a size beside a 0 only */
    }
    if (lay % 6 == 0 && t->ndim >= 2 && (bits & 3) == 3) { /* the first two dims swap in memory */
        int64_t a = t->strides[0];
        t->strides[0] = t->strides[1];
        t->strides[1] = a;
    }
}

/* Lowest and highest element offsets; false when the tensor is empty. */
static bool fz_extent(const sk_tensor *t, int64_t *lo, int64_t *hi, int64_t *numel) {
    *lo = *hi = 0;
    *numel = 1;
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0) { *numel = 0; return false; }
        if (t->shape[d] > FZ_MAX_NUMEL) *numel = FZ_MAX_NUMEL + 1;
        else *numel *= t->shape[d];
        if (*numel > FZ_MAX_NUMEL) *numel = FZ_MAX_NUMEL + 1;
    }
    if (*numel > FZ_MAX_NUMEL) return true; /* refused by the caller: no spans */
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1) continue;
        int64_t span = (t->shape[d] - 1) * t->strides[d];
        if (span < 0) *lo += span; else *hi += span;
    }
    return true;
}

static int64_t fz_index_value(uint8_t b, sk_dtype dt) {
    bool wide = dt == SK_DTYPE_INT64;
    switch (b >> 4) {
    case 15: return wide ? INT64_MAX : INT32_MAX;
    case 14: return wide ? INT64_MIN : INT32_MIN;
    case 13: return wide ? INT64_MAX - (b & 3) : -(int64_t)(b & 15) - 3;
    default: return (int64_t)(b & 15) - 4;
    }
}

/* Element values: small integers (sums stay exact), a few specials. */
static void fz_store(void *at, sk_dtype dt, uint8_t b, bool index_like) {
    int64_t v = index_like ? fz_index_value(b, dt) : (int64_t)(b % 9) - 4;
    double f = (double)v;
    if (!index_like && (b >> 4) == 15) {
        static const double special[4] = {0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0, -0.0};
        f = special[b & 3];
        v = (b & 1) ? INT64_MAX : INT64_MIN;
    }
    switch (dt) {
    case SK_DTYPE_BOOL: *(uint8_t *)at = b & 1; break;
    case SK_DTYPE_UINT8: *(uint8_t *)at = (uint8_t)v; break;
    case SK_DTYPE_INT8: *(int8_t *)at = (int8_t)v; break;
    case SK_DTYPE_INT16: *(int16_t *)at = (int16_t)v; break;
    case SK_DTYPE_INT32: *(int32_t *)at = (int32_t)(index_like ? v : (int32_t)v); break;
    case SK_DTYPE_INT64: *(int64_t *)at = v; break;
    case SK_DTYPE_FLOAT32: *(float *)at = (float)f; break;
    case SK_DTYPE_FLOAT64: *(double *)at = f; break;
    case SK_DTYPE_FLOAT16: *(uint16_t *)at = sk_float_to_half((float)f); break;
    case SK_DTYPE_BFLOAT16: *(uint16_t *)at = sk_float_to_bfloat16((float)f); break;
    default: break;
    }
}

/* A block of exactly the tensor's extent, its elements from the input. */
static bool fz_alloc(fz_reader *r, fz_world *w, int k, bool index_like) {
    sk_tensor *t = &w->t[k];
    int64_t lo, hi, numel;
    if (t->ndim > SK_MAX_DIMS || (unsigned)t->dtype >= SK_DTYPE_COUNT || !fz_extent(t, &lo, &hi, &numel)) {
        w->tblk[k] = -1; /* empty (or refused before use): no data at all */
        t->data = NULL;
        return true;
    }
    if (numel > FZ_MAX_NUMEL || hi - lo > 4 * FZ_MAX_NUMEL) return false;
    size_t es = sk_dtype_size(t->dtype);
    fz_block *b = &w->blk[w->nblk];
    b->bytes = (size_t)(hi - lo + 1) * es;
    if (!(b->mem = malloc(b->bytes))) return false;
    memset(b->mem, 0xA5, b->bytes); /* gaps: a pattern a stray write changes */
    w->tblk[k] = w->nblk++;
    w->toff[k] = (ptrdiff_t)(-lo * (int64_t)es);
    t->data = b->mem + w->toff[k];
    int64_t coord[SK_MAX_DIMS] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t off = 0;
        for (int32_t d = 0; d < t->ndim; d++) off += coord[d] * t->strides[d];
        fz_store((char *)t->data + off * (int64_t)es, t->dtype, fz_u8(r), index_like);
        for (int32_t d = t->ndim - 1; d >= 0 && ++coord[d] == t->shape[d]; d--) coord[d] = 0;
    }
    return true;
}

/* Tensor argument k: absent (opt, optout), the very tensor of an earlier
 * argument (out = x, the in-place form; or an input passed twice), or a
 * fresh one. */
static bool fz_tensor(const fz_op *op, fz_reader *r, fz_world *w, int k, sk_dtype main) {
    fz_type ty = op->type[k];
    uint8_t b = fz_u8(r);
    w->written[k] = ty == FZ_OUT || ty == FZ_OPTOUT;
    w->tblk[k] = -1;
    if ((ty == FZ_OPT || ty == FZ_OPTOUT) && (b & 0xC0) == 0x40) return true; /* None */
    w->a.t[k] = &w->t[k];
    if ((b & 0xC0) == 0xC0 && k > 0 && (w->tblk[b % k] >= 0 || w->a.t[b % k])) {
        int j = b % k;
        if (w->a.t[j]) {
            w->a.t[k] = w->a.t[j]; /* the same descriptor: the alias is exact */
            w->tblk[k] = -2 - j;
            return true;
        }
    }
    sk_tensor *t = &w->t[k];
    memset(t, 0, sizeof *t);
    t->device_type = SK_DEVICE_CPU;
    t->dtype = fz_dtype(op->arg[k], main, fz_u8(r));
    fz_shape(r, w, k, t);
    fz_strides(r, t);
    return fz_alloc(r, w, k, fz_named(op->arg[k], "index") || fz_named(op->arg[k], "write"));
}

static void fz_scalar(const fz_op *op, fz_reader *r, fz_world *w, int k) {
    uint8_t b = fz_u8(r);
    int64_t small = (int64_t)(b & 15) - 6;
    switch (op->type[k]) {
    case FZ_I32: w->a.v[k] = b >= 0xF0 ? (b & 1 ? INT32_MAX : INT32_MIN) : small; break;
    case FZ_I64: w->a.v[k] = b >= 0xF0 ? (b & 1 ? INT64_MAX : INT64_MIN) : small; break;
    case FZ_BOOL: w->a.v[k] = b & 1; break;
    case FZ_RED: w->a.v[k] = b % 7; break;   /* 6: invalid */
    case FZ_MODE: w->a.v[k] = b % 5; break;  /* 4: invalid */
    case FZ_TSMODE: w->a.v[k] = b % 3; break;
    default: break;
    }
}

/* axes, then the bounds and steps that follow them (one per axis). */
static void fz_list(const fz_op *op, fz_reader *r, fz_world *w, int k, int32_t last_n) {
    uint8_t b = fz_u8(r);
    if (op->type[k] == FZ_AXES) {
        w->a.naxes[k] = b >= 0xF8 ? (int32_t)(b & 7) * 3 - 6 : 1 + (b & 3);
        w->a.axes[k] = b == 0xF7 ? NULL : w->axes[k];
        for (int i = 0; i < SK_MAX_DIMS; i++) w->axes[k][i] = (int32_t)(fz_u8(r) % 9) - 4;
        return;
    }
    w->a.bounds[k] = b == 0xFF ? NULL : w->bounds[k];
    for (int i = 0; i < SK_MAX_DIMS && i < last_n + 1; i++) {
        uint8_t c = fz_u8(r);
        int64_t v = (int64_t)(c & 15) - 7;
        if (c >= 0xF0) v = c & 2 ? (c & 1 ? INT64_MAX : INT64_MIN + 1) : SK_SLICE_NONE;
        w->bounds[k][i] = v;
    }
}

bool fz_decode(const fz_op *op, fz_reader *r, fz_world *w) {
    memset(w, 0, sizeof *w);
    for (int k = 0; k < FZ_MAX_ARGS; k++) w->tblk[k] = -1; /* absent */
    static const sk_dtype mains[8] = {SK_DTYPE_FLOAT32, SK_DTYPE_INT64, SK_DTYPE_FLOAT16,
                                      SK_DTYPE_BFLOAT16, SK_DTYPE_INT8, SK_DTYPE_BOOL,
                                      SK_DTYPE_FLOAT64, SK_DTYPE_UINT8};
    uint8_t b = fz_u8(r);
    sk_dtype main = (b & 8) ? (sk_dtype)(b >> 4) % SK_DTYPE_COUNT : mains[b & 7];
    int32_t last_n = 0;
    for (int k = 0; k < op->nargs; k++) {
        w->tblk[k] = -1;
        switch (op->type[k]) {
        case FZ_IN: case FZ_OPT: case FZ_OUT: case FZ_OPTOUT:
            if (!fz_tensor(op, r, w, k, main)) return false;
            break;
        case FZ_AXES: case FZ_BOUNDS: case FZ_STEPS:
            fz_list(op, r, w, k, last_n);
            if (op->type[k] == FZ_AXES) last_n = w->a.naxes[k] > 0 ? w->a.naxes[k] : 0;
            break;
        default: fz_scalar(op, r, w, k);
        }
    }
    return true;
}

void fz_world_free(fz_world *w) {
    for (int i = 0; i < w->nblk; i++) free(w->blk[i].mem);
    w->nblk = 0;
}

bool fz_world_clone(fz_world *dst, const fz_world *src) {
    *dst = *src;
    for (int i = 0; i < src->nblk; i++) {
        dst->blk[i].mem = malloc(src->blk[i].bytes);
        if (!dst->blk[i].mem) {
            dst->nblk = i;
            fz_world_free(dst);
            return false;
        }
        memcpy(dst->blk[i].mem, src->blk[i].mem, src->blk[i].bytes);
    }
    for (int k = 0; k < FZ_MAX_ARGS; k++) {
        if (src->tblk[k] >= 0) dst->t[k].data = dst->blk[src->tblk[k]].mem + src->toff[k];
        int j = k;
        while (dst->tblk[j] <= -2) j = -2 - dst->tblk[j];
        dst->a.t[k] = src->a.t[k] ? &dst->t[j] : NULL;
        dst->a.axes[k] = src->a.axes[k] ? dst->axes[k] : NULL;
        dst->a.bounds[k] = src->a.bounds[k] ? dst->bounds[k] : NULL;
    }
    return true;
}

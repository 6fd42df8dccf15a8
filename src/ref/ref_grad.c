/*
 * ref_grad.c - the gradients behind every backward of the reference (docs/CONTRACT.md,
 * Backward), from an operator's update list:
 * - gather-type: grad_x is the scatter-sum of grad_out into zeros;
 * - scatter-type: each target splits grad_out among its contributors by
 *   the reduction's rule, and grad_src collects the updates' shares.
 * Sums follow the canonical order (docs/CONTRACT.md); prod's product of the
 * other contributors is taken directly, in double with the exponent kept
 * apart (ref_prod_grads), not as the library's product of all divided by
 * one: the two agree where the products are exact in double, as in the
 * tests' values (docs/CONTRACT.md §7).
 */
#include "ref_grad.h"

#include <math.h>
#include <stdlib.h>

enum { REF_CHUNK = 256 };

double ref_fold(sk_dtype dt, double start, const double *v, int64_t n) {
    double acc = start;
    for (int64_t c = 0; c < n; c += REF_CHUNK) {
        int64_t end = c + REF_CHUNK < n ? c + REF_CHUNK : n;
        /* chunk 0 folds into the start value, later ones from the identity */
        double part = c == 0 ? start : -0.0;
        for (int64_t i = c; i < end; i++) part = ref_wp(dt, part + v[i]);
        acc = c == 0 ? part : ref_wp(dt, acc + part);
    }
    return acc;
}

double *ref_load_all(const sk_tensor *t) {
    int64_t n = ref_numel(t->ndim, t->shape);
    double *v = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!v) return NULL;
    for (int64_t i = 0; i < n; i++) v[i] = ref_load_f(t->dtype, ref_at_linear(t, i));
    return v;
}

void ref_fold_groups(sk_tensor *dst, const ref_updates *u, bool by_slot, const double *vals,
                     double start, double *tmp) {
    int64_t n = ref_numel(dst->ndim, dst->shape), j = 0;
    for (int64_t key = 0; key < n; key++) {
        int64_t m = 0;
        for (; j < u->n && (by_slot ? u->item[j].slot : u->item[j].target) == key; j++)
            tmp[m++] = vals[by_slot ? u->item[j].order : u->item[j].slot];
        double sum = m ? ref_fold(dst->dtype, start, tmp, m) : 0.0;
        ref_store_f(dst->dtype, ref_at_linear(dst, key), sum);
    }
}

sk_status ref_gather_grads(const sk_tensor *grad_out, sk_tensor *grad_x, ref_updates *u,
                           sk_status st) {
    double *vals = NULL, *tmp = NULL;
    if (st == SK_STATUS_OK) {
        vals = ref_load_all(grad_out);
        tmp = (double *)malloc((size_t)(u->n > 0 ? u->n : 1) * sizeof(double));
        if (!vals || !tmp) st = SK_STATUS_OUT_OF_MEMORY;
    }
    if (st == SK_STATUS_OK) {
        ref_sort_by_target(u);
        ref_fold_groups(grad_x, u, false, vals, 0.0, tmp); /* into zeros: start +0.0 */
    }
    free(vals);
    free(tmp);
    ref_updates_free(u);
    return st;
}

static bool ref_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* The product of n factors: a NaN, or a zero and an infinity, make it NaN;
 * signs multiply (those of zeros and infinities too); the finite non-zero
 * factors multiply as a double mantissa in [0.5, 1) and a binary exponent,
 * so nothing overflows or underflows before the rounding at the end (each
 * product rounds to a double on the way). */
static double ref_exact_product(const double *f, int64_t n) {
    double m = 1.0;
    int64_t e = 0;
    bool zero = false, inf = false, nan = false;
    for (int64_t i = 0; i < n; i++) {
        int k1, k2;
        if (isnan(f[i])) nan = true;
        else if (f[i] == 0 || isinf(f[i])) {
            zero |= f[i] == 0;
            inf |= isinf(f[i]) != 0;
            m = signbit(f[i]) ? -m : m;
        } else {
            m = frexp(m * frexp(f[i], &k1), &k2);
            e += k1 + k2;
        }
    }
    if (nan || (zero && inf)) return NAN;
    if (zero) return copysign(0.0, m);
    if (inf) return copysign((double)INFINITY, m);
    return ldexp(m, (int)(e < -3000 ? -3000 : e > 3000 ? 3000 : e));
}

/* prod: each contributor gets g times the product of the others (x among
 * them when it is one), in double with the exponent apart (no overflow or
 * underflow before the dtype's rounding), exact in kind with zeros and
 * infinities. tmp has room for twice the contributors. */
static double ref_prod_grads(const ref_target *t, double *tmp) {
    int64_t k = 0, self = t->self ? 1 : 0;
    double *c = tmp, *others = tmp + t->n + 1, gx = 0.0;
    if (t->self) c[k++] = t->x;
    for (int64_t i = 0; i < t->n; i++) c[k++] = t->v[i];
    for (int64_t i = 0; i < k; i++) {
        int64_t m = 0;
        others[m++] = t->g;
        for (int64_t j = 0; j < k; j++)
            if (j != i) others[m++] = c[j];
        double g = ref_wp(t->dt, ref_exact_product(others, m));
        if (i < self) gx = g;
        else t->share[i - self] = g;
    }
    return gx;
}

/* amax/amin: an even split among the contributors equal to the result (two
 * NaNs are equal), x among them when it is a contributor. */
static double ref_extreme_grads(const ref_target *t) {
    bool x_ties = t->self && ref_same(t->x, t->res);
    int64_t ties = x_ties ? 1 : 0;
    for (int64_t i = 0; i < t->n; i++) ties += ref_same(t->v[i], t->res);
    double s = ties ? ref_wp(t->dt, t->g / (double)ties) : 0.0;
    for (int64_t i = 0; i < t->n; i++) t->share[i] = ref_same(t->v[i], t->res) ? s : 0.0;
    return x_ties ? s : 0.0;
}

double ref_target_grads(const ref_target *t, double *tmp) {
    if (t->n == 0) return t->g; /* untouched: out[t] is x[t] */
    double s = t->g;
    switch (t->reduce) {
    case SK_REDUCE_NONE:
        /* the last update wins; x and the overwritten updates get nothing */
        for (int64_t i = 0; i < t->n; i++) t->share[i] = i == t->n - 1 ? t->g : 0.0;
        return 0.0;
    case SK_REDUCE_PROD: return ref_prod_grads(t, tmp);
    case SK_REDUCE_AMAX:
    case SK_REDUCE_AMIN: return ref_extreme_grads(t);
    case SK_REDUCE_MEAN: s = ref_wp(t->dt, t->g / (double)(t->n + (t->self ? 1 : 0))); break;
    default: break; /* sum: passed through */
    }
    for (int64_t i = 0; i < t->n; i++) t->share[i] = s;
    return t->self ? s : 0.0;
}

/* Walks the targets in row-major order (u sorted by target): the shares of
 * each one's updates into share (indexed by list order), and grad_x. */
static void ref_grads_by_target(const ref_grad_args *a, const ref_updates *u, double *share,
                                double *tmp) {
    const sk_tensor *go = a->grad_out;
    sk_dtype dt = go->dtype;
    bool values = a->reduce == SK_REDUCE_PROD || a->reduce == SK_REDUCE_AMAX ||
                  a->reduce == SK_REDUCE_AMIN;
    bool extreme = a->reduce == SK_REDUCE_AMAX || a->reduce == SK_REDUCE_AMIN;
    /* tmp: the updates' values, then their shares, then prod's room */
    double *v = tmp, *sh = tmp + u->n;
    int64_t n = ref_numel(go->ndim, go->shape), j = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t j0 = j;
        for (; j < u->n && u->item[j].target == t; j++)
            v[j - j0] = values ? ref_load_f(dt, ref_at_linear(a->src, u->item[j].slot)) : 0.0;
        ref_target tg = {dt, a->reduce, a->self, ref_load_f(dt, ref_at_linear(go, t)), 0.0, 0.0,
                         j - j0, v, sh};
        if (values && a->self) tg.x = ref_load_f(dt, ref_at_linear(a->x, t));
        if (extreme) tg.res = ref_load_f(dt, ref_at_linear(a->out, t));
        double gx = ref_target_grads(&tg, sh + u->n);
        for (int64_t i = j0; i < j; i++) share[u->item[i].order] = sh[i - j0];
        if (a->grad_x) ref_store_f(dt, ref_at_linear(a->grad_x, t), gx);
    }
}

sk_status ref_scatter_grads(const ref_grad_args *a, ref_updates *u, sk_status st) {
    double *share = NULL, *tmp = NULL;
    if (st == SK_STATUS_OK) {
        /* share, then values + shares + 2 (n + 1) for prod (see above) */
        share = (double *)malloc((size_t)(u->n > 0 ? u->n : 1) * sizeof(double));
        tmp = (double *)malloc((size_t)(4 * u->n + 2) * sizeof(double));
        if (!share || !tmp) st = SK_STATUS_OUT_OF_MEMORY;
    }
    if (st == SK_STATUS_OK) {
        ref_sort_by_target(u);
        ref_grads_by_target(a, u, share, tmp);
        if (a->grad_src) {
            /* an element read by several updates (a broadcast src) sums their
             * shares, from the identity so that a single one passes as it is;
             * an element never read gets +0.0 */
            ref_sort_by_slot(u);
            ref_fold_groups(a->grad_src, u, true, share, -0.0, tmp);
        }
    }
    free(share);
    free(tmp);
    ref_updates_free(u);
    return st;
}

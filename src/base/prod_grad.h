/* The gradient of reduce="prod" (docs/CONTRACT.md §7): each contributor of
 * a target gets grad_out times the product of the other contributors, x's
 * element among them with include_self (0 * inf and a NaN factor give NaN;
 * signs multiply, those of zeros and infinities too). Pass 1 multiplies
 * every contributor into a target's sk_bwd_prod, pass 2 takes one
 * contributor back out by a single division. Zeros, infinities and NaNs
 * are counted apart from the finite non-zero factors (no division by zero,
 * no inf / inf), and the product of those is a double mantissa and a binary
 * exponent (no overflow or underflow that the exact product has not). The
 * arithmetic is in double for every dtype, so the value carries double
 * roundings (the products, the division) before the dtype's: for float64 it
 * can be an ulp or two from the exact product rounded once.
 *
 * Shared by the CPU backward (src/cpu/backward/walk.c) and the CUDA one
 * (src/cuda/segments_grad.cu), so that both give the same bits: plain C that
 * also compiles as C++ and as CUDA device code, with nothing else included. */
#ifndef SK_BASE_PROD_GRAD_H
#define SK_BASE_PROD_GRAD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define SK_PROD_FN static inline __host__ __device__
#else
#define SK_PROD_FN static inline
#endif

/* A product of factors: m * 2^e times the special ones. Counts saturate at
 * 2 ("several"): taking one factor out only asks whether others remain. */
typedef struct {
    double m;  /* finite, non-zero, |m| in [2^-500, 2^500]; carries every factor's sign */
    int64_t e;
    uint8_t zeros, infs, nans;
} sk_bwd_prod;

SK_PROD_FN void sk_bwd_prod_init(sk_bwd_prod *p) {
    p->m = 1.0;
    p->e = 0;
    p->zeros = p->infs = p->nans = 0;
}

SK_PROD_FN uint8_t sk_bwd_prod_inc(uint8_t c) { return (uint8_t)(c < 2 ? c + 1 : 2); }

/* p times v, or divided by v, for a finite non-zero v. Only exact scalings
 * by powers of two are added to the plain product, so m rounds as m * v
 * would, and the renormalization keeps it clear of overflow and subnormals. */
SK_PROD_FN void sk_bwd_prod_scale(sk_bwd_prod *p, double v, bool div) {
    double a = fabs(v);
    if (!(a >= 0x1p-400 && a <= 0x1p400)) {
        int k;
        v = frexp(v, &k);
        p->e += div ? -k : k;
    }
    p->m = div ? p->m / v : p->m * v;
    a = fabs(p->m);
    if (a > 0x1p500) p->m *= 0x1p-500, p->e += 500;
    else if (a < 0x1p-500) p->m *= 0x1p500, p->e -= 500;
}

/* One more factor v. */
SK_PROD_FN void sk_bwd_prod_mul(sk_bwd_prod *p, double v) {
    if (isnan(v)) {
        p->nans = sk_bwd_prod_inc(p->nans);
    } else if (v == 0 || isinf(v)) {
        if (v == 0) p->zeros = sk_bwd_prod_inc(p->zeros);
        else p->infs = sk_bwd_prod_inc(p->infs);
        if (signbit(v)) p->m = -p->m;
    } else {
        sk_bwd_prod_scale(p, v, false);
    }
}

/* g times the product p of all contributors without one of value v (one
 * that pass 1 multiplied in), unrounded. */
SK_PROD_FN double sk_bwd_prod_share(const sk_bwd_prod *all, double v, double g) {
    sk_bwd_prod p = *all;
    if (isnan(v)) {
        p.nans--;
    } else if (v == 0 || isinf(v)) {
        if (v == 0) p.zeros--;
        else p.infs--;
        if (signbit(v)) p.m = -p.m;
    } else {
        sk_bwd_prod_scale(&p, v, true);
    }
    sk_bwd_prod_mul(&p, g);
    if (p.nans || (p.zeros && p.infs)) return NAN;
    if (p.zeros) return copysign(0.0, p.m);
    if (p.infs) return copysign((double)INFINITY, p.m);
    int64_t e = p.e < -3000 ? -3000 : p.e > 3000 ? 3000 : p.e; /* 0 or inf beyond */
    return ldexp(p.m, (int)e);
}

#endif /* SK_BASE_PROD_GRAD_H */

/* float16 and bfloat16 conversion against references written from the
 * formats' definitions. */
#include "core.h"
#include "harness.h"

#include <math.h>
#include <string.h>

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ------------------------------------------------------------------------ */
/* float16                                                                  */
/* ------------------------------------------------------------------------ */

/* The value of half bits h, decoded from the IEEE binary16 definition. */
static double half_value(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    double v;
    if (exp == 31) v = man ? NAN : INFINITY;
    else if (exp == 0) v = ldexp(man, -24);
    else v = ldexp(1024 + man, exp - 25);
    return sign ? -v : v;
}

/* The value used for rounding: bits 0x7c00 (infinity) counts as 2^16, the
 * next value the format would have, so ties at the top go to infinity. */
static double half_grid(uint16_t h) { return h == 0x7c00 ? 65536.0 : half_value(h); }

/* Reference float -> half: the nearest value of the grid 0 .. 0x7c00
 * (ties to the even bit pattern), found by bisection. */
static uint16_t ref_float_to_half(float f) {
    uint16_t sign = (f2u(f) >> 16) & 0x8000u;
    double a = fabs((double)f);
    if (a >= 65536.0) return sign | 0x7c00u;
    uint16_t lo = 0, hi = 0x7c00; /* half_grid(lo) <= a < half_grid(hi) */
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (half_grid(mid) <= a) lo = mid;
        else hi = mid;
    }
    double dl = a - half_grid(lo), dh = half_grid(hi) - a;
    uint16_t r = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return sign | r;
}

static void check_half(float f, uint16_t want, const char *what) {
    uint16_t got = sk_float_to_half(f);
    SKT_CHECK(got == want, "sk_float_to_half(%s = %.9g, bits 0x%08x) = 0x%04x, expected 0x%04x",
              what, (double)f, (unsigned)f2u(f), got, want);
}

/* every half value: exact decoding, and back to the same bits */
static void half_every_value(void) {
    for (uint32_t h = 0; h < 65536; h++) {
        float f = sk_half_to_float((uint16_t)h);
        double want = half_value((uint16_t)h);
        bool is_nan = ((h >> 10) & 31) == 31 && (h & 1023);
        if (is_nan) {
            SKT_CHECK(isnan(f) && (signbit(f) != 0) == ((h >> 15) != 0),
                      "sk_half_to_float(0x%04x) = %g: expected a NaN of the same sign", h,
                      (double)f);
            uint16_t back = sk_float_to_half(f);
            SKT_CHECK(((back >> 10) & 31) == 31 && (back & 1023) &&
                          (back & 0x8000) == (h & 0x8000) && (back & 0x200),
                      "half NaN 0x%04x -> float -> 0x%04x: expected a quiet NaN of the same sign",
                      h, back);
            continue;
        }
        SKT_CHECK((double)f == want && (signbit(f) != 0) == ((h >> 15) != 0),
                  "sk_half_to_float(0x%04x) = %.9g, expected %.9g", h, (double)f, want);
        uint16_t back = sk_float_to_half(f);
        SKT_CHECK(back == h, "half 0x%04x -> %.9g -> 0x%04x: the round trip is not exact", h,
                  (double)f, back);
    }
}

void test_half(void) {
    half_every_value();
    /* named cases */
    check_half(65504.0f, 0x7bff, "max half");
    check_half(65519.0f, 0x7bff, "just under the midpoint to infinity");
    check_half(65520.0f, 0x7c00, "the midpoint to infinity (ties to even: infinity)");
    check_half(1e10f, 0x7c00, "overflow");
    check_half(-1e10f, 0xfc00, "negative overflow");
    check_half(INFINITY, 0x7c00, "+inf");
    check_half(-INFINITY, 0xfc00, "-inf");
    check_half(-0.0f, 0x8000, "-0");
    check_half(0x1p-24f, 0x0001, "smallest subnormal");
    check_half(0x1p-25f, 0x0000, "half the smallest subnormal (tie to even: 0)");
    check_half(0x1.000002p-25f, 0x0001, "just over half the smallest subnormal");
    check_half(0x3p-25f, 0x0002, "1.5 subnormal units (tie to even: 2)");
    check_half(0x5p-25f, 0x0002, "2.5 subnormal units (tie to even: 2)");
    check_half(0x1p-14f - 0x1p-25f, 0x0400, "midpoint of max subnormal and min normal");
    check_half(0x1p-30f, 0x0000, "underflow to 0");
    check_half(-0x1p-30f, 0x8000, "underflow to -0");
    check_half(1.0f + 0x1p-11f, 0x3c00, "1 + half an ulp (tie to even: 1)");
    check_half(1.0f + 0x3p-11f, 0x3c02, "1 + 1.5 ulp (tie to even: up)");
    check_half(1.0f + 0x1p-11f + 0x1p-20f, 0x3c01, "just over 1 + half an ulp");
    /* NaN in, NaN out, sign kept, even with payload bits only below the half's
     * mantissa (a plain truncation would make these infinity) */
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fa00000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t h = sk_float_to_half(u2f(nans[i]));
        SKT_CHECK(((h >> 10) & 31) == 31 && (h & 1023) && (h >> 15) == (nans[i] >> 31),
                  "sk_float_to_half(NaN 0x%08x) = 0x%04x: expected a NaN with the same sign",
                  (unsigned)nans[i], h);
    }
    /* every midpoint between neighbours, and a step either side of it */
    for (uint32_t h = 0; h < 0x7bff; h++) {
        double mid = (half_value((uint16_t)h) + half_value((uint16_t)(h + 1))) / 2;
        float m = (float)mid; /* exact: a midpoint needs 12 significant bits */
        check_half(m, ref_float_to_half(m), "a midpoint");
        check_half(-m, ref_float_to_half(-m), "a negative midpoint");
        check_half(nextafterf(m, 0), ref_float_to_half(nextafterf(m, 0)), "below a midpoint");
        check_half(nextafterf(m, INFINITY), ref_float_to_half(nextafterf(m, INFINITY)),
                   "above a midpoint");
    }
    /* random float bit patterns (NaNs excepted) */
    skt_rng r;
    skt_seed(&r, 1);
    for (int i = 0; i < 1000000; i++) {
        float f = u2f((uint32_t)skt_next(&r));
        if (isnan(f)) continue;
        check_half(f, ref_float_to_half(f), "random");
    }
}

/* ------------------------------------------------------------------------ */
/* bfloat16                                                                 */
/* ------------------------------------------------------------------------ */

/* bfloat16 is the top half of a float; bits 0x7f80 count as 2^128 when
 * rounding, so the tie above the largest finite value goes to infinity. */
static double bf16_grid(uint16_t b) {
    if ((b & 0x7fffu) == 0x7f80u) return b & 0x8000u ? -0x1p128 : 0x1p128;
    return (double)u2f((uint32_t)b << 16);
}

static uint16_t ref_float_to_bf16(float f) {
    uint16_t lo = (uint16_t)(f2u(f) >> 16); /* truncation: towards zero */
    if ((lo & 0x7fffu) == 0x7f80u) return lo; /* infinity */
    uint16_t hi = (uint16_t)(lo + 1);       /* next away from zero */
    double a = fabs((double)f), dl = a - fabs(bf16_grid(lo)), dh = fabs(bf16_grid(hi)) - a;
    return dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
}

static void check_bf16(float f, uint16_t want, const char *what) {
    uint16_t got = sk_float_to_bfloat16(f);
    SKT_CHECK(got == want, "sk_float_to_bfloat16(%s = %.9g, bits 0x%08x) = 0x%04x, expected 0x%04x",
              what, (double)f, (unsigned)f2u(f), got, want);
}

void test_bfloat16(void) {
    for (uint32_t b = 0; b < 65536; b++) {
        float f = sk_bfloat16_to_float((uint16_t)b);
        bool is_nan = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
        SKT_CHECK(f2u(f) == b << 16,
                  "sk_bfloat16_to_float(0x%04x) has bits 0x%08x, expected 0x%08x", b,
                  (unsigned)f2u(f), (unsigned)(b << 16));
        uint16_t back = sk_float_to_bfloat16(f);
        if (is_nan)
            SKT_CHECK((back & 0x7f80u) == 0x7f80u && (back & 0x7fu) &&
                          (back & 0x8000u) == (b & 0x8000u),
                      "bfloat16 NaN 0x%04x -> float -> 0x%04x: expected a NaN of the same sign", b,
                      back);
        else
            SKT_CHECK(back == b, "bfloat16 0x%04x -> float -> 0x%04x: the round trip is not exact",
                      b, back);
    }
    check_bf16(u2f(0x7f7f8000u), 0x7f80, "midpoint of max and infinity (ties to even: inf)");
    check_bf16(u2f(0x7f7f7fffu), 0x7f7f, "just under that midpoint");
    check_bf16(u2f(0xff7f8000u), 0xff80, "negative midpoint to -inf");
    check_bf16(u2f(0x3f808000u), 0x3f80, "1 + half an ulp (tie to even: 1)");
    check_bf16(u2f(0x3f818000u), 0x3f82, "1 + 1.5 ulp (tie to even: up)");
    check_bf16(u2f(0x3f808001u), 0x3f81, "just over 1 + half an ulp");
    check_bf16(u2f(0x00008000u), 0x0000, "subnormal tie to even: 0");
    check_bf16(u2f(0x00018000u), 0x0002, "subnormal tie to even: up");
    check_bf16(u2f(0x00000001u), 0x0000, "smallest float subnormal");
    check_bf16(INFINITY, 0x7f80, "+inf");
    check_bf16(-INFINITY, 0xff80, "-inf");
    check_bf16(-0.0f, 0x8000, "-0");
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7f80ffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t b = sk_float_to_bfloat16(u2f(nans[i]));
        SKT_CHECK((b & 0x7f80u) == 0x7f80u && (b & 0x7fu) && (b >> 15) == (nans[i] >> 31),
                  "sk_float_to_bfloat16(NaN 0x%08x) = 0x%04x: expected a NaN with the same sign",
                  (unsigned)nans[i], b);
    }
    skt_rng r;
    skt_seed(&r, 2);
    for (int i = 0; i < 2000000; i++) {
        float f = u2f((uint32_t)skt_next(&r));
        if (isnan(f)) continue;
        check_bf16(f, ref_float_to_bf16(f), "random");
    }
}

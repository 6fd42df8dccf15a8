/* dtype table and float16 / bfloat16 conversion. */
#include "internal.h"

#include <math.h>

static const struct {
    const char *name;
    size_t size;
    bool floating;
} sk_dtype_table[SK_DTYPE_COUNT] = {
    [SK_DTYPE_BOOL] = {"bool", 1, false},       [SK_DTYPE_UINT8] = {"uint8", 1, false},
    [SK_DTYPE_INT8] = {"int8", 1, false},       [SK_DTYPE_INT16] = {"int16", 2, false},
    [SK_DTYPE_INT32] = {"int32", 4, false},     [SK_DTYPE_INT64] = {"int64", 8, false},
    [SK_DTYPE_FLOAT16] = {"float16", 2, true},  [SK_DTYPE_BFLOAT16] = {"bfloat16", 2, true},
    [SK_DTYPE_FLOAT32] = {"float32", 4, true},  [SK_DTYPE_FLOAT64] = {"float64", 8, true},
};

static bool sk_dtype_valid(sk_dtype d) { return (unsigned)d < (unsigned)SK_DTYPE_COUNT; }

size_t sk_dtype_size(sk_dtype d) { return sk_dtype_valid(d) ? sk_dtype_table[d].size : 0; }
const char *sk_dtype_name(sk_dtype d) {
    return sk_dtype_valid(d) ? sk_dtype_table[d].name : "invalid";
}
bool sk_dtype_is_floating(sk_dtype d) { return sk_dtype_valid(d) && sk_dtype_table[d].floating; }

float sk_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (man << 13); /* inf, or NaN with its payload */
    } else if (exp != 0) {
        u = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        u = sign;
    } else { /* subnormal: value = man * 2^-24, exact in float */
        float f = (float)man * 0x1p-24f;
        memcpy(&u, &f, 4);
        u |= sign;
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t sk_f32_to_f16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: keep the top payload bits, force quiet */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        /* Scaling by 2^24 puts the half-subnormal unit at 1.0; rintf rounds
         * to nearest even in the default rounding mode. */
        float v;
        memcpy(&v, &a, 4);
        return (uint16_t)(sign | (uint16_t)rintf(v * 0x1p24f));
    }
    /* normal: rebias the exponent and round the 13 dropped bits to nearest even */
    uint32_t r = a - 0x38000000u;
    r += 0x0fffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (uint16_t)(r >> 13));
}

uint16_t sk_float_to_half(float value) { return sk_f32_to_f16(value); }
float sk_half_to_float(uint16_t bits) { return sk_f16_to_f32(bits); }
uint16_t sk_float_to_bfloat16(float value) { return sk_f32_to_bf16(value); }
float sk_bfloat16_to_float(uint16_t bits) { return sk_bf16_to_f32(bits); }

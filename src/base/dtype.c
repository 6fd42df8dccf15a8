/* dtype table and float16 / bfloat16 conversion. */
#include "base/scalar.h"


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

uint16_t sk_float_to_half(float value) { return sk_f32_to_f16(value); }
float sk_half_to_float(uint16_t bits) { return sk_f16_to_f32(bits); }
uint16_t sk_float_to_bfloat16(float value) { return sk_f32_to_bf16(value); }
float sk_bfloat16_to_float(uint16_t bits) { return sk_bf16_to_f32(bits); }

/* AVX2 for element gathers along a contiguous last axis: the index range
 * check four values per compare, and the gather instruction with the range
 * check fused. Reached only through sk_x86_gather_kernels() (isa.h). */
#include "cpu/arch/x86/gather.h"

#if defined(SK_HAVE_AVX2_BUILD)
#include <immintrin.h>

/* Four values per compare, 64-bit compares (v < 0 or v > n - 1): a quarter
 * of the SSE2 loop's instructions. */
SK_TARGET_AVX2 static bool sk_block_in_range_i64_avx2(const int64_t *ix, int64_t m, int64_t n) {
    const __m256i zero = _mm256_setzero_si256(), last = _mm256_set1_epi64x(n - 1);
    __m256i bad = zero;
    int64_t j = 0;
    for (; j + 8 <= m; j += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(ix + j));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(ix + j + 4));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(zero, a),
                                                   _mm256_cmpgt_epi64(a, last)));
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(zero, b),
                                                   _mm256_cmpgt_epi64(b, last)));
    }
    bool ok = _mm256_testz_si256(bad, bad);
    for (; j < m; j++) ok &= (uint64_t)ix[j] < (uint64_t)n;
    return ok;
}

/* A block of 4-byte elements with the gather instruction: each vector of
 * index values is compared with [0, n) as it is loaded, a value outside
 * reads element 0 instead (never out of bounds), and false sends the block
 * to the careful loop, which redoes it. One instruction fetches 4 or 8
 * elements where the scalar copy spends a load of the index, a load and a
 * store per element, and the index is read once instead of twice. Into a
 * large out (nt) the stores are 16-byte non-temporal ones. */
#define SK_GATHER_SCALAR_CHECKED(cond)                                                             \
    for (; cond; j++) {                                                                            \
        uint64_t v_ = (uint64_t)ix[j];                                                             \
        bool in_ = v_ < (uint64_t)n;                                                               \
        bad |= !in_;                                                                               \
        o[j] = x[in_ ? v_ : 0];                                                                    \
    }
/* VECTORS: a statement storing 32 bytes of out from ix + j + k into v_, with
 * ok_ AND-ed with the lanes' range masks */
#define SK_GATHER_BLOCK(IT, ...)                                                                   \
    SK_TARGET_AVX2 static bool sk_gather_block_##IT(                                               \
        uint32_t *restrict o, const uint32_t *restrict x, const IT *restrict ix, int64_t m,        \
        int64_t n, bool nt, uintptr_t *ahead, size_t ahead_step) {                                 \
        bool bad = false;                                                                          \
        int64_t j = 0;                                                                             \
        if (nt) SK_GATHER_SCALAR_CHECKED(j < m && ((uintptr_t)(o + j) & 15))                       \
        __m256i ok_ = _mm256_set1_epi32(-1);                                                       \
        const int *xi_ = (const int *)(const void *)x;                                             \
        for (; j + 16 <= m; j += 16, *ahead += ahead_step) {                                       \
            if (ahead_step) __builtin_prefetch((const void *)*ahead);                              \
            SK_PREFETCH_INDEX_NTA(ix + j);                                                         \
            for (int k = 0; k < 16; k += 8) {                                                      \
                __m256i v_;                                                                        \
                __VA_ARGS__;                                                                       \
                __m128i *to_ = (__m128i *)(void *)(o + j + k);                                     \
                if (nt) {                                                                          \
                    _mm_stream_si128(to_, _mm256_castsi256_si128(v_));                             \
                    _mm_stream_si128(to_ + 1, _mm256_extracti128_si256(v_, 1));                    \
                } else {                                                                           \
                    _mm256_storeu_si256((__m256i *)(void *)to_, v_);                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        SK_GATHER_SCALAR_CHECKED(j < m)                                                            \
        return !bad && _mm256_testc_si256(ok_, _mm256_set1_epi32(-1));                             \
    }
#define SK_LOAD256(at) _mm256_loadu_si256((const __m256i *)(const void *)(at))
/* a value is in [0, n) when (v ^ sign) < (n ^ sign) as signed numbers */
#define SK_IN_RANGE64(v) _mm256_cmpgt_epi64(nb_, _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)))
#define SK_IN_RANGE32(v) _mm256_cmpgt_epi32(nb_, _mm256_xor_si256(v, _mm256_set1_epi32(INT32_MIN)))
/* int64: 4 elements per instruction, so two per 8 */
SK_GATHER_BLOCK(int64_t, {
    const __m256i nb_ = _mm256_set1_epi64x((int64_t)((uint64_t)n ^ (1ull << 63)));
    __m256i a_ = SK_LOAD256(ix + j + k), b_ = SK_LOAD256(ix + j + k + 4);
    __m256i ia_ = SK_IN_RANGE64(a_), ib_ = SK_IN_RANGE64(b_);
    ok_ = _mm256_and_si256(ok_, _mm256_and_si256(ia_, ib_));
    v_ = _mm256_set_m128i(_mm256_i64gather_epi32(xi_, _mm256_and_si256(b_, ib_), 4),
                          _mm256_i64gather_epi32(xi_, _mm256_and_si256(a_, ia_), 4));
})
SK_GATHER_BLOCK(int32_t, {
    const __m256i nb_ = _mm256_set1_epi32((int32_t)((uint32_t)n ^ 0x80000000u));
    __m256i a_ = SK_LOAD256(ix + j + k);
    __m256i ia_ = SK_IN_RANGE32(a_);
    ok_ = _mm256_and_si256(ok_, ia_);
    v_ = _mm256_i32gather_epi32(xi_, _mm256_and_si256(a_, ia_), 4);
})
/* 1- and 2-byte elements: 16 values checked with four compares, then
 * copied by scalar loads of the same (L1-resident) values; a value outside
 * [0, n) sends the block to the careful loop. */
#define SK_GATHER_SMALL(T)                                                                         \
    SK_TARGET_AVX2 static bool sk_gather_small_##T(void *restrict o_, const void *restrict x_,     \
                                                   const int64_t *restrict ix, int64_t m,          \
                                                   int64_t n, uintptr_t *ahead,                    \
                                                   size_t ahead_step) {                            \
        T *restrict o = o_;                                                                        \
        const T *restrict x = x_;                                                                  \
        const __m256i nb_ = _mm256_set1_epi64x((int64_t)((uint64_t)n ^ (1ull << 63)));            \
        bool bad = false;                                                                          \
        int64_t j = 0;                                                                             \
        for (; j + 16 <= m; j += 16, *ahead += ahead_step) {                                       \
            if (ahead_step) __builtin_prefetch((const void *)*ahead);                              \
            SK_PREFETCH_INDEX_NTA(ix + j);                                                         \
            __m256i in_ = _mm256_and_si256(                                                        \
                _mm256_and_si256(SK_IN_RANGE64(SK_LOAD256(ix + j)),                                \
                                 SK_IN_RANGE64(SK_LOAD256(ix + j + 4))),                           \
                _mm256_and_si256(SK_IN_RANGE64(SK_LOAD256(ix + j + 8)),                            \
                                 SK_IN_RANGE64(SK_LOAD256(ix + j + 12))));                         \
            if (_mm256_movemask_epi8(in_) != -1) return false;                                     \
            for (int k = 0; k < 16; k++) o[j + k] = x[ix[j + k]];                                  \
        }                                                                                          \
        SK_GATHER_SCALAR_CHECKED(j < m)                                                            \
        return !bad;                                                                               \
    }
SK_GATHER_SMALL(uint8_t)
SK_GATHER_SMALL(uint16_t)
#undef SK_GATHER_SMALL
#undef SK_LOAD256
#undef SK_IN_RANGE64
#undef SK_IN_RANGE32
#undef SK_GATHER_BLOCK
#undef SK_GATHER_SCALAR_CHECKED

static const sk_x86_gather sk_x86_gather_avx2 = {
    sk_block_in_range_i64_avx2, sk_gather_block_int64_t, sk_gather_block_int32_t,
    {sk_gather_small_uint8_t, sk_gather_small_uint16_t}};
#endif

static const sk_x86_gather sk_x86_gather_baseline = {NULL, NULL, NULL, {NULL, NULL}};

/* Resolved on first use; threads racing here store the same pointer. */
const sk_x86_gather *sk_x86_gather_kernels(void) {
    static const sk_x86_gather *chosen;
    const sk_x86_gather *k = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (k) return k;
    k = &sk_x86_gather_baseline;
#if defined(SK_HAVE_AVX2_BUILD)
    if (__builtin_cpu_supports("avx2")) k = &sk_x86_gather_avx2;
#endif
    __atomic_store_n(&chosen, k, __ATOMIC_RELEASE);
    return k;
}

/* One float add or multiply with sk_keep_nan_f's rule (the running value's
 * NaN kept, quieted, where two NaNs meet; the NaN where one is), as the one
 * SSE instruction that has it when the running value is its first source.
 * A compiler may swap the operands of a commutative operation, so the
 * instruction is written out; the rule by masks (base/scalar.h) took five
 * more instructions per update in the element loops (PERF-LOG,
 * 2026-11-29). Elsewhere, or without GNU asm, the masks. */
#ifndef SK_ARCH_X86_KEEP_NAN_SSE_H
#define SK_ARCH_X86_KEEP_NAN_SSE_H

#include "base/scalar.h"
#include "cpu/arch/x86/isa.h"

#if defined(SK_ARCH_X86_64) && (defined(__GNUC__) || defined(__clang__))
#define SK_KEEP_NAN_ASM(NAME, T, INSN)                                                             \
    SK_INLINE T NAME(T a, T b) {                                                                   \
        __asm__(INSN " %1, %0" : "+x"(a) : "x"(b));                                                \
        return a;                                                                                  \
    }
SK_KEEP_NAN_ASM(sk_add_keep_f32, float, "addss")
SK_KEEP_NAN_ASM(sk_mul_keep_f32, float, "mulss")
SK_KEEP_NAN_ASM(sk_add_keep_f64, double, "addsd")
SK_KEEP_NAN_ASM(sk_mul_keep_f64, double, "mulsd")
#undef SK_KEEP_NAN_ASM
#else
SK_INLINE float sk_add_keep_f32(float a, float b) { return sk_keep_nan_f(a, a + b); }
SK_INLINE float sk_mul_keep_f32(float a, float b) { return sk_keep_nan_f(a, a * b); }
SK_INLINE double sk_add_keep_f64(double a, double b) { return sk_keep_nan_d(a, a + b); }
SK_INLINE double sk_mul_keep_f64(double a, double b) { return sk_keep_nan_d(a, a * b); }
#endif

#endif /* SK_ARCH_X86_KEEP_NAN_SSE_H */

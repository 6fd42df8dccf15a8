/* CPU features: the one dispatch mechanism of the CPU backend.
 *
 * Code that needs more than the build's baseline instruction set (SSE2 on
 * x86-64) is written with intrinsics in a file of this folder, compiled for
 * its set with a target attribute (SK_TARGET_AVX2), and reached only through
 * a table of function pointers that this folder fills once, on first use,
 * from __builtin_cpu_supports (sk_x86_gather_kernels() in gather_avx2.c).
 * A kernel asks for the table once per call and finds NULL entries where the
 * CPU or the compiler lacks the set; it then runs its portable loop. No
 * per-call feature test and no target_clones in the code that follows this
 * rule (target_clones cannot select between hand-written variants, and
 * clang refuses it together with noinline).
 *
 * Baseline intrinsics (SSE2 stores and compares, part of every x86-64) need
 * no dispatch: they sit in the headers of this folder behind
 * SK_ARCH_X86_64, with a portable twin for other machines. */
#ifndef SK_ARCH_X86_ISA_H
#define SK_ARCH_X86_ISA_H

#include "base/base.h"

#if defined(__x86_64__) || defined(_M_X64)
#define SK_ARCH_X86_64 1
#endif

#if defined(SK_ARCH_X86_64) && (defined(__GNUC__) || defined(__clang__))
#define SK_HAVE_AVX2_BUILD 1
#define SK_TARGET_AVX2 __attribute__((target("avx2")))
#endif

#endif /* SK_ARCH_X86_ISA_H */

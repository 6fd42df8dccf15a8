/* dtype x reduce instantiation, once for every scatter path. A path writes
 * its kernel as a static inline body taking the dtype and reduction as
 * constants, then stamps thin named wrappers (sk_pass_f32_sum, ...) with
 * SK_STAMP_REDUCES and fills a table indexed [dtype][reduce] with
 * SK_KERNEL_TABLE, so that grep and a debugger see every kernel by name.
 * Assign moves bits: its kernels are stamped by element width
 * (SK_STAMP_WIDTHS, 4 entries), not by dtype. */
#ifndef SK_CPU_SCATTER_STAMP_H
#define SK_CPU_SCATTER_STAMP_H

#include "cpu/cpu.h"

enum { SK_REDUCE_COUNT = SK_REDUCE_AMIN + 1 };

/* X(dtype, short name, reduce, short name) for every dtype and every
 * reduction but assign. */
#define SK_STAMP_REDUCES_OF(X, DT, N)                                                              \
    X(DT, N, SK_REDUCE_SUM, sum) X(DT, N, SK_REDUCE_PROD, prod) X(DT, N, SK_REDUCE_MEAN, mean)     \
    X(DT, N, SK_REDUCE_AMAX, amax) X(DT, N, SK_REDUCE_AMIN, amin)
/* The dtypes in four groups: the heaviest kernel files stamp one group per
 * translation unit (<kernels>_<group>.c), so that no file dominates a
 * parallel build; the file with the tables declares them all. */
#define SK_STAMP_SMALL_INTS(X)                                                                     \
    SK_STAMP_REDUCES_OF(X, SK_DTYPE_BOOL, boolean) SK_STAMP_REDUCES_OF(X, SK_DTYPE_UINT8, u8)      \
    SK_STAMP_REDUCES_OF(X, SK_DTYPE_INT8, i8) SK_STAMP_REDUCES_OF(X, SK_DTYPE_INT16, i16)
#define SK_STAMP_WIDE_INTS(X)                                                                      \
    SK_STAMP_REDUCES_OF(X, SK_DTYPE_INT32, i32) SK_STAMP_REDUCES_OF(X, SK_DTYPE_INT64, i64)
#define SK_STAMP_HALVES(X)                                                                         \
    SK_STAMP_REDUCES_OF(X, SK_DTYPE_FLOAT16, f16) SK_STAMP_REDUCES_OF(X, SK_DTYPE_BFLOAT16, bf16)
#define SK_STAMP_FLOATS(X)                                                                         \
    SK_STAMP_REDUCES_OF(X, SK_DTYPE_FLOAT32, f32) SK_STAMP_REDUCES_OF(X, SK_DTYPE_FLOAT64, f64)
#define SK_STAMP_REDUCES(X)                                                                        \
    SK_STAMP_SMALL_INTS(X) SK_STAMP_WIDE_INTS(X) SK_STAMP_HALVES(X) SK_STAMP_FLOATS(X)
/* X(dtype of that width, width in bytes) for assign. */
#define SK_STAMP_WIDTHS(X)                                                                         \
    X(SK_DTYPE_UINT8, 1) X(SK_DTYPE_INT16, 2) X(SK_DTYPE_INT32, 4) X(SK_DTYPE_INT64, 8)

/* The row of dtype N in a table of kernels NAME_<N>_<reduce>; ASSIGN is its
 * assign entry. */
#define SK_KERNEL_ROW(NAME, N, ASSIGN)                                                             \
    {ASSIGN, NAME##_##N##_sum, NAME##_##N##_prod, NAME##_##N##_mean, NAME##_##N##_amax,           \
     NAME##_##N##_amin}
/* The [dtype][reduce] table of kernels NAME_<dtype>_<reduce>, assign taken
 * from NAME_assign<width> (SK_KERNEL_TABLE) or absent (SK_REDUCE_TABLE). */
#define SK_KERNEL_TABLE(NAME)                                                                      \
    {SK_KERNEL_ROW(NAME, boolean, NAME##_assign1), SK_KERNEL_ROW(NAME, u8, NAME##_assign1),           \
     SK_KERNEL_ROW(NAME, i8, NAME##_assign1),   SK_KERNEL_ROW(NAME, i16, NAME##_assign2),          \
     SK_KERNEL_ROW(NAME, i32, NAME##_assign4),  SK_KERNEL_ROW(NAME, i64, NAME##_assign8),          \
     SK_KERNEL_ROW(NAME, f16, NAME##_assign2),  SK_KERNEL_ROW(NAME, bf16, NAME##_assign2),         \
     SK_KERNEL_ROW(NAME, f32, NAME##_assign4),  SK_KERNEL_ROW(NAME, f64, NAME##_assign8)}
#define SK_REDUCE_TABLE(NAME)                                                                      \
    {SK_KERNEL_ROW(NAME, boolean, NULL), SK_KERNEL_ROW(NAME, u8, NULL),                               \
     SK_KERNEL_ROW(NAME, i8, NULL),   SK_KERNEL_ROW(NAME, i16, NULL),                              \
     SK_KERNEL_ROW(NAME, i32, NULL),  SK_KERNEL_ROW(NAME, i64, NULL),                              \
     SK_KERNEL_ROW(NAME, f16, NULL),  SK_KERNEL_ROW(NAME, bf16, NULL),                             \
     SK_KERNEL_ROW(NAME, f32, NULL),  SK_KERNEL_ROW(NAME, f64, NULL)}

#endif /* SK_CPU_SCATTER_STAMP_H */

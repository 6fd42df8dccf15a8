/* The base layer: status and messages, checked arithmetic, shape helpers.
 * Knows nothing of operators, devices or threads. Everything else includes it. */
#ifndef SK_BASE_H
#define SK_BASE_H

#include "scatterkit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Internal functions that are not static: a cloned one (SK_HOT) is an ifunc,
 * which -fvisibility=hidden alone leaves exported from the shared library. */
#if defined(__GNUC__)
#define SK_INTERNAL __attribute__((visibility("hidden")))
#else
#define SK_INTERNAL
#endif

#if defined(__GNUC__) && !defined(SK_NO_FORCED_INLINE)
#define SK_INLINE static inline __attribute__((always_inline))
#else
#define SK_INLINE static inline
#endif
#if defined(__GNUC__)
#define SK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SK_PRINTF(a, b)
#define SK_LIKELY(x) (x)
#define SK_UNLIKELY(x) (x)
#endif

/* ---- errors (status.c) ---- */
/* Formats the thread-local message and returns `status`. */
sk_status sk_fail(sk_status status, const char *fmt, ...) SK_PRINTF(2, 3);
void sk_clear_error(void);
/* Records the name of the path about to run, for sk_last_kernel(). */
void sk_note_kernel(const char *name);
/* For the tests that run every path (tests/c/test_paths.c): while a name is
 * forced on this thread, a path table runs the path of that name when it
 * applies, and nothing when it does not (out is left as it was, the call
 * returns SK_STATUS_OK and sk_last_kernel() names no path: running the
 * usual choice instead, once per forced name, was most of the test's time).
 * NULL: no path forced. */
void sk_force_kernel(const char *name);
const char *sk_forced_kernel(void);

/* ---- checked 64-bit arithmetic ---- */
SK_INLINE bool sk_mul_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_mul_overflow(a, b, r);
}
SK_INLINE bool sk_add_overflows(int64_t a, int64_t b, int64_t *r) {
    return __builtin_add_overflow(a, b, r);
}

/* ---- shapes (tensor.c) ---- */
/* Formats a shape as "[2, 3]" into buf. */
const char *sk_format_shape(char *buf, size_t size, int32_t ndim, const int64_t *shape);
/* The checked size product every shape computation goes through: the
 * number of elements of a shape (0 when any size is 0, however large the
 * others), -1 when it does not fit in 64 bits or a size is negative. */
int64_t sk_numel(int32_t ndim, const int64_t *shape);
/* sk_numel as a status: SK_STATUS_SIZE_OVERFLOW naming op and what. */
sk_status sk_check_numel(const char *op, const char *what, int32_t ndim, const int64_t *shape,
                         int64_t *n);
/* Row-major linear strides of a shape (of an empty shape: saturated where
 * the product of sizes would overflow; no element is ever at them). */
void sk_linear_strides(int32_t ndim, const int64_t *shape, int64_t *lin);
/* The name of the operator's x in messages: the backward of a gather-type
 * operator writes grad_x where the forward reads x. */
SK_INLINE const char *sk_x_arg(const char *op) {
    size_t n = strlen(op);
    return n > 9 && strcmp(op + n - 9, "_backward") == 0 ? "grad_x" : "x";
}
/* Size and stride of an axis; a 0-d tensor counts as one element on axis 0. */
SK_INLINE int64_t sk_axis_size(const sk_tensor *t, int32_t axis) {
    return t->ndim ? t->shape[axis] : 1;
}
SK_INLINE int64_t sk_axis_stride(const sk_tensor *t, int32_t axis) {
    return t->ndim ? t->strides[axis] : 0;
}
bool sk_same_layout(const sk_tensor *a, const sk_tensor *b);
/* Whether t is laid out row-major without gaps (size-1 dimensions aside). */
bool sk_row_major(const sk_tensor *t);
/* A descriptor with t's shape and row-major strides (no data): building a
 * plan over it yields row-major linear strides. */
sk_tensor sk_row_major_like(const sk_tensor *t);
/* Element offsets of a tensor in row-major order: sk_walk_seek puts coord
 * at position pos and returns its offset; sk_walk_next steps to the next. */
SK_INLINE int64_t sk_walk_seek(const sk_tensor *t, int64_t pos, int64_t *coord) {
    int64_t off = 0;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        coord[d] = pos % t->shape[d];
        pos /= t->shape[d];
        off += coord[d] * t->strides[d];
    }
    return off;
}
/* Never steps a stride past the last element of a dimension: with an
 * extreme stride that offset need not fit in 64 bits. */
SK_INLINE void sk_walk_next(const sk_tensor *t, int64_t *coord, int64_t *off) {
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
        if (++coord[d] < t->shape[d]) {
            *off += t->strides[d];
            return;
        }
        *off -= (coord[d] - 1) * t->strides[d];
        coord[d] = 0;
    }
}
/* Static partition of [0, n) among nthreads: thread tid gets [*lo, *hi). */
SK_INLINE void sk_partition(int64_t n, int tid, int nthreads, int64_t *lo, int64_t *hi) {
    int64_t q = n / nthreads, r = n % nthreads;
    *lo = q * tid + (tid < r ? tid : r);
    *hi = *lo + q + (tid < r ? 1 : 0);
}

#endif /* SK_BASE_H */

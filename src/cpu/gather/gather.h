/* What the gather paths share: reporting unresolved index values, fills,
 * the last-axis kernels and the generic walk. */
#ifndef SK_CPU_GATHER_H
#define SK_CPU_GATHER_H

#include "cpu/cursor.h"
#include "cpu/gather/path.h"

/* An index value could not be resolved: in ERROR mode (checked in the
 * kernel) that is the error; otherwise the fill value is written. */
SK_INLINE void sk_gather_unresolved(const sk_plan *p, const sk_exec *ex) {
    if (p->mode == SK_INDEX_MODE_ERROR && ex->invalid)
        __atomic_store_n(ex->invalid, 1, __ATOMIC_RELAXED);
}

/* Whether a bad value was found (in-kernel check): the result will be thrown
 * away, so the walks stop at their next run instead of finishing the whole
 * out (a bad value near the start of a huge result would otherwise take as
 * long to report as the whole gather). */
SK_INLINE bool sk_gather_failed(const sk_exec *ex) {
    return ex->invalid && __atomic_load_n(ex->invalid, __ATOMIC_RELAXED);
}

SK_INLINE void sk_fill_run(char *dst, int64_t ds, const void *value, int64_t n, size_t es) {
    static const uint64_t zero = 0;
    if (!value) value = &zero;
    for (int64_t j = 0; j < n; j++) memcpy(dst + (ptrdiff_t)(j * ds) * (ptrdiff_t)es, value, es);
}

/* Along a contiguous last axis (last_axis.c): o[j] = x[ix[j]] for j < run,
 * false when a value was outside [0, n) after wrapping (the run is then to
 * be redone by the careful loop). */
#define SK_LAST_AXIS_DECLARE(T, IT)                                                                \
    SK_INTERNAL bool sk_gather_last_axis_##T##_##IT(T *restrict o, const T *restrict x,            \
                                                    const IT *restrict ix, int64_t run, int64_t n, \
                                                    bool stream, bool past_l2);
SK_LAST_AXIS_DECLARE(uint8_t, int32_t)
SK_LAST_AXIS_DECLARE(uint8_t, int64_t)
SK_LAST_AXIS_DECLARE(uint16_t, int32_t)
SK_LAST_AXIS_DECLARE(uint16_t, int64_t)
SK_LAST_AXIS_DECLARE(uint32_t, int32_t)
SK_LAST_AXIS_DECLARE(uint32_t, int64_t)
SK_LAST_AXIS_DECLARE(uint64_t, int32_t)
SK_LAST_AXIS_DECLARE(uint64_t, int64_t)
#undef SK_LAST_AXIS_DECLARE

/* The generic walk (generic.c) over positions [lo, hi) of p, run by run;
 * with last_axis, runs of one index component along a contiguous last axis
 * go to the last-axis kernels. Fences streamed stores before it returns. */
void sk_gather_positions(const sk_plan *p, const sk_exec *ex, int64_t lo, int64_t hi,
                         bool last_axis);
/* The generic walk over all of p, in parallel chunks of positions. */
sk_status sk_gather_run_positions(const sk_plan *p, const sk_exec *ex, bool last_axis);

#endif /* SK_CPU_GATHER_H */

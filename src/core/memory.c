/* Fresh outputs: getting their pages from the kernel cheaply. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "internal.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* A result allocated for this call has never been touched: each 4 KB page
 * faults on its first write, and for tens of megabytes the faults cost more
 * than the gather itself (8192 faults for 32 MB). Where the kernel offers
 * transparent huge pages on request, ask for them over the 2 MB-aligned
 * interior and take the faults here, one per 2 MB, from this thread
 * (huge-page faults taken from several threads at once were slower on the
 * reference machine than from one). Where huge pages are not given, one
 * small page per 2 MB is touched and the kernel's writes fault the rest as
 * before. The bytes written are zeros in memory the kernel overwrites. */
void sk_prepare_fresh(void *data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)1 << 21;
    if (bytes < 4 * huge) return;
    uintptr_t lo = ((uintptr_t)data + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)data + bytes) & ~(huge - 1);
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_HUGEPAGE) != 0) return;
    for (uintptr_t a = lo; a < hi; a += huge) *(volatile char *)a = 0;
#else
    (void)data;
    (void)bytes;
#endif
}

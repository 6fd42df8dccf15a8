/* Status strings and the thread-local message of the last failure. */
#include "base/base.h"

#include <stdio.h>

static _Thread_local char sk_error_message[512];
/* The name of the path the last call on this thread ran (a string literal). */
static _Thread_local const char *sk_kernel_name = "";
static _Thread_local const char *sk_kernel_forced = NULL;

const char *sk_status_string(sk_status status) {
    switch (status) {
    case SK_STATUS_OK: return "ok";
    case SK_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case SK_STATUS_INVALID_DTYPE: return "invalid dtype";
    case SK_STATUS_INVALID_SHAPE: return "invalid shape";
    case SK_STATUS_INDEX_OUT_OF_RANGE: return "index out of range";
    case SK_STATUS_OVERLAP: return "output overlaps an input";
    case SK_STATUS_OUT_OF_MEMORY: return "out of memory";
    case SK_STATUS_SIZE_OVERFLOW: return "size overflow";
    case SK_STATUS_UNSUPPORTED_DEVICE: return "unsupported device";
    case SK_STATUS_NULL_POINTER: return "null pointer";
    case SK_STATUS_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *sk_last_error(void) { return sk_error_message; }

void sk_clear_error(void) { sk_error_message[0] = '\0'; }

sk_status sk_fail(sk_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sk_error_message, sizeof sk_error_message, fmt, ap);
    va_end(ap);
    return status;
}

void sk_note_kernel(const char *name) { sk_kernel_name = name; }

const char *sk_last_kernel(void) { return sk_kernel_name; }

void sk_force_kernel(const char *name) { sk_kernel_forced = name; }

const char *sk_forced_kernel(void) { return sk_kernel_forced; }

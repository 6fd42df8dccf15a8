/* The blocked-rows kernels of int32, int64 (tables in blocked_rows_kernels.c). */
#define SK_STAMP_GROUP SK_STAMP_WIDE_INTS
#include "cpu/scatter/blocked_rows_stamp.h"

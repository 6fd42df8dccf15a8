/* The blocked-rows kernels of float16, bfloat16 (tables in blocked_rows_kernels.c). */
#define SK_STAMP_GROUP SK_STAMP_HALVES
#include "cpu/scatter/blocked_rows_stamp.h"

/* The blocked-rows kernels of float32, float64 (tables in blocked_rows_kernels.c). */
#define SK_STAMP_GROUP SK_STAMP_FLOATS
#include "cpu/scatter/blocked_rows_stamp.h"

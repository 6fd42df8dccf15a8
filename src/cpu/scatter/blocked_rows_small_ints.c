/* The blocked-rows kernels of bool, uint8, int8, int16 (tables in blocked_rows_kernels.c). */
#define SK_STAMP_GROUP SK_STAMP_SMALL_INTS
#include "cpu/scatter/blocked_rows_stamp.h"

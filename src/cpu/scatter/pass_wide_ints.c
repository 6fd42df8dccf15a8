/* The owner-computes kernels of int32, int64 (tables in pass.c). */
#define SK_STAMP_GROUP SK_STAMP_WIDE_INTS
#include "cpu/scatter/pass_stamp.h"

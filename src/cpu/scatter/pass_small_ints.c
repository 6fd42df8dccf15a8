/* The owner-computes kernels of bool, uint8, int8, int16 (tables in pass.c). */
#define SK_STAMP_GROUP SK_STAMP_SMALL_INTS
#include "cpu/scatter/pass_stamp.h"

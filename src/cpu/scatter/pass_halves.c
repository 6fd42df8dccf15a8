/* The owner-computes kernels of float16, bfloat16 (tables in pass.c). */
#define SK_STAMP_GROUP SK_STAMP_HALVES
#include "cpu/scatter/pass_stamp.h"

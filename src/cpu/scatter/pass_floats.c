/* The owner-computes kernels of float32, float64 (tables in pass.c). */
#define SK_STAMP_GROUP SK_STAMP_FLOATS
#include "cpu/scatter/pass_stamp.h"

/* The segments kernels of float32, float64 (tables in segments_kernels.c). */
#include "cpu/scatter/segments_fold.h"

SK_STAMP_FLOATS(SK_DEFINE_SEG_KERNELS)

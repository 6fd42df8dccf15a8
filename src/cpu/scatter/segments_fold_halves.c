/* The segments kernels of float16, bfloat16 (tables in segments_kernels.c). */
#include "cpu/scatter/segments_fold.h"

SK_STAMP_HALVES(SK_DEFINE_SEG_KERNELS)

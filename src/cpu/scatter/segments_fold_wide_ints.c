/* The segments kernels of int32, int64 (tables in segments_kernels.c). */
#include "cpu/scatter/segments_fold.h"

SK_STAMP_WIDE_INTS(SK_DEFINE_SEG_KERNELS)

/* The segments kernels of bool, uint8, int8, int16 (tables in segments_kernels.c). */
#include "cpu/scatter/segments_fold.h"

SK_STAMP_SMALL_INTS(SK_DEFINE_SEG_KERNELS)

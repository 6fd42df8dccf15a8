/* The DLPack codes sk_tensor_from_dlpack (tensor.c) reads; the DLTensor
 * layout itself is the public scatterkit_dlpack.h, shared with the Python
 * binding. */
#ifndef SK_CORE_DLPACK_H
#define SK_CORE_DLPACK_H

#include <stdint.h>

#include "scatterkit_dlpack.h" /* the DLTensor layout */

enum { SK_DL_INT = 0, SK_DL_UINT = 1, SK_DL_FLOAT = 2, SK_DL_BFLOAT = 4, SK_DL_BOOL = 6 };
enum { SK_DL_CPU = 1 };

#endif

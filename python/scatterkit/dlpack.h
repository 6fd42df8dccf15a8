/* The DLPack ABI as the binding uses it: the managed-tensor wrappers around
 * the library's DLTensor layout. Only the layouts are needed; they are fixed
 * by the DLPack standard (DLManagedTensorVersioned is the 1.x form). */
#ifndef SCATTERKIT_PY_DLPACK_H
#define SCATTERKIT_PY_DLPACK_H

#include <stdint.h>

#include "core/dlpack.h" /* struct DLTensor, the dtype and device codes */

typedef struct dl_managed {
    struct DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed *self);
} dl_managed;

typedef struct dl_managed_versioned {
    struct {
        uint32_t major;
        uint32_t minor;
    } version;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_versioned *self);
    uint64_t flags;
    struct DLTensor dl_tensor;
} dl_managed_versioned;

#define DL_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define DL_FLAG_IS_COPIED (UINT64_C(1) << 1)
#define DL_SUPPORTED_MAJOR 1u

#endif

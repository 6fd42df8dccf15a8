/* The DLPack ABI as the binding uses it, fixed by the DLPack standard: the
 * DLTensor layout (the library's public scatterkit_dlpack.h; the library
 * reads it through sk_tensor_from_dlpack) and the managed-tensor wrappers
 * around it (DLManagedTensorVersioned is the 1.x form). */
#ifndef SCATTERKIT_PY_DLPACK_H
#define SCATTERKIT_PY_DLPACK_H

#include <stdint.h>

#include "scatterkit_dlpack.h" /* the DLTensor layout */

enum { DL_CODE_UINT = 1 };
enum { DL_DEVICE_CPU = 1 };

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

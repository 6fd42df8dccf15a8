/* The layout of DLPack's DLTensor (the same in DLPack 0.x and 1.x) and the
 * codes the library reads: one definition for sk_tensor_from_dlpack
 * (tensor.c) and the Python binding. The public header only names the type,
 * so that programs may include DLPack's own header next to it. */
#ifndef SK_CORE_DLPACK_H
#define SK_CORE_DLPACK_H

#include <stdint.h>

struct DLTensor {
    void *data;
    struct {
        int32_t device_type;
        int32_t device_id;
    } device;
    int32_t ndim;
    struct {
        uint8_t code;
        uint8_t bits;
        uint16_t lanes;
    } dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
};

enum { SK_DL_INT = 0, SK_DL_UINT = 1, SK_DL_FLOAT = 2, SK_DL_BFLOAT = 4, SK_DL_BOOL = 6 };
enum { SK_DL_CPU = 1 };

#endif

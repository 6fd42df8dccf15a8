/*
 * scatterkit_dlpack.h - the layout of DLPack's DLTensor (the same in DLPack
 * 0.x and 1.x), for programs that hand tensors to sk_tensor_from_dlpack
 * without DLPack's own header (the Python binding does). A program that
 * includes DLPack's dlpack.h needs nothing from here: scatterkit.h only
 * names the type.
 */
#ifndef SCATTERKIT_DLPACK_H
#define SCATTERKIT_DLPACK_H

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

#endif /* SCATTERKIT_DLPACK_H */

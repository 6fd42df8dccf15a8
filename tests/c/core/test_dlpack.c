/* DLPack conversion. */
#include "core.h"
#include "harness.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* DLPack                                                                   */
/* ------------------------------------------------------------------------ */

/* DLPack's DLTensor, written out here: the library must accept this layout
 * without our including dlpack.h. */
typedef struct {
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
} test_dltensor;

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6 };

static sk_status from_dl(test_dltensor *dl, sk_tensor *t) {
    return sk_tensor_from_dlpack((const struct DLTensor *)(void *)dl, t);
}

/* every dtype DLPack can express that scatterkit has, and some it has not;
 * a byte_offset that misaligns or wraps */
static void dlpack_dtypes(test_dltensor *dl) {
    sk_tensor t;
    sk_status st;
    static const struct {
        uint8_t code, bits;
        sk_dtype dt;
    } ok[] = {
        {DL_BOOL, 8, SK_DTYPE_BOOL},      {DL_UINT, 8, SK_DTYPE_UINT8},
        {DL_INT, 8, SK_DTYPE_INT8},       {DL_INT, 16, SK_DTYPE_INT16},
        {DL_INT, 32, SK_DTYPE_INT32},     {DL_INT, 64, SK_DTYPE_INT64},
        {DL_FLOAT, 16, SK_DTYPE_FLOAT16}, {DL_BFLOAT, 16, SK_DTYPE_BFLOAT16},
        {DL_FLOAT, 32, SK_DTYPE_FLOAT32}, {DL_FLOAT, 64, SK_DTYPE_FLOAT64},
    };
    dl->byte_offset = 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        dl->dtype.code = ok[i].code;
        dl->dtype.bits = ok[i].bits;
        st = from_dl(dl, &t);
        SKT_CHECK(st == SK_STATUS_OK && t.dtype == ok[i].dt,
                  "from_dlpack code %u bits %u: %s, dtype %s (expected %s)", ok[i].code,
                  ok[i].bits, sk_status_string(st), sk_dtype_name(t.dtype),
                  sk_dtype_name(ok[i].dt));
    }
    static const struct {
        uint8_t code, bits;
        uint16_t lanes;
    } bad[] = {
        {DL_UINT, 16, 1}, {DL_UINT, 32, 1}, {DL_FLOAT, 8, 1}, {DL_BFLOAT, 32, 1},
        {DL_COMPLEX, 64, 1}, {DL_FLOAT, 32, 4}, {DL_INT, 32, 0}, {99, 32, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dl->dtype.code = bad[i].code;
        dl->dtype.bits = bad[i].bits;
        dl->dtype.lanes = bad[i].lanes;
        st = from_dl(dl, &t);
        SKT_CHECK(st == SK_STATUS_INVALID_DTYPE,
                  "from_dlpack code %u bits %u lanes %u: %s, expected invalid dtype", bad[i].code,
                  bad[i].bits, bad[i].lanes, sk_status_string(st));
    }
    dl->dtype.code = DL_FLOAT;
    dl->dtype.bits = 32;
    dl->dtype.lanes = 1;
    dl->byte_offset = 2; /* not a multiple of 4 */
    st = from_dl(dl, &t);
    SKT_CHECK(st != SK_STATUS_OK, "from_dlpack float32 with byte_offset 2 must be refused");
    dl->byte_offset = UINT64_MAX - 3; /* a multiple of 4 that wraps the pointer around */
    st = from_dl(dl, &t);
    SKT_CHECK(st == SK_STATUS_SIZE_OVERFLOW, "from_dlpack with byte_offset 2^64 - 4: %s",
              sk_status_string(st));
    dl->byte_offset = 0;
}

/* ndim limits, 0-d, the device kept, NULL arguments */
static void dlpack_shapes(test_dltensor *dl, int64_t *shape) {
    sk_tensor t;
    sk_status st;
    int64_t many[SK_MAX_DIMS + 1];
    for (int i = 0; i <= SK_MAX_DIMS; i++) many[i] = 1;
    dl->shape = many;
    dl->strides = NULL;
    dl->ndim = SK_MAX_DIMS + 1;
    st = from_dl(dl, &t);
    SKT_CHECK(st == SK_STATUS_INVALID_SHAPE, "from_dlpack with ndim %d: %s", SK_MAX_DIMS + 1,
              sk_status_string(st));
    dl->ndim = SK_MAX_DIMS;
    st = from_dl(dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.ndim == SK_MAX_DIMS, "from_dlpack with ndim %d: %s",
              SK_MAX_DIMS, sk_status_string(st));

    dl->ndim = 0; /* a 0-d tensor may have shape NULL */
    dl->shape = NULL;
    st = from_dl(dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.ndim == 0, "from_dlpack 0-d: %s", sk_status_string(st));

    dl->ndim = 2;
    dl->shape = shape;
    dl->device.device_type = 2; /* kDLCUDA */
    dl->device.device_id = 1;
    st = from_dl(dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.device_type == SK_DEVICE_CUDA && t.device_id == 1,
              "from_dlpack keeps the device: %s, device %d:%d", sk_status_string(st),
              (int)t.device_type, (int)t.device_id);

    st = from_dl(NULL, &t);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "from_dlpack(NULL): %s", sk_status_string(st));
    st = from_dl(dl, NULL);
    SKT_CHECK(st == SK_STATUS_NULL_POINTER, "from_dlpack(dl, NULL): %s", sk_status_string(st));
}

void test_dlpack(void) {
    double buf[64];
    int64_t shape[2] = {3, 4}, strides[2] = {1, 3};
    test_dltensor dl = {buf, {1, 0}, 2, {DL_FLOAT, 32, 1}, shape, NULL, 0};
    sk_tensor t;
    memset(&t, 0xab, sizeof t);
    sk_status st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK, "from_dlpack float32 [3, 4]: %s (%s)", sk_status_string(st),
              sk_last_error());
    SKT_CHECK(t.data == (void *)buf && t.dtype == SK_DTYPE_FLOAT32 && t.ndim == 2 &&
                  t.shape[0] == 3 && t.shape[1] == 4 && t.strides[0] == 4 && t.strides[1] == 1 &&
                  t.device_type == SK_DEVICE_CPU && t.device_id == 0,
              "from_dlpack float32 [3, 4] with NULL strides: wrong descriptor");

    dl.strides = strides;
    dl.byte_offset = 8;
    st = from_dl(&dl, &t);
    SKT_CHECK(st == SK_STATUS_OK && t.data == (void *)((char *)buf + 8) && t.strides[0] == 1 &&
                  t.strides[1] == 3,
              "from_dlpack with strides and byte_offset 8: %s", sk_status_string(st));
    dlpack_dtypes(&dl);
    dlpack_shapes(&dl, shape);
}

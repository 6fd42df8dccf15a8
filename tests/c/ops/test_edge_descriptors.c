/*
 * Descriptors at the edges of what the API accepts: strides near INT64_MAX
 * (refused with SIZE_OVERFLOW, or harmless on a size-1 axis), an index whose
 * tuple length does not fit beside batch_dims, and x's own descriptor passed
 * again as another input of an in-place call (an overlap like any other, not
 * the in-place x). Under UBSan an overflow in the checks stops the test.
 */
#include "tester.h"

#include <string.h>

static void edge_overlaps(float *x, const int64_t *n2, const int64_t *n4);
static void edge_backward_messages(float *x, float *out, float *src);


void skt_test_edge_descriptors(void) {
    if (!sk_copy || !sk_diagonal_scatter || !sk_gather_nd_shape || !sk_scatter ||
        !sk_index_scatter || !sk_slice_scatter || !sk_tensor_scatter)
        return;
    float x[4] = {1, 2, 3, 4}, out[4] = {0}, src[1] = {7};
    int64_t n4[1] = {4}, n2[1] = {2}, big[1] = {INT64_MAX}, sh13[2] = {1, 3}, st13[2] = {INT64_MAX, 1},
            n1[1] = {1};
    sk_tensor tx, to, ts;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 1, n2, big);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 1, n2, NULL);
    if (sk_copy(&tx, &to, NULL) != SK_STATUS_SIZE_OVERFLOW)
        skt_fail("edge descriptors: a stride of INT64_MAX over 2 elements: %s", sk_last_error());
    big[0] = INT64_MIN + 1;
    if (sk_copy(&tx, &to, NULL) != SK_STATUS_SIZE_OVERFLOW)
        skt_fail("edge descriptors: a stride of INT64_MIN + 1 over 2 elements: %s", sk_last_error());
    /* a size-1 axis with a huge stride: its diagonal has one element */
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, sh13, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, sh13, st13);
    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 1, n1, NULL);
    if (sk_diagonal_scatter(&tx, &ts, 0, 0, 1, &to, NULL))
        skt_fail("edge descriptors: diagonal_scatter: %s", sk_last_error());
    else if (out[0] != 7 || out[1] != 2 || out[2] != 3)
        skt_fail("edge descriptors: diagonal_scatter wrote %g %g %g", out[0], out[1], out[2]);
    /* index.shape[-1] = INT64_MAX (zero strides, one element of data) */
    int64_t i0 = 0, is[2] = {1, INT64_MAX}, ist[2] = {0, 0}, shp[SK_MAX_DIMS];
    int32_t nd;
    sk_tensor ti;
    sk_tensor_init(&ti, &i0, SK_DTYPE_INT64, 2, is, ist);
    if (sk_gather_nd_shape(&tx, &ti, 1, &nd, shp) != SK_STATUS_INVALID_SHAPE)
        skt_fail("edge descriptors: gather_nd_shape with k = INT64_MAX: %s", sk_last_error());
    /* the shape helpers refuse an index dtype that the operators refuse */
    float fidx[3] = {0, 0, 0};
    int64_t f13[2] = {1, 3};
    sk_tensor tf;
    sk_tensor_init(&tf, fidx, SK_DTYPE_FLOAT32, 2, f13, NULL);
    if (sk_gather_shape && sk_gather_shape(&tx, &tf, 1, &nd, shp) != SK_STATUS_INVALID_DTYPE)
        skt_fail("edge descriptors: gather_shape with a float32 index: %s", sk_last_error());
    if (sk_index_select_shape &&
        sk_index_select_shape(&tx, &tf, 1, &nd, shp) != SK_STATUS_INVALID_DTYPE)
        skt_fail("edge descriptors: index_select_shape with a float32 index: %s", sk_last_error());
    if (sk_gather_nd_shape(&tx, &tf, 0, &nd, shp) != SK_STATUS_INVALID_DTYPE)
        skt_fail("edge descriptors: gather_nd_shape with a float32 index: %s", sk_last_error());
    edge_overlaps(x, n2, n4);
    edge_backward_messages(x, out, src);
}

/* x's descriptor as src, updates, another view: refused, x unchanged */
static void edge_overlaps(float *x, const int64_t *n2, const int64_t *n4) {
    sk_tensor tx, ti;
    int64_t id[4] = {3, 2, 1, 0}, wi[2] = {1, 1};
    sk_tensor tw, tc;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 1, n4, NULL);
    sk_tensor_init(&ti, id, SK_DTYPE_INT64, 1, n4, NULL);
    sk_status st[4];
    st[0] = sk_scatter(&tx, &ti, &tx, 0, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR, &tx, NULL);
    st[1] = sk_index_scatter(&tx, &ti, &tx, 0, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR, &tx, NULL);
    int32_t ax0 = 0;
    int64_t none = SK_SLICE_NONE, back = -1;
    st[2] = sk_slice_scatter(&tx, &tx, 1, &ax0, &none, &none, &back, &tx, NULL);
    int64_t c24[2] = {2, 2};
    sk_tensor_init(&tc, x, SK_DTYPE_FLOAT32, 2, c24, NULL);
    sk_tensor_init(&tw, wi, SK_DTYPE_INT64, 1, n2, NULL);
    st[3] = sk_tensor_scatter(&tc, &tc, &tw, 1, SK_TENSOR_SCATTER_CIRCULAR, &tc, NULL);
    for (int k = 0; k < 4; k++)
        if (st[k] != SK_STATUS_OVERLAP)
            skt_fail("edge descriptors: x passed again as an input (case %d): status %d", k,
                     (int)st[k]);
    for (int k = 0; k < 4; k++)
        if (x[k] != (float)(k + 1)) skt_fail("edge descriptors: x written on a refused call");
}

static void edge_backward_messages(float *x, float *out, float *src) {
    int64_t n4[1] = {4}, c24[2] = {2, 2}, id[4] = {3, 2, 1, 0};
    sk_tensor tx, ti, to, ts, tc;
    /* tensor_scatter of a cache without elements but 2^40 batches: no walk
     * over the batches (it took minutes) */
    int64_t huge[3] = {(int64_t)1 << 40, 0, 5}, upd[3] = {(int64_t)1 << 40, 0, 2};
    sk_tensor_init(&tc, x, SK_DTYPE_FLOAT32, 3, huge, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 3, huge, NULL);
    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 3, upd, NULL);
    if (sk_tensor_scatter(&tc, &ts, NULL, 2, SK_TENSOR_SCATTER_LINEAR, &to, NULL))
        skt_fail("edge descriptors: tensor_scatter of an empty cache: %s", sk_last_error());
    if (sk_tensor_scatter_backward(&to, NULL, 2, SK_TENSOR_SCATTER_LINEAR, NULL, &ts, NULL))
        skt_fail("edge descriptors: tensor_scatter_backward of an empty cache: %s",
                 sk_last_error());
    /* a backward's messages name the backward and its grad_x */
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 1, n4, NULL);
    sk_tensor_init(&ti, id, SK_DTYPE_INT64, 1, n4, NULL);
    if (sk_gather_backward(&tx, &ti, 0, SK_INDEX_MODE_ERROR, NULL, NULL) != SK_STATUS_NULL_POINTER ||
        !strstr(sk_last_error(), "gather_backward: grad_x"))
        skt_fail("edge descriptors: gather_backward without grad_x: %s", sk_last_error());
    if (sk_index_select_backward(&tx, &ti, 7, SK_INDEX_MODE_ERROR, &to, NULL) == SK_STATUS_OK ||
        strncmp(sk_last_error(), "index_select_backward:", 22) != 0)
        skt_fail("edge descriptors: index_select_backward, axis 7: %s", sk_last_error());
    sk_tensor_init(&ti, id, SK_DTYPE_INT64, 2, c24, NULL);
    if (sk_gather_nd_backward(&tx, &ti, 0, SK_INDEX_MODE_ERROR, NULL, NULL) == SK_STATUS_OK ||
        !strstr(sk_last_error(), "gather_nd_backward: grad_x"))
        skt_fail("edge descriptors: gather_nd_backward without grad_x: %s", sk_last_error());
}

/*
 * test_cuda_emulated_views.c - the backward of the view scatters (grad_src
 * summed onto a broadcast src's shape: the segment scheme without an index)
 * and of tensor_scatter (linear and circular) on the emulated CUDA backend
 * (see test_cuda_emulated.c), byte for byte against the CPU backend.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* Runs fn on the CPU tensors (dev 0) and on CUDA-flagged copies (dev 1):
 * in[] are inputs, out[] outputs (compared after the calls). */
typedef sk_status (*emu_fn)(sk_tensor *const *t, int param);

static void emu_compare(const char *what, emu_fn fn, int param, skt_buf *in, int nin,
                        skt_buf *out, int nout) {
    skt_buf twin[6];
    sk_tensor *args[2][6];
    int n = nin + nout;
    for (int i = 0; i < n; i++) {
        skt_clone(&twin[i], i < nin ? &in[i] : &out[i - nin]);
        twin[i].t.device_type = SK_DEVICE_CUDA;
        args[0][i] = i < nin ? &in[i].t : &out[i - nin].t;
        args[1][i] = &twin[i].t;
    }
    for (int dev = 0; dev < 2; dev++) {
        sk_status st = fn(args[dev], param);
        SKT_CHECK(st == SK_STATUS_OK, "%s (%s): %s", what, dev ? "emulated" : "cpu",
                  sk_last_error());
    }
    char why[512] = "";
    for (int i = nin; i < n; i++)
        SKT_CHECK(skt_compare(&twin[i], &out[i - nin], 0, why, sizeof why), "%s output %d: %s",
                  what, i - nin, why);
    for (int i = 0; i < n; i++) skt_free(&twin[i]);
}

/* grad_out [6, 10]; the view is columns 1, 3, 5, 7 (slice), row 2
 * (select) or the diagonal (diagonal); grad_src of src's (broadcast) shape. */
static sk_status view_backward(sk_tensor *const *t, int which) {
    int32_t axis = 1;
    int64_t start = 1, stop = 9, step = 2;
    if (which == 0)
        return sk_slice_scatter_backward(t[0], 1, &axis, &start, &stop, &step, t[1], t[2], NULL);
    if (which == 1) return sk_select_scatter_backward(t[0], 0, 2, t[1], t[2], NULL);
    return sk_diagonal_scatter_backward(t[0], 1, 0, 1, t[1], t[2], NULL);
}

static void test_views(skt_rng *r) {
    static const int64_t gs[2] = {6, 10}, src_shapes[3][2] = {{1, 4}, {10, 0}, {6, 0}};
    for (int dt = SK_DTYPE_FLOAT16; dt < SK_DTYPE_COUNT; dt++)
        for (int which = 0; which < 3; which++) {
            skt_buf in[1], out[2];
            skt_make(&in[0], (sk_dtype)dt, 2, gs, SKT_TRANSPOSED, 0, r);
            skt_fill(&in[0], r, SKT_VAL_REAL);
            skt_make(&out[0], (sk_dtype)dt, 2, gs, SKT_PADDED, 0, r);
            skt_make(&out[1], (sk_dtype)dt, which ? 1 : 2, src_shapes[which], SKT_CONTIG, 0, r);
            char what[64];
            snprintf(what, sizeof what, "view backward %d dtype %d", which, dt);
            emu_compare(what, view_backward, which, in, 1, out, 2);
            skt_free(&in[0]), skt_free(&out[0]), skt_free(&out[1]);
        }
}

static sk_status ts_backward(sk_tensor *const *t, int circular) {
    return sk_tensor_scatter_backward(t[0], t[1], 1,
                                      circular ? SK_TENSOR_SCATTER_CIRCULAR
                                               : SK_TENSOR_SCATTER_LINEAR,
                                      t[2], t[3], NULL);
}

/* cache [3, 8, 2], update [3, len, 2]; circular updates longer than the axis
 * overwrite their own first rows (those get 0). */
static void test_tensor_scatter(skt_rng *r) {
    static const int64_t cs[3] = {3, 8, 2}, batch = 3;
    for (int circular = 0; circular < 2; circular++) {
        int64_t us[3] = {3, circular ? 11 : 5, 2};
        skt_buf in[2], out[2];
        skt_make(&in[0], SK_DTYPE_FLOAT32, 3, cs, SKT_CONTIG, 0, r);
        skt_fill(&in[0], r, SKT_VAL_REAL);
        skt_make(&in[1], SK_DTYPE_INT64, 1, &batch, SKT_CONTIG, 0, r);
        int64_t lo = 0, hi = circular ? 20 : 3;
        skt_fill_index(&in[1], r, -1, &lo, &hi);
        skt_make(&out[0], SK_DTYPE_FLOAT32, 3, cs, SKT_PADDED, 0, r);
        skt_make(&out[1], SK_DTYPE_FLOAT32, 3, us, SKT_TRANSPOSED, 0, r);
        emu_compare(circular ? "tensor_scatter backward circular" : "tensor_scatter backward",
                    ts_backward, circular, in, 2, out, 2);
        skt_free(&in[0]), skt_free(&in[1]), skt_free(&out[0]), skt_free(&out[1]);
    }
}

static sk_status masked_backward(sk_tensor *const *t, int which) {
    if (which == 0) return sk_masked_scatter_backward(t[0], t[1], t[2], t[3], NULL);
    if (which == 1) return sk_masked_select_backward(t[0], t[1], t[2], NULL);
    return sk_masked_scatter(t[0], t[1], t[2], t[3], NULL);
}

/* masked_scatter's backward (grad_out [6, 10], a mask row [10] broadcast
 * over the rows, grad_source [70]), masked_select's (grad_x [6, 10]) and
 * masked_scatter itself. */
static void test_masked(skt_rng *r) {
    static const int64_t gs[2] = {6, 10}, ms = 10, ss = 70;
    for (int dt = SK_DTYPE_FLOAT16; dt < SK_DTYPE_COUNT; dt++)
        for (int which = 0; which < 3; which++) {
            skt_buf in[3], out[2];
            skt_make(&in[1], SK_DTYPE_BOOL, 1, &ms, SKT_CONTIG, 0, r);
            skt_fill_mask(&in[1], r, 50);
            int64_t ntrue = 0;
            for (int64_t c = 0; c < ms; c++) ntrue += ((uint8_t *)in[1].t.data)[c] != 0;
            int64_t n = 6 * ntrue;
            skt_make(&in[0], (sk_dtype)dt, which == 1 ? 1 : 2, which == 1 ? &n : gs, SKT_CONTIG,
                     0, r);
            skt_fill(&in[0], r, SKT_VAL_REAL);
            skt_make(&out[0], (sk_dtype)dt, 2, gs, SKT_TRANSPOSED, 0, r);
            skt_make(&out[1], (sk_dtype)dt, 1, &ss, SKT_PADDED, 0, r);
            skt_fill(&out[1], r, SKT_VAL_REAL);
            char what[64];
            snprintf(what, sizeof what, "masked %d dtype %d", which, dt);
            if (which == 2) { /* masked_scatter(x = in[0], mask, source = out[1]) into out[0] */
                skt_clone(&in[2], &out[1]);
                skt_buf x[3] = {in[0], in[1], in[2]};
                emu_compare(what, masked_backward, which, x, 3, out, 1);
                skt_free(&in[2]);
            } else {
                emu_compare(what, masked_backward, which, in, 2, out, which == 0 ? 2 : 1);
            }
            skt_free(&in[0]), skt_free(&in[1]), skt_free(&out[0]), skt_free(&out[1]);
        }
}

void skt_emulated_views(skt_rng *r) {
    test_masked(r);
    test_views(r);
    test_tensor_scatter(r);
}

/*
 * test_ops.c - one tester per operator, each comparing the library against
 * the reference in src/ref over sweeps of shapes (0-d and zero-size
 * included), every dtype, int32/int64 indices, every reduction and
 * include_self, the index modes, and stride layouts (contiguous, transposed,
 * padded, negative, mixed, zero-stride broadcast inputs), with 1, 2 and 3
 * threads; then the error contract: status, out untouched, message.
 *
 * Usage: test_ops <operator> | all. Each operator is its own ctest test.
 * An operator the library does not export yet fails its test (the entry
 * points are weak references, resolved to NULL when absent), so the other
 * testers still build and run.
 */
#include "harness.h"
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma weak sk_copy
#pragma weak sk_scatter_backward
#pragma weak sk_gather
#pragma weak sk_gather_shape
#pragma weak sk_gather_axes
#pragma weak sk_gather_axes_shape
#pragma weak sk_index_select
#pragma weak sk_index_select_shape
#pragma weak sk_gather_nd
#pragma weak sk_gather_nd_shape
#pragma weak sk_masked_select
#pragma weak sk_masked_select_count
#pragma weak sk_scatter
#pragma weak sk_scatter_axes
#pragma weak sk_index_scatter
#pragma weak sk_scatter_nd
#pragma weak sk_slice_scatter
#pragma weak sk_diagonal_scatter
#pragma weak sk_select_scatter
#pragma weak sk_masked_scatter
#pragma weak sk_tensor_scatter
#define SKT_MISSING(fn) ((void (*)(void))(fn) == NULL)
#else
#define SKT_MISSING(fn) 0
#endif

/* Fails the tester when the library does not export fn. */
#define REQUIRE_OP(fn)                                                                          \
    do {                                                                                        \
        if (SKT_MISSING(fn)) {                                                                  \
            skt_fail("%s is not exported by the library (not implemented yet)", #fn);           \
            return;                                                                             \
        }                                                                                       \
    } while (0)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const sk_dtype index_dtypes[2] = {SK_DTYPE_INT32, SK_DTYPE_INT64};

/* Every argument any operator takes besides x and out. */
typedef struct {
    const skt_buf *index, *src, *mask;
    const sk_tensor *fill;
    int32_t axis, axis2, naxes, batch_dims;
    int32_t axes[SK_MAX_DIMS];
    int64_t starts[SK_MAX_DIMS], stops[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    int64_t offset, select;
    sk_reduce reduce;
    bool include_self;
    sk_index_mode mode;
    sk_tensor_scatter_mode ts_mode;
} op_args;

#define PICK(ref, name) ((ref) ? skref_##name : sk_##name)
#define T(b) ((b) ? &(b)->t : NULL)

static sk_status call_gather(void *c, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                             bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, gather)(x, T(a->index), a->axis, a->mode, a->fill, out, o);
}
static sk_status call_gather_axes(void *c, const sk_tensor *x, sk_tensor *out,
                                  const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, gather_axes)(x, T(a->index), a->axes, a->naxes, a->mode, a->fill, out, o);
}
static sk_status call_index_select(void *c, const sk_tensor *x, sk_tensor *out,
                                   const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, index_select)(x, T(a->index), a->axis, a->mode, a->fill, out, o);
}
static sk_status call_gather_nd(void *c, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                                bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, gather_nd)(x, T(a->index), a->batch_dims, a->mode, a->fill, out, o);
}
static sk_status call_masked_select(void *c, const sk_tensor *x, sk_tensor *out,
                                    const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, masked_select)(x, T(a->mask), out, o);
}
static sk_status call_scatter(void *c, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                              bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, scatter)(x, T(a->index), T(a->src), a->axis, a->reduce, a->include_self,
                              a->mode, out, o);
}
static sk_status call_scatter_axes(void *c, const sk_tensor *x, sk_tensor *out,
                                   const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, scatter_axes)(x, T(a->index), T(a->src), a->axes, a->naxes, a->reduce,
                                   a->include_self, a->mode, out, o);
}
static sk_status call_index_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                    const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, index_scatter)(x, T(a->index), T(a->src), a->axis, a->reduce,
                                    a->include_self, a->mode, out, o);
}
static sk_status call_scatter_nd(void *c, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                                 bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, scatter_nd)(x, T(a->index), T(a->src), a->reduce, a->mode, out, o);
}
static sk_status call_slice_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                    const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, slice_scatter)(x, T(a->src), a->naxes, a->axes, a->starts, a->stops,
                                    a->steps, out, o);
}
static sk_status call_diagonal_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                       const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, diagonal_scatter)(x, T(a->src), a->offset, a->axis, a->axis2, out, o);
}
static sk_status call_select_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                     const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, select_scatter)(x, T(a->src), a->axis, a->select, out, o);
}
static sk_status call_masked_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                     const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, masked_scatter)(x, T(a->mask), T(a->src), out, o);
}
static sk_status call_tensor_scatter(void *c, const sk_tensor *x, sk_tensor *out,
                                     const sk_options *o, bool ref) {
    const op_args *a = (const op_args *)c;
    return PICK(ref, tensor_scatter)(x, T(a->src), T(a->index), a->axis, a->ts_mode, out, o);
}
/* copy is slice_scatter over no axes: out = src broadcast to out's shape. */
static sk_status call_copy(void *c, const sk_tensor *x, sk_tensor *out, const sk_options *o,
                           bool ref) {
    const op_args *a = (const op_args *)c;
    (void)x;
    if (ref) return skref_slice_scatter(out, T(a->src), 0, NULL, NULL, NULL, NULL, out, o);
    return sk_copy(T(a->src), out, o);
}

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

static skt_layout in_layout(skt_rng *r) {
    return (skt_layout)skt_range(r, 0, SKT_LAYOUT_COUNT - 1);
}
static skt_layout out_layout(skt_rng *r) {
    return (skt_layout)skt_range(r, 0, SKT_OUT_LAYOUTS - 1);
}
static int32_t wrap_axis(int32_t axis, int32_t ndim) { return axis < 0 ? axis + ndim : axis; }

/* Index values: all valid in error mode (none exist for an empty axis, so
 * every value is then out of range and the error path is exercised);
 * a few out of range on either side otherwise. */
static void index_bounds(int64_t n, sk_index_mode mode, int64_t *lo, int64_t *hi) {
    if (mode == SK_INDEX_MODE_ERROR && n > 0) {
        *lo = -n;
        *hi = n - 1;
    } else {
        *lo = -n - 3;
        *hi = n + 2;
    }
}

/* Outside error mode every index value is legal input: put the extremes of
 * the index dtype at about one position in twelve. */
static void sprinkle_extremes(const skt_buf *idx, sk_index_mode mode, skt_rng *r) {
    if (mode == SK_INDEX_MODE_ERROR) return;
    bool i32 = idx->t.dtype == SK_DTYPE_INT32;
    int64_t n = skt_numel(idx->t.ndim, idx->t.shape), c[SK_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = skt_next(r) % 24;
        if (v > 1) continue;
        skt_unravel(i, idx->t.ndim, idx->t.shape, c);
        skt_set_index(idx, c, v ? (i32 ? INT32_MAX : INT64_MAX) : (i32 ? INT32_MIN : INT64_MIN));
    }
}

/* Values that make a reduction exact (so it can be compared bit for bit),
 * with NaNs where they must propagate. */
static skt_values values_for(sk_reduce r) {
    switch (r) {
    case SK_REDUCE_SUM:
    case SK_REDUCE_MEAN: return SKT_VAL_WIDE;
    case SK_REDUCE_PROD: return SKT_VAL_UNIT;
    default: return SKT_VAL_NAN;
    }
}

static bool is_float(sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT16 || dt == SK_DTYPE_BFLOAT16 || dt == SK_DTYPE_FLOAT32 ||
           dt == SK_DTYPE_FLOAT64;
}

/* mean rounds (division); everything else is exact with values_for(). */
static double tol_for(sk_dtype dt, sk_reduce r) {
    return r == SK_REDUCE_MEAN && is_float(dt) ? skt_tolerance(dt) : 0;
}

static bool reduce_ok(sk_dtype dt, sk_reduce r) {
    return dt != SK_DTYPE_BOOL || r == SK_REDUCE_NONE || r == SK_REDUCE_AMAX || r == SK_REDUCE_AMIN;
}

/* Big cases only run a few dtypes: they exist to make the library use
 * several threads (it splits work above ~32k element operations). */
static bool big_dtype(sk_dtype dt) {
    return dt == SK_DTYPE_FLOAT32 || dt == SK_DTYPE_BFLOAT16 || dt == SK_DTYPE_INT32 ||
           dt == SK_DTYPE_FLOAT16;
}

static void check_shape(const char *what, sk_status st, int32_t nd, const int64_t *shape,
                        int32_t want_nd, const int64_t *want) {
    char a[160], b[160];
    skt_checks++;
    if (st != SK_STATUS_OK) {
        skt_fail("%s: status '%s' (%s)", what, sk_status_string(st), sk_last_error());
        return;
    }
    bool same = nd == want_nd;
    for (int32_t d = 0; same && d < nd; d++) same = shape[d] == want[d];
    if (!same)
        skt_fail("%s: expected shape %s, got %s", what, skt_shape_str(a, sizeof a, want_nd, want),
                 skt_shape_str(b, sizeof b, nd, shape));
}

/* A contiguous tensor with SMALL values, for the error tests. */
static void mk(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_rng *r) {
    skt_make(b, dt, ndim, shape, SKT_CONTIG, 0, r);
    skt_fill(b, r, SKT_VAL_SMALL);
}
/* A contiguous index tensor with values in [0, hi]. */
static void mk_index(skt_buf *b, sk_dtype it, int32_t ndim, const int64_t *shape, int64_t hi,
                     skt_rng *r) {
    int64_t lo = 0;
    skt_make(b, it, ndim, shape, SKT_CONTIG, 0, r);
    skt_fill_index(b, r, -1, &lo, &hi);
}

/* Checks the out-of-range contract on one call: status, nothing written,
 * and a message naming the operator, "index" and the offending value. */
#define EXPECT_OOB(what, call, outbuf, opname, badval)                                          \
    do {                                                                                        \
        unsigned char *snap_ = skt_snapshot(outbuf);                                            \
        char val_[32];                                                                          \
        snprintf(val_, sizeof val_, "%lld", (long long)(badval));                               \
        sk_status st_ = (call);                                                                 \
        skt_expect_fail(what, st_, SK_STATUS_INDEX_OUT_OF_RANGE, outbuf, snap_, opname,        \
                        "index", val_);                                                         \
        free(snap_);                                                                            \
    } while (0)

/* A call that must fail with `want` and leave out untouched. */
#define EXPECT_STATUS(what, call, want, outbuf)                                                 \
    do {                                                                                        \
        unsigned char *snap_ = skt_snapshot(outbuf);                                            \
        sk_status st_ = (call);                                                                 \
        skt_expect_fail(what, st_, want, outbuf, snap_, NULL, NULL, NULL);                      \
        free(snap_);                                                                            \
    } while (0)

static const sk_options three_threads = {.num_threads = 3};

/* ------------------------------------------------------------------------ */
/* gather                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x, idx;
    int32_t axis;
    bool big;
} gather_case;

static const gather_case gather_cases[] = {
    {{1, {5}}, {1, {3}}, 0, false},
    {{1, {5}}, {1, {9}}, 0, false},
    {{1, {5}}, {1, {9}}, -1, false},
    {{2, {4, 3}}, {2, {2, 3}}, 0, false},
    {{2, {4, 3}}, {2, {4, 5}}, 1, false},
    {{2, {4, 3}}, {2, {3, 2}}, -1, false},
    {{3, {3, 4, 5}}, {3, {3, 2, 5}}, 1, false},
    {{3, {3, 4, 5}}, {3, {2, 4, 7}}, 2, false},
    {{3, {1, 5, 1}}, {3, {1, 3, 1}}, 1, false},
    {{4, {2, 3, 2, 3}}, {4, {2, 2, 2, 4}}, -1, false},
    {{2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {4, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 2}}, 1, false}, /* empty axis: only fill can succeed */
    {{12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3}}, {12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 4}}, -1,
     false},
    {{12, {2, 1, 2, 1, 2, 3, 2, 1, 2, 1, 2, 2}}, {12, {1, 1, 2, 1, 2, 4, 2, 1, 1, 1, 2, 2}}, 5,
     false},
    {{2, {300, 256}}, {2, {300, 256}}, 1, true},
    {{2, {256, 300}}, {2, {300, 200}}, 0, true},
    {{2, {3, 1100}}, {2, {3, 1100}}, 1, true}, /* last axis in blocks of 512 (and a tail) */
    {{2, {512, 300}}, {2, {100, 290}}, 0, true}, /* column tiles: 128 float32 columns */
};

static const sk_index_mode gather_modes[3] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                              SK_INDEX_MODE_FILL};

/* The fill_value argument for a case: NULL (zeros) or a 0-d tensor. */
static const sk_tensor *make_fill(skt_buf *fb, sk_dtype dt, int variant, skt_rng *r) {
    skt_make(fb, dt, 0, NULL, SKT_CONTIG, 0, r);
    skt_set(fb, NULL, dt == SK_DTYPE_BOOL ? 1 : 7);
    return variant % 2 ? &fb->t : NULL;
}

static void gather_errors(void) {
    skt_rng r;
    skt_seed(&r, 7);
    int64_t xs[2] = {4, 5}, is[2] = {4, 5}, big[2] = {300, 256};
    skt_buf x, idx, out, fidx, xb, ib, ob;
    mk(&x, SK_DTYPE_FLOAT32, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 2, is, 4, &r);
    mk(&out, SK_DTYPE_FLOAT32, 2, is, &r);
    int64_t c[2] = {2, 3};
    skt_set_index(&idx, c, 9005);
    EXPECT_OOB("gather with index 9005 on an axis of 5",
               sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL), &out, "gather",
               9005);
    skt_set_index(&idx, c, -6);
    EXPECT_OOB("gather with index -6 on an axis of 5",
               sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, &three_threads), &out,
               "gather", -6);
    {
        skt_buf i64;
        mk_index(&i64, SK_DTYPE_INT64, 2, is, 4, &r);
        skt_set_index(&i64, c, INT64_MIN);
        EXPECT_OOB("gather with index INT64_MIN",
                   sk_gather(&x.t, &i64.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL), &out,
                   "gather", INT64_MIN);
        skt_set_index(&i64, c, INT64_MAX);
        EXPECT_OOB("gather with index INT64_MAX",
                   sk_gather(&x.t, &i64.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL), &out,
                   "gather", INT64_MAX);
        skt_free(&i64);
    }
    skt_set_index(&idx, c, 1);
    /* a bad value at the very end of a big index, validated by several threads */
    mk(&xb, SK_DTYPE_FLOAT32, 2, big, &r);
    mk_index(&ib, SK_DTYPE_INT32, 2, big, 255, &r);
    mk(&ob, SK_DTYPE_FLOAT32, 2, big, &r);
    int64_t last[2] = {299, 255};
    skt_set_index(&ib, last, 256);
    EXPECT_OOB("gather, big index, last value 256 on an axis of 256",
               sk_gather(&xb.t, &ib.t, 1, SK_INDEX_MODE_ERROR, NULL, &ob.t, &three_threads), &ob,
               "gather", 256);
    EXPECT_STATUS("gather axis=2 on 2-d x",
                  sk_gather(&x.t, &idx.t, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("gather axis=-3 on 2-d x",
                  sk_gather(&x.t, &idx.t, -3, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("gather with mode drop",
                  sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_DROP, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("gather with mode 42",
                  sk_gather(&x.t, &idx.t, 1, (sk_index_mode)42, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    mk(&fidx, SK_DTYPE_FLOAT32, 2, is, &r);
    EXPECT_STATUS("gather with a float32 index",
                  sk_gather(&x.t, &fidx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    {
        skt_buf iout;
        mk(&iout, SK_DTYPE_INT32, 2, is, &r);
        EXPECT_STATUS("gather with an int32 out for float32 x",
                      sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &iout.t, NULL),
                      SK_STATUS_INVALID_DTYPE, &iout);
        skt_buf fb;
        mk(&fb, SK_DTYPE_INT32, 0, NULL, &r);
        EXPECT_STATUS("gather with an int32 fill_value for float32 x",
                      sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_FILL, &fb.t, &out.t, NULL),
                      SK_STATUS_INVALID_DTYPE, &out);
        skt_free(&fb);
        skt_free(&iout);
    }
    EXPECT_STATUS("gather x=NULL",
                  sk_gather(NULL, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather index=NULL",
                  sk_gather(&x.t, NULL, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather out=NULL",
                  sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    {
        int32_t nd;
        int64_t shape[SK_MAX_DIMS];
        EXPECT_STATUS("gather_shape x=NULL", sk_gather_shape(NULL, &idx.t, 1, &nd, shape),
                      SK_STATUS_NULL_POINTER, NULL);
        EXPECT_STATUS("gather_shape out_ndim=NULL", sk_gather_shape(&x.t, &idx.t, 1, NULL, shape),
                      SK_STATUS_NULL_POINTER, NULL);
        EXPECT_STATUS("gather_shape out_shape=NULL", sk_gather_shape(&x.t, &idx.t, 1, &nd, NULL),
                      SK_STATUS_NULL_POINTER, NULL);
        /* helpers of other operators: their own testers report them missing */
        int32_t axes[1] = {1};
        int64_t count;
        if (!SKT_MISSING(sk_index_select_shape))
            EXPECT_STATUS("index_select_shape index=NULL",
                          sk_index_select_shape(&x.t, NULL, 1, &nd, shape),
                          SK_STATUS_NULL_POINTER, NULL);
        if (!SKT_MISSING(sk_gather_nd_shape))
            EXPECT_STATUS("gather_nd_shape out_shape=NULL",
                          sk_gather_nd_shape(&x.t, &idx.t, 0, &nd, NULL), SK_STATUS_NULL_POINTER,
                          NULL);
        if (!SKT_MISSING(sk_gather_axes_shape))
            EXPECT_STATUS("gather_axes_shape out_ndim=NULL",
                          sk_gather_axes_shape(&x.t, &idx.t, axes, 1, NULL, shape),
                          SK_STATUS_NULL_POINTER, NULL);
        if (!SKT_MISSING(sk_masked_select_count))
            EXPECT_STATUS("masked_select_count x=NULL",
                          sk_masked_select_count(NULL, &x.t, &count, NULL),
                          SK_STATUS_NULL_POINTER, NULL);
    }
    {
        sk_tensor nx = x.t;
        nx.data = NULL;
        EXPECT_STATUS("gather x.data=NULL",
                      sk_gather(&nx, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                      SK_STATUS_NULL_POINTER, &out);
    }
    {
        int64_t wrong[2] = {4, 4};
        skt_buf wo;
        mk(&wo, SK_DTYPE_FLOAT32, 2, wrong, &r);
        EXPECT_STATUS("gather with out of the wrong shape",
                      sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &wo.t, NULL),
                      SK_STATUS_INVALID_SHAPE, &wo);
        skt_free(&wo);
        int64_t tall[2] = {5, 5};
        skt_buf ti, to;
        mk_index(&ti, SK_DTYPE_INT64, 2, tall, 1, &r);
        mk(&to, SK_DTYPE_FLOAT32, 2, tall, &r);
        EXPECT_STATUS("gather with index.shape[0] > x.shape[0]",
                      sk_gather(&x.t, &ti.t, 1, SK_INDEX_MODE_ERROR, NULL, &to.t, NULL),
                      SK_STATUS_INVALID_SHAPE, &to);
        skt_free(&ti);
        skt_free(&to);
    }
    {
        /* out overlapping x: a view of x's own buffer shifted by one element */
        sk_tensor ov = x.t;
        ov.data = (float *)x.t.data + 1;
        ov.shape[0] = 3;
        int64_t s3[2] = {3, 5};
        skt_buf i3;
        mk_index(&i3, SK_DTYPE_INT64, 2, s3, 4, &r);
        unsigned char *snap = skt_snapshot(&x);
        sk_status st = sk_gather(&x.t, &i3.t, 1, SK_INDEX_MODE_ERROR, NULL, &ov, NULL);
        skt_expect_fail("gather with out overlapping x", st, SK_STATUS_OVERLAP, &x, snap, NULL,
                        NULL, NULL);
        free(snap);
        /* out with internal overlap */
        sk_tensor zo = out.t;
        zo.strides[0] = 0;
        snap = skt_snapshot(&out);
        st = sk_gather(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &zo, NULL);
        skt_expect_fail("gather with a zero-stride out", st, SK_STATUS_OVERLAP, &out, snap, NULL,
                        NULL, NULL);
        free(snap);
        skt_free(&i3);
    }
    skt_free(&x);
    skt_free(&idx);
    skt_free(&out);
    skt_free(&fidx);
    skt_free(&xb);
    skt_free(&ib);
    skt_free(&ob);
}

/* Along the last axis into an out of 32 MiB or more: 4- and 8-byte elements
 * are streamed 16 bytes at a time once out is 16-byte aligned (out starts
 * one element off here), 4-byte ones through the AVX2 gather where the CPU
 * has it, whose blocks check their values as they load them; a block with
 * negative values takes the careful loop. Then a bad value (past n, below -n,
 * past 2^32) in the middle of a block, in its last elements or in the last
 * block is an error, with or without a fresh out. */
static void gather_streamed_last_axis(void) {
    enum { C = 8192 };
    for (int variant = 0; variant < 3; variant++) {
        bool wide = variant == 1, i32 = variant == 2;
        size_t es = wide ? 8 : 4, is = i32 ? 4 : 8;
        int64_t R = (int64_t)((32u << 20) / (C * es)) + 1;
        char *x = malloc((size_t)(R * C) * es);
        char *idx = malloc((size_t)(R * C) * is);
        char *buf = malloc((size_t)(R * C + 2) * es);
        if (!x || !idx || !buf) skt_fail("gather (streamed last axis): out of memory");
        for (int64_t k = 0; k < R * C; k++) {
            if (wide) ((double *)(void *)x)[k] = (double)k;
            else ((float *)(void *)x)[k] = (float)k;
            int64_t v = (k * 7919 + k / C) % C;
            v = (k / 512) % 7 == 3 && k % 5 == 0 ? v - C : v;
            if (i32) ((int32_t *)(void *)idx)[k] = (int32_t)v;
            else ((int64_t *)(void *)idx)[k] = v;
        }
        memset(buf, 0xAB, (size_t)(R * C + 2) * es);
        sk_tensor tx, ti, to;
        const int64_t shape[2] = {R, C};
        sk_tensor_init(&tx, x, wide ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32, 2, shape, NULL);
        sk_tensor_init(&ti, idx, i32 ? SK_DTYPE_INT32 : SK_DTYPE_INT64, 2, shape, NULL);
        sk_tensor_init(&to, buf + es, wide ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32, 2, shape, NULL);
        sk_options opts = {0};
        opts.num_threads = 2;
        if (sk_gather(&tx, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, &opts))
            skt_fail("gather (streamed last axis): %s", sk_last_error());
        for (int64_t k = 0; k < R * C; k++) {
            int64_t v = i32 ? ((int32_t *)(void *)idx)[k] : ((int64_t *)(void *)idx)[k];
            v += v < 0 ? C : 0;
            int64_t src = (k / C) * C + v;
            bool same = wide ? ((double *)(void *)(buf + es))[k] == ((double *)(void *)x)[src]
                             : ((float *)(void *)(buf + es))[k] == ((float *)(void *)x)[src];
            if (!same) skt_fail("gather (streamed last axis, %d-byte): out[%lld] wrong", (int)es,
                                (long long)k);
        }
        for (size_t b = 0; b < es; b++)
            if ((unsigned char)buf[b] != 0xAB || (unsigned char)buf[(size_t)(R * C + 1) * es + b] != 0xAB)
                skt_fail("gather (streamed last axis): wrote outside out");
        const int64_t bad[] = {C, -C - 1, (int64_t)1 << 32};
        const int64_t at[] = {C * 3 + 700, C * 5 + 511, R * C - 1};
        for (int k = 0; k < 3 * 3 * 2; k++) {
            int64_t value = bad[k % 3], pos = at[(k / 3) % 3];
            if (i32 && value > INT32_MAX) continue;
            int64_t kept = i32 ? ((int32_t *)(void *)idx)[pos] : ((int64_t *)(void *)idx)[pos];
            if (i32) ((int32_t *)(void *)idx)[pos] = (int32_t)value;
            else ((int64_t *)(void *)idx)[pos] = value;
            opts.flags = k >= 9 ? SK_OPTION_FRESH_OUT : 0;
            if (sk_gather(&tx, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, &opts) !=
                SK_STATUS_INDEX_OUT_OF_RANGE)
                skt_fail("gather (streamed last axis, %d-byte, int%d index): value %lld at %lld "
                         "not reported", (int)es, (int)is * 8, (long long)value, (long long)pos);
            if (i32) ((int32_t *)(void *)idx)[pos] = (int32_t)kept;
            else ((int64_t *)(void *)idx)[pos] = kept;
        }
        free(x);
        free(idx);
        free(buf);
    }
}

/* The last-axis gather checks blocks of int64 values before copying (AVX2
 * where the CPU has it, 8 values a step): n - 1, -n and -1 are fine, n, -n - 1
 * and a value near 2^63 anywhere in a block are errors, with or without a
 * fresh out, and nothing is written. */
static void gather_last_axis_bounds(void) {
    enum { R = 2, C = 40 };
    float x[R * C], out[R * C];
    int64_t idx[R * C];
    for (int k = 0; k < R * C; k++) x[k] = (float)k;
    static const int64_t bad[] = {C, -C - 1, INT64_MAX, INT64_MIN, (int64_t)1 << 32};
    static const int at[] = {0, 5, 17, 31, 39, 40, 63, 79};
    const int64_t shape[2] = {R, C};
    sk_tensor tx, ti, to;
    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, shape, NULL);
    sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 2, shape, NULL);
    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, shape, NULL);
    for (int fresh = 0; fresh < 4; fresh++) /* bit 1: negative values too (careful loop) */
        for (size_t bi = 0; bi <= COUNT(bad); bi++)
            for (size_t ai = 0; ai < COUNT(at); ai++) {
                for (int k = 0; k < R * C; k++)
                    idx[k] = k % 3 == 0 ? C - 1 : (fresh & 2) ? (k % 3 == 1 ? -C : -1) : k % C;
                if (bi < COUNT(bad)) idx[at[ai]] = bad[bi];
                for (int k = 0; k < R * C; k++) out[k] = -7.0f;
                sk_options opts = {0};
                opts.flags = (fresh & 1) ? SK_OPTION_FRESH_OUT : 0;
                sk_status st = sk_gather(&tx, &ti, 1, SK_INDEX_MODE_ERROR, NULL, &to, &opts);
                if (bi < COUNT(bad)) {
                    if (st != SK_STATUS_INDEX_OUT_OF_RANGE)
                        skt_fail("gather (last-axis bounds): value %lld at %d gave status %d",
                                 (long long)bad[bi], at[ai], (int)st);
                    if (!(fresh & 1))
                        for (int k = 0; k < R * C; k++)
                            if (out[k] != -7.0f) skt_fail("gather (last-axis bounds): wrote out on error");
                    continue;
                }
                if (st) skt_fail("gather (last-axis bounds): %s", sk_last_error());
                for (int k = 0; k < R * C; k++) {
                    int64_t v = idx[k] < 0 ? idx[k] + C : idx[k];
                    if (out[k] != x[(k / C) * C + v]) skt_fail("gather (last-axis bounds): out[%d] wrong", k);
                }
                break; /* the valid index once per fresh */
            }
}

/* One gather case: x of shape xs (NaN-rich values), an index of shape is
 * with values over n (edge values of the mode sprinkled in), a fill value
 * per `variant`, checked against the reference by skt_run_case. With
 * check_shape, sk_gather_shape is checked on the same tensors first. */
static void gather_one(const char *what, sk_dtype dt, sk_dtype it, sk_index_mode mode,
                       const skt_shape *xs, skt_layout xl, const skt_shape *is, skt_layout il,
                       skt_layout ol, int32_t axis, int64_t n, int variant, bool check_shape_too,
                       skt_rng *r) {
    skt_buf x, idx, out, fb;
    int64_t lo, hi;
    skt_make(&x, dt, xs->ndim, xs->d, xl, 0, r);
    skt_fill(&x, r, SKT_VAL_NAN);
    skt_make(&idx, it, is->ndim, is->d, il, 0, r);
    index_bounds(n, mode, &lo, &hi);
    skt_fill_index(&idx, r, -1, &lo, &hi);
    sprinkle_extremes(&idx, mode, r);
    skt_make(&out, dt, is->ndim, is->d, ol, 0, r);
    op_args a = {0};
    a.index = &idx;
    a.axis = axis;
    a.mode = mode;
    a.fill = make_fill(&fb, dt, variant, r);
    if (check_shape_too) {
        int32_t nd = -1;
        int64_t shape[SK_MAX_DIMS];
        sk_status st = sk_gather_shape(&x.t, &idx.t, axis, &nd, shape);
        check_shape("sk_gather_shape", st, nd, shape, is->ndim, is->d);
    }
    char desc[1024];
    snprintf(desc, sizeof desc, "%s axis=%d mode=%s fill=%s", what, (int)axis, skt_mode_names[mode],
             a.fill ? "7" : "NULL");
    skt_desc(desc, sizeof desc, "x", &x.t);
    skt_desc(desc, sizeof desc, "index", &idx.t);
    skt_desc(desc, sizeof desc, "out", &out.t);
    const skt_buf *inputs[] = {&x, &idx, &fb};
    skt_run_case(desc, call_gather, &a, &x, &out, false, 0, inputs, 3);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&out);
    skt_free(&fb);
}

/* Column tiles (sk_plan_column_tile): a gather along axis 0 with x, index
 * and out row-major, wide enough for several tiles of 64 to 256 columns and a
 * partial last one, every mode and both index widths. */
static void gather_column_tiles(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_BFLOAT16};
    const skt_shape xs = {2, {512, 700}}, is = {2, {100, 650}};
    skt_rng r;
    skt_seed(&r, 111);
    for (size_t di = 0; di < COUNT(dts); di++)
        for (int ii = 0; ii < 2; ii++)
            for (int mi = 0; mi < 3; mi++)
                gather_one("gather (column tiles)", dts[di], index_dtypes[ii], gather_modes[mi],
                           &xs, SKT_CONTIG, &is, SKT_CONTIG, SKT_CONTIG, 0, 512, mi, false, &r);
}

static void test_gather(void) {
    REQUIRE_OP(sk_gather);
    REQUIRE_OP(sk_gather_shape);
    skt_rng r;
    skt_seed(&r, 101);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(gather_cases); ci++) {
        const gather_case *gc = &gather_cases[ci];
        int32_t ax = wrap_axis(gc->axis, gc->x.ndim);
        int64_t n = gc->x.d[ax];
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (gc->big && !big_dtype(dt)) continue;
            for (int ii = 0; ii < 2; ii++) {
                sk_dtype it = index_dtypes[ii];
                for (int mi = 0; mi < 3; mi++) {
                    sk_index_mode mode = gather_modes[mi];
                    if (mode == SK_INDEX_MODE_CLIP && n == 0) continue;
                    if (gc->big && (ii == 0 || mode == SK_INDEX_MODE_CLIP)) continue;
                    skt_layout xl = in_layout(&r), il = in_layout(&r), ol = out_layout(&r);
                    gather_one("gather", dt, it, mode, &gc->x, xl, &gc->idx, il, ol, gc->axis, n,
                               variant++, di == 8 && ii == 1 && mi == 0, &r);
                }
            }
        }
    }
    gather_errors();
    gather_streamed_last_axis();
    gather_last_axis_bounds();
    gather_column_tiles();
}

/* ------------------------------------------------------------------------ */
/* gather_axes                                                              */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[4];
    skt_shape out;
    bool big;
} axes_case;

static const axes_case gather_axes_cases[] = {
    {{2, {4, 5}}, 2, {0, 1}, {2, {3, 2}}, false},
    {{2, {4, 5}}, 1, {1}, {2, {4, 7}}, false},
    {{3, {3, 4, 5}}, 2, {0, 2}, {3, {2, 4, 6}}, false},
    {{3, {3, 4, 5}}, 2, {2, 0}, {3, {3, 3, 2}}, false},
    {{3, {3, 4, 5}}, 2, {-1, -3}, {3, {1, 2, 2}}, false},
    {{3, {3, 4, 5}}, 3, {0, 1, 2}, {3, {2, 2, 2}}, false},
    {{4, {2, 3, 4, 5}}, 2, {1, 3}, {4, {2, 5, 3, 2}}, false},
    {{2, {4, 5}}, 2, {0, 1}, {2, {0, 3}}, false},
    {{2, {0, 5}}, 1, {1}, {2, {0, 5}}, false},
    {{1, {6}}, 1, {0}, {1, {10}}, false},
    {{2, {300, 256}}, 2, {0, 1}, {2, {300, 256}}, true},
};

static void gather_axes_errors(void) {
    skt_rng r;
    skt_seed(&r, 8);
    int64_t xs[2] = {4, 5}, is[3] = {3, 2, 2}, os[2] = {3, 2};
    int32_t axes[2] = {0, 1}, dup[2] = {1, 1};
    skt_buf x, idx, out;
    mk(&x, SK_DTYPE_INT16, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT32, 3, is, 3, &r);
    mk(&out, SK_DTYPE_INT16, 2, os, &r);
    int64_t c[3] = {2, 1, 1};
    skt_set_index(&idx, c, 7005);
    EXPECT_OOB("gather_axes with index 7005 on an axis of 5",
               sk_gather_axes(&x.t, &idx.t, axes, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
               &out, "gather", 7005);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("gather_axes with a repeated axis",
                  sk_gather_axes(&x.t, &idx.t, dup, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    int32_t bad[2] = {0, 2};
    EXPECT_STATUS("gather_axes with axis 2 on 2-d x",
                  sk_gather_axes(&x.t, &idx.t, bad, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("gather_axes axes=NULL",
                  sk_gather_axes(&x.t, &idx.t, NULL, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather_axes x=NULL",
                  sk_gather_axes(NULL, &idx.t, axes, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather_axes with index.shape[-1] != naxes",
                  sk_gather_axes(&x.t, &idx.t, axes, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_SHAPE, &out);
    skt_buf fo;
    mk(&fo, SK_DTYPE_FLOAT64, 2, os, &r);
    EXPECT_STATUS("gather_axes with a float64 out for int16 x",
                  sk_gather_axes(&x.t, &idx.t, axes, 2, SK_INDEX_MODE_ERROR, NULL, &fo.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &fo);
    skt_free(&fo);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&out);
}

static void test_gather_axes(void) {
    REQUIRE_OP(sk_gather_axes);
    REQUIRE_OP(sk_gather_axes_shape);
    skt_rng r;
    skt_seed(&r, 102);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(gather_axes_cases); ci++) {
        const axes_case *gc = &gather_axes_cases[ci];
        skt_shape is = gc->out;
        is.d[is.ndim++] = gc->naxes;
        int64_t lo[4], hi[4];
        bool any_empty = false;
        for (int32_t k = 0; k < gc->naxes; k++)
            any_empty |= gc->x.d[wrap_axis(gc->axes[k], gc->x.ndim)] == 0;
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (gc->big && !big_dtype(dt)) continue;
            for (int ii = 0; ii < 2; ii++) {
                for (int mi = 0; mi < 3; mi++) {
                    sk_index_mode mode = gather_modes[mi];
                    if (mode == SK_INDEX_MODE_CLIP && any_empty) continue;
                    if (gc->big && (ii == 0 || mode == SK_INDEX_MODE_CLIP)) continue;
                    for (int32_t k = 0; k < gc->naxes; k++)
                        index_bounds(gc->x.d[wrap_axis(gc->axes[k], gc->x.ndim)], mode, &lo[k],
                                     &hi[k]);
                    skt_buf x, idx, out, fb;
                    skt_make(&x, dt, gc->x.ndim, gc->x.d, in_layout(&r), 0, &r);
                    skt_fill(&x, &r, SKT_VAL_NAN);
                    /* the component dimension must not be broadcast: its entries
                     * address different axes */
                    skt_make(&idx, index_dtypes[ii], is.ndim, is.d, in_layout(&r),
                             1u << (is.ndim - 1), &r);
                    skt_fill_index(&idx, &r, is.ndim - 1, lo, hi);
                    sprinkle_extremes(&idx, mode, &r);
                    skt_make(&out, dt, gc->out.ndim, gc->out.d, out_layout(&r), 0, &r);
                    op_args a = {0};
                    a.index = &idx;
                    a.naxes = gc->naxes;
                    memcpy(a.axes, gc->axes, sizeof gc->axes);
                    a.mode = mode;
                    a.fill = make_fill(&fb, dt, variant++, &r);
                    if (di == 8 && ii == 1 && mi == 0) {
                        int32_t nd = -1;
                        int64_t shape[SK_MAX_DIMS];
                        sk_status st = sk_gather_axes_shape(&x.t, &idx.t, gc->axes, gc->naxes,
                                                            &nd, shape);
                        check_shape("sk_gather_axes_shape", st, nd, shape, gc->out.ndim,
                                    gc->out.d);
                    }
                    char desc[1024];
                    snprintf(desc, sizeof desc, "gather_axes axes=(%d,%d,%d)[:%d] mode=%s",
                             (int)gc->axes[0], (int)gc->axes[1], (int)gc->axes[2],
                             (int)gc->naxes, skt_mode_names[mode]);
                    skt_desc(desc, sizeof desc, "x", &x.t);
                    skt_desc(desc, sizeof desc, "index", &idx.t);
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&x, &idx, &fb};
                    skt_run_case(desc, call_gather_axes, &a, &x, &out, false, 0, inputs, 3);
                    skt_free(&x);
                    skt_free(&idx);
                    skt_free(&out);
                    skt_free(&fb);
                }
            }
        }
    }
    gather_axes_errors();
}

/* ------------------------------------------------------------------------ */
/* index_select                                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x, idx;
    int32_t axis;
    bool big;
} select_case;

static const select_case index_select_cases[] = {
    {{1, {5}}, {0, {0}}, 0, false}, /* 0-d index: out is 0-d */
    {{1, {5}}, {1, {3}}, 0, false},
    {{1, {5}}, {1, {9}}, -1, false},
    {{2, {4, 3}}, {2, {2, 2}}, 1, false},
    {{2, {4, 3}}, {1, {6}}, 0, false},
    {{3, {3, 4, 5}}, {1, {6}}, 1, false},
    {{3, {3, 4, 5}}, {0, {0}}, 2, false},
    {{3, {3, 4, 5}}, {2, {2, 3}}, -1, false},
    {{3, {3, 4, 5}}, {3, {2, 1, 2}}, 0, false},
    {{2, {0, 3}}, {1, {2}}, 1, false},
    {{2, {4, 3}}, {1, {0}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 0, false},
    {{2, {4, 0}}, {1, {2}}, 1, false}, /* empty axis */
    {{6, {2, 1, 2, 3, 1, 2}}, {7, {1, 2, 1, 2, 1, 1, 2}}, 3, false}, /* 12-d out */
    {{2, {1000, 64}}, {1, {1500}}, 0, true},
    {{2, {64, 1000}}, {1, {1500}}, 1, true},
};

static int32_t index_select_out(const skt_shape *x, const skt_shape *idx, int32_t ax,
                                int64_t *shape) {
    int32_t n = 0;
    for (int32_t d = 0; d < ax; d++) shape[n++] = x->d[d];
    for (int32_t d = 0; d < idx->ndim; d++) shape[n++] = idx->d[d];
    for (int32_t d = ax + 1; d < x->ndim; d++) shape[n++] = x->d[d];
    return n;
}

static void index_select_errors(void) {
    skt_rng r;
    skt_seed(&r, 9);
    int64_t xs[2] = {6, 3}, is[1] = {4}, os[2] = {4, 3};
    skt_buf x, idx, out;
    mk(&x, SK_DTYPE_UINT8, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 1, is, 5, &r);
    mk(&out, SK_DTYPE_UINT8, 2, os, &r);
    int64_t c[1] = {3};
    skt_set_index(&idx, c, 6006);
    EXPECT_OOB("index_select with index 6006 on an axis of 6",
               sk_index_select(&x.t, &idx.t, 0, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL), &out,
               "index_select", 6006);
    EXPECT_OOB("index_select with index 6006, 3 threads",
               sk_index_select(&x.t, &idx.t, 0, SK_INDEX_MODE_ERROR, NULL, &out.t, &three_threads),
               &out, "index_select", 6006);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("index_select axis=2 on 2-d x",
                  sk_index_select(&x.t, &idx.t, 2, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("index_select index=NULL",
                  sk_index_select(&x.t, NULL, 0, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("index_select out=NULL",
                  sk_index_select(&x.t, &idx.t, 0, SK_INDEX_MODE_ERROR, NULL, NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    skt_buf bi;
    mk(&bi, SK_DTYPE_UINT8, 1, is, &r);
    EXPECT_STATUS("index_select with a uint8 index",
                  sk_index_select(&x.t, &bi.t, 0, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    skt_free(&bi);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&out);
}

/* A result of 32 MiB and more is written with streaming stores, row by row
 * when rows are a multiple of 16 bytes and out is 16-byte aligned: checked
 * into an aligned out, an out 4 bytes off (copied normally), and rows of 12
 * bytes, with the elements around out left alone. */
static void index_select_streamed_rows(void) {
    enum { T = 500, N = 560000 };
    static const int64_t widths[] = {16, 32, 3}; /* 64 and 128 bytes take sized loops */
    for (int wi = 0; wi < 3; wi++)
        for (int shift = 0; shift < 2; shift++) {
            int64_t w = widths[wi];
            float *table = malloc((size_t)(T * w) * sizeof(float));
            int64_t *idx = malloc((size_t)N * sizeof(int64_t));
            float *buf = malloc((size_t)(N * w + 2) * sizeof(float));
            if (!table || !idx || !buf) skt_fail("index_select (streamed rows): out of memory");
            for (int64_t k = 0; k < T * w; k++) table[k] = (float)k;
            for (int64_t k = 0; k < N; k++) idx[k] = (k * 7919) % T - (k % 3 == 0 ? T : 0);
            for (int64_t k = 0; k < N * w + 2; k++) buf[k] = -1.0f;
            sk_tensor tt, ti, to;
            const int64_t ts[2] = {T, w}, is[1] = {N}, os[2] = {N, w};
            sk_tensor_init(&tt, table, SK_DTYPE_FLOAT32, 2, ts, NULL);
            sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 1, is, NULL);
            sk_tensor_init(&to, buf + shift, SK_DTYPE_FLOAT32, 2, os, NULL);
            sk_options opts = {0};
            opts.num_threads = 2;
            sk_status st = sk_index_select(&tt, &ti, 0, SK_INDEX_MODE_ERROR, NULL, &to, &opts);
            if (st) skt_fail("index_select (streamed rows): %s", sk_last_error());
            for (int64_t k = 0; k < N; k++) {
                int64_t row = idx[k] < 0 ? idx[k] + T : idx[k];
                for (int64_t c = 0; c < w; c++)
                    if (buf[shift + k * w + c] != table[row * w + c])
                        skt_fail("index_select (streamed rows, width %d, shift %d): out[%lld, %lld] "
                                 "= %g, want %g", (int)w, shift, (long long)k, (long long)c,
                                 (double)buf[shift + k * w + c], (double)table[row * w + c]);
            }
            if ((shift && buf[0] != -1.0f) || buf[shift + N * w] != -1.0f)
                skt_fail("index_select (streamed rows): wrote outside out");
            free(table);
            free(idx);
            free(buf);
        }
}

static void test_index_select(void) {
    REQUIRE_OP(sk_index_select);
    REQUIRE_OP(sk_index_select_shape);
    skt_rng r;
    skt_seed(&r, 103);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(index_select_cases); ci++) {
        const select_case *sc = &index_select_cases[ci];
        int32_t ax = wrap_axis(sc->axis, sc->x.ndim);
        int64_t n = sc->x.d[ax], os[SK_MAX_DIMS];
        int32_t ond = index_select_out(&sc->x, &sc->idx, ax, os);
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (sc->big && !big_dtype(dt)) continue;
            for (int ii = 0; ii < 2; ii++) {
                for (int mi = 0; mi < 3; mi++) {
                    sk_index_mode mode = gather_modes[mi];
                    if (mode == SK_INDEX_MODE_CLIP && n == 0) continue;
                    if (sc->big && (ii == 0 || mode == SK_INDEX_MODE_CLIP)) continue;
                    skt_buf x, idx, out, fb;
                    int64_t lo, hi;
                    skt_make(&x, dt, sc->x.ndim, sc->x.d, in_layout(&r), 0, &r);
                    skt_fill(&x, &r, SKT_VAL_NAN);
                    skt_make(&idx, index_dtypes[ii], sc->idx.ndim, sc->idx.d, in_layout(&r), 0,
                             &r);
                    index_bounds(n, mode, &lo, &hi);
                    skt_fill_index(&idx, &r, -1, &lo, &hi);
                    sprinkle_extremes(&idx, mode, &r);
                    skt_make(&out, dt, ond, os, out_layout(&r), 0, &r);
                    op_args a = {0};
                    a.index = &idx;
                    a.axis = sc->axis;
                    a.mode = mode;
                    a.fill = make_fill(&fb, dt, variant++, &r);
                    if (di == 8 && ii == 1 && mi == 0) {
                        int32_t nd = -1;
                        int64_t shape[SK_MAX_DIMS];
                        sk_status st = sk_index_select_shape(&x.t, &idx.t, sc->axis, &nd, shape);
                        check_shape("sk_index_select_shape", st, nd, shape, ond, os);
                    }
                    char desc[1024];
                    snprintf(desc, sizeof desc, "index_select axis=%d mode=%s", (int)sc->axis,
                             skt_mode_names[mode]);
                    skt_desc(desc, sizeof desc, "x", &x.t);
                    skt_desc(desc, sizeof desc, "index", &idx.t);
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&x, &idx, &fb};
                    skt_run_case(desc, call_index_select, &a, &x, &out, false, 0, inputs, 3);
                    skt_free(&x);
                    skt_free(&idx);
                    skt_free(&out);
                    skt_free(&fb);
                }
            }
        }
    }
    index_select_errors();
    index_select_streamed_rows();
}

/* ------------------------------------------------------------------------ */
/* gather_nd                                                                */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x, idx;
    int32_t batch_dims;
    bool big;
} nd_case;

static const nd_case gather_nd_cases[] = {
    {{1, {5}}, {2, {3, 1}}, 0, false},
    {{2, {4, 3}}, {2, {5, 2}}, 0, false},
    {{2, {4, 3}}, {2, {5, 1}}, 0, false},
    {{2, {4, 3}}, {1, {2}}, 0, false}, /* out is 0-d */
    {{3, {2, 3, 4}}, {3, {2, 2, 1}}, 1, false},
    {{3, {2, 3, 4}}, {3, {2, 5, 2}}, 1, false},
    {{4, {2, 3, 4, 5}}, {4, {2, 3, 1, 1}}, 2, false},
    {{3, {2, 3, 4}}, {4, {2, 2, 3, 2}}, 0, false},
    {{3, {2, 3, 4}}, {2, {2, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 2}}, 0, false},
    {{2, {4, 0}}, {2, {3, 1}}, 0, false},
    {{2, {0, 3}}, {2, {2, 1}}, 0, false}, /* empty axis */
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {2, {5, 12}}, 0, false},
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {10, {2, 2, 2, 1, 1, 1, 1, 1, 3, 6}}, 3, false},
    {{2, {1000, 64}}, {2, {1500, 1}}, 0, true},
    {{3, {4, 300, 64}}, {3, {4, 300, 1}}, 1, true},
};

static int32_t gather_nd_out(const nd_case *c, int64_t *shape) {
    int32_t n = 0, k = (int32_t)c->idx.d[c->idx.ndim - 1];
    for (int32_t d = 0; d < c->idx.ndim - 1; d++) shape[n++] = c->idx.d[d];
    for (int32_t d = c->batch_dims + k; d < c->x.ndim; d++) shape[n++] = c->x.d[d];
    return n;
}

static void gather_nd_errors(void) {
    skt_rng r;
    skt_seed(&r, 10);
    int64_t xs[3] = {2, 3, 4}, is[3] = {2, 2, 1}, os[3] = {2, 2, 4};
    skt_buf x, idx, out;
    mk(&x, SK_DTYPE_FLOAT64, 3, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 3, is, 2, &r);
    mk(&out, SK_DTYPE_FLOAT64, 3, os, &r);
    int64_t c[3] = {1, 1, 0};
    skt_set_index(&idx, c, 5003);
    EXPECT_OOB("gather_nd with index 5003 on an axis of 3",
               sk_gather_nd(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL), &out,
               "gather_nd", 5003);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("gather_nd with batch_dims=-1",
                  sk_gather_nd(&x.t, &idx.t, -1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("gather_nd x=NULL",
                  sk_gather_nd(NULL, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather_nd index=NULL",
                  sk_gather_nd(&x.t, NULL, 1, SK_INDEX_MODE_ERROR, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("gather_nd with mode drop",
                  sk_gather_nd(&x.t, &idx.t, 1, SK_INDEX_MODE_DROP, NULL, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    skt_buf fo;
    mk(&fo, SK_DTYPE_FLOAT32, 3, os, &r);
    EXPECT_STATUS("gather_nd with a float32 out for float64 x",
                  sk_gather_nd(&x.t, &idx.t, 1, SK_INDEX_MODE_ERROR, NULL, &fo.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &fo);
    skt_free(&fo);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&out);
}

static void test_gather_nd(void) {
    REQUIRE_OP(sk_gather_nd);
    REQUIRE_OP(sk_gather_nd_shape);
    skt_rng r;
    skt_seed(&r, 104);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(gather_nd_cases); ci++) {
        const nd_case *gc = &gather_nd_cases[ci];
        int32_t k = (int32_t)gc->idx.d[gc->idx.ndim - 1], ond;
        int64_t os[SK_MAX_DIMS], lo[SK_MAX_DIMS], hi[SK_MAX_DIMS];
        ond = gather_nd_out(gc, os);
        bool any_empty = false;
        for (int32_t j = 0; j < k; j++) any_empty |= gc->x.d[gc->batch_dims + j] == 0;
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (gc->big && !big_dtype(dt)) continue;
            for (int ii = 0; ii < 2; ii++) {
                for (int mi = 0; mi < 3; mi++) {
                    sk_index_mode mode = gather_modes[mi];
                    if (mode == SK_INDEX_MODE_CLIP && any_empty) continue;
                    if (gc->big && (ii == 0 || mode == SK_INDEX_MODE_CLIP)) continue;
                    for (int32_t j = 0; j < k; j++)
                        index_bounds(gc->x.d[gc->batch_dims + j], mode, &lo[j], &hi[j]);
                    skt_buf x, idx, out, fb;
                    skt_make(&x, dt, gc->x.ndim, gc->x.d, in_layout(&r), 0, &r);
                    skt_fill(&x, &r, SKT_VAL_NAN);
                    skt_make(&idx, index_dtypes[ii], gc->idx.ndim, gc->idx.d, in_layout(&r),
                             1u << (gc->idx.ndim - 1), &r);
                    skt_fill_index(&idx, &r, gc->idx.ndim - 1, lo, hi);
                    sprinkle_extremes(&idx, mode, &r);
                    skt_make(&out, dt, ond, os, out_layout(&r), 0, &r);
                    op_args a = {0};
                    a.index = &idx;
                    a.batch_dims = gc->batch_dims;
                    a.mode = mode;
                    a.fill = make_fill(&fb, dt, variant++, &r);
                    if (di == 8 && ii == 1 && mi == 0) {
                        int32_t nd = -1;
                        int64_t shape[SK_MAX_DIMS];
                        sk_status st = sk_gather_nd_shape(&x.t, &idx.t, gc->batch_dims, &nd, shape);
                        check_shape("sk_gather_nd_shape", st, nd, shape, ond, os);
                    }
                    char desc[1024];
                    snprintf(desc, sizeof desc, "gather_nd batch_dims=%d mode=%s",
                             (int)gc->batch_dims, skt_mode_names[mode]);
                    skt_desc(desc, sizeof desc, "x", &x.t);
                    skt_desc(desc, sizeof desc, "index", &idx.t);
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&x, &idx, &fb};
                    skt_run_case(desc, call_gather_nd, &a, &x, &out, false, 0, inputs, 3);
                    skt_free(&x);
                    skt_free(&idx);
                    skt_free(&out);
                    skt_free(&fb);
                }
            }
        }
    }
    gather_nd_errors();
}

/* ------------------------------------------------------------------------ */
/* masked_select, masked_scatter                                            */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x, mask;
    bool big;
} mask_case;

static const mask_case mask_cases[] = {
    {{0, {0}}, {0, {0}}, false},
    {{1, {5}}, {1, {5}}, false},
    {{2, {4, 3}}, {2, {4, 3}}, false},
    {{2, {4, 3}}, {1, {3}}, false},
    {{2, {4, 3}}, {2, {4, 1}}, false},
    {{3, {2, 3, 4}}, {3, {1, 3, 1}}, false},
    {{3, {2, 3, 4}}, {0, {0}}, false},
    {{3, {2, 3, 4}}, {2, {3, 4}}, false},
    {{2, {0, 3}}, {1, {3}}, false},
    {{2, {4, 0}}, {2, {4, 0}}, false},
    {{12, {2, 1, 2, 1, 2, 3, 2, 1, 2, 1, 2, 2}}, {10, {2, 1, 2, 3, 2, 1, 1, 1, 2, 1}}, false},
    {{2, {400, 256}}, {2, {400, 256}}, true},
    {{2, {400, 256}}, {2, {400, 1}}, true},
};

static const int mask_density[3] = {0, 50, 100};

static void masked_select_errors(void) {
    skt_rng r;
    skt_seed(&r, 11);
    int64_t xs[2] = {4, 3}, os[1] = {12};
    skt_buf x, m, out, im;
    mk(&x, SK_DTYPE_INT32, 2, xs, &r);
    skt_make(&m, SK_DTYPE_BOOL, 2, xs, SKT_CONTIG, 0, &r);
    skt_fill_mask(&m, &r, 100);
    mk(&out, SK_DTYPE_INT32, 1, os, &r);
    mk(&im, SK_DTYPE_INT32, 2, xs, &r);
    int64_t count = -1;
    EXPECT_STATUS("masked_select_count with an int32 mask",
                  sk_masked_select_count(&x.t, &im.t, &count, NULL), SK_STATUS_INVALID_DTYPE,
                  NULL);
    EXPECT_STATUS("masked_select_count count=NULL",
                  sk_masked_select_count(&x.t, &m.t, NULL, NULL), SK_STATUS_NULL_POINTER, NULL);
    EXPECT_STATUS("masked_select with an int32 mask", sk_masked_select(&x.t, &im.t, &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    EXPECT_STATUS("masked_select mask=NULL", sk_masked_select(&x.t, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("masked_select x=NULL", sk_masked_select(NULL, &m.t, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("masked_select out=NULL", sk_masked_select(&x.t, &m.t, NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    int64_t bad[2] = {4, 2};
    skt_buf bm;
    skt_make(&bm, SK_DTYPE_BOOL, 2, bad, SKT_CONTIG, 0, &r);
    skt_fill_mask(&bm, &r, 50);
    EXPECT_STATUS("masked_select with a mask that does not broadcast",
                  sk_masked_select(&x.t, &bm.t, &out.t, NULL), SK_STATUS_INVALID_SHAPE, &out);
    int64_t short_shape[1] = {11};
    skt_buf so;
    mk(&so, SK_DTYPE_INT32, 1, short_shape, &r);
    EXPECT_STATUS("masked_select with out of 11 elements for 12 True",
                  sk_masked_select(&x.t, &m.t, &so.t, NULL), SK_STATUS_INVALID_SHAPE, &so);
    skt_free(&so);
    skt_free(&bm);
    skt_free(&x);
    skt_free(&m);
    skt_free(&out);
    skt_free(&im);
}

static void test_masked_select(void) {
    REQUIRE_OP(sk_masked_select);
    REQUIRE_OP(sk_masked_select_count);
    skt_rng r;
    skt_seed(&r, 105);
    for (size_t ci = 0; ci < COUNT(mask_cases); ci++) {
        const mask_case *mc = &mask_cases[ci];
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (mc->big && !big_dtype(dt)) continue;
            for (int pi = 0; pi < 3; pi++) {
                for (int rep = 0; rep < (mc->big ? 1 : 2); rep++) {
                    skt_buf x, m, out;
                    skt_make(&x, dt, mc->x.ndim, mc->x.d, in_layout(&r), 0, &r);
                    skt_fill(&x, &r, SKT_VAL_NAN);
                    skt_make(&m, SK_DTYPE_BOOL, mc->mask.ndim, mc->mask.d, in_layout(&r), 0, &r);
                    skt_fill_mask(&m, &r, mask_density[pi]);
                    int64_t want = 0, got = -1;
                    skref_masked_select_count(&x.t, &m.t, &want, NULL);
                    sk_status st = sk_masked_select_count(&x.t, &m.t, &got, NULL);
                    skt_checks++;
                    if (st != SK_STATUS_OK || got != want)
                        skt_fail("masked_select_count: status '%s', count %lld, expected %lld (%s)",
                                 sk_status_string(st), (long long)got, (long long)want,
                                 sk_last_error());
                    skt_make(&out, dt, 1, &want, out_layout(&r), 0, &r);
                    op_args a = {0};
                    a.mask = &m;
                    char desc[1024];
                    snprintf(desc, sizeof desc, "masked_select density=%d%%", mask_density[pi]);
                    skt_desc(desc, sizeof desc, "x", &x.t);
                    skt_desc(desc, sizeof desc, "mask", &m.t);
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&x, &m};
                    skt_run_case(desc, call_masked_select, &a, &x, &out, false, 0, inputs, 2);
                    skt_free(&x);
                    skt_free(&m);
                    skt_free(&out);
                }
            }
        }
    }
    masked_select_errors();
}

static void masked_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 12);
    int64_t xs[2] = {4, 3}, ss[1] = {11};
    skt_buf x, m, src, out, fs;
    mk(&x, SK_DTYPE_BFLOAT16, 2, xs, &r);
    skt_make(&m, SK_DTYPE_BOOL, 2, xs, SKT_CONTIG, 0, &r);
    skt_fill_mask(&m, &r, 100);
    mk(&src, SK_DTYPE_BFLOAT16, 1, ss, &r);
    mk(&out, SK_DTYPE_BFLOAT16, 2, xs, &r);
    mk(&fs, SK_DTYPE_FLOAT32, 2, xs, &r);
    sk_status st = sk_masked_scatter(&x.t, &m.t, &src.t, &out.t, NULL);
    skt_checks++;
    if (st != SK_STATUS_INVALID_SHAPE && st != SK_STATUS_INVALID_ARGUMENT)
        skt_fail("masked_scatter with 11 source elements for 12 True: expected a shape or "
                 "argument error, got '%s'",
                 sk_status_string(st));
    EXPECT_STATUS("masked_scatter, source too small (in place)",
                  sk_masked_scatter(&out.t, &m.t, &src.t, &out.t, NULL), st, &out);
    EXPECT_STATUS("masked_scatter with a float32 source for bfloat16 x",
                  sk_masked_scatter(&x.t, &m.t, &fs.t, &out.t, NULL), SK_STATUS_INVALID_DTYPE,
                  &out);
    EXPECT_STATUS("masked_scatter with a float32 mask",
                  sk_masked_scatter(&x.t, &fs.t, &x.t, &out.t, NULL), SK_STATUS_INVALID_DTYPE,
                  &out);
    EXPECT_STATUS("masked_scatter mask=NULL", sk_masked_scatter(&x.t, NULL, &x.t, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("masked_scatter source=NULL", sk_masked_scatter(&x.t, &m.t, NULL, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("masked_scatter out=NULL", sk_masked_scatter(&x.t, &m.t, &x.t, NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    skt_free(&x);
    skt_free(&m);
    skt_free(&src);
    skt_free(&out);
    skt_free(&fs);
}

static void test_masked_scatter(void) {
    REQUIRE_OP(sk_masked_scatter);
    skt_rng r;
    skt_seed(&r, 106);
    int caseno = 0;
    for (size_t ci = 0; ci < COUNT(mask_cases); ci++) {
        const mask_case *mc = &mask_cases[ci];
        int64_t n = skt_numel(mc->x.ndim, mc->x.d);
        for (int di = 0; di < SK_DTYPE_COUNT; di++) {
            sk_dtype dt = skt_all_dtypes[di];
            if (mc->big && !big_dtype(dt)) continue;
            for (int pi = 0; pi < 3; pi++) {
                for (int rep = 0; rep < (mc->big ? 1 : 3); rep++, caseno++) {
                    /* source: x's shape, a longer 1-d tensor, or 2-d; it only
                     * needs as many elements as there are True positions */
                    skt_shape ss;
                    if (caseno % 3 == 0 && mc->x.ndim > 0) ss = mc->x;
                    else if (caseno % 3 == 1) ss = (skt_shape){1, {n + 3}};
                    else ss = (skt_shape){2, {(n + 2) / 2, 2}};
                    bool inplace = caseno % 4 == 1;
                    skt_buf x, m, src, out;
                    skt_make(&x, dt, mc->x.ndim, mc->x.d, inplace ? out_layout(&r) : in_layout(&r),
                             0, &r);
                    skt_fill(&x, &r, SKT_VAL_NAN);
                    skt_make(&m, SK_DTYPE_BOOL, mc->mask.ndim, mc->mask.d, in_layout(&r), 0, &r);
                    skt_fill_mask(&m, &r, mask_density[pi]);
                    skt_make(&src, dt, ss.ndim, ss.d, in_layout(&r), 0, &r);
                    skt_fill(&src, &r, SKT_VAL_NAN);
                    if (inplace) skt_clone(&out, &x);
                    else skt_make(&out, dt, mc->x.ndim, mc->x.d, out_layout(&r), 0, &r);
                    op_args a = {0};
                    a.mask = &m;
                    a.src = &src;
                    char desc[1024];
                    snprintf(desc, sizeof desc, "masked_scatter density=%d%%%s", mask_density[pi],
                             inplace ? " in-place" : "");
                    skt_desc(desc, sizeof desc, "x", &x.t);
                    skt_desc(desc, sizeof desc, "mask", &m.t);
                    skt_desc(desc, sizeof desc, "source", &src.t);
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&x, &m, &src};
                    skt_run_case(desc, call_masked_scatter, &a, &x, &out, inplace, 0, inputs, 3);
                    skt_free(&x);
                    skt_free(&m);
                    skt_free(&src);
                    skt_free(&out);
                }
            }
        }
    }
    masked_scatter_errors();
}

/* ------------------------------------------------------------------------ */
/* scatter, scatter_axes, index_scatter, scatter_nd: the reductions         */
/* ------------------------------------------------------------------------ */

static const sk_index_mode scatter_modes[3] = {SK_INDEX_MODE_ERROR, SK_INDEX_MODE_CLIP,
                                               SK_INDEX_MODE_DROP};

/* Everything a reducing scatter case needs beyond its shapes. */
typedef struct {
    sk_dtype dt, it;
    sk_reduce reduce;
    bool include_self, inplace, big;
    sk_index_mode mode;
} red_params;

/* Calls body(params) for every dtype, index dtype, reduction, include_self
 * and mode (the big cases: fewer dtypes, int64 indices, error mode). */
#define FOR_REDUCTIONS(big_, with_self, p, ...)                                                \
    do {                                                                                        \
        int caseno_ = 0;                                                                        \
        for (int di_ = 0; di_ < SK_DTYPE_COUNT; di_++)                                          \
            for (int ii_ = 0; ii_ < 2; ii_++)                                                   \
                for (int ri_ = 0; ri_ < 6; ri_++)                                               \
                    for (int si_ = 0; si_ < ((with_self) ? 2 : 1); si_++)                       \
                        for (int mi_ = 0; mi_ < 3; mi_++) {                                     \
                            red_params p = {skt_all_dtypes[di_], index_dtypes[ii_],             \
                                            (sk_reduce)ri_, (with_self) ? si_ == 0 : true,     \
                                            (caseno_++ % 3) == 2, (big_), scatter_modes[mi_]};  \
                            if (!reduce_ok(p.dt, p.reduce)) continue;                           \
                            if ((big_) && (!big_dtype(p.dt) || ii_ == 0 || mi_ != 0)) continue; \
                            __VA_ARGS__                                                         \
                        }                                                                       \
    } while (0)

typedef struct {
    skt_shape x, idx, src;
    int32_t axis;
    bool big;
} scatter_case;

static const scatter_case scatter_cases[] = {
    {{1, {5}}, {1, {8}}, {1, {8}}, 0, false},
    {{1, {5}}, {1, {3}}, {1, {6}}, -1, false},
    {{2, {4, 3}}, {2, {6, 3}}, {2, {6, 4}}, 0, false},
    {{2, {4, 3}}, {2, {4, 5}}, {2, {4, 5}}, 1, false},
    {{2, {4, 3}}, {2, {2, 2}}, {2, {3, 3}}, -1, false},
    {{3, {3, 4, 5}}, {3, {2, 6, 3}}, {3, {3, 6, 5}}, 1, false},
    {{3, {3, 4, 5}}, {3, {3, 2, 8}}, {3, {3, 2, 8}}, -1, false},
    {{3, {1, 5, 1}}, {3, {1, 7, 1}}, {3, {1, 7, 1}}, 1, false},
    {{4, {2, 3, 2, 3}}, {4, {2, 3, 2, 5}}, {4, {2, 3, 2, 5}}, 3, false},
    {{2, {0, 3}}, {2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {0, 3}}, {2, {0, 3}}, 0, false},
    {{2, {4, 3}}, {2, {2, 0}}, {2, {2, 0}}, 1, false},
    {{2, {3, 0}}, {2, {3, 2}}, {2, {3, 2}}, 1, false}, /* empty axis: drop or error */
    {{12, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3}}, {12, {2, 1, 2, 1, 3, 1, 2, 1, 2, 1, 2, 3}},
     {12, {2, 1, 2, 1, 3, 1, 2, 1, 2, 1, 2, 3}}, 4, false},
    {{2, {200, 64}}, {2, {1200, 64}}, {2, {1200, 64}}, 0, true},
    {{2, {64, 300}}, {2, {64, 1200}}, {2, {64, 1200}}, 1, true},
    {{2, {512, 300}}, {2, {100, 290}}, {2, {100, 290}}, 0, true}, /* column tiles */
    {{2, {40, 1100}}, {2, {40, 1500}}, {2, {40, 1500}}, 1, true}, /* last axis, rows claimed */
};

/* Builds x/out for a reducing case (x is out itself when in place). */
static void make_x_out(skt_buf *x, skt_buf *out, const red_params *p, const skt_shape *xs,
                       skt_rng *r) {
    skt_make(x, p->dt, xs->ndim, xs->d, p->inplace ? out_layout(r) : in_layout(r), 0, r);
    skt_fill(x, r, values_for(p->reduce));
    if (p->inplace) skt_clone(out, x);
    else skt_make(out, p->dt, xs->ndim, xs->d, out_layout(r), 0, r);
}

static void red_desc(char *desc, size_t n, const char *op, const red_params *p) {
    snprintf(desc, n, "%s reduce=%s include_self=%d mode=%s%s", op, skt_reduce_names[p->reduce],
             (int)p->include_self, skt_mode_names[p->mode], p->inplace ? " in-place" : "");
}

/* Checks that float16 sums are accumulated in float32 and rounded once:
 * 2048 + 1 + 1 is 2050 that way, but 2048 if every step rounds to half. */
static void scatter_half_rounding(void) {
    skt_rng r;
    skt_seed(&r, 13);
    int64_t xs[1] = {1}, is[1] = {2};
    for (int bf = 0; bf < 2; bf++) {
        sk_dtype dt = bf ? SK_DTYPE_BFLOAT16 : SK_DTYPE_FLOAT16;
        double base = bf ? 256 : 2048; /* bfloat16 has 8 significant bits, float16 11 */
        skt_buf x, idx, src, out;
        mk(&x, dt, 1, xs, &r);
        mk_index(&idx, SK_DTYPE_INT64, 1, is, 0, &r);
        mk(&src, dt, 1, is, &r);
        mk(&out, dt, 1, xs, &r);
        int64_t c0[1] = {0}, c1[1] = {1};
        skt_set(&x, c0, base);
        skt_set(&src, c0, 1);
        skt_set(&src, c1, 1);
        sk_status st = sk_scatter(&x.t, &idx.t, &src.t, 0, SK_REDUCE_SUM, true,
                                  SK_INDEX_MODE_ERROR, &out.t, NULL);
        double got = skt_get(&out, c0);
        skt_checks++;
        if (st != SK_STATUS_OK || got != base + 2)
            skt_fail("scatter sum %s: %g + 1 + 1 gave %g (status '%s'); expected %g: accumulate "
                     "in float32, round once",
                     sk_dtype_name(dt), base, got, sk_status_string(st), base + 2);
        skt_free(&x);
        skt_free(&idx);
        skt_free(&src);
        skt_free(&out);
    }
}

static void scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 14);
    int64_t xs[2] = {10, 10}, is[2] = {4, 8};
    skt_buf x, idx, src, out, bx, fi, sx;
    mk(&x, SK_DTYPE_FLOAT32, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 2, is, 9, &r);
    mk(&src, SK_DTYPE_FLOAT32, 2, is, &r);
    mk(&out, SK_DTYPE_FLOAT32, 2, xs, &r);
    int64_t c[2] = {3, 7};
    skt_set_index(&idx, c, 12);
    /* the SPEC's own example: scatter: index[3, 7] = 12 is out of range for axis 1 of size 10 */
    for (int ri = 0; ri < 6; ri++) {
        char what[128];
        snprintf(what, sizeof what, "scatter reduce=%s with index[3, 7] = 12 on an axis of 10",
                 skt_reduce_names[ri]);
        EXPECT_OOB(what,
                   sk_scatter(&x.t, &idx.t, &src.t, 1, (sk_reduce)ri, ri % 2 == 0,
                              SK_INDEX_MODE_ERROR, &out.t, NULL),
                   &out, "scatter", 12);
    }
    EXPECT_OOB("scatter in place with an out-of-range index",
               sk_scatter(&out.t, &idx.t, &src.t, 1, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR,
                          &out.t, &three_threads),
               &out, "scatter", 12);
    skt_set_index(&idx, c, -11);
    EXPECT_OOB("scatter with index -11 on an axis of 10",
               sk_scatter(&x.t, &idx.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                          &out.t, NULL),
               &out, "scatter", -11);
    skt_set_index(&idx, c, 0);
    {
        /* big in-place scatter whose last index is bad: validated before any write */
        int64_t bxs[2] = {300, 256}, bis[2] = {600, 256};
        skt_buf X, I, S;
        mk(&X, SK_DTYPE_FLOAT32, 2, bxs, &r);
        mk_index(&I, SK_DTYPE_INT32, 2, bis, 299, &r);
        mk(&S, SK_DTYPE_FLOAT32, 2, bis, &r);
        int64_t last[2] = {599, 255};
        skt_set_index(&I, last, 300);
        EXPECT_OOB("scatter in place, big, last index 300 on an axis of 300",
                   sk_scatter(&X.t, &I.t, &S.t, 0, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR, &X.t,
                              &three_threads),
                   &X, "scatter", 300);
        skt_free(&X);
        skt_free(&I);
        skt_free(&S);
    }
    EXPECT_STATUS("scatter axis=2 on 2-d x",
                  sk_scatter(&x.t, &idx.t, &src.t, 2, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("scatter reduce=17",
                  sk_scatter(&x.t, &idx.t, &src.t, 1, (sk_reduce)17, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("scatter mode=fill",
                  sk_scatter(&x.t, &idx.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_FILL,
                             &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    mk(&bx, SK_DTYPE_BOOL, 2, xs, &r);
    for (int ri = SK_REDUCE_SUM; ri <= SK_REDUCE_MEAN; ri++) {
        char what[128];
        snprintf(what, sizeof what, "scatter bool with reduce=%s", skt_reduce_names[ri]);
        skt_buf bs, bo;
        mk(&bs, SK_DTYPE_BOOL, 2, is, &r);
        mk(&bo, SK_DTYPE_BOOL, 2, xs, &r);
        EXPECT_STATUS(what,
                      sk_scatter(&bx.t, &idx.t, &bs.t, 1, (sk_reduce)ri, true,
                                 SK_INDEX_MODE_ERROR, &bo.t, NULL),
                      SK_STATUS_INVALID_DTYPE, &bo);
        skt_free(&bs);
        skt_free(&bo);
    }
    mk(&sx, SK_DTYPE_FLOAT64, 2, is, &r);
    EXPECT_STATUS("scatter with a float64 src for float32 x",
                  sk_scatter(&x.t, &idx.t, &sx.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    mk(&fi, SK_DTYPE_FLOAT32, 2, is, &r);
    EXPECT_STATUS("scatter with a float32 index",
                  sk_scatter(&x.t, &fi.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    EXPECT_STATUS("scatter x=NULL",
                  sk_scatter(NULL, &idx.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("scatter index=NULL",
                  sk_scatter(&x.t, NULL, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("scatter src=NULL",
                  sk_scatter(&x.t, &idx.t, NULL, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("scatter out=NULL",
                  sk_scatter(&x.t, &idx.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                             NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    {
        int64_t small[2] = {4, 7};
        skt_buf ss;
        mk(&ss, SK_DTYPE_FLOAT32, 2, small, &r);
        EXPECT_STATUS("scatter with src smaller than index",
                      sk_scatter(&x.t, &idx.t, &ss.t, 1, SK_REDUCE_NONE, true,
                                 SK_INDEX_MODE_ERROR, &out.t, NULL),
                      SK_STATUS_INVALID_SHAPE, &out);
        skt_free(&ss);
    }
    {
        /* out overlapping x (shifted by one element), out overlapping src,
         * out with a zero stride */
        sk_tensor ov = x.t;
        ov.data = (float *)x.t.data + 1;
        ov.shape[0] = 9;
        sk_tensor xs9 = x.t;
        xs9.shape[0] = 9;
        skt_buf i9;
        int64_t is9[2] = {4, 8};
        mk_index(&i9, SK_DTYPE_INT64, 2, is9, 8, &r);
        unsigned char *snap = skt_snapshot(&x);
        sk_status st = sk_scatter(&xs9, &i9.t, &src.t, 1, SK_REDUCE_NONE, true,
                                  SK_INDEX_MODE_ERROR, &ov, NULL);
        skt_expect_fail("scatter with out partly overlapping x", st, SK_STATUS_OVERLAP, &x, snap,
                        NULL, NULL, NULL);
        free(snap);
        skt_free(&i9);
        int64_t ss[2] = {10, 10};
        skt_buf big_src;
        mk(&big_src, SK_DTYPE_FLOAT32, 2, ss, &r);
        snap = skt_snapshot(&big_src);
        st = sk_scatter(&x.t, &idx.t, &big_src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR,
                        &big_src.t, NULL);
        skt_expect_fail("scatter with out == src", st, SK_STATUS_OVERLAP, &big_src, snap, NULL,
                        NULL, NULL);
        free(snap);
        skt_free(&big_src);
        sk_tensor zo = out.t;
        zo.strides[1] = 0;
        snap = skt_snapshot(&out);
        st = sk_scatter(&x.t, &idx.t, &src.t, 1, SK_REDUCE_NONE, true, SK_INDEX_MODE_ERROR, &zo,
                        NULL);
        skt_expect_fail("scatter with a zero-stride out", st, SK_STATUS_OVERLAP, &out, snap, NULL,
                        NULL, NULL);
        free(snap);
    }
    skt_free(&x);
    skt_free(&idx);
    skt_free(&src);
    skt_free(&out);
    skt_free(&bx);
    skt_free(&fi);
    skt_free(&sx);
}

/* Row scatters large enough for the blocked path of the scatter engine
 * (update rows cut into fixed blocks, each reduced into its own partial):
 * index [1, 9000, 16] broadcast along its last dimension into x [1, 300, 16].
 * skt_run_case compares with the reference at 1, 2 and 3 threads (3: more
 * threads than blocks). */
/* One scatter case of red_params p over x of shape xs (the layout given,
 * or row-major when in place) and an index and src of shape is (index
 * values over n, then the edge values of p.mode sprinkled in when asked),
 * checked against the reference by skt_run_case. */
static void scatter_one(const char *what, const red_params *p, const skt_shape *xs,
                        skt_layout x_layout, const skt_shape *is, skt_layout idx_layout,
                        skt_layout src_layout, int32_t axis, int64_t n, bool extremes,
                        skt_rng *r) {
    skt_buf x, idx, src, out;
    int64_t lo, hi;
    /* out row-major: the row pattern and the tiles need contiguous targets */
    skt_make(&x, p->dt, xs->ndim, xs->d, p->inplace ? SKT_CONTIG : x_layout, 0, r);
    skt_fill(&x, r, values_for(p->reduce));
    if (p->inplace) skt_clone(&out, &x);
    else skt_make(&out, p->dt, xs->ndim, xs->d, SKT_CONTIG, 0, r);
    skt_make(&idx, p->it, is->ndim, is->d, idx_layout, 0, r);
    index_bounds(n, p->mode, &lo, &hi);
    skt_fill_index(&idx, r, -1, &lo, &hi);
    if (extremes) sprinkle_extremes(&idx, p->mode, r);
    skt_make(&src, p->dt, is->ndim, is->d, src_layout, 0, r);
    skt_fill(&src, r, values_for(p->reduce));
    op_args a = {0};
    a.index = &idx;
    a.src = &src;
    a.axis = axis;
    a.reduce = p->reduce;
    a.include_self = p->include_self;
    a.mode = p->mode;
    char desc[1024];
    red_desc(desc, sizeof desc, what, p);
    skt_desc(desc, sizeof desc, "index", &idx.t);
    const skt_buf *inputs[] = {&idx, &src, &x};
    skt_run_case(desc, call_scatter, &a, &x, &out, p->inplace, tol_for(p->dt, p->reduce), inputs,
                 p->inplace ? 2 : 3);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&src);
    skt_free(&out);
}

static void scatter_blocked_rows(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_BFLOAT16,
                                   SK_DTYPE_INT32, SK_DTYPE_BOOL};
    const skt_shape xs = {3, {1, 300, 16}}, is = {3, {1, 9000, 16}};
    skt_rng r;
    skt_seed(&r, 108);
    for (size_t di = 0; di < COUNT(dts); di++)
        for (int ri = 1; ri < 6; ri++)
            for (int si = 0; si < 2; si++)
                for (int v = 0; v < 2; v++) {
                    red_params p = {dts[di], v ? SK_DTYPE_INT32 : SK_DTYPE_INT64, (sk_reduce)ri,
                                    si == 0, v == 1, true,
                                    v ? SK_INDEX_MODE_DROP : SK_INDEX_MODE_ERROR};
                    if (!reduce_ok(p.dt, p.reduce)) continue;
                    /* src rows not contiguous: packed a group at a time
                     * (mode error), or walked with their stride (drop) */
                    skt_layout sl = si == v ? (v ? SKT_MIXED : SKT_TRANSPOSED) : SKT_CONTIG;
                    scatter_one("scatter (blocked rows)", &p, &xs, in_layout(&r), &is,
                                SKT_BROADCAST, sl, 1, 300, false, &r);
                }
}

/* Column tiles: a scatter of elements along axis 0, x, index, src and out
 * row-major (the tiles are packed, updated and written back), every
 * reduction, with and without include_self (mean and include_self=false
 * keep owner-computes), every mode, in place too. */
static void scatter_column_tiles(void) {
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_INT32};
    /* index narrower than x (x copied into out first), and as wide (the
     * tiles cover all of out and are packed from x itself) */
    static const skt_shape index_shapes[] = {{2, {100, 650}}, {2, {100, 700}}};
    const skt_shape xs = {2, {512, 700}};
    skt_rng r;
    skt_seed(&r, 112);
    for (size_t ki = 0; ki < COUNT(index_shapes); ki++)
        for (size_t di = 0; di < COUNT(dts); di++)
            for (int ri = 0; ri < 6; ri++)
                for (int si = 0; si < 2; si++)
                    for (int mi = 0; mi < 3; mi++) {
                        red_params p = {dts[di], mi == 1 ? SK_DTYPE_INT32 : SK_DTYPE_INT64,
                                        (sk_reduce)ri, si == 0, mi == 2, true, scatter_modes[mi]};
                        if (!reduce_ok(p.dt, p.reduce)) continue;
                        scatter_one("scatter (column tiles)", &p, &xs, SKT_CONTIG,
                                    &index_shapes[ki], SKT_CONTIG, SKT_CONTIG, 0, 512, true, &r);
                    }
}

/* With a fresh out, the element scatter along the last axis checks each run of
 * index values inside its kernel (rows of 1024 and more): a bad value
 * anywhere (int64 and int32, either end of a row, a later row than the
 * first bad one) still fails with the first one's position, x is never
 * written, and an out that is not fresh is not written either. Valid values
 * (negative ones too) give last-wins assign. */
static void scatter_last_axis_bounds(void) {
    enum { R = 3, C = 1100 };
    static float x[R * C], out[R * C], src[R * C];
    static int64_t i64[R * C];
    static int32_t i32[R * C];
    static const int64_t bad[] = {C, -C - 1, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    static const int at[] = {0, 513, C - 1, C + 7, 2 * C + 1099};
    const int64_t shape[2] = {R, C};
    for (int k = 0; k < R * C; k++) {
        x[k] = (float)k;
        src[k] = (float)(-k - 1);
    }
    for (int wide = 0; wide < 2; wide++)
        for (int fresh = 0; fresh < 2; fresh++)
            for (size_t bi = 0; bi <= COUNT(bad); bi++)
                for (size_t ai = 0; ai < COUNT(at); ai++) {
                    if (!wide && bi < COUNT(bad) && (bad[bi] > INT32_MAX || bad[bi] < INT32_MIN))
                        continue;
                    int64_t v[R * C];
                    for (int k = 0; k < R * C; k++) v[k] = (int64_t)((k * 7919) % (2 * C)) - C;
                    if (bi < COUNT(bad)) {
                        v[at[ai]] = bad[bi];
                        if (at[ai] < 2 * C)
                            v[2 * C + 50] = C + 5; /* a later bad value: not the one named */
                    }
                    for (int k = 0; k < R * C; k++) {
                        i64[k] = v[k];
                        i32[k] = (int32_t)v[k];
                        out[k] = -7.0f;
                    }
                    sk_tensor tx, ti, ts, to;
                    sk_tensor_init(&tx, x, SK_DTYPE_FLOAT32, 2, shape, NULL);
                    sk_tensor_init(&ti, wide ? (void *)i64 : (void *)i32,
                                   wide ? SK_DTYPE_INT64 : SK_DTYPE_INT32, 2, shape, NULL);
                    sk_tensor_init(&ts, src, SK_DTYPE_FLOAT32, 2, shape, NULL);
                    sk_tensor_init(&to, out, SK_DTYPE_FLOAT32, 2, shape, NULL);
                    sk_options opts = {0};
                    opts.flags = fresh ? SK_OPTION_FRESH_OUT : 0;
                    opts.num_threads = 1 + (int)(ai % 3);
                    sk_status st = sk_scatter(&tx, &ti, &ts, 1, SK_REDUCE_NONE, true,
                                              SK_INDEX_MODE_ERROR, &to, &opts);
                    for (int k = 0; k < R * C; k++)
                        if (x[k] != (float)k) skt_fail("scatter (last-axis bounds): wrote x");
                    if (bi < COUNT(bad)) {
                        char want[64];
                        snprintf(want, sizeof want, "index[%d, %d] = ", at[ai] / C, at[ai] % C);
                        if (st != SK_STATUS_INDEX_OUT_OF_RANGE || !strstr(sk_last_error(), want))
                            skt_fail("scatter (last-axis bounds): value %lld at %d: status %d, %s",
                                     (long long)bad[bi], at[ai], (int)st, sk_last_error());
                        if (!fresh)
                            for (int k = 0; k < R * C; k++)
                                if (out[k] != -7.0f) skt_fail("scatter (last-axis bounds): wrote out");
                        continue;
                    }
                    if (st) skt_fail("scatter (last-axis bounds): %s", sk_last_error());
                    float want[R * C];
                    memcpy(want, x, sizeof want);
                    for (int k = 0; k < R * C; k++)
                        want[(k / C) * C + (v[k] < 0 ? v[k] + C : v[k])] = src[k];
                    if (memcmp(want, out, sizeof want))
                        skt_fail("scatter (last-axis bounds): wrong values (fresh %d)", fresh);
                    break; /* the valid index once */
                }
}

static void test_scatter(void) {
    REQUIRE_OP(sk_scatter);
    scatter_last_axis_bounds();
    skt_rng r;
    skt_seed(&r, 107);
    for (size_t ci = 0; ci < COUNT(scatter_cases); ci++) {
        const scatter_case *sc = &scatter_cases[ci];
        int32_t ax = wrap_axis(sc->axis, sc->x.ndim);
        int64_t n = sc->x.d[ax];
        FOR_REDUCTIONS(sc->big, true, p, {
            if (p.mode == SK_INDEX_MODE_CLIP && n == 0) continue;
            skt_buf x, idx, src, out;
            int64_t lo, hi;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&idx, p.it, sc->idx.ndim, sc->idx.d, in_layout(&r), 0, &r);
            index_bounds(n, p.mode, &lo, &hi);
            skt_fill_index(&idx, &r, -1, &lo, &hi);
            sprinkle_extremes(&idx, p.mode, &r);
            skt_make(&src, p.dt, sc->src.ndim, sc->src.d, in_layout(&r), 0, &r);
            skt_fill(&src, &r, values_for(p.reduce));
            op_args a = {0};
            a.index = &idx;
            a.src = &src;
            a.axis = sc->axis;
            a.reduce = p.reduce;
            a.include_self = p.include_self;
            a.mode = p.mode;
            char desc[1024];
            red_desc(desc, sizeof desc, "scatter", &p);
            skt_appendf(desc, sizeof desc, " axis=%d", (int)sc->axis);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "index", &idx.t);
            skt_desc(desc, sizeof desc, "src", &src.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&idx, &src, &x};
            skt_run_case(desc, call_scatter, &a, &x, &out, p.inplace, tol_for(p.dt, p.reduce),
                         inputs, p.inplace ? 2 : 3);
            skt_free(&x);
            skt_free(&idx);
            skt_free(&src);
            skt_free(&out);
        });
    }
    scatter_half_rounding();
    scatter_errors();
    scatter_blocked_rows();
    scatter_column_tiles();
}

/* ------------------------------------------------------------------------ */
/* scatter_axes                                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[4];
    skt_shape block, src;
    bool big;
} scatter_axes_case;

static const scatter_axes_case scatter_axes_cases[] = {
    {{2, {4, 5}}, 2, {0, 1}, {2, {3, 6}}, {2, {3, 6}}, false},
    {{2, {4, 5}}, 1, {1}, {2, {4, 7}}, {2, {4, 8}}, false},
    {{3, {3, 4, 5}}, 2, {0, 2}, {3, {4, 4, 6}}, {3, {4, 4, 6}}, false},
    {{3, {3, 4, 5}}, 2, {2, 0}, {3, {3, 3, 2}}, {3, {4, 3, 2}}, false},
    {{3, {3, 4, 5}}, 2, {-1, -3}, {3, {5, 2, 2}}, {3, {5, 2, 2}}, false},
    {{3, {2, 2, 3}}, 3, {0, 1, 2}, {3, {3, 3, 3}}, {3, {3, 3, 3}}, false},
    {{2, {4, 5}}, 2, {0, 1}, {2, {0, 3}}, {2, {0, 3}}, false},
    {{1, {6}}, 1, {0}, {1, {10}}, {1, {10}}, false},
    {{2, {256, 300}}, 2, {0, 1}, {2, {300, 300}}, {2, {300, 300}}, true},
};

static void scatter_axes_errors(void) {
    skt_rng r;
    skt_seed(&r, 15);
    int64_t xs[2] = {4, 5}, is[3] = {3, 6, 2}, ss[2] = {3, 6};
    int32_t axes[2] = {0, 1}, dup[2] = {0, -2};
    skt_buf x, idx, src, out;
    mk(&x, SK_DTYPE_INT8, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 3, is, 3, &r);
    mk(&src, SK_DTYPE_INT8, 2, ss, &r);
    mk(&out, SK_DTYPE_INT8, 2, xs, &r);
    int64_t c[3] = {2, 5, 1};
    skt_set_index(&idx, c, 4005);
    EXPECT_OOB("scatter_axes with index 4005 on an axis of 5",
               sk_scatter_axes(&x.t, &idx.t, &src.t, axes, 2, SK_REDUCE_SUM, true,
                               SK_INDEX_MODE_ERROR, &out.t, NULL),
               &out, "scatter", 4005);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("scatter_axes with axes (0, -2) on 2-d x",
                  sk_scatter_axes(&x.t, &idx.t, &src.t, dup, 2, SK_REDUCE_SUM, true,
                                  SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("scatter_axes axes=NULL",
                  sk_scatter_axes(&x.t, &idx.t, &src.t, NULL, 2, SK_REDUCE_SUM, true,
                                  SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("scatter_axes src=NULL",
                  sk_scatter_axes(&x.t, &idx.t, NULL, axes, 2, SK_REDUCE_SUM, true,
                                  SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&src);
    skt_free(&out);
}

static void test_scatter_axes(void) {
    REQUIRE_OP(sk_scatter_axes);
    skt_rng r;
    skt_seed(&r, 108);
    for (size_t ci = 0; ci < COUNT(scatter_axes_cases); ci++) {
        const scatter_axes_case *sc = &scatter_axes_cases[ci];
        skt_shape is = sc->block;
        is.d[is.ndim++] = sc->naxes;
        int64_t lo[4], hi[4];
        bool any_empty = false;
        for (int32_t k = 0; k < sc->naxes; k++)
            any_empty |= sc->x.d[wrap_axis(sc->axes[k], sc->x.ndim)] == 0;
        FOR_REDUCTIONS(sc->big, true, p, {
            if (p.mode == SK_INDEX_MODE_CLIP && any_empty) continue;
            for (int32_t k = 0; k < sc->naxes; k++)
                index_bounds(sc->x.d[wrap_axis(sc->axes[k], sc->x.ndim)], p.mode, &lo[k], &hi[k]);
            skt_buf x, idx, src, out;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&idx, p.it, is.ndim, is.d, in_layout(&r), 1u << (is.ndim - 1), &r);
            skt_fill_index(&idx, &r, is.ndim - 1, lo, hi);
            sprinkle_extremes(&idx, p.mode, &r);
            skt_make(&src, p.dt, sc->src.ndim, sc->src.d, in_layout(&r), 0, &r);
            skt_fill(&src, &r, values_for(p.reduce));
            op_args a = {0};
            a.index = &idx;
            a.src = &src;
            a.naxes = sc->naxes;
            memcpy(a.axes, sc->axes, sizeof sc->axes);
            a.reduce = p.reduce;
            a.include_self = p.include_self;
            a.mode = p.mode;
            char desc[1024];
            red_desc(desc, sizeof desc, "scatter_axes", &p);
            skt_appendf(desc, sizeof desc, " axes=(%d,%d,%d)[:%d]", (int)sc->axes[0],
                        (int)sc->axes[1], (int)sc->axes[2], (int)sc->naxes);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "index", &idx.t);
            skt_desc(desc, sizeof desc, "src", &src.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&idx, &src, &x};
            skt_run_case(desc, call_scatter_axes, &a, &x, &out, p.inplace,
                         tol_for(p.dt, p.reduce), inputs, p.inplace ? 2 : 3);
            skt_free(&x);
            skt_free(&idx);
            skt_free(&src);
            skt_free(&out);
        });
    }
    scatter_axes_errors();
}

/* ------------------------------------------------------------------------ */
/* index_scatter                                                            */
/* ------------------------------------------------------------------------ */

static const select_case index_scatter_cases[] = {
    {{1, {5}}, {1, {7}}, 0, false},
    {{1, {5}}, {0, {0}}, 0, false}, /* 0-d index: updates is 0-d */
    {{2, {4, 3}}, {1, {6}}, 0, false},
    {{2, {4, 3}}, {1, {5}}, 1, false},
    {{2, {4, 3}}, {0, {0}}, -1, false},
    {{3, {3, 4, 5}}, {0, {0}}, 1, false},
    {{3, {3, 4, 5}}, {1, {8}}, -1, false},
    {{3, {3, 4, 5}}, {1, {2}}, 1, false},
    {{2, {0, 3}}, {1, {2}}, 1, false},
    {{2, {4, 3}}, {1, {0}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 0, false},
    {{2, {4, 0}}, {1, {3}}, 1, false}, /* empty axis */
    {{2, {300, 64}}, {1, {1200}}, 0, true},
    {{2, {64, 300}}, {1, {1200}}, 1, true},
    {{2, {8, 300}}, {1, {1500}}, 1, true}, /* inner axis: rows claimed, x copied per chunk */
};

static int32_t index_scatter_updates(const select_case *c, int64_t *shape) {
    int32_t ax = wrap_axis(c->axis, c->x.ndim), n = 0;
    for (int32_t d = 0; d < c->x.ndim; d++) {
        if (d != ax) shape[n++] = c->x.d[d];
        else if (c->idx.ndim == 1) shape[n++] = c->idx.d[0];
    }
    return n;
}

/* index_add along the last axis with a long contiguous int64 index (W6):
 * sums take their own loop over a wrapped uint16 copy of the index (n <=
 * 65536) or an int32 one; float32, float16 and bfloat16 four rows at a time
 * through an interleaved float32 buffer when the scratch budget has room (7
 * rows: one group of four and three single rows; n and L not multiples of
 * 4), integers through their unsigned type. Same bits as a plain loop in
 * index order (16-bit floats: in float32, rounded once); out also as a
 * column-major buffer (strided along the axis, one row at a time). */
static double inner_value(sk_dtype dt, int64_t k, bool update) {
    double v = update ? 1.0 / (double)(k % 13 + 1) : 0.25 * (double)(k % 7);
    return sk_dtype_is_floating(dt) ? v : (double)(update ? k % 251 - 125 : k % 97);
}
static void inner_store(sk_dtype dt, char *p, double v) {
    switch (dt) {
    case SK_DTYPE_FLOAT64: memcpy(p, &v, 8); break;
    case SK_DTYPE_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); } break;
    case SK_DTYPE_FLOAT16: { uint16_t h = sk_float_to_half((float)v); memcpy(p, &h, 2); } break;
    case SK_DTYPE_BFLOAT16: { uint16_t h = sk_float_to_bfloat16((float)v); memcpy(p, &h, 2); } break;
    default: { uint64_t u = (uint64_t)(int64_t)v; memcpy(p, &u, sk_dtype_size(dt)); } break;
    }
}
/* want[k] += u (x86-64 little-endian for the integer bytes) */
static void inner_add(sk_dtype dt, char *want, const char *u, float *acc16) {
    switch (dt) {
    case SK_DTYPE_FLOAT64: { double a, b; memcpy(&a, want, 8); memcpy(&b, u, 8); a += b; memcpy(want, &a, 8); } break;
    case SK_DTYPE_FLOAT32: { float a, b; memcpy(&a, want, 4); memcpy(&b, u, 4); a += b; memcpy(want, &a, 4); } break;
    case SK_DTYPE_FLOAT16: { uint16_t h; memcpy(&h, u, 2); *acc16 += sk_half_to_float(h); } break;
    case SK_DTYPE_BFLOAT16: { uint16_t h; memcpy(&h, u, 2); *acc16 += sk_bfloat16_to_float(h); } break;
    default: {
        uint64_t a = 0, b = 0;
        size_t es = sk_dtype_size(dt);
        memcpy(&a, want, es);
        memcpy(&b, u, es);
        a += b;
        memcpy(want, &a, es);
    } break;
    }
}
static void index_scatter_inner_sum(void) {
    static const int64_t widths[] = {301, 70001}, lengths[] = {1501, 190001};
    static const sk_dtype dts[] = {SK_DTYPE_FLOAT32, SK_DTYPE_FLOAT64, SK_DTYPE_FLOAT16,
                                   SK_DTYPE_BFLOAT16, SK_DTYPE_INT32, SK_DTYPE_UINT8,
                                   SK_DTYPE_INT64};
    for (int wi = 0; wi < 2; wi++)
        for (size_t di = 0; di < COUNT(dts); di++)
            for (int colmajor = 0; colmajor < 2; colmajor++) {
                const int64_t R = 7, n = widths[wi], L = lengths[wi];
                const sk_dtype dt = dts[di];
                const bool half = dt == SK_DTYPE_FLOAT16 || dt == SK_DTYPE_BFLOAT16;
                if (wi == 1 && di >= 4) continue; /* the wide case: floats only */
                size_t es = sk_dtype_size(dt);
                char *x = malloc((size_t)(R * n) * es), *u = malloc((size_t)(R * L) * es);
                char *out = malloc((size_t)(R * n) * es), *want = malloc((size_t)(R * n) * es);
                float *acc = malloc((size_t)(R * n) * sizeof(float));
                int64_t *idx = malloc((size_t)L * sizeof(int64_t));
                if (!x || !u || !out || !want || !acc || !idx)
                    skt_fail("index_scatter (inner sum): out of memory");
                for (int64_t k = 0; k < R * n; k++) inner_store(dt, x + k * es, inner_value(dt, k, false));
                for (int64_t k = 0; k < R * L; k++) inner_store(dt, u + k * es, inner_value(dt, k, true));
                for (int64_t j = 0; j < L; j++) { /* duplicates, negatives, both ends */
                    int64_t v = (j * 7919) % (j % 4 == 0 ? 5 : n);
                    idx[j] = j % 3 == 0 ? v - n : v;
                }
                idx[1] = n - 1;
                idx[2] = -n;
                memcpy(want, x, (size_t)(R * n) * es);
                for (int64_t k = 0; k < R * n && half; k++) {
                    uint16_t h;
                    memcpy(&h, x + k * es, 2);
                    acc[k] = dt == SK_DTYPE_FLOAT16 ? sk_half_to_float(h) : sk_bfloat16_to_float(h);
                }
                for (int64_t r = 0; r < R; r++)
                    for (int64_t j = 0; j < L; j++) {
                        int64_t v = idx[j] < 0 ? idx[j] + n : idx[j];
                        inner_add(dt, want + (r * n + v) * es, u + (r * L + j) * es, &acc[r * n + v]);
                    }
                for (int64_t k = 0; k < R * n && half; k++) inner_store(dt, want + k * es, acc[k]);
                const int64_t xs[2] = {R, n}, us[2] = {R, L}, is[1] = {L};
                const int64_t cm[2] = {1, R}; /* out column-major */
                sk_tensor tx, ti, tu, to;
                sk_tensor_init(&tx, x, dt, 2, xs, NULL);
                sk_tensor_init(&ti, idx, SK_DTYPE_INT64, 1, is, NULL);
                sk_tensor_init(&tu, u, dt, 2, us, NULL);
                sk_tensor_init(&to, out, dt, 2, xs, colmajor ? cm : NULL);
                for (int threads = 1; threads <= 2; threads++) {
                    memset(out, 0xAB, (size_t)(R * n) * es);
                    sk_options opts = {0};
                    opts.num_threads = threads;
                    if (sk_index_scatter(&tx, &ti, &tu, 1, SK_REDUCE_SUM, true, SK_INDEX_MODE_ERROR,
                                         &to, &opts))
                        skt_fail("index_scatter (inner sum): %s", sk_last_error());
                    for (int64_t r = 0; r < R; r++)
                        for (int64_t c = 0; c < n; c++) {
                            size_t at = (size_t)(colmajor ? c * R + r : r * n + c) * es;
                            if (memcmp(out + at, want + (size_t)(r * n + c) * es, es))
                                skt_fail("index_scatter (inner sum, n=%lld, %s, %s, %d threads): "
                                         "out[%lld, %lld] differs", (long long)n, sk_dtype_name(dt),
                                         colmajor ? "column-major out" : "row-major out", threads,
                                         (long long)r, (long long)c);
                        }
                }
                free(x);
                free(u);
                free(out);
                free(want);
                free(acc);
                free(idx);
            }
}

static void index_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 16);
    int64_t xs[2] = {5, 3}, is[1] = {4}, us[2] = {4, 3};
    skt_buf x, idx, upd, out;
    mk(&x, SK_DTYPE_INT64, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT32, 1, is, 4, &r);
    mk(&upd, SK_DTYPE_INT64, 2, us, &r);
    mk(&out, SK_DTYPE_INT64, 2, xs, &r);
    int64_t c[1] = {2};
    skt_set_index(&idx, c, 3005);
    EXPECT_OOB("index_scatter with index 3005 on an axis of 5",
               sk_index_scatter(&x.t, &idx.t, &upd.t, 0, SK_REDUCE_MEAN, false,
                                SK_INDEX_MODE_ERROR, &out.t, NULL),
               &out, "index_scatter", 3005);
    EXPECT_OOB("index_scatter in place with index 3005",
               sk_index_scatter(&out.t, &idx.t, &upd.t, 0, SK_REDUCE_NONE, true,
                                SK_INDEX_MODE_ERROR, &out.t, &three_threads),
               &out, "index_scatter", 3005);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("index_scatter axis=-3 on 2-d x",
                  sk_index_scatter(&x.t, &idx.t, &upd.t, -3, SK_REDUCE_NONE, true,
                                   SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("index_scatter updates=NULL",
                  sk_index_scatter(&x.t, &idx.t, NULL, 0, SK_REDUCE_NONE, true,
                                   SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    int64_t bad_us[2] = {4, 2};
    skt_buf bu;
    mk(&bu, SK_DTYPE_INT64, 2, bad_us, &r);
    EXPECT_STATUS("index_scatter with updates of the wrong shape",
                  sk_index_scatter(&x.t, &idx.t, &bu.t, 0, SK_REDUCE_NONE, true,
                                   SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_INVALID_SHAPE, &out);
    skt_free(&bu);
    skt_buf fu;
    mk(&fu, SK_DTYPE_INT32, 2, us, &r);
    EXPECT_STATUS("index_scatter with int32 updates for int64 x",
                  sk_index_scatter(&x.t, &idx.t, &fu.t, 0, SK_REDUCE_NONE, true,
                                   SK_INDEX_MODE_ERROR, &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    skt_free(&fu);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&upd);
    skt_free(&out);
}

static void test_index_scatter(void) {
    REQUIRE_OP(sk_index_scatter);
    skt_rng r;
    skt_seed(&r, 109);
    for (size_t ci = 0; ci < COUNT(index_scatter_cases); ci++) {
        const select_case *sc = &index_scatter_cases[ci];
        int32_t ax = wrap_axis(sc->axis, sc->x.ndim);
        int64_t n = sc->x.d[ax], us[SK_MAX_DIMS];
        int32_t und = index_scatter_updates(sc, us);
        FOR_REDUCTIONS(sc->big, true, p, {
            if (p.mode == SK_INDEX_MODE_CLIP && n == 0) continue;
            skt_buf x, idx, upd, out;
            int64_t lo, hi;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&idx, p.it, sc->idx.ndim, sc->idx.d, in_layout(&r), 0, &r);
            index_bounds(n, p.mode, &lo, &hi);
            skt_fill_index(&idx, &r, -1, &lo, &hi);
            sprinkle_extremes(&idx, p.mode, &r);
            skt_make(&upd, p.dt, und, us, in_layout(&r), 0, &r);
            skt_fill(&upd, &r, values_for(p.reduce));
            op_args a = {0};
            a.index = &idx;
            a.src = &upd;
            a.axis = sc->axis;
            a.reduce = p.reduce;
            a.include_self = p.include_self;
            a.mode = p.mode;
            char desc[1024];
            red_desc(desc, sizeof desc, "index_scatter", &p);
            skt_appendf(desc, sizeof desc, " axis=%d", (int)sc->axis);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "index", &idx.t);
            skt_desc(desc, sizeof desc, "updates", &upd.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&idx, &upd, &x};
            skt_run_case(desc, call_index_scatter, &a, &x, &out, p.inplace,
                         tol_for(p.dt, p.reduce), inputs, p.inplace ? 2 : 3);
            skt_free(&x);
            skt_free(&idx);
            skt_free(&upd);
            skt_free(&out);
        });
    }
    index_scatter_errors();
    index_scatter_inner_sum();
}

/* ------------------------------------------------------------------------ */
/* scatter_nd                                                               */
/* ------------------------------------------------------------------------ */

static const nd_case scatter_nd_cases[] = {
    {{1, {5}}, {2, {7, 1}}, 0, false},
    {{2, {4, 3}}, {2, {5, 2}}, 0, false},
    {{2, {4, 3}}, {2, {5, 1}}, 0, false},
    {{2, {4, 3}}, {1, {2}}, 0, false}, /* one 0-d update */
    {{3, {2, 3, 4}}, {3, {2, 3, 2}}, 0, false},
    {{3, {2, 3, 4}}, {3, {2, 2, 3}}, 0, false},
    {{3, {2, 3, 4}}, {2, {4, 1}}, 0, false},
    {{2, {4, 3}}, {2, {0, 1}}, 0, false},
    {{2, {4, 0}}, {2, {3, 1}}, 0, false},
    {{2, {0, 3}}, {2, {2, 1}}, 0, false}, /* empty axis */
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {2, {9, 12}}, 0, false},
    {{12, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}, {3, {3, 2, 4}}, 0, false},
    {{2, {300, 64}}, {2, {1200, 1}}, 0, true},
};

static void scatter_nd_errors(void) {
    skt_rng r;
    skt_seed(&r, 17);
    int64_t xs[2] = {4, 3}, is[2] = {5, 1}, us[2] = {5, 3};
    skt_buf x, idx, upd, out;
    mk(&x, SK_DTYPE_FLOAT16, 2, xs, &r);
    mk_index(&idx, SK_DTYPE_INT64, 2, is, 3, &r);
    mk(&upd, SK_DTYPE_FLOAT16, 2, us, &r);
    mk(&out, SK_DTYPE_FLOAT16, 2, xs, &r);
    int64_t c[2] = {4, 0};
    skt_set_index(&idx, c, 2004);
    EXPECT_OOB("scatter_nd with index 2004 on an axis of 4",
               sk_scatter_nd(&x.t, &idx.t, &upd.t, SK_REDUCE_SUM, SK_INDEX_MODE_ERROR, &out.t,
                             NULL),
               &out, "scatter_nd", 2004);
    skt_set_index(&idx, c, 0);
    EXPECT_STATUS("scatter_nd updates=NULL",
                  sk_scatter_nd(&x.t, &idx.t, NULL, SK_REDUCE_SUM, SK_INDEX_MODE_ERROR, &out.t,
                                NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("scatter_nd reduce=-1",
                  sk_scatter_nd(&x.t, &idx.t, &upd.t, (sk_reduce)-1, SK_INDEX_MODE_ERROR, &out.t,
                                NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    int64_t bad_us[2] = {5, 2};
    skt_buf bu;
    mk(&bu, SK_DTYPE_FLOAT16, 2, bad_us, &r);
    EXPECT_STATUS("scatter_nd with updates of the wrong shape",
                  sk_scatter_nd(&x.t, &idx.t, &bu.t, SK_REDUCE_SUM, SK_INDEX_MODE_ERROR, &out.t,
                                NULL),
                  SK_STATUS_INVALID_SHAPE, &out);
    skt_free(&bu);
    skt_free(&x);
    skt_free(&idx);
    skt_free(&upd);
    skt_free(&out);
}

static void test_scatter_nd(void) {
    REQUIRE_OP(sk_scatter_nd);
    skt_rng r;
    skt_seed(&r, 110);
    for (size_t ci = 0; ci < COUNT(scatter_nd_cases); ci++) {
        const nd_case *sc = &scatter_nd_cases[ci];
        int32_t k = (int32_t)sc->idx.d[sc->idx.ndim - 1];
        int64_t us[SK_MAX_DIMS], lo[SK_MAX_DIMS], hi[SK_MAX_DIMS];
        int32_t und = gather_nd_out(sc, us); /* the same shape rule, batch_dims 0 */
        bool any_empty = false;
        for (int32_t j = 0; j < k; j++) any_empty |= sc->x.d[j] == 0;
        FOR_REDUCTIONS(sc->big, false, p, {
            if (p.mode == SK_INDEX_MODE_CLIP && any_empty) continue;
            for (int32_t j = 0; j < k; j++) index_bounds(sc->x.d[j], p.mode, &lo[j], &hi[j]);
            skt_buf x, idx, upd, out;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&idx, p.it, sc->idx.ndim, sc->idx.d, in_layout(&r), 1u << (sc->idx.ndim - 1),
                     &r);
            skt_fill_index(&idx, &r, sc->idx.ndim - 1, lo, hi);
            sprinkle_extremes(&idx, p.mode, &r);
            skt_make(&upd, p.dt, und, us, in_layout(&r), 0, &r);
            skt_fill(&upd, &r, values_for(p.reduce));
            op_args a = {0};
            a.index = &idx;
            a.src = &upd;
            a.reduce = p.reduce;
            a.mode = p.mode;
            char desc[1024];
            red_desc(desc, sizeof desc, "scatter_nd", &p);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "index", &idx.t);
            skt_desc(desc, sizeof desc, "updates", &upd.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&idx, &upd, &x};
            skt_run_case(desc, call_scatter_nd, &a, &x, &out, p.inplace, tol_for(p.dt, p.reduce),
                         inputs, p.inplace ? 2 : 3);
            skt_free(&x);
            skt_free(&idx);
            skt_free(&upd);
            skt_free(&out);
        });
    }
    scatter_nd_errors();
}

/* ------------------------------------------------------------------------ */
/* slice_scatter, diagonal_scatter, select_scatter, tensor_scatter, copy    */
/* ------------------------------------------------------------------------ */

/* The data-movement scatters: every dtype, a few layouts per shape. */
#define FOR_MOVES(big_, reps, p, ...)                                                          \
    do {                                                                                        \
        int caseno_ = 0;                                                                        \
        for (int di_ = 0; di_ < SK_DTYPE_COUNT; di_++)                                          \
            for (int rep_ = 0; rep_ < ((big_) ? 1 : (reps)); rep_++) {                          \
                red_params p = {skt_all_dtypes[di_], SK_DTYPE_INT64, SK_REDUCE_NONE, true,      \
                                (caseno_++ % 3) == 1, (big_), SK_INDEX_MODE_ERROR};             \
                if ((big_) && !big_dtype(p.dt)) continue;                                       \
                __VA_ARGS__                                                                     \
            }                                                                                   \
    } while (0)

#define NONE SK_SLICE_NONE
typedef struct {
    skt_shape x;
    int32_t naxes;
    int32_t axes[3];
    int64_t starts[3], stops[3], steps[3];
    bool big;
} slice_case;

static const slice_case slice_cases[] = {
    {{1, {10}}, 1, {0}, {2}, {8}, {2}, false},
    {{1, {10}}, 1, {0}, {NONE}, {NONE}, {-1}, false},
    {{1, {10}}, 1, {-1}, {-3}, {NONE}, {1}, false},
    {{1, {10}}, 1, {0}, {20}, {30}, {1}, false},
    {{1, {10}}, 1, {0}, {8}, {2}, {-2}, false},
    {{1, {10}}, 1, {0}, {-100}, {100}, {3}, false},
    {{1, {10}}, 1, {0}, {100}, {-100}, {-4}, false},
    {{2, {4, 6}}, 2, {0, 1}, {1, NONE}, {NONE, -1}, {2, 3}, false},
    {{2, {4, 6}}, 2, {1, 0}, {NONE, 3}, {NONE, NONE}, {-2, -1}, false},
    {{3, {3, 4, 5}}, 1, {2}, {-1}, {-6}, {-1}, false},
    {{3, {3, 4, 5}}, 1, {1}, {1}, {3}, {1}, false},
    {{3, {3, 4, 5}}, 3, {0, 1, 2}, {0, 3, 4}, {NONE, 0, 0}, {2, -1, -2}, false},
    {{2, {6, 40}}, 1, {1}, {NONE}, {NONE}, {2}, false}, /* step 2 on the last axis: */
    {{3, {2, 3, 37}}, 1, {2}, {1}, {30}, {2}, false},     /* rows merged in pairs */
    {{2, {4, 6}}, 0, {0}, {0}, {0}, {1}, false}, /* no axes: the whole of x */
    {{0, {0}}, 0, {0}, {0}, {0}, {1}, false},
    {{2, {0, 4}}, 1, {1}, {1}, {3}, {1}, false},
    {{12, {2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 2, 5}}, 3, {11, 2, 6}, {-1, 1, NONE}, {0, NONE, NONE},
     {-2, 1, -3}, false},
    {{2, {512, 256}}, 1, {1}, {NONE}, {NONE}, {2}, true},
    {{2, {512, 256}}, 2, {0, 1}, {-1, 1}, {NONE, NONE}, {-1, 1}, true},
    /* extreme bounds and steps last: a library overflow aborts a sanitizer
     * build, and the cases above should have run by then */
    {{1, {10}}, 1, {0}, {-INT64_MAX}, {INT64_MAX}, {INT64_MAX}, false},
    {{1, {10}}, 1, {0}, {INT64_MAX}, {-INT64_MAX}, {-INT64_MAX}, false},
};

/* src shape variants for the slice shape s: exact, leading dimension
 * dropped, size-1 dimensions, 0-d. */
static skt_shape broadcast_variant(const skt_shape *s, int variant) {
    skt_shape b = *s;
    switch (variant % 4) {
    case 1:
        if (b.ndim > 0) {
            b.ndim--;
            memmove(b.d, b.d + 1, sizeof(int64_t) * (size_t)b.ndim);
        }
        break;
    case 2:
        for (int32_t d = 0; d < b.ndim; d += 2) b.d[d] = 1;
        break;
    case 3: b.ndim = 0; break;
    default: break;
    }
    return b;
}

static void slice_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 18);
    int64_t xs[2] = {4, 6}, ss[2] = {4, 3};
    int32_t axes[1] = {1}, bad_axes[1] = {2};
    int64_t starts[1] = {0}, stops[1] = {NONE}, steps[1] = {2}, zero[1] = {0};
    skt_buf x, src, out, fs;
    mk(&x, SK_DTYPE_INT32, 2, xs, &r);
    mk(&src, SK_DTYPE_INT32, 2, ss, &r);
    mk(&out, SK_DTYPE_INT32, 2, xs, &r);
    mk(&fs, SK_DTYPE_FLOAT32, 2, ss, &r);
    EXPECT_STATUS("slice_scatter with step 0",
                  sk_slice_scatter(&x.t, &src.t, 1, axes, starts, stops, zero, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("slice_scatter with axis 2 on 2-d x",
                  sk_slice_scatter(&x.t, &src.t, 1, bad_axes, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("slice_scatter with a float32 src for int32 x",
                  sk_slice_scatter(&x.t, &fs.t, 1, axes, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    int64_t wrong[2] = {4, 2};
    skt_buf ws;
    mk(&ws, SK_DTYPE_INT32, 2, wrong, &r);
    EXPECT_STATUS("slice_scatter with a src that does not broadcast to the slice",
                  sk_slice_scatter(&x.t, &ws.t, 1, axes, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_INVALID_SHAPE, &out);
    skt_free(&ws);
    EXPECT_STATUS("slice_scatter src=NULL",
                  sk_slice_scatter(&x.t, NULL, 1, axes, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("slice_scatter x=NULL",
                  sk_slice_scatter(NULL, &src.t, 1, axes, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("slice_scatter axes=NULL",
                  sk_slice_scatter(&x.t, &src.t, 1, NULL, starts, stops, steps, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    {
        /* out partly overlapping src */
        int64_t bs[2] = {5, 6};
        skt_buf big;
        mk(&big, SK_DTYPE_INT32, 2, bs, &r);
        sk_tensor s = big.t, o = big.t;
        s.shape[0] = 4;
        s.shape[1] = 3;
        o.shape[0] = 4;
        o.data = (int32_t *)big.t.data + 6;
        unsigned char *snap = skt_snapshot(&big);
        sk_status st = sk_slice_scatter(&x.t, &s, 1, axes, starts, stops, steps, &o, NULL);
        skt_expect_fail("slice_scatter with out overlapping src", st, SK_STATUS_OVERLAP, &big,
                        snap, NULL, NULL, NULL);
        free(snap);
        skt_free(&big);
    }
    skt_free(&x);
    skt_free(&src);
    skt_free(&out);
    skt_free(&fs);
}

/* Step 2 on the last axis with x, out and src row-major: rows are merged
 * 16 bytes at a time (pairs of a src and an x element), for every element
 * width, views starting on odd elements and ending before the row does. */
static void slice_scatter_pairs(void) {
    static const int64_t starts[] = {0, 1, 3, NONE}, stops[] = {NONE, NONE, 30, 34};
    skt_rng r;
    skt_seed(&r, 112);
    const skt_shape xs = {3, {2, 3, 37}};
    for (int di = 0; di < SK_DTYPE_COUNT; di++)
        for (int v = 0; v < 4; v++) {
            sk_dtype dt = skt_all_dtypes[di];
            int64_t first, len;
            skref_slice_indices(37, starts[v], stops[v], 2, &first, &len);
            const skt_shape ss = {3, {2, 3, len}};
            skt_buf x, src, out;
            skt_make(&x, dt, xs.ndim, xs.d, SKT_CONTIG, 0, &r);
            skt_fill(&x, &r, SKT_VAL_NAN);
            skt_make(&out, dt, xs.ndim, xs.d, SKT_CONTIG, 0, &r);
            skt_make(&src, dt, ss.ndim, ss.d, SKT_CONTIG, 0, &r);
            skt_fill(&src, &r, SKT_VAL_NAN);
            op_args a = {0};
            a.src = &src;
            a.naxes = 1;
            a.axes[0] = 2;
            a.starts[0] = starts[v];
            a.stops[0] = stops[v];
            a.steps[0] = 2;
            char desc[1024];
            snprintf(desc, sizeof desc, "slice_scatter (pairs) start=%lld stop=%lld",
                     (long long)starts[v], (long long)stops[v]);
            skt_desc(desc, sizeof desc, "x", &x.t);
            const skt_buf *inputs[] = {&src, &x};
            skt_run_case(desc, call_slice_scatter, &a, &x, &out, false, 0, inputs, 2);
            skt_free(&x);
            skt_free(&src);
            skt_free(&out);
        }
}

static void test_slice_scatter(void) {
    REQUIRE_OP(sk_slice_scatter);
    skt_rng r;
    skt_seed(&r, 111);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(slice_cases); ci++) {
        const slice_case *sc = &slice_cases[ci];
        skt_shape slice = sc->x;
        for (int32_t k = 0; k < sc->naxes; k++) {
            int32_t a = wrap_axis(sc->axes[k], sc->x.ndim);
            int64_t first;
            skref_slice_indices(sc->x.d[a], sc->starts[k], sc->stops[k], sc->steps[k], &first,
                                &slice.d[a]);
        }
        FOR_MOVES(sc->big, 4, p, {
            skt_shape ss = broadcast_variant(&slice, variant++);
            skt_buf x, src, out;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&src, p.dt, ss.ndim, ss.d, in_layout(&r), 0, &r);
            skt_fill(&src, &r, SKT_VAL_NAN);
            op_args a = {0};
            a.src = &src;
            a.naxes = sc->naxes;
            for (int32_t k = 0; k < sc->naxes; k++) {
                a.axes[k] = sc->axes[k];
                a.starts[k] = sc->starts[k];
                a.stops[k] = sc->stops[k];
                a.steps[k] = sc->steps[k];
            }
            char desc[1024];
            snprintf(desc, sizeof desc, "slice_scatter%s naxes=%d", p.inplace ? " in-place" : "",
                     (int)sc->naxes);
            for (int32_t k = 0; k < sc->naxes; k++)
                skt_appendf(desc, sizeof desc, " axis %d: start=%lld stop=%lld step=%lld",
                            (int)sc->axes[k], (long long)sc->starts[k], (long long)sc->stops[k],
                            (long long)sc->steps[k]);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "src", &src.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&src, &x};
            skt_run_case(desc, call_slice_scatter, &a, &x, &out, p.inplace, 0, inputs,
                         p.inplace ? 1 : 2);
            skt_free(&x);
            skt_free(&src);
            skt_free(&out);
        });
    }
    slice_scatter_errors();
    slice_scatter_pairs();
}

typedef struct {
    skt_shape x;
    int64_t offset;
    int32_t axis1, axis2;
    bool big;
} diag_case;

static const diag_case diag_cases[] = {
    {{2, {4, 4}}, 0, 0, 1, false},
    {{2, {4, 5}}, 1, 0, 1, false},
    {{2, {4, 5}}, -2, 0, 1, false},
    {{2, {4, 5}}, 7, 0, 1, false},
    {{2, {4, 5}}, -9, 0, 1, false},
    {{2, {4, 5}}, INT64_MAX, 0, 1, false},
    {{2, {4, 5}}, INT64_MIN, 0, 1, false},
    {{2, {4, 5}}, 0, 1, 0, false},
    {{2, {4, 5}}, 2, 1, 0, false},
    {{3, {3, 4, 5}}, 0, 0, 2, false},
    {{3, {3, 4, 5}}, 1, 2, 0, false},
    {{3, {2, 3, 4}}, -1, -1, -2, false},
    {{4, {2, 3, 4, 3}}, 1, 1, 3, false},
    {{12, {2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 2, 5}}, -1, 11, 2, false},
    {{2, {0, 3}}, 0, 0, 1, false},
    {{3, {2, 0, 3}}, 0, 0, 2, false},
    {{3, {40000, 2, 3}}, 0, 1, 2, true}, /* 80000 diagonal elements */
    {{3, {8, 300, 300}}, -3, 2, 1, true},
};

static int32_t diag_src_shape(const diag_case *c, int64_t *shape) {
    int32_t a1 = wrap_axis(c->axis1, c->x.ndim), a2 = wrap_axis(c->axis2, c->x.ndim), n = 0;
    for (int32_t d = 0; d < c->x.ndim; d++)
        if (d != a1 && d != a2) shape[n++] = c->x.d[d];
    shape[n++] = skref_diagonal_length(c->x.d[a1], c->x.d[a2], c->offset);
    return n;
}

static void diagonal_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 19);
    int64_t xs[2] = {4, 5}, ss[1] = {4}, wrong[1] = {5};
    skt_buf x, src, out, ws;
    mk(&x, SK_DTYPE_FLOAT64, 2, xs, &r);
    mk(&src, SK_DTYPE_FLOAT64, 1, ss, &r);
    mk(&out, SK_DTYPE_FLOAT64, 2, xs, &r);
    mk(&ws, SK_DTYPE_FLOAT64, 1, wrong, &r);
    EXPECT_STATUS("diagonal_scatter with axis1 == axis2",
                  sk_diagonal_scatter(&x.t, &src.t, 0, 1, -1, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("diagonal_scatter with axis2 = 2 on 2-d x",
                  sk_diagonal_scatter(&x.t, &src.t, 0, 0, 2, &out.t, NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("diagonal_scatter with src of 5 for a diagonal of 4",
                  sk_diagonal_scatter(&x.t, &ws.t, 0, 0, 1, &out.t, NULL), SK_STATUS_INVALID_SHAPE,
                  &out);
    EXPECT_STATUS("diagonal_scatter src=NULL",
                  sk_diagonal_scatter(&x.t, NULL, 0, 0, 1, &out.t, NULL), SK_STATUS_NULL_POINTER,
                  &out);
    {
        int64_t s1[1] = {4};
        skt_buf x1, o1;
        mk(&x1, SK_DTYPE_FLOAT64, 1, s1, &r);
        mk(&o1, SK_DTYPE_FLOAT64, 1, s1, &r);
        unsigned char *snap = skt_snapshot(&o1);
        sk_status st = sk_diagonal_scatter(&x1.t, &src.t, 0, 0, 1, &o1.t, NULL);
        skt_checks++;
        if (st != SK_STATUS_INVALID_ARGUMENT && st != SK_STATUS_INVALID_SHAPE)
            skt_fail("diagonal_scatter on 1-d x: expected an argument or shape error, got '%s'",
                     sk_status_string(st));
        else if (memcmp(snap, o1.base, o1.nbytes) != 0)
            skt_fail("diagonal_scatter on 1-d x: failed but wrote to out");
        free(snap);
        skt_free(&x1);
        skt_free(&o1);
    }
    skt_free(&x);
    skt_free(&src);
    skt_free(&out);
    skt_free(&ws);
}

static void test_diagonal_scatter(void) {
    REQUIRE_OP(sk_diagonal_scatter);
    skt_rng r;
    skt_seed(&r, 112);
    for (size_t ci = 0; ci < COUNT(diag_cases); ci++) {
        const diag_case *dc = &diag_cases[ci];
        int64_t ss[SK_MAX_DIMS];
        int32_t snd = diag_src_shape(dc, ss);
        FOR_MOVES(dc->big, 3, p, {
            skt_buf x, src, out;
            make_x_out(&x, &out, &p, &dc->x, &r);
            skt_make(&src, p.dt, snd, ss, in_layout(&r), 0, &r);
            skt_fill(&src, &r, SKT_VAL_NAN);
            op_args a = {0};
            a.src = &src;
            a.offset = dc->offset;
            a.axis = dc->axis1;
            a.axis2 = dc->axis2;
            char desc[1024];
            snprintf(desc, sizeof desc, "diagonal_scatter%s offset=%lld axis1=%d axis2=%d",
                     p.inplace ? " in-place" : "", (long long)dc->offset, (int)dc->axis1,
                     (int)dc->axis2);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "src", &src.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&src, &x};
            skt_run_case(desc, call_diagonal_scatter, &a, &x, &out, p.inplace, 0, inputs,
                         p.inplace ? 1 : 2);
            skt_free(&x);
            skt_free(&src);
            skt_free(&out);
        });
    }
    diagonal_scatter_errors();
}

typedef struct {
    skt_shape x;
    int32_t axis;
    int64_t index;
    bool big;
} sel_case;

static const sel_case sel_cases[] = {
    {{1, {5}}, 0, 2, false}, /* src is 0-d */
    {{1, {5}}, 0, -1, false},
    {{2, {4, 3}}, 1, 0, false},
    {{2, {4, 3}}, 0, -4, false},
    {{3, {3, 4, 5}}, -2, -4, false},
    {{3, {3, 4, 5}}, 2, 4, false},
    {{2, {0, 3}}, 1, 2, false},
    {{2, {4, 0}}, 0, 1, false},
    {{2, {0, 3}}, 0, 0, false}, /* empty axis: every index is out of range */
    {{3, {4, 300, 256}}, 0, -2, true},
};

static void select_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 20);
    int64_t xs[2] = {4, 3}, ss[1] = {3};
    skt_buf x, src, out;
    mk(&x, SK_DTYPE_INT16, 2, xs, &r);
    mk(&src, SK_DTYPE_INT16, 1, ss, &r);
    mk(&out, SK_DTYPE_INT16, 2, xs, &r);
    unsigned char *snap = skt_snapshot(&out);
    sk_status st = sk_select_scatter(&x.t, &src.t, 0, 4, &out.t, NULL);
    skt_expect_fail("select_scatter with index 4 on an axis of 4", st,
                    SK_STATUS_INDEX_OUT_OF_RANGE, &out, snap, "select_scatter", "index", NULL);
    st = sk_select_scatter(&x.t, &src.t, 0, -5, &out.t, NULL);
    skt_expect_fail("select_scatter with index -5 on an axis of 4", st,
                    SK_STATUS_INDEX_OUT_OF_RANGE, &out, snap, "select_scatter", "index", NULL);
    free(snap);
    EXPECT_STATUS("select_scatter axis=2 on 2-d x",
                  sk_select_scatter(&x.t, &src.t, 2, 0, &out.t, NULL), SK_STATUS_INVALID_ARGUMENT,
                  &out);
    EXPECT_STATUS("select_scatter with src of the wrong shape",
                  sk_select_scatter(&x.t, &src.t, 1, 0, &out.t, NULL), SK_STATUS_INVALID_SHAPE,
                  &out);
    EXPECT_STATUS("select_scatter src=NULL", sk_select_scatter(&x.t, NULL, 0, 0, &out.t, NULL),
                  SK_STATUS_NULL_POINTER, &out);
    EXPECT_STATUS("select_scatter out=NULL", sk_select_scatter(&x.t, &src.t, 0, 0, NULL, NULL),
                  SK_STATUS_NULL_POINTER, NULL);
    skt_free(&x);
    skt_free(&src);
    skt_free(&out);
}

static void test_select_scatter(void) {
    REQUIRE_OP(sk_select_scatter);
    skt_rng r;
    skt_seed(&r, 113);
    for (size_t ci = 0; ci < COUNT(sel_cases); ci++) {
        const sel_case *sc = &sel_cases[ci];
        int32_t ax = wrap_axis(sc->axis, sc->x.ndim), snd = 0;
        int64_t ss[SK_MAX_DIMS];
        for (int32_t d = 0; d < sc->x.ndim; d++)
            if (d != ax) ss[snd++] = sc->x.d[d];
        if (sc->x.d[ax] == 0) {
            /* nothing to select on an empty axis: must be an index error */
            FOR_MOVES(false, 1, p, {
                skt_buf x, src, out;
                make_x_out(&x, &out, &p, &sc->x, &r);
                skt_make(&src, p.dt, snd, ss, SKT_CONTIG, 0, &r);
                char what[256];
                snprintf(what, sizeof what, "select_scatter %s index %lld on an empty axis",
                         sk_dtype_name(p.dt), (long long)sc->index);
                EXPECT_STATUS(what,
                              sk_select_scatter(p.inplace ? &out.t : &x.t, &src.t, sc->axis,
                                                sc->index, &out.t, NULL),
                              SK_STATUS_INDEX_OUT_OF_RANGE, &out);
                skt_free(&x);
                skt_free(&src);
                skt_free(&out);
            });
            continue;
        }
        FOR_MOVES(sc->big, 3, p, {
            skt_buf x, src, out;
            make_x_out(&x, &out, &p, &sc->x, &r);
            skt_make(&src, p.dt, snd, ss, in_layout(&r), 0, &r);
            skt_fill(&src, &r, SKT_VAL_NAN);
            op_args a = {0};
            a.src = &src;
            a.axis = sc->axis;
            a.select = sc->index;
            char desc[1024];
            snprintf(desc, sizeof desc, "select_scatter%s axis=%d index=%lld",
                     p.inplace ? " in-place" : "", (int)sc->axis, (long long)sc->index);
            skt_desc(desc, sizeof desc, "x", &x.t);
            skt_desc(desc, sizeof desc, "src", &src.t);
            skt_desc(desc, sizeof desc, "out", &out.t);
            const skt_buf *inputs[] = {&src, &x};
            skt_run_case(desc, call_select_scatter, &a, &x, &out, p.inplace, 0, inputs,
                         p.inplace ? 1 : 2);
            skt_free(&x);
            skt_free(&src);
            skt_free(&out);
        });
    }
    select_scatter_errors();
}

typedef struct {
    skt_shape cache;
    int64_t seq;
    int32_t axis;
    bool big;
} ts_case;

static const ts_case ts_cases[] = {
    {{3, {2, 5, 3}}, 2, -2, false},
    {{3, {3, 4, 6}}, 2, 2, false},
    {{4, {2, 3, 6, 4}}, 3, 2, false},
    {{4, {2, 1, 4, 5}}, 1, -2, false},
    {{3, {2, 5, 3}}, 0, 1, false},
    {{3, {0, 5, 3}}, 2, 1, false},
    {{3, {2, 5, 3}}, 5, 1, false},
    {{2, {3, 7}}, 3, 1, false},
    {{2, {3, 7}}, 7, -1, false},
    {{4, {4, 2, 256, 64}}, 100, 2, true},
};

static void tensor_scatter_errors(void) {
    skt_rng r;
    skt_seed(&r, 21);
    int64_t cs[3] = {2, 5, 3}, us[3] = {2, 2, 3}, ws[1] = {2};
    skt_buf cache, upd, wi, out;
    mk(&cache, SK_DTYPE_FLOAT32, 3, cs, &r);
    mk(&upd, SK_DTYPE_FLOAT32, 3, us, &r);
    mk_index(&wi, SK_DTYPE_INT64, 1, ws, 3, &r);
    mk(&out, SK_DTYPE_FLOAT32, 3, cs, &r);
    int64_t b1[1] = {1};
    skt_set_index(&wi, b1, 4); /* 4 + 2 > 5 */
    unsigned char *snap = skt_snapshot(&out);
    sk_status st = sk_tensor_scatter(&cache.t, &upd.t, &wi.t, -2, SK_TENSOR_SCATTER_LINEAR,
                                     &out.t, NULL);
    /* the offending argument is write_indices: its name and value must appear */
    skt_expect_fail("tensor_scatter linear, write index 4 + 2 updates past a length of 5", st,
                    SK_STATUS_INDEX_OUT_OF_RANGE, &out, snap, "tensor_scatter", "write_indices",
                    "4");
    free(snap);
    skt_set_index(&wi, b1, 0);
    EXPECT_STATUS("tensor_scatter axis=0 (the batch axis)",
                  sk_tensor_scatter(&cache.t, &upd.t, &wi.t, 0, SK_TENSOR_SCATTER_LINEAR, &out.t,
                                    NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("tensor_scatter axis=3 on 3-d cache",
                  sk_tensor_scatter(&cache.t, &upd.t, &wi.t, 3, SK_TENSOR_SCATTER_LINEAR, &out.t,
                                    NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("tensor_scatter mode=9",
                  sk_tensor_scatter(&cache.t, &upd.t, &wi.t, 1, (sk_tensor_scatter_mode)9, &out.t,
                                    NULL),
                  SK_STATUS_INVALID_ARGUMENT, &out);
    EXPECT_STATUS("tensor_scatter update=NULL",
                  sk_tensor_scatter(&cache.t, NULL, &wi.t, 1, SK_TENSOR_SCATTER_LINEAR, &out.t,
                                    NULL),
                  SK_STATUS_NULL_POINTER, &out);
    skt_buf fw;
    mk(&fw, SK_DTYPE_FLOAT32, 1, ws, &r);
    EXPECT_STATUS("tensor_scatter with a float32 write_indices",
                  sk_tensor_scatter(&cache.t, &upd.t, &fw.t, 1, SK_TENSOR_SCATTER_LINEAR, &out.t,
                                    NULL),
                  SK_STATUS_INVALID_DTYPE, &out);
    skt_free(&fw);
    skt_free(&cache);
    skt_free(&upd);
    skt_free(&wi);
    skt_free(&out);
}

static void test_tensor_scatter(void) {
    REQUIRE_OP(sk_tensor_scatter);
    skt_rng r;
    skt_seed(&r, 114);
    for (size_t ci = 0; ci < COUNT(ts_cases); ci++) {
        const ts_case *tc = &ts_cases[ci];
        int32_t ax = wrap_axis(tc->axis, tc->cache.ndim);
        int64_t len = tc->cache.d[ax], b = tc->cache.d[0];
        skt_shape us = tc->cache;
        us.d[ax] = tc->seq;
        FOR_MOVES(tc->big, 2, p, {
            for (int mode = 0; mode < 2; mode++) {
                for (int wv = 0; wv < 3; wv++) { /* write_indices: NULL, int32, int64 */
                    skt_buf x, upd, wi, out;
                    make_x_out(&x, &out, &p, &tc->cache, &r);
                    skt_make(&upd, p.dt, us.ndim, us.d, in_layout(&r), 0, &r);
                    skt_fill(&upd, &r, SKT_VAL_NAN);
                    /* linear: the update must fit; keep the start inside the axis */
                    int64_t lo = 0, hi = mode || tc->seq == 0 ? len - 1 : len - tc->seq;
                    skt_make(&wi, wv == 1 ? SK_DTYPE_INT32 : SK_DTYPE_INT64, 1, &b,
                             in_layout(&r), 0, &r);
                    skt_fill_index(&wi, &r, -1, &lo, &hi);
                    op_args a = {0};
                    a.src = &upd;
                    a.index = wv ? &wi : NULL;
                    a.axis = tc->axis;
                    a.ts_mode = (sk_tensor_scatter_mode)mode;
                    char desc[1024];
                    snprintf(desc, sizeof desc, "tensor_scatter%s axis=%d mode=%s",
                             p.inplace ? " in-place" : "", (int)tc->axis,
                             mode ? "circular" : "linear");
                    skt_desc(desc, sizeof desc, "cache", &x.t);
                    skt_desc(desc, sizeof desc, "update", &upd.t);
                    if (wv) skt_desc(desc, sizeof desc, "write_indices", &wi.t);
                    else skt_appendf(desc, sizeof desc, " write_indices=NULL");
                    skt_desc(desc, sizeof desc, "out", &out.t);
                    const skt_buf *inputs[] = {&upd, &wi, &x};
                    skt_run_case(desc, call_tensor_scatter, &a, &x, &out, p.inplace, 0, inputs,
                                 p.inplace ? 2 : 3);
                    skt_free(&x);
                    skt_free(&upd);
                    skt_free(&wi);
                    skt_free(&out);
                }
            }
        });
    }
    tensor_scatter_errors();
}

static const skt_shape copy_shapes[] = {
    {0, {0}}, {1, {7}}, {2, {4, 3}}, {3, {3, 4, 5}}, {2, {0, 3}}, {2, {512, 256}},
};

/* One copy case against the reference; frees both buffers. */
static void run_copy_case(const char *what, skt_buf *src, skt_buf *out) {
    op_args a = {0};
    a.src = src;
    char desc[1024];
    snprintf(desc, sizeof desc, "%s", what);
    skt_desc(desc, sizeof desc, "src", &src->t);
    skt_desc(desc, sizeof desc, "out", &out->t);
    const skt_buf *inputs[] = {src};
    skt_run_case(desc, call_copy, &a, out, out, false, 0, inputs, 1);
    skt_free(src);
    skt_free(out);
}

static void test_copy(void) {
    REQUIRE_OP(sk_copy);
    skt_rng r;
    skt_seed(&r, 115);
    int variant = 0;
    for (size_t ci = 0; ci < COUNT(copy_shapes); ci++) {
        bool big = skt_numel(copy_shapes[ci].ndim, copy_shapes[ci].d) > 10000;
        FOR_MOVES(big, 4, p, {
            skt_shape ss = broadcast_variant(&copy_shapes[ci], variant++);
            skt_buf src, out;
            skt_make(&src, p.dt, ss.ndim, ss.d, in_layout(&r), 0, &r);
            skt_fill(&src, &r, SKT_VAL_NAN);
            skt_make(&out, p.dt, copy_shapes[ci].ndim, copy_shapes[ci].d, out_layout(&r), 0, &r);
            run_copy_case("copy", &src, &out);
        });
    }
    /* every pair of layouts, every element width: a transposed pair takes the
     * tiled transposing copy (engine_gather.c), in strips that do not divide
     * these sizes */
    static const skt_shape tiled[] = {{2, {300, 129}}, {3, {3, 70, 130}}};
    static const sk_dtype widths[] = {SK_DTYPE_UINT8, SK_DTYPE_INT16, SK_DTYPE_FLOAT32,
                                      SK_DTYPE_FLOAT64};
    for (size_t ti = 0; ti < COUNT(tiled); ti++)
        for (size_t wi = 0; wi < COUNT(widths); wi++)
            for (int il = 0; il < SKT_OUT_LAYOUTS; il++)
                for (int ol = 0; ol < SKT_OUT_LAYOUTS; ol++) {
                    skt_buf src, out;
                    skt_make(&src, widths[wi], tiled[ti].ndim, tiled[ti].d, (skt_layout)il, 0, &r);
                    skt_make(&out, widths[wi], tiled[ti].ndim, tiled[ti].d, (skt_layout)ol, 0, &r);
                    run_copy_case("copy (layout pairs)", &src, &out);
                }
    skt_rng r2;
    skt_seed(&r2, 22);
    int64_t s[2] = {4, 3};
    skt_buf a, b;
    mk(&a, SK_DTYPE_INT8, 2, s, &r2);
    mk(&b, SK_DTYPE_UINT8, 2, s, &r2);
    EXPECT_STATUS("copy int8 -> uint8", sk_copy(&a.t, &b.t, NULL), SK_STATUS_INVALID_DTYPE, &b);
    EXPECT_STATUS("copy src=NULL", sk_copy(NULL, &b.t, NULL), SK_STATUS_NULL_POINTER, &b);
    skt_free(&a);
    skt_free(&b);
}

/* ------------------------------------------------------------------------ */
/* scatter backward: sum, mean, amax, amin, float32/float64, with an index
 * broadcast along the rows (the passes over rows) and a full index (the
 * walk), against the rules written out here, at 1 and 2 threads; run under
 * the sanitizers with the rest. Values from {0, 1, 2} and NaN: ties. */

static double bwd_get(const char *a, int64_t i, bool f64) {
    return f64 ? ((const double *)(const void *)a)[i] : (double)((const float *)(const void *)a)[i];
}
static void bwd_set(char *a, int64_t i, double v, bool f64) {
    if (f64) ((double *)(void *)a)[i] = v;
    else ((float *)(void *)a)[i] = (float)v;
}
static bool bwd_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

enum { BWD_T = 7, BWD_C = 3, BWD_N = 3001 };
typedef struct {
    int64_t idx[BWD_N * BWD_C], cnt[BWD_T * BWD_C];
    double share[BWD_T * BWD_C];
    /* 8 bytes per element: room for float64 */
    char x[8 * BWD_T * BWD_C], src[8 * BWD_N * BWD_C], res[8 * BWD_T * BWD_C], g[8 * BWD_T * BWD_C];
    char gx[2][8 * BWD_T * BWD_C], gs[2][8 * BWD_N * BWD_C]; /* at 1 and 2 threads */
} bwd_case;

/* The rules (SPEC section 7) for case c: cnt = contributors (amax/amin: the
 * ties with the result, x among them when include_self), share = each
 * one's part of g, rounded to the dtype. */
/* The target of update element i, -1 when dropped (out of range). */
static int64_t bwd_target(const bwd_case *c, bool full, int64_t i) {
    int64_t v = c->idx[full ? i : i / BWD_C];
    if (v < -BWD_T || v >= BWD_T) return -1;
    return (v < 0 ? v + BWD_T : v) * BWD_C + i % BWD_C;
}

static void bwd_rules(bwd_case *c, bool f64, bool full, sk_reduce red, bool self) {
    bool amx = red == SK_REDUCE_AMAX || red == SK_REDUCE_AMIN;
    for (int64_t t = 0; t < BWD_T * BWD_C; t++)
        c->cnt[t] = amx && self && bwd_same(bwd_get(c->x, t, f64), bwd_get(c->res, t, f64));
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        int64_t t = bwd_target(c, full, i);
        if (t >= 0 && (!amx || bwd_same(bwd_get(c->src, i, f64), bwd_get(c->res, t, f64)))) c->cnt[t]++;
    }
    for (int64_t t = 0; t < BWD_T * BWD_C; t++) {
        double gv = bwd_get(c->g, t, f64), sh = gv;
        if (amx && c->cnt[t] > 0) sh = gv / (double)c->cnt[t];
        if (red == SK_REDUCE_MEAN) sh = gv / (double)(c->cnt[t] + self);
        c->share[t] = f64 ? sh : (double)(float)sh;
    }
}

/* DROP mode: some index values far out of range (dropped; their gradient
 * is 0), else ERROR mode. */
static void bwd_run_case(bwd_case *c, skt_rng *rng, bool f64, bool full, sk_reduce red, bool self,
                         bool drop) {
    sk_index_mode mode = drop ? SK_INDEX_MODE_DROP : SK_INDEX_MODE_ERROR;
    bool amx = red == SK_REDUCE_AMAX || red == SK_REDUCE_AMIN;
    sk_dtype dt = f64 ? SK_DTYPE_FLOAT64 : SK_DTYPE_FLOAT32;
    const char *what = f64 ? (full ? "float64, full index" : "float64, row index")
                           : (full ? "float32, full index" : "float32, row index");
    for (int64_t i = 0; i < BWD_T * BWD_C; i++) {
        bwd_set(c->x, i, (double)skt_range(rng, 0, 2), f64);
        bwd_set(c->g, i, (double)skt_range(rng, -40, 40) / 8.0, f64);
    }
    bwd_set(c->x, 5, NAN, f64);
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        double v = skt_range(rng, 0, 60) == 0 ? NAN : (double)skt_range(rng, 0, 2);
        bwd_set(c->src, i, v, f64);
        c->idx[i] = skt_range(rng, -BWD_T, BWD_T - 1);
        if (drop && skt_range(rng, 0, 9) == 0) c->idx[i] = skt_range(rng, 0, 1) ? INT64_MAX / 3 : -BWD_T - 1;
    }
    const int64_t xs[2] = {BWD_T, BWD_C}, ss[2] = {BWD_N, BWD_C}, rowwise[2] = {1, 0};
    sk_tensor tx, ti, ts, tr, tg, tgx, tgs;
    sk_tensor_init(&tx, c->x, dt, 2, xs, NULL);
    sk_tensor_init(&ti, c->idx, SK_DTYPE_INT64, 2, ss, full ? NULL : rowwise);
    sk_tensor_init(&ts, c->src, dt, 2, ss, NULL);
    sk_tensor_init(&tr, c->res, dt, 2, xs, NULL);
    sk_tensor_init(&tg, c->g, dt, 2, xs, NULL);
    if (sk_scatter(&tx, &ti, &ts, 0, red, self, mode, &tr, NULL))
        skt_fail("scatter_backward: forward: %s", sk_last_error());
    bwd_rules(c, f64, full, red, self);
    for (int k = 0; k < 2; k++) {
        memset(c->gx[k], 0xAB, sizeof c->gx[k]);
        memset(c->gs[k], 0xAB, sizeof c->gs[k]);
        sk_tensor_init(&tgx, c->gx[k], dt, 2, xs, NULL);
        sk_tensor_init(&tgs, c->gs[k], dt, 2, ss, NULL);
        sk_options opts = {0};
        opts.num_threads = k + 1;
        if (sk_scatter_backward(&tx, &ti, &ts, 0, red, self, mode, &tr, &tg, &tgx, &tgs, &opts))
            skt_fail("scatter_backward: %s", sk_last_error());
    }
    size_t es = f64 ? 8 : 4;
    SKT_CHECK(!memcmp(c->gx[0], c->gx[1], es * BWD_T * BWD_C) &&
                  !memcmp(c->gs[0], c->gs[1], es * BWD_N * BWD_C),
              "scatter_backward (reduce %d, %s, self %d): 1 and 2 threads differ", (int)red, what,
              self);
    for (int64_t t = 0; t < BWD_T * BWD_C; t++) {
        double xv = bwd_get(c->x, t, f64), rv = bwd_get(c->res, t, f64), want;
        if (amx && self) want = bwd_same(xv, rv) ? c->share[t] : 0.0;
        else if (self) want = c->share[t];
        else want = c->cnt[t] > 0 ? 0.0 : bwd_get(c->g, t, f64);
        SKT_CHECK(bwd_get(c->gx[1], t, f64) == want,
                  "scatter_backward (reduce %d, %s, self %d): grad_x[%lld] = %g, want %g", (int)red,
                  what, self, (long long)t, bwd_get(c->gx[1], t, f64), want);
    }
    for (int64_t i = 0; i < BWD_N * BWD_C; i++) {
        int64_t t = bwd_target(c, full, i);
        bool tie = t >= 0 && bwd_same(bwd_get(c->src, i, f64), bwd_get(c->res, t, f64));
        double want = t >= 0 && (!amx || tie) ? c->share[t] : 0.0;
        SKT_CHECK(bwd_get(c->gs[1], i, f64) == want,
                  "scatter_backward (reduce %d, %s, self %d): grad_src[%lld] = %g, want %g", (int)red,
                  what, self, (long long)i, bwd_get(c->gs[1], i, f64), want);
    }
}

/* Descriptors at the edges of what the API accepts: strides near INT64_MAX
 * (refused with SIZE_OVERFLOW, or harmless on a size-1 axis), an index whose
 * tuple length does not fit beside batch_dims, and x's own descriptor passed
 * again as another input of an in-place call (an overlap like any other, not
 * the in-place x). Under UBSan an overflow in the checks stops the test. */
static void test_edge_descriptors(void) {
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
    /* x's descriptor as src, updates, another view: refused, x unchanged */
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

static void test_scatter_backward(void) {
    if (!sk_scatter || !sk_scatter_backward) return;
    static const sk_reduce reds[] = {SK_REDUCE_SUM, SK_REDUCE_MEAN, SK_REDUCE_AMAX, SK_REDUCE_AMIN};
    bwd_case *c = malloc(sizeof *c);
    if (!c) {
        skt_fail("scatter_backward: out of memory");
        return;
    }
    skt_rng rng;
    skt_seed(&rng, 77);
    for (int f64 = 0; f64 < 2; f64++)
        for (int full = 0; full < 2; full++)
            for (size_t ri = 0; ri < sizeof reds / sizeof reds[0]; ri++)
                for (int self = 0; self < 2; self++)
                    for (int drop = 0; drop < 2; drop++)
                        bwd_run_case(c, &rng, f64, full, reds[ri], self, drop);
    free(c);
}

/* ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*run)(void);
} testers[] = {
    {"gather", test_gather},
    {"gather_axes", test_gather_axes},
    {"index_select", test_index_select},
    {"gather_nd", test_gather_nd},
    {"masked_select", test_masked_select},
    {"scatter", test_scatter},
    {"scatter_axes", test_scatter_axes},
    {"index_scatter", test_index_scatter},
    {"scatter_nd", test_scatter_nd},
    {"slice_scatter", test_slice_scatter},
    {"diagonal_scatter", test_diagonal_scatter},
    {"select_scatter", test_select_scatter},
    {"masked_scatter", test_masked_scatter},
    {"tensor_scatter", test_tensor_scatter},
    {"copy", test_copy},
    {"scatter_backward", test_scatter_backward},
    {"edge_descriptors", test_edge_descriptors},
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <operator>|all\noperators:", argv[0]);
        for (size_t i = 0; i < COUNT(testers); i++) fprintf(stderr, " %s", testers[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    bool found = false;
    for (size_t i = 0; i < COUNT(testers); i++) {
        if (strcmp(argv[1], "all") != 0 && strcmp(argv[1], testers[i].name) != 0) continue;
        found = true;
        long f0 = skt_failures, c0 = skt_checks;
        testers[i].run();
        printf("%-18s %8ld checks, %ld failures\n", testers[i].name, skt_checks - c0,
               skt_failures - f0);
    }
    if (!found) {
        fprintf(stderr, "unknown operator '%s'\n", argv[1]);
        return 2;
    }
    return skt_failures ? 1 : 0;
}

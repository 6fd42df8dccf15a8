/* slice_scatter, diagonal_scatter, select_scatter: out = x with src written
 * into a strided view of out (a slice, a diagonal, or one index of an axis).
 * Each operator has a view builder used by the forward (a view of out) and
 * by the backward (views of grad_out and grad_x). No index tensors. */
#include "ops/ops.h"
#include "cpu/cpu.h" /* kernels still here: moving to src/cpu */

#include <stdlib.h>

typedef struct {
    int32_t naxes;
    const int32_t *axes;
    const int64_t *starts, *stops, *steps;
} sk_slice_args;

typedef struct {
    int64_t offset;
    int32_t axis1, axis2;
} sk_diagonal_args;

typedef struct {
    int32_t axis;
    int64_t index;
} sk_select_args;

/* Builds `view` over base's memory; fails on bad arguments. */
typedef sk_status (*sk_view_builder)(const char *op, const sk_tensor *base, const void *args,
                                     sk_tensor *view);

/* Python's slice.indices(n): normalised start and the slice length. */
static void sk_slice_indices(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first,
                             int64_t *len) {
    if (step > 0) {
        if (start == SK_SLICE_NONE) start = 0;
        else if (start < 0) start = start + n < 0 ? 0 : start + n;
        else if (start > n) start = n;
        if (stop == SK_SLICE_NONE) stop = n;
        else if (stop < 0) stop = stop + n < 0 ? 0 : stop + n;
        else if (stop > n) stop = n;
        *len = stop > start ? (stop - start - 1) / step + 1 : 0;
    } else {
        if (start == SK_SLICE_NONE) start = n - 1;
        else if (start < 0) start = start + n < 0 ? -1 : start + n;
        else if (start >= n) start = n - 1;
        if (stop == SK_SLICE_NONE) stop = -1;
        else if (stop < 0) stop = stop + n < 0 ? -1 : stop + n;
        else if (stop >= n) stop = n - 1;
        /* a step of INT64_MIN reaches one element at most; -step would overflow */
        if (step == INT64_MIN) *len = start > stop ? 1 : 0;
        else *len = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
    }
    *first = start;
}

/* Points view at element offset `off` of base, unless the view is empty
 * (base's data may then be NULL, and offsetting NULL is undefined). */
static void sk_view_place(const sk_tensor *base, sk_tensor *view, int64_t off) {
    view->data = sk_tensor_numel(view) > 0
                     ? (char *)base->data + off * (int64_t)sk_dtype_size(base->dtype)
                     : base->data;
}

static sk_status sk_slice_view(const char *op, const sk_tensor *base, const void *vargs,
                               sk_tensor *view) {
    const sk_slice_args *a = vargs;
    int32_t wrapped[SK_MAX_DIMS];
    sk_status st;
    if (a->naxes < 0 || a->naxes > SK_MAX_DIMS)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: naxes = %d must be in [0, %d]", op,
                       (int)a->naxes, SK_MAX_DIMS);
    if (a->naxes > 0 && (!a->axes || !a->starts || !a->stops || !a->steps))
        return sk_fail(SK_STATUS_NULL_POINTER, "%s: axes, starts, stops and steps must not be NULL",
                       op);
    if (a->naxes > 0 && base->ndim == 0)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: x is 0-d and cannot be sliced", op);
    if (a->naxes > 0 && (st = sk_wrap_axes(op, a->axes, a->naxes, base->ndim, wrapped))) return st;
    *view = *base;
    int64_t off = 0;
    for (int32_t k = 0; k < a->naxes; k++) {
        int32_t ax = wrapped[k];
        if (a->steps[k] == 0)
            return sk_fail(SK_STATUS_INVALID_ARGUMENT,
                           "%s: step for axis %d must be nonzero, got %lld", op, (int)ax,
                           (long long)a->steps[k]);
        int64_t first, len;
        sk_slice_indices(base->shape[ax], a->starts[k], a->stops[k], a->steps[k], &first, &len);
        view->shape[ax] = len;
        /* with two or more elements the stride times step lies inside x's
         * extent, so it cannot overflow; with fewer it is never used */
        view->strides[ax] = len > 1 ? base->strides[ax] * a->steps[k] : base->strides[ax];
        if (len > 0) off += first * base->strides[ax];
    }
    sk_view_place(base, view, off);
    return SK_STATUS_OK;
}

static sk_status sk_diagonal_view(const char *op, const sk_tensor *base, const void *vargs,
                                  sk_tensor *view) {
    const sk_diagonal_args *a = vargs;
    sk_status st;
    int32_t a1, a2;
    if (base->ndim < 2)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 2 dimensions, got %d", op,
                       (int)base->ndim);
    if ((st = sk_wrap_axis(op, "axis1", a->axis1, base->ndim, &a1))) return st;
    if ((st = sk_wrap_axis(op, "axis2", a->axis2, base->ndim, &a2))) return st;
    if (a1 == a2)
        return sk_fail(SK_STATUS_INVALID_ARGUMENT, "%s: axis1 and axis2 both name axis %d", op,
                       (int)a1);
    int64_t offset = a->offset, n1 = base->shape[a1], n2 = base->shape[a2], len, r0 = 0, c0 = 0;
    if (offset >= 0) {
        len = n2 - offset < n1 ? n2 - offset : n1;
        c0 = offset;
    } else {
        len = offset == INT64_MIN ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
        r0 = offset == INT64_MIN ? 0 : -offset;
    }
    if (len < 0) len = 0;
    *view = *base;
    int32_t n = 0;
    for (int32_t d = 0; d < base->ndim; d++) {
        if (d == a1 || d == a2) continue;
        view->shape[n] = base->shape[d];
        view->strides[n++] = base->strides[d];
    }
    view->shape[n] = len;
    /* with two or more elements both axes have two or more, so the sum is
     * within the extent checked for base; one element needs no stride (a
     * size-1 axis may have any) */
    view->strides[n++] = len > 1 ? base->strides[a1] + base->strides[a2] : 0;
    view->ndim = n;
    sk_view_place(base, view, len > 0 ? r0 * base->strides[a1] + c0 * base->strides[a2] : 0);
    return SK_STATUS_OK;
}

static sk_status sk_select_view(const char *op, const sk_tensor *base, const void *vargs,
                                sk_tensor *view) {
    const sk_select_args *a = vargs;
    sk_status st;
    int32_t ax;
    if (base->ndim < 1)
        return sk_fail(SK_STATUS_INVALID_SHAPE, "%s: x must have at least 1 dimension", op);
    if ((st = sk_wrap_axis(op, "axis", a->axis, base->ndim, &ax))) return st;
    int64_t n = base->shape[ax], index = a->index;
    if (index < -n || index >= n)
        return sk_fail(SK_STATUS_INDEX_OUT_OF_RANGE,
                       "%s: index = %lld is out of range for axis %d of size %lld", op,
                       (long long)index, (int)ax, (long long)n);
    if (index < 0) index += n;
    *view = *base;
    int32_t m = 0;
    for (int32_t d = 0; d < base->ndim; d++) {
        if (d == ax) continue;
        view->shape[m] = base->shape[d];
        view->strides[m++] = base->strides[d];
    }
    view->ndim = m;
    sk_view_place(base, view, index * base->strides[ax]);
    return SK_STATUS_OK;
}

/* ---- step 2 along the last axis (every other element of each row) ----
 *
 * Each row of out is x's row with src's row interleaved at start, start+2,
 * ...: one pass that reads 16 bytes of x and 8 of src and writes 16 bytes of
 * out, merged in registers. Building each block in a buffer first (below)
 * passes over the bytes three times and ran W10 at 15 ms, this at 8-9 ms
 * (a plain copy of x: 6.7 ms). */
typedef struct {
    const char *x, *src;
    char *out;
    int64_t rows, len;  /* rows of len elements; x and out row-major */
    int64_t start, m;   /* the view: elements start + 2k of a row, k < m */
    size_t es;
    bool stream;
} sk_pairs_job;

/* Pairs k in [k, npairs) one element at a time: src's element, then x's. */
SK_INLINE void sk_pairs_scalar(char *o, const char *xr, const char *sr, int64_t k, int64_t npairs,
                               size_t es) {
    for (; k < npairs; k++) {
        memcpy(o + 2 * k * es, sr + k * es, es);
        memcpy(o + (2 * k + 1) * es, xr + (2 * k + 1) * es, es);
    }
}

#if defined(__x86_64__) || defined(_M_X64)
/* 16 bytes of out from 16 of x and 8 of src: src's elements spread to the
 * even lanes (unpack with zero), x keeps the odd lanes. */
SK_INLINE __m128i sk_pairs_merge(__m128i xv, __m128i sv, __m128i odd, size_t es) {
    const __m128i zero = _mm_setzero_si128();
    __m128i spread = es == 1   ? _mm_unpacklo_epi8(sv, zero)
                     : es == 2 ? _mm_unpacklo_epi16(sv, zero)
                     : es == 4 ? _mm_unpacklo_epi32(sv, zero)
                               : _mm_unpacklo_epi64(sv, zero);
    return _mm_or_si128(spread, _mm_and_si128(xv, odd));
}

SK_INLINE void sk_pairs_row(char *o, const char *xr, const char *sr, int64_t npairs, size_t es,
                            bool stream) {
    /* odd lanes of each element width: the low es bytes of every 2*es are 0 */
    uint8_t mask[16];
    for (int b = 0; b < 16; b++) mask[b] = (size_t)b % (2 * es) >= es ? 0xFF : 0;
    const __m128i odd = _mm_loadu_si128((const __m128i *)(const void *)mask);
    const bool nt = stream && ((uintptr_t)o & 15) == 0;
    int64_t per = (int64_t)(8 / es), k = 0; /* pairs per 16 bytes of out */
    for (; k + per <= npairs; k += per) {
        __m128i xv = _mm_loadu_si128((const __m128i *)(const void *)(xr + 2 * k * es));
        __m128i sv = _mm_loadl_epi64((const __m128i *)(const void *)(sr + k * es));
        __m128i *dst = (__m128i *)(void *)(o + 2 * k * es);
        if (nt) _mm_stream_si128(dst, sk_pairs_merge(xv, sv, odd, es));
        else _mm_storeu_si128(dst, sk_pairs_merge(xv, sv, odd, es));
    }
    sk_pairs_scalar(o, xr, sr, k, npairs, es);
}
#else
SK_INLINE void sk_pairs_row(char *o, const char *xr, const char *sr, int64_t npairs, size_t es,
                            bool stream) {
    (void)stream;
    sk_pairs_scalar(o, xr, sr, 0, npairs, es);
}
#endif

/* Rows [lo, hi) of out. */
static void sk_pairs_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    const sk_pairs_job *j = arg;
    (void)tid;
    (void)chunk;
    size_t es = j->es, row = (size_t)j->len * es;
    /* out[start .. start + 2m - 1) is pairs (src, x); the last view element
     * stands alone; x before and after */
    size_t head = (size_t)j->start * es, pairs_end = head + (size_t)(2 * j->m - 1) * es;
    for (int64_t r = lo; r < hi; r++) {
        char *o = j->out + (size_t)r * row;
        const char *xr = j->x + (size_t)r * row, *sr = j->src + (size_t)(r * j->m) * es;
        memcpy(o, xr, head);
        sk_pairs_row(o + head, xr + head, sr, j->m - 1, es, j->stream);
        memcpy(o + pairs_end - es, sr + (size_t)(j->m - 1) * es, es);
        memcpy(o + pairs_end, xr + pairs_end, row - pairs_end);
    }
    if (j->stream) sk_stream_fence();
}

/* Whether the view is every other element of the last axis of each row of
 * out, with x, out and src row-major: then sk_pairs_chunk writes out. */
static bool sk_pairs_plan(sk_pairs_job *j, const sk_tensor *x, const sk_tensor *src,
                          const sk_tensor *out, const sk_tensor *view) {
    int32_t nd = out->ndim, last = nd - 1;
    size_t es = sk_dtype_size(out->dtype);
    if (nd < 1 || view->ndim != nd || src->ndim != nd || (es != 1 && es != 2 && es != 4 && es != 8) ||
        !sk_row_major(out) || !sk_row_major(x) || !sk_row_major(src) || view->strides[last] != 2 ||
        view->shape[last] < 1 || out->data == x->data)
        return false;
    for (int32_t d = 0; d < nd; d++)
        if (src->shape[d] != view->shape[d] ||
            (d < last && (view->shape[d] != out->shape[d] ||
                          (view->shape[d] > 1 && view->strides[d] != out->strides[d]))))
            return false;
    int64_t len = out->shape[last], off = ((char *)view->data - (char *)out->data) / (int64_t)es;
    if (off < 0 || off + 2 * (view->shape[last] - 1) >= len) return false;
    j->x = x->data;
    j->src = src->data;
    j->out = out->data;
    j->len = len;
    j->rows = sk_tensor_numel(out) / len;
    j->start = off;
    j->m = view->shape[last];
    j->es = es;
    j->stream = sk_tensor_numel(out) * (int64_t)es >= SK_STREAM_MIN_BYTES;
    return true;
}

typedef struct {
    const sk_tensor *x, *src;
    sk_tensor *out, *view;
    int64_t rows;       /* blocks are ranges of dimension 0 of out and of the view */
    int64_t block;      /* rows per block */
    bool copy_x;
    char *stage;        /* non-NULL: a block-sized buffer per thread (see sk_view_write) */
    size_t row_bytes;   /* of out: a block is block * row_bytes */
} sk_view_job;

/* Rows [r0, r1) of dimension 0 of t (src broadcast along it stays whole). */
static sk_tensor sk_rows(const sk_tensor *t, int32_t ndim, int64_t r0, int64_t r1) {
    sk_tensor s = *t;
    if (t->ndim < ndim || t->shape[0] == 1) return s; /* broadcast along dim 0 */
    s.shape[0] = r1 - r0;
    if (r1 > r0) s.data = (char *)t->data + r0 * t->strides[0] * (int64_t)sk_dtype_size(t->dtype);
    return s;
}

/* Blocks [lo, hi). */
static void sk_view_chunk(void *arg, int tid, int64_t chunk, int64_t lo, int64_t hi) {
    sk_view_job *job = arg;
    (void)chunk;
    for (int64_t b = lo; b < hi; b++) {
        int64_t r0 = b * job->block, r1 = r0 + job->block < job->rows ? r0 + job->block : job->rows;
        sk_tensor o = sk_rows(job->out, job->out->ndim, r0, r1);
        sk_tensor v = sk_rows(job->view, job->view->ndim, r0, r1);
        sk_tensor s = sk_rows(job->src, job->view->ndim, r0, r1);
        if (job->stage) {
            /* build the block in a cache-resident buffer laid out like out,
             * then stream it to out past the cache */
            char *buf = job->stage + (size_t)tid * (size_t)job->block * job->row_bytes;
            sk_tensor x = sk_rows(job->x, job->x->ndim, r0, r1), bo = o, bv = v;
            bo.data = buf;
            bv.data = buf + ((char *)v.data - (char *)o.data);
            sk_copy_unchecked(&x, &bo, 1);
            sk_copy_unchecked(&s, &bv, 1);
            sk_stream_copy(o.data, buf, (size_t)(r1 - r0) * job->row_bytes);
            continue;
        }
        if (job->copy_x) {
            sk_tensor x = sk_rows(job->x, job->x->ndim, r0, r1);
            sk_copy_unchecked(&x, &o, 1);
        }
        /* the block's view elements are now in cache: write src over them */
        sk_copy_unchecked(&s, &v, 1);
    }
}

/* out = x, then view(out) = src. When out and the view share dimension 0
 * (same size and stride: slices along other axes, diagonals of a batch),
 * both steps run block by block so the second finds the block in cache.
 * A view of few elements (a diagonal) touches few of out's lines: then a
 * whole copy, which streams its stores past the cache when out is large,
 * moves fewer bytes than the blocks. */
static void sk_view_write(const sk_tensor *x, const sk_tensor *src, sk_tensor *out,
                          sk_tensor *view, int nthreads) {
    bool copy_x = !sk_same_layout(out, x);
    int64_t n = sk_tensor_numel(out);
    sk_pairs_job pj;
    if (copy_x && n > 0 && sk_tensor_numel(view) > 0 && sk_pairs_plan(&pj, x, src, out, view)) {
        int nt = sk_threads_for_work(nthreads, n);
        sk_parallel_chunks(nt, pj.rows, sk_chunks_for(nt, pj.rows, pj.len), sk_pairs_chunk, &pj);
        return;
    }
    bool blocked = n > 0 && sk_tensor_numel(view) > 0 && out->ndim >= 1 && view->ndim >= 1 &&
                   view->shape[0] == out->shape[0] && view->strides[0] == out->strides[0] &&
                   out->strides[0] > 0 && out->shape[0] > 1 &&
                   (char *)view->data >= (char *)out->data &&
                   (char *)view->data - (char *)out->data <
                       out->strides[0] * (int64_t)sk_dtype_size(out->dtype) &&
                   (src->ndim < view->ndim || src->shape[0] == view->shape[0] || src->shape[0] == 1) &&
                   sk_tensor_numel(view) * 8 > n;
    if (!blocked) {
        if (copy_x) sk_copy_unchecked(x, out, nthreads);
        if (sk_tensor_numel(view) > 0) sk_copy_unchecked(src, view, nthreads);
        return;
    }
    int64_t row_bytes = n / out->shape[0] * (int64_t)sk_dtype_size(out->dtype);
    sk_view_job job = {x, src, out, view, out->shape[0], 1, copy_x, NULL, 0};
    job.block = (256 << 10) / (row_bytes > 0 ? row_bytes : 1); /* about 256 KiB of out */
    if (job.block < 1) job.block = 1;
    int64_t nblocks = (job.rows + job.block - 1) / job.block;
    int nt = sk_threads_for_work(nthreads, n);
    if (nt > nblocks) nt = (int)nblocks;
    /* A large row-major out copied from x: staging each block in a buffer
     * and streaming it out moves x + src + out bytes; writing out in place
     * also reads every line of out first (the read for ownership). */
    job.row_bytes = (size_t)row_bytes;
    size_t block_bytes = (size_t)job.block * job.row_bytes;
    if (copy_x && sk_row_major(out) &&
        n * (int64_t)sk_dtype_size(out->dtype) >= SK_STREAM_MIN_BYTES && block_bytes <= (1u << 20))
        job.stage = sk_scratch_get((size_t)nt * block_bytes); /* NULL: the in-place blocks */
    sk_parallel_chunks(nt, nblocks, sk_chunks_for(nt, nblocks, n / nblocks), sk_view_chunk, &job);
    sk_scratch_put(job.stage, (size_t)nt * block_bytes);
}

/* Forward: checks, then out = x and view(out) = src (broadcast when allowed). */
static sk_status sk_view_scatter(const char *op, const sk_tensor *x, const sk_tensor *src,
                                 sk_tensor *out, sk_view_builder build, const void *args,
                                 bool broadcast_src, const sk_options *opts) {
    sk_status st;
    sk_tensor view;
    if ((st = sk_check_tensor(op, "x", x))) return st;
    if ((st = sk_check_tensor(op, "src", src))) return st;
    if ((st = sk_check_same_dtype(op, "src", src, x->dtype))) return st;
    if (!out) return sk_fail(SK_STATUS_NULL_POINTER, "%s: out is NULL (pass x for in place)", op);
    const sk_tensor *inputs[] = {x, src};
    static const char *const names[] = {"x", "src"};
    if ((st = sk_check_out(op, out, x->dtype, x->ndim, x->shape, x, inputs, names, 2))) return st;
    if ((st = build(op, out, args, &view))) return st;
    st = broadcast_src ? sk_check_broadcast(op, "src", src, view.ndim, view.shape)
                       : sk_check_shape(op, "src", src, view.ndim, view.shape);
    if (st) return st;
    sk_view_write(x, src, out, &view, sk_threads_for(opts));
    return SK_STATUS_OK;
}

/* Backward: grad_x = grad_out with the view zeroed; grad_src = grad_out's
 * view, summed over the dimensions along which src was broadcast. */
static sk_status sk_view_scatter_backward(const char *op, const sk_tensor *grad_out,
                                          sk_tensor *grad_x, sk_tensor *grad_src,
                                          sk_view_builder build, const void *args,
                                          bool broadcast_src, const sk_options *opts) {
    sk_status st;
    sk_tensor gview, xview;
    if ((st = sk_check_tensor(op, "grad_out", grad_out))) return st;
    if (!sk_dtype_is_floating(grad_out->dtype))
        return sk_fail(SK_STATUS_INVALID_DTYPE,
                       "%s: gradients need a floating dtype (float16, bfloat16, float32, float64), "
                       "got %s",
                       op, sk_dtype_name(grad_out->dtype));
    if ((st = build(op, grad_out, args, &gview))) return st;
    const sk_tensor *inputs[] = {grad_out, grad_x};
    static const char *const names[] = {"grad_out", "grad_x"};
    if (grad_x &&
        (st = sk_check_out_as(op, "grad_x", grad_x, grad_out->dtype, grad_out->ndim,
                              grad_out->shape, NULL, inputs, names, 1)))
        return st;
    if (grad_src) {
        if ((st = sk_check_tensor(op, "grad_src", grad_src))) return st;
        st = broadcast_src ? sk_check_broadcast(op, "grad_src", grad_src, gview.ndim, gview.shape)
                           : sk_check_shape(op, "grad_src", grad_src, gview.ndim, gview.shape);
        if (st) return st;
        if ((st = sk_check_out_as(op, "grad_src", grad_src, grad_out->dtype, grad_src->ndim,
                                  grad_src->shape, NULL, inputs, names, 2)))
            return st;
    }
    int nthreads = sk_threads_for(opts);
    if (grad_src && (st = sk_sum_to(&gview, grad_src, nthreads))) return st;
    if (grad_x) {
        sk_copy_unchecked(grad_out, grad_x, nthreads);
        if ((st = build(op, grad_x, args, &xview))) return st;
        sk_tensor zero = sk_zero_scalar(grad_x->dtype);
        if (sk_tensor_numel(&xview) > 0) sk_copy_unchecked(&zero, &xview, nthreads);
    }
    return SK_STATUS_OK;
}

sk_status sk_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                           const int32_t *axes, const int64_t *starts, const int64_t *stops,
                           const int64_t *steps, sk_tensor *out, const sk_options *opts) {
    sk_slice_args a = {naxes, axes, starts, stops, steps};
    return sk_view_scatter("slice_scatter", x, src, out, sk_slice_view, &a, true, opts);
}

sk_status sk_slice_scatter_backward(const sk_tensor *grad_out, int32_t naxes, const int32_t *axes,
                                    const int64_t *starts, const int64_t *stops,
                                    const int64_t *steps, sk_tensor *grad_x, sk_tensor *grad_src,
                                    const sk_options *opts) {
    sk_slice_args a = {naxes, axes, starts, stops, steps};
    return sk_view_scatter_backward("slice_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_slice_view, &a, true, opts);
}

sk_status sk_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                              int32_t axis1, int32_t axis2, sk_tensor *out,
                              const sk_options *opts) {
    sk_diagonal_args a = {offset, axis1, axis2};
    return sk_view_scatter("diagonal_scatter", x, src, out, sk_diagonal_view, &a, false, opts);
}

sk_status sk_diagonal_scatter_backward(const sk_tensor *grad_out, int64_t offset, int32_t axis1,
                                       int32_t axis2, sk_tensor *grad_x, sk_tensor *grad_src,
                                       const sk_options *opts) {
    sk_diagonal_args a = {offset, axis1, axis2};
    return sk_view_scatter_backward("diagonal_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_diagonal_view, &a, false, opts);
}

sk_status sk_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis, int64_t index,
                            sk_tensor *out, const sk_options *opts) {
    sk_select_args a = {axis, index};
    return sk_view_scatter("select_scatter", x, src, out, sk_select_view, &a, false, opts);
}

sk_status sk_select_scatter_backward(const sk_tensor *grad_out, int32_t axis, int64_t index,
                                     sk_tensor *grad_x, sk_tensor *grad_src,
                                     const sk_options *opts) {
    sk_select_args a = {axis, index};
    return sk_view_scatter_backward("select_scatter_backward", grad_out, grad_x, grad_src,
                                    sk_select_view, &a, false, opts);
}

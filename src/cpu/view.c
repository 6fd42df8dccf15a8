/* The CPU kernels of slice_scatter, diagonal_scatter and select_scatter:
 * out = x, then the view of out = src; the backward's copies, zero fill and
 * sum onto src's shape. */
#include "cpu/arch/x86/pairs_sse.h"
#include "cpu/cpu.h"

/* ---- step 2 along the last axis (every other element of each row) ----
 *
 * Each row of out is x's row with src's row interleaved at start, start+2,
 * ...: one pass that reads 16 bytes of x and 8 of src and writes 16 bytes of
 * out, merged in registers (building each block in a buffer first, as the
 * blocks below do, passes over the bytes three times). */
typedef struct {
    const char *x, *src;
    char *out;
    int64_t rows, len;  /* rows of len elements; x and out row-major */
    int64_t start, m;   /* the view: elements start + 2k of a row, k < m */
    size_t es;
    bool stream;
} sk_pairs_job;

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
        sk_note_kernel("cpu/view/pairs");
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
        sk_note_kernel("cpu/view/copies");
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
    sk_note_kernel(job.stage ? "cpu/view/staged_blocks" : "cpu/view/blocks");
    sk_parallel_chunks(nt, nblocks, sk_chunks_for(nt, nblocks, n / nblocks), sk_view_chunk, &job);
    sk_scratch_put(job.stage, (size_t)nt * block_bytes);
}

/* The backward: grad_src = the view of grad_out summed onto grad_src's
 * shape; grad_x = grad_out, then its view zeroed. */
static sk_status sk_view_backward(const sk_view_desc *d, int nthreads) {
    sk_status st;
    if (d->grad_src && (st = sk_sum_to(&d->grad_view, d->grad_src, nthreads))) return st;
    if (d->out) {
        sk_copy_unchecked(d->x, d->out, nthreads);
        sk_tensor zero = sk_zero_scalar(d->out->dtype), xview = d->view;
        if (sk_tensor_numel(&xview) > 0) sk_copy_unchecked(&zero, &xview, nthreads);
    }
    return SK_STATUS_OK;
}

sk_status sk_cpu_view(const sk_view_desc *d, const sk_exec *e) {
    int nthreads = sk_exec_threads(e);
    if (d->backward) {
        sk_note_kernel("cpu/view/backward");
        return sk_view_backward(d, nthreads);
    }
    sk_tensor view = d->view;
    sk_view_write(d->x, d->src, d->out, &view, nthreads);
    return SK_STATUS_OK;
}

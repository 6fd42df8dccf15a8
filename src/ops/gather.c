/* gather along one axis (GatherElements, torch.gather, take_along_axis) and
 * along a tuple of axes (CINN gather_nd with dims). */
#include "ops/ops.h"
#include "cpu/cpu.h" /* the transposed-operand packing still here: moving to src/cpu */

static sk_status sk_gather_check_inputs(const char *op, const sk_tensor *x, const sk_tensor *index,
                                        sk_index_mode mode, const sk_tensor *fill) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if ((st = sk_check_mode(op, mode, false))) return st;
    return sk_check_fill(op, fill, x->dtype);
}

/* Shared by gather and gather_axes: `naxes` axes, index carries a trailing
 * component dimension when `has_comp_dim`. */
static sk_status sk_gather_shape_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                      const int32_t *axes, int32_t naxes, bool has_comp_dim,
                                      int32_t *wrapped, int32_t *out_ndim, int64_t *out_shape) {
    sk_status st;
    if ((st = sk_check_tensor(op, sk_x_arg(op), x))) return st;
    if ((st = sk_check_tensor(op, "index", index))) return st;
    if ((st = sk_check_index_dtype(op, "index", index))) return st;
    if (!has_comp_dim) {
        if ((st = sk_wrap_axis(op, "axis", axes[0], x->ndim, wrapped))) return st;
    } else if ((st = sk_wrap_axes(op, axes, naxes, x->ndim, wrapped))) {
        return st;
    }
    int32_t want = x->ndim + (has_comp_dim ? 1 : 0);
    if (index->ndim != want)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: index must have %d dimensions (x has %d%s), got %d", op, (int)want,
                       (int)x->ndim, has_comp_dim ? ", plus one for the axes" : "",
                       (int)index->ndim);
    if (has_comp_dim && index->shape[x->ndim] != naxes)
        return sk_fail(SK_STATUS_INVALID_SHAPE,
                       "%s: the last dimension of index must be %d (one per axis), got %lld", op,
                       (int)naxes, (long long)index->shape[x->ndim]);
    for (int32_t d = 0; d < x->ndim; d++) {
        bool indexed = false;
        for (int32_t k = 0; k < naxes; k++) indexed |= wrapped[k] == d;
        if (!indexed && index->shape[d] > x->shape[d])
            return sk_fail(SK_STATUS_INVALID_SHAPE,
                           "%s: index.shape[%d] = %lld exceeds x.shape[%d] = %lld", op, (int)d,
                           (long long)index->shape[d], (int)d, (long long)x->shape[d]);
        out_shape[d] = index->shape[d];
    }
    *out_ndim = x->ndim;
    return SK_STATUS_OK;
}

/* The plan of out[p] = x[p with p[axes] = index[p]]; for the backward the
 * same plan, with grad_x as x and grad_out as out, is a scatter-sum. */
static void sk_gather_plan(sk_plan *p, const char *op, const sk_tensor *x, const sk_tensor *index,
                           const int32_t *wrapped, int32_t naxes, bool has_comp_dim,
                           const sk_tensor *out) {
    sk_plan_init(p, op, x->dtype);
    for (int32_t d = 0; d < x->ndim; d++) {
        bool indexed = false;
        for (int32_t k = 0; k < naxes; k++) indexed |= wrapped[k] == d;
        sk_plan_add_dim(p, index->shape[d], out->strides[d], indexed ? 0 : x->strides[d], 0,
                        index->strides[d]);
    }
    p->ncomp = naxes;
    p->comp_stride = has_comp_dim ? index->strides[x->ndim] : 0;
    for (int32_t k = 0; k < naxes; k++) {
        p->comp_size[k] = sk_axis_size(x, wrapped[k]);
        p->comp_target_stride[k] = sk_axis_stride(x, wrapped[k]);
    }
    p->dense = out->data;
    p->target = x->data;
    p->index = index->data;
    p->index_is64 = index->dtype == SK_DTYPE_INT64;
}

/* A row-major copy of t in scratch (a tiled transposing copy), when t's last
 * dimension is far from contiguous (its elements a line or more apart: a
 * transposed tensor), t is 1 MiB or more and the copy fits in `budget` bytes.
 * Returns the scratch (NULL: use t as it is). */
static void *sk_pack_row_major(const sk_tensor *t, double budget, int nthreads, sk_tensor *packed,
                               size_t *bytes) {
    int32_t last = t->ndim - 1;
    int64_t es = (int64_t)sk_dtype_size(t->dtype), n = sk_tensor_numel(t);
    if (last < 1 || sk_row_major(t) || llabs(t->strides[last]) * es < 64 || t->shape[last] < 16 ||
        n * es < ((int64_t)1 << 20) || (double)(n * es) > budget)
        return NULL;
    *bytes = (size_t)(n * es);
    void *scratch = sk_scratch_get(*bytes);
    if (!scratch) return NULL;
    sk_tensor_init(packed, scratch, t->dtype, t->ndim, t->shape, NULL);
    sk_copy_unchecked(t, packed, nthreads);
    return scratch;
}

/* A gather along the last axis from an x whose last axis is far from
 * contiguous (a transposed x): every element read is a line, usually a page,
 * of its own. Such an x is first copied row-major into scratch within 16
 * bytes per index element: 1024 x 4096 float32 at 2 threads 49-69 ms before,
 * PyTorch 57-97 (DESIGN.md). */
static void *sk_gather_pack_x(const sk_tensor *x, const sk_tensor *index, const int32_t *wrapped,
                              int32_t naxes, bool has_comp_dim, int nthreads, sk_tensor *packed,
                              size_t *bytes) {
    if (has_comp_dim || naxes != 1 || wrapped[0] != x->ndim - 1) return NULL;
    return sk_pack_row_major(x, 16.0 * (double)sk_tensor_numel(index), nthreads, packed, bytes);
}

/* Forward (backward == false): x, out. Backward: x is grad_x (written), out
 * is grad_out (read). Everything is validated before anything is written. */
static sk_status sk_gather_impl(const char *op, const sk_tensor *x, const sk_tensor *index,
                                const int32_t *axes, int32_t naxes, bool has_comp_dim,
                                sk_index_mode mode, const sk_tensor *fill, sk_tensor *out,
                                const sk_options *opts, bool backward) {
    sk_status st;
    int32_t wrapped[SK_MAX_DIMS], ndim = 0;
    int64_t shape[SK_MAX_DIMS], sizes[SK_MAX_DIMS];
    if ((st = sk_gather_check_inputs(op, x, index, mode, fill))) return st;
    if ((st = sk_gather_shape_impl(op, x, index, axes, naxes, has_comp_dim, wrapped, &ndim, shape)))
        return st;
    if (!backward) {
        const sk_tensor *inputs[] = {x, index, fill};
        static const char *const names[] = {"x", "index", "fill_value"};
        if ((st = sk_check_out(op, out, x->dtype, ndim, shape, NULL, inputs, names, 3))) return st;
    } else if ((st = sk_check_backward_args(op, out, ndim, shape, x, index))) {
        return st;
    }
    for (int32_t k = 0; k < naxes; k++) sizes[k] = sk_axis_size(x, wrapped[k]);
    sk_index_check chk = {op, index, has_comp_dim ? x->ndim : -1, wrapped, sizes, mode};
    sk_plan p, lin;
    sk_tensor packed;
    size_t packed_bytes = 0;
    sk_tensor packed_index;
    size_t packed_index_bytes = 0;
    void *scratch = NULL, *scratch_index = NULL;
    if (!backward) {
        int nt = sk_threads_for(opts);
        scratch = sk_gather_pack_x(x, index, wrapped, naxes, has_comp_dim, nt, &packed,
                                   &packed_bytes);
        if (!has_comp_dim) { /* a transposed index too, in what is left of the budget
                              * (read a line per element, it made W1's shape 0.86x PyTorch) */
            double left = 16.0 * (double)sk_tensor_numel(index) - (double)packed_bytes;
            scratch_index = sk_pack_row_major(index, left, nt, &packed_index, &packed_index_bytes);
        }
        if (scratch_index) chk.index = &packed_index; /* the same values, read in order */
    }
    sk_gather_plan(&p, op, scratch ? &packed : x, scratch_index ? &packed_index : index, wrapped,
                   naxes, has_comp_dim, out);
    p.fill = fill ? fill->data : NULL;
    if (backward) {
        sk_tensor xlin = sk_row_major_like(x);
        sk_gather_plan(&lin, op, &xlin, index, wrapped, naxes, has_comp_dim, out);
    }
    st = sk_dispatch_gather(&p, backward ? &lin : NULL, &chk, (sk_tensor *)x, opts);
    if (scratch) sk_scratch_put(scratch, packed_bytes);
    if (scratch_index) sk_scratch_put(scratch_index, packed_index_bytes);
    return st;
}

sk_status sk_gather_shape(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                          int32_t *out_ndim, int64_t *out_shape) {
    int32_t wrapped;
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "gather: out_ndim and out_shape must not be NULL");
    return sk_gather_shape_impl("gather", x, index, &axis, 1, false, &wrapped, out_ndim, out_shape);
}

sk_status sk_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis, sk_index_mode mode,
                    const sk_tensor *fill_value, sk_tensor *out, const sk_options *opts) {
    return sk_gather_impl("gather", x, index, &axis, 1, false, mode, fill_value, out, opts, false);
}

sk_status sk_gather_backward(const sk_tensor *grad_out, const sk_tensor *index, int32_t axis,
                             sk_index_mode mode, sk_tensor *grad_x, const sk_options *opts) {
    return sk_gather_impl("gather_backward", grad_x, index, &axis, 1, false, mode, NULL,
                          (sk_tensor *)grad_out, opts, true);
}

sk_status sk_gather_axes_shape(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                               int32_t naxes, int32_t *out_ndim, int64_t *out_shape) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!out_ndim || !out_shape)
        return sk_fail(SK_STATUS_NULL_POINTER, "gather: out_ndim and out_shape must not be NULL");
    return sk_gather_shape_impl("gather", x, index, axes, naxes, true, wrapped, out_ndim, out_shape);
}

sk_status sk_gather_axes(const sk_tensor *x, const sk_tensor *index, const int32_t *axes,
                         int32_t naxes, sk_index_mode mode, const sk_tensor *fill_value,
                         sk_tensor *out, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("gather", axes, naxes, 0, wrapped);
    return sk_gather_impl("gather", x, index, axes, naxes, true, mode, fill_value, out, opts, false);
}

sk_status sk_gather_axes_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                  const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                  sk_tensor *grad_x, const sk_options *opts) {
    int32_t wrapped[SK_MAX_DIMS];
    if (!axes || naxes < 1 || naxes > SK_MAX_DIMS)
        return sk_wrap_axes("gather_backward", axes, naxes, 0, wrapped);
    return sk_gather_impl("gather_backward", grad_x, index, axes, naxes, true, mode, NULL,
                          (sk_tensor *)grad_out, opts, true);
}

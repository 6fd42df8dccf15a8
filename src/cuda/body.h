/* The per-position bodies of the CUDA kernels, compiled as CUDA device code
 * and as plain C alike (SK_CUDA_HD): the kernels are thin loops around them,
 * and tests/c/test_cuda_plan.c runs the same bodies on the CPU over host
 * memory against the CPU backend, so their arithmetic (offsets, index
 * resolution, row chunks, tensor_scatter targets, validation) is tested on
 * machines without a GPU. */
#ifndef SK_CUDA_BODY_H
#define SK_CUDA_BODY_H

#include "cuda/kernels.h"

#if defined(__CUDACC__) || defined(SK_CUDA_EMULATE)
#define SK_CUDA_HD __host__ __device__ inline
#else
#define SK_CUDA_HD static inline
#endif

/* A kernel launch: SK_LAUNCH(blocks, threads, stream, (kernel<T>), args...)
 * is kernel<T><<<blocks, threads, 0, stream>>>(args...); the kernel in
 * parentheses (template arguments have commas). tests/c/cuda_emulate
 * defines it to run the kernels' threads one after another on the CPU. */
#define SK_UNPAREN(...) __VA_ARGS__
#ifndef SK_CUDA_EMULATE
#define SK_LAUNCH(blocks, threads, stream, kernel, ...)                                            \
    SK_UNPAREN kernel<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__)
#endif

/* sk_resolve_index (base/scalar.h): a negative v counts from the end;
 * outside [0, n) CLIP clamps, every other mode leaves it unresolved. */
SK_CUDA_HD bool sk_cuda_resolve(int64_t v, int64_t n, int mode, int64_t *out) {
    if (v < 0) v += n;
    if ((uint64_t)v < (uint64_t)n) {
        *out = v;
        return true;
    }
    if (mode == SK_CUDA_CLIP && n > 0) {
        *out = v < 0 ? 0 : n - 1;
        return true;
    }
    return false;
}

/* The element offset of row-major position pos of a tensor (shape, strides). */
SK_CUDA_HD int64_t sk_cuda_offset(int ndim, const int64_t *shape, const int64_t *strides,
                                  int64_t pos) {
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t n = shape[d], c = d ? pos % n : pos;
        pos = d ? pos / n : 0;
        off += c * strides[d];
    }
    return off;
}

/* The walk's offsets of position pos: o[0] dense, o[1] target (before the
 * index components), o[2] index. */
SK_CUDA_HD void sk_cuda_walk_offsets(const sk_cuda_walk *w, int64_t pos, int64_t *o) {
    o[0] = o[1] = o[2] = 0;
    for (int d = w->ndim - 1; d >= 0; d--) {
        int64_t n = w->shape[d], c = d ? pos % n : pos;
        pos = d ? pos / n : 0;
        o[0] += c * w->dense_stride[d];
        o[1] += c * w->target_stride[d];
        o[2] += c * w->index_stride[d];
    }
}

/* Adds the index components at ioff to *toff; false: a value the mode leaves
 * unresolved (fill, or a bad value in error mode). */
SK_CUDA_HD bool sk_cuda_walk_resolve(const sk_cuda_walk *w, int64_t ioff, int64_t *toff) {
    for (int k = 0; k < w->ncomp; k++) {
        int64_t at = ioff + k * w->comp_stride, v;
        int64_t raw = w->index_is64 ? ((const int64_t *)w->index)[at]
                                    : (int64_t)((const int32_t *)w->index)[at];
        if (!sk_cuda_resolve(raw, w->comp_size[k], w->mode, &v)) return false;
        *toff += v * w->comp_target_stride[k];
    }
    return true;
}

/* Work item `it` of the rows scheme: row *r, vectors [*lo, *hi) of it. */
SK_CUDA_HD void sk_cuda_row_item(const sk_cuda_walk *w, int64_t it, int64_t *r, int64_t *lo,
                                 int64_t *hi) {
    int64_t nvec = w->row_len * w->elem_size / w->vec;
    *r = it / w->chunks;
    *lo = (it % w->chunks) * w->chunk_vecs;
    *hi = *lo + w->chunk_vecs < nvec ? *lo + w->chunk_vecs : nvec;
}

/* Whether index value number pos (row-major over c's scanned dimensions) is
 * outside [-n, n) for its component's n. */
SK_CUDA_HD bool sk_cuda_check_bad(const sk_cuda_check *c, int64_t pos) {
    int64_t off = 0, k = 0;
    for (int d = c->ndim - 1; d >= 0; d--) {
        int64_t coord = pos % c->shape[d];
        pos /= c->shape[d];
        off += coord * c->strides[d];
        if (d == c->comp_dim) k = coord;
    }
    int64_t v = c->is64 ? ((const int64_t *)c->data)[off]
                        : (int64_t)((const int32_t *)c->data)[off];
    int64_t n = c->sizes[k];
    return (uint64_t)v + (uint64_t)n >= (uint64_t)n * 2u; /* v in [-n, n) <=> v + n in [0, 2n) */
}

/* tensor_scatter's update element pos: its offset *u and its target's *o in
 * out; false for a circular update's positions that a later one overwrites
 * (not written at all, so every target is written once). */
SK_CUDA_HD bool sk_cuda_ts_target(const sk_cuda_ts *t, int64_t pos, int64_t *u, int64_t *o) {
    int64_t rem = pos, b = 0, i = 0;
    *u = *o = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t c = rem % t->shape[d];
        rem /= t->shape[d];
        *u += c * t->update_stride[d];
        if (d == t->axis) i = c;
        else *o += c * t->out_stride[d];
        if (d == 0) b = c;
    }
    if (i < t->skip) return false;
    int64_t w = 0;
    if (t->write_indices)
        w = t->wi_is64 ? ((const int64_t *)t->write_indices)[b * t->wi_stride]
                       : (int64_t)((const int32_t *)t->write_indices)[b * t->wi_stride];
    *o += (t->circular ? (w % t->n + i) % t->n : w + i) * t->out_stride[t->axis];
    return true;
}

/* The masked operators' offsets of position pos: o[0] mask, o[1] x, o[2] out. */
SK_CUDA_HD void sk_cuda_mask_offsets(const sk_cuda_mask_walk *m, int64_t pos, int64_t *o) {
    o[0] = o[1] = o[2] = 0;
    for (int d = m->ndim - 1; d >= 0; d--) {
        int64_t n = m->shape[d], c = d ? pos % n : pos;
        pos = d ? pos / n : 0;
        o[0] += c * m->mask_stride[d];
        o[1] += c * m->x_stride[d];
        o[2] += c * m->out_stride[d];
    }
}

/* The True positions among the SK_CUDA_MASK_PER_THREAD positions from
 * `first` (a thread's share of a tile), as bits. */
SK_CUDA_HD unsigned sk_cuda_mask_flags(const sk_cuda_mask_walk *m, int64_t first) {
    unsigned bits = 0;
    for (int j = 0; j < SK_CUDA_MASK_PER_THREAD && first + j < m->numel; j++) {
        int64_t o[3];
        sk_cuda_mask_offsets(m, first + j, o);
        if (m->mask[o[0]]) bits |= 1u << j;
    }
    return bits;
}

/* The fill's move for position pos, True or not, k its rank among the True
 * positions: 0 none, 1 out[*dst] = x[*src], 2 out[*dst] = source[*src]. */
SK_CUDA_HD int sk_cuda_mask_move(const sk_cuda_mask_walk *m, int64_t pos, bool is_true,
                                 int64_t k, int64_t *dst, int64_t *src) {
    int64_t o[3];
    sk_cuda_mask_offsets(m, pos, o);
    if (m->select) {
        *dst = m->into_source ? sk_cuda_offset(m->src_ndim, m->src_shape, m->src_stride, k)
                              : k * m->out_stride1;
        *src = o[1];
        return is_true ? 1 : 0;
    }
    *dst = o[2];
    if (is_true) {
        *src = sk_cuda_offset(m->src_ndim, m->src_shape, m->src_stride, k);
        return 2;
    }
    *src = o[1];
    return m->write_unmasked ? 1 : 0;
}

#endif /* SK_CUDA_BODY_H */

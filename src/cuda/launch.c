/* Planning for the CUDA kernels: the device-neutral plans (src/plan), built
 * and validated by src/ops exactly as for the CPU, turned into kernel
 * parameters. Plain C without a CUDA call, so that the choices (scheme,
 * vector width, geometry) are tested on any machine (tests/c/test_cuda_plan.c). */
#include "cuda/cuda.h"

#include <stdio.h>

enum {
    SK_CUDA_THREADS = 256,
    SK_CUDA_MAX_BLOCKS = 8192,
    SK_CUDA_ROW_MIN_BYTES = 16,
    SK_CUDA_VECS_PER_LANE = 8
};

static int sk_cuda_blocks(int64_t work, int64_t per_block) {
    int64_t b = (work + per_block - 1) / per_block;
    return (int)(b < 1 ? 1 : b > SK_CUDA_MAX_BLOCKS ? SK_CUDA_MAX_BLOCKS : b);
}

/* The widest of 16, 8, 4, 2, 1 bytes dividing every byte offset a row of w
 * can start at, and its length. */
static int sk_cuda_row_vector(const sk_cuda_walk *w) {
    int64_t es = w->elem_size, last = w->ndim - 1;
    uint64_t bits = (uint64_t)(uintptr_t)w->dense | (uint64_t)(uintptr_t)w->target |
                    (uint64_t)(w->row_len * es);
    for (int d = 0; d < last; d++)
        bits |= (uint64_t)(w->dense_stride[d] * es) | (uint64_t)(w->target_stride[d] * es);
    for (int k = 0; k < w->ncomp; k++) bits |= (uint64_t)(w->comp_target_stride[k] * es);
    int v = 16;
    while (v > 1 && (bits & (uint64_t)(v - 1))) v /= 2;
    return v;
}

/* Rows: the last dimension contiguous in out and x, the index constant
 * along it, rows of at least SK_CUDA_ROW_MIN_BYTES. */
static void sk_cuda_choose_scheme(sk_cuda_walk *w) {
    int last = w->ndim - 1;
    w->threads = SK_CUDA_THREADS;
    bool rows = w->numel > 0 && w->dense_stride[last] == 1 && w->target_stride[last] == 1 &&
                (w->ncomp == 0 || w->index_stride[last] == 0) &&
                w->shape[last] * w->elem_size >= SK_CUDA_ROW_MIN_BYTES;
    if (!rows) {
        w->scheme = SK_CUDA_ELEMENTS;
        w->blocks = sk_cuda_blocks(w->numel, SK_CUDA_THREADS);
        return;
    }
    w->scheme = SK_CUDA_ROWS;
    w->row_len = w->shape[last];
    w->rows = w->numel / w->row_len;
    w->vec = sk_cuda_row_vector(w);
    int64_t vectors = w->row_len * w->elem_size / w->vec;
    w->group = 1;
    while (w->group < 32 && w->group < vectors) w->group *= 2;
    /* a long row (a contiguous copy is one row) is shared out in chunks of
     * up to SK_CUDA_VECS_PER_LANE vectors per lane */
    w->chunk_vecs = (int64_t)w->group * SK_CUDA_VECS_PER_LANE;
    w->chunks = (vectors + w->chunk_vecs - 1) / w->chunk_vecs;
    w->blocks = sk_cuda_blocks(w->rows * w->chunks, SK_CUDA_THREADS / w->group);
}

void sk_cuda_plan_walk(const sk_plan *p, sk_cuda_walk *w) {
    memset(w, 0, sizeof *w);
    w->ndim = p->ndim;
    w->ncomp = p->ncomp;
    w->elem_size = (int)p->elem_size;
    w->mode = (int)p->mode;
    w->index_is64 = p->index_is64;
    w->numel = sk_plan_numel(p);
    for (int d = 0; d < p->ndim; d++) {
        w->shape[d] = p->shape[d];
        w->dense_stride[d] = p->dense_stride[d];
        w->target_stride[d] = p->target_stride[d];
        w->index_stride[d] = p->index_stride[d];
    }
    w->comp_stride = p->comp_stride;
    for (int k = 0; k < p->ncomp; k++) {
        w->comp_size[k] = p->comp_size[k];
        w->comp_target_stride[k] = p->comp_target_stride[k];
    }
    w->dense = p->dense;
    w->target = p->target;
    w->index = p->index;
    w->fill = p->mode == SK_INDEX_MODE_FILL ? p->fill : NULL;
    sk_cuda_choose_scheme(w);
}

void sk_cuda_plan_check(const sk_index_check *c, sk_cuda_check *k) {
    const sk_tensor *t = c->index;
    memset(k, 0, sizeof *k);
    k->comp_dim = -1;
    k->is64 = t->dtype == SK_DTYPE_INT64;
    for (int32_t d = 0; d < t->ndim; d++) {
        bool keep = t->shape[d] > 1 && (d == c->comp_dim || t->strides[d] != 0);
        if (!keep) continue;
        if (d == c->comp_dim) k->comp_dim = k->ndim;
        k->dim_of[k->ndim] = d;
        k->shape[k->ndim] = t->shape[d];
        k->strides[k->ndim] = t->strides[d];
        k->ndim++;
    }
    k->numel = sk_tensor_numel(t) == 0 ? 0 : sk_numel(k->ndim, k->shape);
    int64_t ncomp = c->comp_dim < 0 ? 1 : t->shape[c->comp_dim];
    for (int64_t i = 0; i < ncomp && i < SK_CUDA_MAX_COMP; i++) k->sizes[i] = c->sizes[i];
    k->data = t->data;
    k->threads = SK_CUDA_THREADS;
    k->blocks = sk_cuda_blocks(k->numel, SK_CUDA_THREADS);
}

void sk_cuda_check_coords(const sk_cuda_check *k, int64_t pos, int32_t ndim, int64_t *coord) {
    for (int32_t d = 0; d < ndim; d++) coord[d] = 0;
    for (int d = k->ndim - 1; d >= 0; d--) {
        coord[k->dim_of[d]] = pos % k->shape[d];
        pos /= k->shape[d];
    }
}

void sk_cuda_copy_plan(const sk_tensor *src, const sk_tensor *out, sk_plan *p) {
    sk_plan_init(p, "copy", out->dtype);
    for (int32_t d = 0, shift = out->ndim - src->ndim; d < out->ndim; d++) {
        bool broadcast = d < shift || src->shape[d - shift] == 1;
        sk_plan_add_dim(p, out->shape[d], out->strides[d],
                        broadcast ? 0 : src->strides[d - shift], 0, 0);
    }
    p->dense = out->data;
    p->target = src->data;
    sk_plan_normalize(p);
}

void sk_cuda_plan_mask(const sk_mask_desc *d, sk_cuda_mask_walk *m) {
    const sk_plan *p = &d->p, *sp = &d->source_plan;
    memset(m, 0, sizeof *m);
    m->ndim = p->ndim;
    m->elem_size = (int)p->elem_size;
    m->select = d->kind == SK_MASK_SELECT;
    m->write_unmasked = d->write_unmasked;
    m->numel = sk_plan_numel(p);
    m->tiles = (m->numel + SK_CUDA_MASK_TILE - 1) / SK_CUDA_MASK_TILE;
    for (int i = 0; i < p->ndim; i++) {
        m->shape[i] = p->shape[i];
        m->mask_stride[i] = p->index_stride[i];
        m->x_stride[i] = p->target_stride[i];
        m->out_stride[i] = p->dense_stride[i];
    }
    m->out_stride1 = d->out_stride;
    if (d->kind == SK_MASK_SCATTER || d->kind == SK_MASK_GRAD_SOURCE) {
        m->src_ndim = sp->ndim;
        for (int i = 0; i < sp->ndim; i++) {
            m->src_shape[i] = sp->shape[i];
            m->src_stride[i] = sp->target_stride[i];
        }
        m->source = sp->target;
    }
    m->mask = p->index;
    m->x = p->target;
    m->out = p->dense;
    /* the backward's kinds as the fill's two: grad_x is a scatter of zeros
     * (sk_cuda_mask puts a device zero in source), grad_source a select
     * into the source */
    if (d->kind == SK_MASK_GRAD_X) {
        m->write_unmasked = true;
        m->src_ndim = 0;
    } else if (d->kind == SK_MASK_GRAD_SOURCE) {
        m->select = m->into_source = true;
        m->out = sp->target;
        m->source = NULL;
    }
}

void sk_cuda_plan_ts(const sk_tensor_scatter_desc *d, sk_cuda_ts *t) {
    const sk_tensor *u = d->update, *wi = d->write_indices;
    memset(t, 0, sizeof *t);
    t->ndim = u->ndim;
    t->axis = d->axis;
    t->elem_size = (int)sk_dtype_size(u->dtype);
    t->numel = sk_tensor_numel(u);
    t->n = d->cache->shape[d->axis];
    t->circular = d->mode == SK_TENSOR_SCATTER_CIRCULAR;
    int64_t len = u->shape[d->axis];
    t->skip = t->circular && len > t->n ? len - t->n : 0;
    for (int32_t i = 0; i < u->ndim; i++) {
        t->shape[i] = u->shape[i];
        t->update_stride[i] = u->strides[i];
        t->out_stride[i] = d->out->strides[i];
    }
    t->update = u->data;
    t->out = d->out->data;
    t->batch = d->cache->shape[0];
    t->write_indices = wi ? wi->data : NULL;
    t->wi_is64 = wi && wi->dtype == SK_DTYPE_INT64;
    t->wi_stride = wi && wi->ndim ? wi->strides[0] : 0;
}

void sk_cuda_format_coords(char *buf, size_t size, int32_t ndim, const int64_t *coord) {
    size_t n = 0;
    buf[0] = 0;
    for (int32_t d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long)coord[d]);
}

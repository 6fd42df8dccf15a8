/* The CUDA scatter-type entries (scatter, index_scatter, scatter_nd, every
 * reduction; their backward; the gather-type backward, a scatter-sum into a
 * zeroed grad_x): the index values checked first (nothing written on an
 * error, as in gather.c), out = x unless in place, then the segment scheme
 * (cuda/segments.h) over the normalised plan. */
#include "cuda/cuda.h"
#include "cuda/segments.h"

#include <limits.h>

_Static_assert(SK_CUDA_CHUNK == SK_CANONICAL_CHUNK, "the canonical chunk");
_Static_assert(SK_CUDA_BOOL == (int)SK_DTYPE_BOOL && SK_CUDA_I64 == (int)SK_DTYPE_INT64 &&
                   SK_CUDA_F16 == (int)SK_DTYPE_FLOAT16 && SK_CUDA_BF16 == (int)SK_DTYPE_BFLOAT16 &&
                   SK_CUDA_F32 == (int)SK_DTYPE_FLOAT32 && SK_CUDA_F64 == (int)SK_DTYPE_FLOAT64,
               "dtype numbering");
_Static_assert(SK_CUDA_ASSIGN == (int)SK_REDUCE_NONE && SK_CUDA_MEAN == (int)SK_REDUCE_MEAN &&
                   SK_CUDA_AMIN == (int)SK_REDUCE_AMIN,
               "reduction numbering");

/* Rows: the last dimension when the index is constant along it and it is
 * not an indexed axis (its elements reach distinct targets). */
static void sk_cuda_seg_rows(const sk_plan *p, sk_cuda_seg *s) {
    int last = p->ndim - 1;
    bool rows = p->ndim > 0 && p->ncomp > 0 && p->index_stride[last] == 0 &&
                p->linear_stride[last] != 0;
    s->rdim = rows ? last : p->ndim;
    s->row_len = rows ? p->shape[last] : 1;
    if (rows) {
        s->row_dense = p->dense_stride[last];
        s->row_target = p->target_stride[last];
        s->row_linear = p->linear_stride[last];
        s->row_aux = p->aux_stride[last];
    }
    int64_t n = sk_plan_numel(p);
    s->rows = n == 0 ? 0 : n / s->row_len;
    s->group = 1;
    while (s->group < 32 && s->group < s->row_len) s->group *= 2;
}

void sk_cuda_plan_seg(const sk_plan *p, int64_t targets, sk_cuda_seg *s) {
    memset(s, 0, sizeof *s);
    sk_cuda_seg_rows(p, s);
    for (int d = 0; d < s->rdim; d++) {
        s->shape[d] = p->shape[d];
        s->dense_stride[d] = p->dense_stride[d];
        s->target_stride[d] = p->target_stride[d];
        s->linear_stride[d] = p->linear_stride[d];
        s->index_stride[d] = p->index_stride[d];
        s->aux_stride[d] = p->aux_stride[d];
    }
    s->ncomp = p->ncomp;
    s->comp_stride = p->comp_stride;
    for (int k = 0; k < p->ncomp; k++) {
        s->comp_size[k] = p->comp_size[k];
        s->comp_target_stride[k] = p->comp_target_stride[k];
        s->comp_linear_stride[k] = p->comp_linear_stride[k];
    }
    s->dtype = (int)p->dtype;
    s->reduce = (int)p->reduce;
    s->mode = (int)p->mode;
    s->include_self = p->include_self;
    s->index_is64 = p->index_is64;
    /* a dropped row sorts after every target */
    s->sentinel = targets;
    s->wide = targets >= (int64_t)UINT32_MAX || s->rows >= (int64_t)UINT32_MAX;
    s->end_bit = 1;
    while (s->end_bit < 64 && (targets >> s->end_bit) != 0) s->end_bit++;
    s->src = p->dense;
    s->out = p->target;
    s->index = p->index;
}

/* Sorts p's rows by target and runs the forward (g NULL) or the backward. */
static sk_status sk_cuda_seg_run(const sk_cuda_call *c, const sk_plan *p, int64_t targets,
                                 const sk_cuda_seg_grad *g) {
    sk_cuda_seg s;
    sk_cuda_plan_seg(p, targets, &s);
    void *keys = NULL, *rows = NULL;
    int err = s.rows > 0 ? sk_cuda_seg_sort(&s, &keys, &rows, c->stream) : 0;
    sk_note_kernel(g ? "cuda/scatter_backward/segments" : "cuda/scatter/segments");
    if (!err && g) err = sk_cuda_launch_seg_grad(&s, g, keys, rows, c->stream);
    else if (!err) err = sk_cuda_launch_seg_reduce(&s, keys, rows, c->stream);
    sk_cuda_rt_free(keys, c->stream);
    sk_cuda_rt_free(rows, c->stream);
    return sk_cuda_status(c, err);
}

sk_status sk_cuda_zero(const sk_cuda_call *c, const sk_tensor *t) {
    sk_cuda_dense d;
    memset(&d, 0, sizeof d);
    d.ndim = t->ndim;
    d.elem_size = (int)sk_dtype_size(t->dtype);
    d.numel = sk_tensor_numel(t);
    for (int32_t i = 0; i < t->ndim; i++) {
        d.shape[i] = t->shape[i];
        d.strides[i] = t->strides[i];
    }
    d.data = t->data;
    return sk_cuda_status(c, sk_cuda_launch_zero(&d, c->stream));
}

static void sk_cuda_like_of(const sk_tensor *t, sk_cuda_like *l) {
    memset(l, 0, sizeof *l);
    if (!t) return;
    l->data = t->data;
    for (int32_t d = 0; d < t->ndim; d++) l->strides[d] = t->strides[d];
}

static sk_status sk_cuda_scatter_backward(const sk_cuda_call *c, sk_plan *p,
                                          const sk_plan *grad_src_plan, const sk_tensor *x,
                                          const sk_tensor *out, const sk_backward_args *bwd) {
    sk_cuda_seg_grad g;
    memset(&g, 0, sizeof g);
    g.ndim = x->ndim;
    g.numel = sk_tensor_numel(x);
    for (int32_t d = 0; d < x->ndim; d++) g.shape[d] = x->shape[d];
    sk_cuda_like_of(bwd->grad_out, &g.grad_out);
    sk_cuda_like_of(x, &g.x);
    sk_cuda_like_of(out, &g.result);
    sk_cuda_like_of(bwd->grad_x, &g.grad_x);
    sk_status st = SK_STATUS_OK;
    if (bwd->grad_src) { /* unread elements get 0; grad_src's strides are the aux strides */
        g.grad_src = bwd->grad_src->data;
        memcpy(p->aux_stride, grad_src_plan->dense_stride, sizeof p->aux_stride);
        st = sk_cuda_zero(c, bwd->grad_src);
    }
    sk_plan_normalize(p);
    return st ? st : sk_cuda_seg_run(c, p, g.numel, &g);
}

sk_status sk_cuda_scatter(sk_plan *p, const sk_plan *grad_src_plan, const sk_index_check *chk,
                          const sk_tensor *x, const sk_tensor *out, const sk_backward_args *bwd,
                          const sk_options *opts) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, p->op, chk->index->device_id, NULL, opts);
    p->mode = chk->mode;
    if (st == SK_STATUS_OK) st = sk_cuda_validate(&c, chk);
    if (st == SK_STATUS_OK && bwd) {
        st = sk_cuda_scatter_backward(&c, p, grad_src_plan, x, out, bwd);
    } else if (st == SK_STATUS_OK) {
        if (!sk_same_layout(out, x)) { /* out = x first; in place starts from x itself */
            sk_plan cp;
            sk_cuda_copy_plan(x, out, &cp);
            st = sk_cuda_run_walk(&c, &cp, NULL);
        }
        sk_plan_normalize(p);
        if (st == SK_STATUS_OK) st = sk_cuda_seg_run(&c, p, sk_tensor_numel(x), NULL);
    }
    sk_cuda_leave(&c);
    return st;
}

sk_status sk_cuda_sum_to(const sk_cuda_call *c, const sk_tensor *big, sk_tensor *dst) {
    bool same = big->ndim == dst->ndim;
    for (int32_t d = 0; same && d < dst->ndim; d++) same = big->shape[d] == dst->shape[d];
    sk_plan p;
    if (same) {
        sk_cuda_copy_plan(big, dst, &p);
        return sk_cuda_run_walk(c, &p, NULL);
    }
    /* the CPU's sk_sum_to: a scatter-sum without index components from zero,
     * each position of big onto the element of dst it broadcasts from */
    int64_t lin[SK_MAX_DIMS];
    sk_linear_strides(dst->ndim, dst->shape, lin);
    sk_plan_init(&p, "sum_to", dst->dtype);
    for (int32_t d = 0, shift = big->ndim - dst->ndim; d < big->ndim; d++) {
        bool direct = d >= shift && dst->shape[d - shift] != 1;
        sk_plan_add_dim(&p, big->shape[d], big->strides[d], direct ? dst->strides[d - shift] : 0,
                        direct ? lin[d - shift] : 0, 0);
    }
    p.dense = big->data;
    p.target = dst->data;
    p.reduce = SK_REDUCE_SUM;
    p.include_self = true;
    sk_status st = sk_cuda_zero(c, dst);
    sk_plan_normalize(&p);
    return st ? st : sk_cuda_seg_run(c, &p, sk_tensor_numel(dst), NULL);
}

sk_status sk_cuda_gather_backward(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                                  sk_tensor *grad_x, const sk_options *opts) {
    sk_cuda_call c;
    sk_status st = sk_cuda_enter(&c, p->op, chk->index->device_id, NULL, opts);
    p->mode = chk->mode;
    if (st == SK_STATUS_OK) st = sk_cuda_validate(&c, chk);
    sk_plan_gather_to_backward(p, lin);
    if (st == SK_STATUS_OK) st = sk_cuda_zero(&c, grad_x);
    sk_plan_normalize(p);
    if (st == SK_STATUS_OK) st = sk_cuda_seg_run(&c, p, sk_tensor_numel(grad_x), NULL);
    sk_cuda_leave(&c);
    return st;
}

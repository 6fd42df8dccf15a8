/* The CPU backend's gather entry: copy a transposed x or index row-major
 * (within the scratch budget), check the index values (or let the path,
 * which reads each value anyway, check them), then run the plan. */
#include "cpu/cpu.h"

/* A row-major copy of t in scratch (a tiled transposing copy), when t's last
 * dimension is far from contiguous (its elements a line or more apart: a
 * transposed tensor), t is SK_PACK_MIN_BYTES or more and the copy fits in
 * `budget` bytes. Returns the scratch (NULL: use t as it is). */
static void *sk_pack_row_major(const sk_tensor *t, double budget, int nthreads, sk_tensor *packed,
                               size_t *bytes) {
    int32_t last = t->ndim - 1;
    int64_t es = (int64_t)sk_dtype_size(t->dtype), n = sk_tensor_numel(t), nbytes;
    /* a zero-stride x may have more elements than bytes fit in 64 bits; the
     * stride of a dimension of 2 or more elements times es fits (its span does) */
    if (last < 1 || sk_row_major(t) || sk_mul_overflows(n, es, &nbytes) ||
        t->shape[last] < SK_PACK_MIN_ROW || llabs(t->strides[last]) * es < SK_CACHE_LINE ||
        nbytes < SK_PACK_MIN_BYTES || (double)nbytes > budget)
        return NULL;
    *bytes = (size_t)nbytes;
    void *scratch = sk_scratch_get(*bytes);
    if (!scratch) return NULL;
    sk_tensor_init(packed, scratch, t->dtype, t->ndim, t->shape, NULL);
    sk_copy_unchecked(t, packed, nthreads);
    return scratch;
}

/* Row-major copies of a gather's operands, where worth it. */
typedef struct {
    sk_tensor x, index;
    void *x_scratch, *index_scratch;
    size_t x_bytes, index_bytes;
} sk_gather_packs;

/* A gather along the last axis from an x whose last axis is far from
 * contiguous (a transposed x) reads a line, usually a page, per element:
 * such an x is first copied row-major. A transposed index (one axis) too,
 * in what is left of the budget: it too is read a line per element. */
static void sk_gather_pack(const sk_gather_args *a, int nthreads, sk_gather_packs *k) {
    double budget = (double)SK_SCRATCH_BYTES_PER_INDEX * (double)sk_tensor_numel(a->index);
    if (!a->has_comp_dim && a->naxes == 1 && a->axes[0] == a->x->ndim - 1)
        k->x_scratch = sk_pack_row_major(a->x, budget, nthreads, &k->x, &k->x_bytes);
    if (!a->has_comp_dim)
        k->index_scratch = sk_pack_row_major(a->index, budget - (double)k->x_bytes, nthreads,
                                             &k->index, &k->index_bytes);
}

static void sk_gather_unpack(sk_gather_packs *k) {
    if (k->x_scratch) sk_scratch_put(k->x_scratch, k->x_bytes);
    if (k->index_scratch) sk_scratch_put(k->index_scratch, k->index_bytes);
}

/* A fresh out is dense: the plan's out strides span exactly its bytes,
 * whose pages are faulted in cheaply. */
static void sk_gather_prepare_fresh(const sk_plan *p) {
    int64_t lo = 0, hi = 0;
    if (sk_plan_numel(p) <= 0) return; /* no span: a size 0 beside any stride */
    for (int d = 0; d < p->ndim; d++) {
        int64_t span = (p->shape[d] - 1) * p->dense_stride[d];
        if (span < 0) lo += span;
        else hi += span;
    }
    sk_prepare_fresh(p->dense + lo * (int64_t)p->elem_size, (size_t)(hi - lo + 1) * p->elem_size);
}

/* Forward: p (or the plan rebuilt over packed operands) into out. */
static sk_status sk_gather_forward(sk_plan *p, const sk_index_check *chk, const sk_options *opts,
                                   sk_exec *ex) {
    /* With a fresh out the path itself notices a bad value, and the full
     * check runs only then, to find the first one for the message. Only
     * when out has elements: an empty out (index_select or gather_nd from an
     * x with an empty dimension) reads no index value in the kernel. */
    bool fused = sk_fused_check(opts, chk->mode) && sk_plan_numel(p) > 0;
    sk_status st;
    if (!fused && (st = sk_check_values(chk, ex->nthreads))) return st;
    /* rows of an out far larger than the caches are written around them */
    ex->stream = sk_plan_numel(p) * (int64_t)p->elem_size >= SK_STREAM_MIN_BYTES;
    ex->past_l2 = sk_plan_numel(p) * (int64_t)p->elem_size >= SK_PAST_L2_BYTES;
    if (opts && (opts->flags & SK_OPTION_FRESH_OUT)) sk_gather_prepare_fresh(p);
    int invalid = 0;
    ex->invalid = fused ? &invalid : NULL;
    sk_plan_normalize(p);
    sk_run_gather(p, ex);
    return invalid ? sk_check_values(chk, ex->nthreads) : SK_STATUS_OK;
}

sk_status sk_cpu_gather(sk_plan *p, const sk_plan *lin, const sk_index_check *chk,
                        sk_tensor *grad_x, const sk_gather_args *args, const sk_options *opts) {
    sk_exec ex = {0};
    ex.nthreads = sk_threads_for(opts);
    ex.opts = opts;
    ex.index_numel = sk_tensor_numel(chk->index);
    p->mode = chk->mode;
    if (lin) {
        sk_status st = sk_check_values(chk, ex.nthreads);
        if (st) return st;
        return sk_run_gather_backward(p, lin, grad_x, &ex);
    }
    sk_gather_packs packs = {0};
    if (args) sk_gather_pack(args, ex.nthreads, &packs);
    if (!packs.x_scratch && !packs.index_scratch) return sk_gather_forward(p, chk, opts, &ex);
    /* the plan over the row-major copies: the same values, read in order */
    sk_gather_args packed = *args;
    sk_index_check pchk = *chk;
    if (packs.x_scratch) packed.x = &packs.x;
    if (packs.index_scratch) packed.index = pchk.index = &packs.index;
    sk_plan q;
    sk_gather_plan(&q, p->op, &packed);
    q.fill = p->fill;
    q.mode = p->mode;
    sk_status st = sk_gather_forward(&q, &pchk, opts, &ex);
    sk_gather_unpack(&packs);
    return st;
}

/* The device-neutral description of a masked operator (masked_scatter,
 * masked_select and their backward). Positions are walked in row-major order
 * and the True positions of the broadcast mask numbered: a count per chunk
 * of positions, an exclusive scan, then a fill over the same chunks. */
#ifndef SK_PLAN_MASK_H
#define SK_PLAN_MASK_H

#include "plan/plan.h"

/* Chunks of the count and the fill, at most. */
#define SK_MASK_MAX_CHUNKS 1024

typedef enum {
    SK_MASK_SCATTER,     /* True: out = source[k]; False: out = x (unless in place) */
    SK_MASK_SELECT,      /* True: out[k] = x */
    SK_MASK_GRAD_X,      /* True: out = 0; False: out = x (x is grad_out) */
    SK_MASK_GRAD_SOURCE, /* True: source[k] = x (x is grad_out, source is grad_source) */
    SK_MASK_GRAD_SUM     /* masked_select's backward onto a broadcast x, the mask row-major
                          * with the broadcast shape: the True positions' source[k] folded
                          * into the x element each broadcast from (target strides: x's
                          * row-major ones, 0 where broadcast), written row-major at target */
} sk_mask_kind;

typedef struct sk_mask_desc {
    sk_mask_kind kind;
    sk_plan p;             /* positions: index = the mask (bool bytes), dense = out, target = x */
    bool zero_x;           /* x is a zero of p's dtype (p.target unset): the backend's zero */
    sk_plan source_plan;   /* walks source in row-major order (SCATTER, GRAD_SOURCE) */
    sk_tensor *zero_first; /* GRAD_SOURCE: the source, zeroed before the fill */
    int64_t out_stride;    /* SELECT: out's stride */
    bool write_unmasked;   /* copy x where the mask is False (out is not x) */
    int64_t grad_numel;    /* GRAD_SUM: the elements of x (of the result at target) */
    int64_t ntrue;         /* GRAD_SUM: the True positions the kernel counted (it counts
                            * them itself, without mask_count, and refuses a source of
                            * another length before anything is written) */
    /* the count's result, which the fill reads: the positions, the chunks
     * and the True positions before each chunk */
    int64_t total, nchunks;
    int64_t count[SK_MASK_MAX_CHUNKS];
} sk_mask_desc;

#endif /* SK_PLAN_MASK_H */

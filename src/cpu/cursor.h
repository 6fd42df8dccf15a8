/* Walking an access plan's iteration space one inner-dimension run at a time. */
#ifndef SK_CURSOR_H
#define SK_CURSOR_H

#include "cpu/cpu.h"

typedef struct {
    int64_t coord[SK_PLAN_MAX_DIMS];
    int64_t dense, target, linear, index, aux; /* offsets of the current position */
} sk_cursor;

/* Puts the cursor at row-major position pos. */
SK_INLINE void sk_cursor_seek(const sk_plan *p, sk_cursor *c, int64_t pos) {
    c->dense = c->target = c->linear = c->index = c->aux = 0;
    for (int d = p->ndim - 1; d >= 0; d--) {
        int64_t i = pos % p->shape[d];
        pos /= p->shape[d];
        c->coord[d] = i;
        c->dense += i * p->dense_stride[d];
        c->target += i * p->target_stride[d];
        c->linear += i * p->linear_stride[d];
        c->index += i * p->index_stride[d];
        c->aux += i * p->aux_stride[d];
    }
}

/* Length of the run from the cursor to the end of the inner dimension. */
SK_INLINE int64_t sk_cursor_run(const sk_plan *p, const sk_cursor *c) {
    return p->shape[p->ndim - 1] - c->coord[p->ndim - 1];
}

/* Moves the cursor `run` positions along the inner dimension, carrying into
 * outer dimensions when the inner one wraps. A wrapping dimension goes back
 * to its start without stepping one stride past its last element: with an
 * extreme stride that offset need not fit in 64 bits. */
#define SK_CURSOR_MOVE(c, p, d, k)                                                                 \
    do {                                                                                           \
        (c)->dense += (k) * (p)->dense_stride[d];                                                  \
        (c)->target += (k) * (p)->target_stride[d];                                                \
        (c)->linear += (k) * (p)->linear_stride[d];                                                \
        (c)->index += (k) * (p)->index_stride[d];                                                  \
        (c)->aux += (k) * (p)->aux_stride[d];                                                      \
    } while (0)
SK_INLINE void sk_cursor_advance(const sk_plan *p, sk_cursor *c, int64_t run) {
    int d = p->ndim - 1;
    while (d > 0 && c->coord[d] + run == p->shape[d]) {
        SK_CURSOR_MOVE(c, p, d, -c->coord[d]);
        c->coord[d] = 0;
        d--;
        run = 1;
    }
    c->coord[d] += run;
    SK_CURSOR_MOVE(c, p, d, run);
}
#undef SK_CURSOR_MOVE

/* Resolves the index components at index offset `ioff`: adds each value's
 * target and linear contribution. false: some component was out of range
 * and the mode says to skip (DROP) or fill (FILL). */
SK_INLINE bool sk_plan_resolve(const sk_plan *p, int64_t ioff, int64_t *toff, int64_t *lin) {
    for (int k = 0; k < p->ncomp; k++) {
        int64_t v = sk_load_index(p->index, p->index_is64, ioff + k * p->comp_stride);
        if (!sk_resolve_index(v, p->comp_size[k], p->mode, &v)) return false;
        *toff += v * p->comp_target_stride[k];
        *lin += v * p->comp_linear_stride[k];
    }
    return true;
}

/* A run whose targets are lin + j * ls (ls >= 0), j in [0, run): the j
 * whose target lies in [lo, hi), as [*jlo, *jhi) (empty when *jlo >= *jhi). */
SK_INLINE void sk_clip_run(int64_t lin, int64_t ls, int64_t run, int64_t lo, int64_t hi,
                           int64_t *jlo, int64_t *jhi) {
    *jlo = 0;
    *jhi = run;
    if (ls > 0) {
        if (lin < lo) *jlo = (lo - lin + ls - 1) / ls;
        if (lin + (run - 1) * ls >= hi) *jhi = lin >= hi ? 0 : (hi - lin + ls - 1) / ls;
    } else if (lin < lo || lin >= hi) {
        *jhi = 0;
    }
}

#endif

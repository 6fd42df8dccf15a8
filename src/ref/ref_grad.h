/*
 * ref_grad.h - the gradient rules shared by the reference's backward
 * functions (see ref_grad.c).
 */
#ifndef SK_REF_GRAD_H
#define SK_REF_GRAD_H

#include "ref_internal.h"

/* The canonical sum (docs/CONTRACT.md) of v[0..n) into start, in dt's
 * working precision: chunk 0 (v[0..256)) one after another into start; each
 * later chunk of 256 one after another from -0.0, then into the running
 * value. */
double ref_fold(sk_dtype dt, double start, const double *v, int64_t n);

/* t's elements in row-major order (malloc'd; NULL without memory). */
double *ref_load_all(const sk_tensor *t);

/* u sorted by slot (by_slot) or by target: for every element `key` of dst,
 * the fold from start of the values of its group, in list order:
 * vals[order] when grouped by slot, vals[slot] when grouped by target. An
 * element without a group gets +0.0. tmp has room for u->n values. */
void ref_fold_groups(sk_tensor *dst, const ref_updates *u, bool by_slot, const double *vals,
                     double start, double *tmp);

/* Gather-type: grad_x = the scatter-sum of grad_out (slot: position in
 * grad_out) into zeros; frees u. Writes nothing unless st is OK. */
sk_status ref_gather_grads(const sk_tensor *grad_out, sk_tensor *grad_x, ref_updates *u,
                           sk_status st);

/* One target of a scatter-type operator and its n updates, in position order. */
typedef struct {
    sk_dtype dt;
    sk_reduce reduce;
    bool self;        /* include_self: x is a contributor */
    double g, x, res; /* grad_out, x and the forward result at the target */
    int64_t n;
    const double *v;  /* the updates' values (read by prod, amax, amin) */
    double *share;    /* out: the gradient of each update */
} ref_target;

/* Fills t->share and returns the target's grad_x. tmp: room for
 * 2 * (t->n + 1) values. */
double ref_target_grads(const ref_target *t, double *tmp);

typedef struct {
    /* x, src and out give values (prod, amax, amin only; else may be NULL);
     * grad_out gives the targets' shape */
    const sk_tensor *x, *src, *out, *grad_out;
    sk_tensor *grad_x, *grad_src; /* NULL: not wanted */
    sk_reduce reduce;
    bool self;
} ref_grad_args;

/* Scatter-type: grad_x and grad_src from the update list; frees u. Writes
 * nothing unless st (the listing's status) is OK. */
sk_status ref_scatter_grads(const ref_grad_args *a, ref_updates *u, sk_status st);

#endif /* SK_REF_GRAD_H */

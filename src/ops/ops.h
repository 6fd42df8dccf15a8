/* What the operator files share: validate, then plan, then dispatch. They
 * include nothing below this layer but dispatch.h: no kernels, threads or
 * intrinsics here. */
#ifndef SK_OPS_H
#define SK_OPS_H

#include "base/checks.h"
#include "dispatch.h"
#include "plan/plan.h"

/* Checks shared by every scatter-type operator: x, out present, reduce, mode. */
sk_status sk_scatter_check_common(const char *op, const sk_tensor *x, sk_reduce reduce,
                                  sk_index_mode mode, const sk_tensor *out, bool backward);

#endif /* SK_OPS_H */

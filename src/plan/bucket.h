/* The device-neutral description of sk_bucketize: a 1-d index of global row
 * ids grouped by the rank that owns each row (scatterkit.distributed). */
#ifndef SK_PLAN_BUCKET_H
#define SK_PLAN_BUCKET_H

#include "base/base.h"

typedef struct sk_bucket_desc {
    const char *op;
    const sk_tensor *index;     /* 1-d, int32 or int64: global row ids */
    const sk_tensor *partition; /* 1-d int64, P + 1 row offsets, validated by the backend */
    sk_index_mode mode;
    sk_tensor *counts; /* int64 [P + 1]: ids per owner; counts[P]: dropped ids */
    sk_tensor *perm;   /* int64 [L]: positions grouped by owner, each group in order */
    sk_tensor *local;  /* int32 or int64 [L]: the id minus its owner's first row; -1 dropped */
} sk_bucket_desc;

#endif /* SK_PLAN_BUCKET_H */

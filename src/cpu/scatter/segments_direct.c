/* Path "cpu/scatter/segments_direct": segments (segments.h) without the
 * staged copy of the rows, for rows of SK_SEG_DIRECT_MIN_ROW_BYTES or more
 * (sk_seg_direct_suits). Its sort places each window row's position and key
 * grouped by thread (segments_stage.c), or with at most two groups only
 * counts them, each group's thread then scanning the keys for its own
 * (the scan of segments_fold_body.h); and one thread folds a group,
 * reading each row from src where it is: src's rows are read once in all,
 * in increasing order within a group, and the fold is the canonical order
 * of segments, bit for bit. Staging pays an extra write and read of every
 * row to give the fold its rows in order; the hardware prefetcher streams
 * a group's rows well enough that this extra traffic is the larger cost
 * (docs/DESIGN.md). */
#include "cpu/scatter/segments.h"

static bool sk_direct_applies(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                              sk_path_need *need) {
    return sk_seg_applies_as(p, ex, copy_from, need, true);
}

static sk_status sk_direct_run(const sk_plan *p, const sk_exec *ex, const sk_tensor *copy_from,
                               void *scratch) {
    return sk_seg_run_as(p, ex, copy_from, scratch, true);
}

const sk_path sk_path_segments_direct = {"cpu/scatter/segments_direct", false, true,
                                         sk_direct_applies, sk_direct_run};

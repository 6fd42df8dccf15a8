/* mask_cases.h - the shapes shared by masked_select and masked_scatter: x
 * and a bool mask that broadcasts to it. */
#ifndef SKT_MASK_CASES_H
#define SKT_MASK_CASES_H

#include "tester.h"

typedef struct {
    skt_shape x, mask;
    bool big;
} mask_case;

static const mask_case mask_cases[] = {
    {{0, {0}}, {0, {0}}, false},
    {{1, {5}}, {1, {5}}, false},
    {{2, {4, 3}}, {2, {4, 3}}, false},
    {{2, {4, 3}}, {1, {3}}, false},
    {{2, {4, 3}}, {2, {4, 1}}, false},
    {{3, {2, 3, 4}}, {3, {1, 3, 1}}, false},
    {{3, {2, 3, 4}}, {0, {0}}, false},
    {{3, {2, 3, 4}}, {2, {3, 4}}, false},
    {{2, {0, 3}}, {1, {3}}, false},
    {{2, {4, 0}}, {2, {4, 0}}, false},
    {{12, {2, 1, 2, 1, 2, 3, 2, 1, 2, 1, 2, 2}}, {10, {2, 1, 2, 3, 2, 1, 1, 1, 2, 1}}, false},
    {{2, {400, 256}}, {2, {400, 256}}, true},
    {{2, {400, 256}}, {2, {400, 1}}, true},
};

#endif /* SKT_MASK_CASES_H */

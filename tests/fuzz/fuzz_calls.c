/* The library's side of every entry of include/scatterkit_ops.def, and the
 * table of operators (the reference's side is fuzz_ref_calls.c). */
#include "fuzz_call_macros.h"

#define SK_OP(name, kind, spec, call)                                                              \
    static sk_status fz_lib_##name(fz_args *A, const sk_options *o) {                             \
        (void)o;                                                                                   \
        return call;                                                                               \
    }
#include "scatterkit_ops.def"
#undef SK_OP

#define SK_OP(name, kind, spec, call) sk_status fz_ref_##name(fz_args *A, const sk_options *o);
#include "scatterkit_ops.def"
#undef SK_OP

fz_op fz_ops[] = {
#define SK_OP(name, kind, spec, call) {#name, kind, spec, fz_lib_##name, fz_ref_##name, 0, {0}, {0}, -1},
#include "scatterkit_ops.def"
#undef SK_OP
};
const int fz_nops = (int)(sizeof fz_ops / sizeof fz_ops[0]);

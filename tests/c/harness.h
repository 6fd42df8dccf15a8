/*
 * harness.h - shared pieces of the C tests: a deterministic RNG, tensors in
 * many stride layouts backed by exactly-sized allocations (so AddressSanitizer
 * sees any read outside the elements), value generators, comparison against
 * the reference, and failure reporting.
 */
#ifndef SK_TEST_HARNESS_H
#define SK_TEST_HARNESS_H

#include "scatterkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- failures ---- */
extern long skt_checks;
extern long skt_failures;
/* Prints "FAIL: ..." (the first SKT_MAX_PRINTED of them) and counts it. */
void skt_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
#define SKT_MAX_PRINTED 25
#define SKT_CHECK(cond, ...)                                                                     \
    do {                                                                                         \
        skt_checks++;                                                                            \
        if (!(cond)) skt_fail(__VA_ARGS__);                                                      \
    } while (0)

/* ---- deterministic random numbers (splitmix64) ---- */
typedef struct {
    uint64_t state;
} skt_rng;
void skt_seed(skt_rng *r, uint64_t seed);
uint64_t skt_next(skt_rng *r);
int64_t skt_range(skt_rng *r, int64_t lo, int64_t hi); /* inclusive */

/* ---- shapes ---- */
typedef struct {
    int32_t ndim;
    int64_t d[SK_MAX_DIMS];
} skt_shape;
int64_t skt_numel(int32_t ndim, const int64_t *shape);
void skt_unravel(int64_t lin, int32_t ndim, const int64_t *shape, int64_t *coord);
/* "[2, 3]" into buf */
const char *skt_shape_str(char *buf, size_t n, int32_t ndim, const int64_t *shape);

/* ---- tensors in stride layouts ---- */
typedef enum {
    SKT_CONTIG,     /* row-major */
    SKT_TRANSPOSED, /* column-major: dimension 0 fastest */
    SKT_PADDED,     /* row-major with a gap after every element and every row */
    SKT_NEGATIVE,   /* row-major, every stride negated: data points at the end */
    SKT_MIXED,      /* first two dimensions swapped in memory, the last reversed, gaps */
    SKT_BROADCAST,  /* inputs only: every other dimension has stride 0 */
    SKT_SCALAR,     /* inputs only: every dimension has stride 0 */
    SKT_LAYOUT_COUNT
} skt_layout;
/* Layouts without internal overlap, valid for outputs. */
#define SKT_OUT_LAYOUTS 5
const char *skt_layout_name(skt_layout l);

typedef struct {
    unsigned char *base; /* the allocation: exactly the bytes the strides reach */
    size_t nbytes;
    sk_tensor t;
} skt_buf;

/* Builds a tensor of the given layout; no_bcast is a bit mask of dimensions
 * that must not get a zero stride (e.g. the component dimension of an index).
 * Its bytes are filled with random garbage. */
void skt_make(skt_buf *b, sk_dtype dt, int32_t ndim, const int64_t *shape, skt_layout lay,
              uint32_t no_bcast, skt_rng *r);
void skt_clone(skt_buf *dst, const skt_buf *src);
void skt_free(skt_buf *b);
/* Address of element coord. */
void *skt_at(const skt_buf *b, const int64_t *coord);

/* Value distributions (written to every storage slot, so any zero-stride
 * view is still a consistent tensor):
 * SMALL: integers in [-4, 4] ([0, 8] unsigned, {0, 1} bool), every dtype;
 *        float sums and short products of these are exact.
 * WIDE:  integers over the dtype's full range (wrap-around); floats as SMALL.
 * NAN:   as WIDE, and about one float in six is NaN.
 * UNIT:  floats in {-2, -1, -0.5, 0.5, 1, 2} (exact products); ints as WIDE. */
/* SKT_VAL_REAL: floats with every mantissa bit in use, in [-1, 1) (any
 * association of their sum rounds differently); integers as SKT_VAL_SMALL */
typedef enum { SKT_VAL_SMALL, SKT_VAL_WIDE, SKT_VAL_NAN, SKT_VAL_UNIT, SKT_VAL_REAL } skt_values;
void skt_fill(skt_buf *b, skt_rng *r, skt_values kind);
/* Stores a value converted to b's dtype (ints, floats, bool != 0). */
void skt_set(const skt_buf *b, const int64_t *coord, double v);
double skt_get(const skt_buf *b, const int64_t *coord);
/* Index tensors: every logical element gets a value in [lo[k], hi[k]] where
 * k is the coordinate of dimension comp_dim (k = 0 when comp_dim < 0). */
void skt_fill_index(skt_buf *b, skt_rng *r, int32_t comp_dim, const int64_t *lo,
                    const int64_t *hi);
void skt_set_index(const skt_buf *b, const int64_t *coord, int64_t v);
/* Bool mask with about `percent` percent True. */
void skt_fill_mask(skt_buf *b, skt_rng *r, int percent);

/* Compares two buffers of identical layout slot by slot over the whole
 * allocation (so bytes that must not be written are compared too): equal
 * bits pass; for floating dtypes two NaNs pass, and with tol > 0 so does
 * |a - b| <= tol * max(1, |b|). On a mismatch writes a description to why. */
bool skt_compare(const skt_buf *got, const skt_buf *want, double tol, char *why, size_t n);

/* Appends " name=dtype[shape]{strides}" to buf. */
void skt_desc(char *buf, size_t n, const char *name, const sk_tensor *t);
/* printf-append to buf */
void skt_appendf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- running a case against the reference ---- */
/* Calls the operator: the reference when ref, else the library. x is what
 * to pass as x (out itself for the in-place form). */
typedef sk_status (*skt_op_fn)(void *ctx, const sk_tensor *x, sk_tensor *out,
                               const sk_options *opts, bool ref);

/* Runs the reference once and the library with 1, 2 and 3 threads and once
 * with opts == NULL, each on a fresh copy of out0 (when inplace, x is that
 * copy). The library must match the reference (exactly, or within tol),
 * give identical bytes for every thread count, and leave `inputs` untouched.
 * If the reference reports an out-of-range index, the library must report
 * the same status and leave out as it was. With SKT_VERBOSE set in the
 * environment it prints each case before running it. */
void skt_run_case(const char *desc, skt_op_fn fn, void *ctx, const skt_buf *x,
                  const skt_buf *out0, bool inplace, double tol, const skt_buf *const *inputs,
                  int ninputs);

/* Checks a call that must fail: status, out unchanged against snapshot, and
 * (when given) words the message must contain. */
void skt_expect_fail(const char *what, sk_status got, sk_status want, const skt_buf *out,
                     const unsigned char *snapshot, const char *word1, const char *word2,
                     const char *word3);
/* A copy of b's bytes (NULL for NULL); free() it. */
unsigned char *skt_snapshot(const skt_buf *b);

/* Relative tolerance for float reductions that round (mean, prod). */
double skt_tolerance(sk_dtype dt);

extern const sk_dtype skt_all_dtypes[SK_DTYPE_COUNT];
extern const char *const skt_reduce_names[6];
extern const char *const skt_mode_names[4];

#endif /* SK_TEST_HARNESS_H */

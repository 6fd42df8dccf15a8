/*
 * tester.h - the one driver behind every operator test (tests/c/ops/): an
 * operator gives a case table, a `make` that builds one case's tensors, a
 * `call` that runs it on the library or on the reference (src/ref), and an
 * error table; skt_sweep() does the loops (dtypes, index dtypes, reductions,
 * include_self, index modes, mask densities, repetitions) and the
 * comparisons: exact for data movement, assign, integers and amax/amin, a
 * per-dtype tolerance for float mean, the same bytes at 1, 2 and 3 threads
 * and with the default options, inputs untouched (skt_run_case), then the
 * error table: status, out untouched, message fragments.
 */
#ifndef SK_TESTER_H
#define SK_TESTER_H

#include "harness.h"

#include <stddef.h>

/* Every public entry point is a weak reference: an operator the library does
 * not export fails its own test instead of breaking the link. */
#if defined(__GNUC__)
#define SKT_PRAGMA(x) _Pragma(#x)
#define SK_OP(name, kind, argspec, call) SKT_PRAGMA(weak sk_##name)
#include "scatterkit_ops.def"
#undef SK_OP
#endif

#define SKT_COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The library's or the reference's entry point; a buffer's tensor or NULL. */
#define SKT_PICK(ref, name) ((ref) ? skref_##name : sk_##name)
#define SKT_T(b) ((b) ? &(b)->t : NULL)

/* Every argument an operator takes besides x and out. */
typedef struct {
    const skt_buf *index, *src, *mask;
    const sk_tensor *fill;
    int32_t axis, axis2, naxes, batch_dims;
    const int32_t *axes;
    const int64_t *starts, *stops, *steps;
    int64_t offset, select;
    sk_reduce reduce;
    bool include_self;
    sk_index_mode mode;
    sk_tensor_scatter_mode ts_mode;
} skt_args;

/* One point of a sweep. */
typedef struct {
    int di;     /* position of dt in skt_all_dtypes */
    sk_dtype dt, it;
    sk_reduce reduce;
    bool include_self, big;
    sk_index_mode mode;
    int density; /* percent of True in a mask */
    int rep, sub;
    int caseno;  /* sweep points of this case so far, skipped ones included */
    int variant; /* cases run so far, over the whole table */
} skt_params;

/* The tensors of one call, freed together. Never copied: x, out, inputs and
 * the args point into buf[]. */
#define SKT_MAX_BUFS 8
typedef struct {
    skt_buf buf[SKT_MAX_BUFS];
    const char *name[SKT_MAX_BUFS]; /* described in messages; "a=NULL" as is */
    int n;
    skt_buf *x, *out;                   /* x: NULL passes NULL */
    const skt_buf *inputs[SKT_MAX_BUFS]; /* must come back untouched */
    int ninputs;
    bool inplace;
    skt_args a;
    const sk_options *opts; /* error table: the options passed */
    skt_buf *watch;         /* error table: must stay untouched (default: out) */
    int64_t bad_at[SK_MAX_DIMS]; /* error table: where skt_mut_bad_index writes */
    char desc[1024];
} skt_bufs;

/* A fresh slot of b, to skt_make; view: a slot that owns no memory. */
skt_buf *skt_new(skt_bufs *b, const char *name);
skt_buf *skt_view(skt_bufs *b, const sk_tensor *t);
void skt_set_inputs(skt_bufs *b, int n, ...);
void skt_bufs_free(skt_bufs *b);

/* A row of an error table: `mutate` breaks the fixture's valid call (with
 * arg), then the call (the operator's, or `call`) must return `want`, leave
 * b->watch untouched and name every word in its message. */
typedef struct {
    const char *what;
    void (*mutate)(skt_bufs *b, int64_t arg, skt_rng *r);
    int64_t arg;
    sk_status want;
    const char *words[3];
    sk_status (*call)(skt_bufs *b);
} skt_error_case;

typedef struct {
    const char *name;
    void (*fn)(void);
} skt_symbol;
#define SKT_SYMBOL(f) {#f, (void (*)(void))(f)}

/* What a sweep loops over (dtypes always). */
enum {
    SKT_INDEX_DTYPES = 1u << 0,  /* int32, int64; big cases: int64 only */
    SKT_REDUCES = 1u << 1,       /* the six reductions the dtype allows */
    SKT_SELF = 1u << 2,          /* include_self true, false */
    SKT_GATHER_MODES = 1u << 3,  /* error, clip, fill; big cases: no clip */
    SKT_SCATTER_MODES = 1u << 4, /* error, clip, drop; big cases: error */
    SKT_DENSITIES = 1u << 5,     /* masks 0, 50 and 100 percent True */
};

typedef struct skt_op {
    const char *name; /* from scatterkit_ops.def */
    skt_symbol requires[3];
    const void *cases;
    size_t ncases, case_size, big_offset; /* big_offset: of the case's `bool big` */
    unsigned sweep;
    int reps, subs; /* repetitions of each point (big cases: one), and runs of each */
    uint64_t seed, error_seed;
    /* Builds one case into b (false: the case does not apply; nothing drawn). */
    bool (*make)(const void *c, const skt_params *p, skt_bufs *b, skt_rng *r);
    sk_status (*call)(const skt_args *a, const sk_tensor *x, sk_tensor *out, bool ref,
                      const sk_options *o);
    void (*fixture)(skt_bufs *b, skt_rng *r); /* the valid call the error table breaks */
    const skt_error_case *errors;
    size_t nerrors;
    void (*extra)(void); /* the operator's own paths, beyond the sweep */
} skt_op;

#define SKT_CASES(table, type) table, SKT_COUNT(table), sizeof(type), offsetof(type, big)
#define SKT_ERRORS(table) table, SKT_COUNT(table)

void skt_sweep(const skt_op *op);
/* Runs b against the reference (skt_run_case) and frees it. */
void skt_run(const skt_op *op, skt_bufs *b, double tol);

/* ---- what the makes share ---- */
extern const sk_options skt_three_threads;
extern const sk_dtype skt_index_dtypes[2];
skt_layout skt_in_layout(skt_rng *r);
skt_layout skt_out_layout(skt_rng *r);
int32_t skt_wrap_axis(int32_t axis, int32_t ndim);
/* Index values: all valid in error mode (none exist for an empty axis, so
 * every value is then out of range); a few out of range otherwise. */
void skt_index_bounds(int64_t n, sk_index_mode mode, int64_t *lo, int64_t *hi);
/* Outside error mode: the index dtype's extremes at about 1 position in 12. */
void skt_sprinkle_extremes(const skt_buf *idx, sk_index_mode mode, skt_rng *r);
/* Values that keep a reduction exact, with NaNs where they must propagate. */
skt_values skt_values_for(sk_reduce r);
bool skt_big_dtype(sk_dtype dt);
/* bool takes none, amax and amin only. */
bool skt_reduce_ok(sk_dtype dt, sk_reduce r);
/* The comparison's tolerance: float mean rounds (a division); everything
 * else is exact with skt_values_for(). */
double skt_reduce_tol(sk_dtype dt, sk_reduce r);
/* x (values for reduce) and out, out a clone of x when in place. */
void skt_make_x_out(skt_bufs *b, sk_dtype dt, const skt_shape *xs, bool inplace, skt_values v,
                    skt_rng *r);
/* The fill_value argument: NULL (zeros) for even variants, else a 0-d 7. */
const sk_tensor *skt_make_fill(skt_buf *fb, sk_dtype dt, int variant, skt_rng *r);
/* A gather-type case's fill_value (skt_make_fill) and its inputs: x, index
 * and the fill tensor. */
void skt_gather_fill(skt_bufs *b, sk_dtype dt, int variant, skt_rng *r);
/* A contiguous tensor with SMALL values; an index with values in [0, hi]. */
skt_buf *skt_mk(skt_bufs *b, const char *name, sk_dtype dt, int32_t ndim, const int64_t *shape,
                skt_rng *r);
skt_buf *skt_mk_index(skt_bufs *b, const char *name, sk_dtype it, int32_t ndim,
                      const int64_t *shape, int64_t hi, skt_rng *r);
/* The sweep point where a shape helper is checked once per case. */
bool skt_shape_probe(const skt_params *p);
void skt_check_shape(const char *what, sk_status st, int32_t nd, const int64_t *shape,
                     int32_t want_nd, const int64_t *want);
/* "op reduce=.. include_self=.. mode=..[ in-place]" into b->desc */
void skt_reduce_desc(skt_bufs *b, const char *op, const skt_params *p);
/* src shape variants: exact, leading dimension dropped, size-1 dims, 0-d. */
skt_shape skt_broadcast_variant(const skt_shape *s, int variant);

/* ---- mutations the error tables share ---- */
void skt_mut_x_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_out_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_index_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_src_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_mask_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_axes_null(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_axis(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_mode(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_reduce(skt_bufs *b, int64_t arg, skt_rng *r);
/* out as a view of itself with a zero stride along dimension arg. */
void skt_mut_zero_stride_out(skt_bufs *b, int64_t arg, skt_rng *r);
/* Sets the fixture's index at b->bad_at to arg (an out-of-range value); the
 * _3t form also asks for 3 threads. */
void skt_mut_bad_index(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_bad_index_3t(skt_bufs *b, int64_t arg, skt_rng *r);
/* Replaces an argument by a contiguous tensor of dtype arg, same shape. */
void skt_mut_index_dtype(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_src_dtype(skt_bufs *b, int64_t arg, skt_rng *r);
void skt_mut_out_dtype(skt_bufs *b, int64_t arg, skt_rng *r);

#endif /* SK_TESTER_H */

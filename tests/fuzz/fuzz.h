/*
 * fuzz.h - the coverage-guided fuzz target of scatterkit (libFuzzer, ASan,
 * UBSan). An input decodes into one entry of include/scatterkit_ops.def and
 * its arguments: dtypes, shapes, strides (zero, negative, extreme), axes,
 * reductions, modes, index values and out aliasing, every tensor in an
 * allocation of exactly its extent. fuzz_ops.c runs the call on copies of
 * those allocations at two thread counts and through src/ref and checks:
 * nothing written on error, the same bytes at both thread counts, results
 * equal to the reference.
 */
#ifndef SK_FUZZ_H
#define SK_FUZZ_H

#include "scatterkit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ_MAX_ARGS 12
#define FZ_MAX_BLOCKS FZ_MAX_ARGS
/* Every non-empty tensor has at most this many elements, so that no target
 * of a float sum, mean or product has more than 256 contributors: beyond
 * that the library's blocked order may round differently from the serial
 * reference until the canonical order lands, and only then can the
 * comparison stay bitwise. */
#define FZ_MAX_NUMEL 128

typedef enum {
    FZ_IN, FZ_OPT, FZ_OUT, FZ_OPTOUT, FZ_I32, FZ_I64, FZ_BOOL, FZ_RED, FZ_MODE, FZ_TSMODE,
    FZ_AXES, FZ_BOUNDS, FZ_STEPS, FZ_SHAPE, FZ_COUNT, FZ_BAD
} fz_type;

/* The arguments of one call: tensors point into a world's blocks. */
typedef struct {
    sk_tensor *t[FZ_MAX_ARGS]; /* NULL: the argument is absent (None) */
    int64_t v[FZ_MAX_ARGS];    /* scalars */
    int32_t *axes[FZ_MAX_ARGS];
    int32_t naxes[FZ_MAX_ARGS];
    int64_t *bounds[FZ_MAX_ARGS];
    int32_t shape_nd;
    int64_t shape_dims[SK_MAX_DIMS];
    int64_t count;
} fz_args;

typedef sk_status (*fz_call)(fz_args *a, const sk_options *o);

typedef struct {
    const char *name;
    int kind; /* SK_KIND_* of the operator list */
    const char *spec;
    fz_call lib, ref;
    int nargs;
    fz_type type[FZ_MAX_ARGS];
    const char *arg[FZ_MAX_ARGS]; /* the argument's name (its first characters) */
    int forward; /* a backward whose arguments begin with its forward's: that op, else -1 */
} fz_op;

enum { SK_KIND_FORWARD, SK_KIND_BACKWARD, SK_KIND_SHAPE };
extern fz_op fz_ops[];
extern const int fz_nops;

/* The allocations of one call and the tensors over them. */
typedef struct {
    unsigned char *mem; /* exactly `bytes` long; NULL when empty */
    size_t bytes;
} fz_block;

typedef struct {
    fz_block blk[FZ_MAX_BLOCKS];
    int nblk;
    sk_tensor t[FZ_MAX_ARGS];
    int tblk[FZ_MAX_ARGS];        /* the tensor's block, -1: absent */
    ptrdiff_t toff[FZ_MAX_ARGS];  /* byte offset of its data in the block */
    bool written[FZ_MAX_ARGS];    /* out or optout */
    int32_t axes[FZ_MAX_ARGS][SK_MAX_DIMS];
    int64_t bounds[FZ_MAX_ARGS][SK_MAX_DIMS];
    fz_args a;
} fz_world;

/* Reads the input a byte at a time; zeros once it is used up. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} fz_reader;
uint8_t fz_u8(fz_reader *r);

/* Decodes the call of op into w; false: the input is not one to run (a
 * tensor too large to allocate or to finish in time). */
bool fz_decode(const fz_op *op, fz_reader *r, fz_world *w);
void fz_world_free(fz_world *w);
/* A copy of w with blocks of its own; false: out of memory. */
bool fz_world_clone(fz_world *dst, const fz_world *src);
/* Parses every op's argspec once. */
void fz_parse_specs(void);

#endif /* SK_FUZZ_H */

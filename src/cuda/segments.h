/* The boundary of the CUDA scatter reductions (segments*.cu): plain C
 * structs passed to kernels by value, launchers returning 0 or a CUDA error
 * code, as in cuda/kernels.h.
 *
 * The scheme: the plan's positions are cut into rows (the last plan
 * dimension when the index is constant along it and it addresses distinct
 * targets, else single positions); every row gets the key of its target row
 * (the linear offset of its first target, or `sentinel` for a row the mode
 * drops), and a stable radix sort of (key, row number) groups the rows by
 * target in position order: each target's contributors in the canonical
 * order (CONTRACT section 2). Chunks of SK_CUDA_CHUNK contributors after the
 * first are folded into partials in parallel (a slot per chunk: chunk
 * starts lie at least SK_CUDA_CHUNK sorted positions apart, so start / CHUNK
 * names a slot of its own), then each target folds its first chunk into its
 * start value and the partials in order. */
#ifndef SK_CUDA_SEGMENTS_H
#define SK_CUDA_SEGMENTS_H

#include "cuda/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SK_CANONICAL_CHUNK (plan/plan.h; scatter.c checks they agree). */
#define SK_CUDA_CHUNK 256

/* dtypes and reductions as in include/scatterkit.h (scatter.c checks). */
enum {
    SK_CUDA_BOOL = 0, SK_CUDA_U8 = 1, SK_CUDA_I8 = 2, SK_CUDA_I16 = 3, SK_CUDA_I32 = 4,
    SK_CUDA_I64 = 5, SK_CUDA_F16 = 6, SK_CUDA_BF16 = 7, SK_CUDA_F32 = 8, SK_CUDA_F64 = 9
};
enum {
    SK_CUDA_ASSIGN = 0, SK_CUDA_SUM = 1, SK_CUDA_PROD = 2, SK_CUDA_MEAN = 3, SK_CUDA_AMAX = 4,
    SK_CUDA_AMIN = 5
};

/* A normalised scatter plan as the segment kernels walk it. A row is row r
 * of the first rdim dimensions (row-major), with row_len elements j at
 * j * row_<operand> past its first; row_len is 1 without rows. */
typedef struct sk_cuda_seg {
    int rdim, ncomp, dtype, reduce, mode;
    bool include_self, index_is64;
    bool wide;                        /* 64-bit keys and row numbers */
    int end_bit;                      /* the bits of sentinel: the sort's key width */
    int group;                        /* lanes per row: a power of two up to 32 */
    int64_t rows, row_len, sentinel;
    int64_t shape[SK_CUDA_MAX_DIMS];
    int64_t dense_stride[SK_CUDA_MAX_DIMS];  /* src */
    int64_t target_stride[SK_CUDA_MAX_DIMS]; /* out */
    int64_t linear_stride[SK_CUDA_MAX_DIMS]; /* out's row-major offsets: the keys */
    int64_t index_stride[SK_CUDA_MAX_DIMS];
    int64_t aux_stride[SK_CUDA_MAX_DIMS];    /* backward: grad_src */
    int64_t row_dense, row_target, row_linear, row_aux;
    int64_t comp_stride;
    int64_t comp_size[SK_CUDA_MAX_COMP];
    int64_t comp_target_stride[SK_CUDA_MAX_COMP];
    int64_t comp_linear_stride[SK_CUDA_MAX_COMP];
    const char *src;
    char *out;
    const void *index;
} sk_cuda_seg;

/* A tensor of x's shape (the backward's grad_out, x, the forward result,
 * grad_x): element strides; data NULL when absent. */
typedef struct sk_cuda_like {
    const char *data;
    int64_t strides[SK_CUDA_MAX_COMP];
} sk_cuda_like;

/* The scatter backward (CONTRACT section 7, the CPU's rules in
 * src/cpu/backward/walk.c): x's shape, and the operands of that shape;
 * grad_src through the plan's aux strides. */
typedef struct sk_cuda_seg_grad {
    int ndim;
    int64_t numel;
    int64_t shape[SK_CUDA_MAX_COMP];
    sk_cuda_like grad_out, x, result, grad_x;
    char *grad_src;
} sk_cuda_seg_grad;

/* A strided tensor for the zero fill. */
typedef struct sk_cuda_dense {
    int ndim, elem_size;
    int64_t numel;
    int64_t shape[SK_CUDA_MAX_COMP];
    int64_t strides[SK_CUDA_MAX_COMP];
    char *data;
} sk_cuda_dense;

/* (segments_sort.cu) keys and row numbers of s's rows, sorted by key,
 * stable: *keys and *rows are allocated on the stream (the caller frees
 * them with sk_cuda_rt_free), 4 bytes each unless s->wide. */
int sk_cuda_seg_sort(const sk_cuda_seg *s, void **keys, void **rows, void *stream);
/* (segments_sort.cu) every element of d = 0 (all-zero bytes). */
int sk_cuda_launch_zero(const sk_cuda_dense *d, void *stream);
/* (segments.cu) the forward: out[target] = reduce(out[target], contributors)
 * over the sorted rows; out already holds the start values. */
int sk_cuda_launch_seg_reduce(const sk_cuda_seg *s, const void *keys, const void *rows,
                              void *stream);
/* (segments_grad.cu) grad_x = grad_out's values for every target (the
 * untouched ones keep it), then per target its contributors' gradients. */
int sk_cuda_launch_seg_grad(const sk_cuda_seg *s, const sk_cuda_seg_grad *g, const void *keys,
                            const void *rows, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* SK_CUDA_SEGMENTS_H */

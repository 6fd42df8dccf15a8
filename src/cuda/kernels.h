/* The boundary between the CUDA backend's host C (the .c files of src/cuda: validation
 * order, planning, messages) and its CUDA C++ (the .cu files: kernels and
 * the runtime calls). Plain C structs of fixed size, passed to kernels by
 * value; no library header is included so that nvcc sees only this. Every
 * launcher enqueues on `stream` and returns 0 or a CUDA error code. */
#ifndef SK_CUDA_KERNELS_H
#define SK_CUDA_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions a kernel walks: a normalised plan has at most this many
 * (SK_PLAN_MAX_DIMS; launch.c checks it). */
#define SK_CUDA_MAX_DIMS 26
/* Index components of one position (SK_MAX_DIMS). */
#define SK_CUDA_MAX_COMP 12
/* "no bad position" in the device status word. */
#define SK_CUDA_NO_ERROR UINT64_MAX

/* Modes as in sk_index_mode. */
enum { SK_CUDA_ERROR = 0, SK_CUDA_CLIP = 1, SK_CUDA_DROP = 2, SK_CUDA_FILL = 3 };

/* The schemes of a plan walk (launch.c chooses). */
typedef enum {
    SK_CUDA_ELEMENTS = 0, /* a thread per output element */
    SK_CUDA_ROWS = 1      /* lanes per chunk of a contiguous row whose index is constant along it */
} sk_cuda_scheme;

/* A normalised sk_plan as a kernel walks it: out[dense(p)] = x[target(p) +
 * sum_k resolve(index[index(p) + k * comp_stride]) * comp_target_stride[k]]
 * (ncomp == 0: a strided, broadcasting copy). Offsets in elements. */
typedef struct sk_cuda_walk {
    int ndim;
    int ncomp;
    int elem_size;              /* 1, 2, 4 or 8: elements move by width */
    int mode;                   /* SK_CUDA_* */
    bool index_is64;
    int scheme;                 /* sk_cuda_scheme */
    int vec;                    /* ROWS: bytes per vector move (16, 8, 4, 2 or 1) */
    int group;                  /* ROWS: lanes per row, a power of two up to 32 */
    int64_t chunk_vecs, chunks; /* ROWS: a row is moved in chunks of chunk_vecs vectors */
    int64_t numel;              /* positions (ELEMENTS) */
    int64_t rows, row_len;      /* ROWS: rows of row_len elements (the last dimension) */
    int64_t shape[SK_CUDA_MAX_DIMS];
    int64_t dense_stride[SK_CUDA_MAX_DIMS];
    int64_t target_stride[SK_CUDA_MAX_DIMS];
    int64_t index_stride[SK_CUDA_MAX_DIMS];
    int64_t comp_stride;
    int64_t comp_size[SK_CUDA_MAX_COMP];
    int64_t comp_target_stride[SK_CUDA_MAX_COMP];
    char *dense;
    const char *target;
    const void *index;
    const void *fill;           /* FILL: one element in device memory; NULL: zeros */
    unsigned int *invalid;      /* ERROR mode checked in the walk: set to 1 on a bad value */
    int blocks, threads;        /* launch geometry */
} sk_cuda_walk;

/* An index tensor to validate: every value, or (comp_dim >= 0) the value
 * whose coordinate along comp_dim is k, must lie in [-sizes[k], sizes[k]).
 * Dimensions of size 1 and broadcast ones (stride 0) are left out of the
 * scan: the first bad value in row-major order has coordinate 0 there.
 * dim_of maps a scanned dimension to the index's. */
typedef struct sk_cuda_check {
    int ndim;
    int comp_dim;                          /* among the scanned dimensions, or -1 */
    int dim_of[SK_CUDA_MAX_COMP];
    bool is64;
    int64_t numel;
    int64_t shape[SK_CUDA_MAX_COMP];
    int64_t strides[SK_CUDA_MAX_COMP];
    int64_t sizes[SK_CUDA_MAX_COMP];
    const void *data;
    int blocks, threads;
} sk_cuda_check;

/* masked_scatter / masked_select over a normalised mask plan (plan/mask.h):
 * positions in tiles of SK_CUDA_MASK_TILE, counted, scanned, then filled. */
#define SK_CUDA_MASK_THREADS 256
#define SK_CUDA_MASK_PER_THREAD 8
#define SK_CUDA_MASK_TILE (SK_CUDA_MASK_THREADS * SK_CUDA_MASK_PER_THREAD)
typedef struct sk_cuda_mask_walk {
    int ndim;
    int elem_size;
    bool select;                /* SELECT: out[k * out_stride] = x; else SCATTER */
    bool into_source;           /* SELECT into the source walked row-major (its gradient) */
    bool write_unmasked;        /* SCATTER: out = x where the mask is False */
    int64_t numel, tiles;
    int64_t shape[SK_CUDA_MAX_DIMS];
    int64_t mask_stride[SK_CUDA_MAX_DIMS];
    int64_t x_stride[SK_CUDA_MAX_DIMS];
    int64_t out_stride[SK_CUDA_MAX_DIMS];
    int64_t out_stride1;        /* SELECT */
    int src_ndim;               /* SCATTER: source walked row-major */
    int64_t src_shape[SK_CUDA_MAX_DIMS];
    int64_t src_stride[SK_CUDA_MAX_DIMS];
    const uint8_t *mask;
    const char *x;
    char *out;
    const char *source;
} sk_cuda_mask_walk;

/* tensor_scatter forward: out[b, .., (w_b mod n + i) mod n, ..] = update[b, .., i, ..]
 * (the backward reads the same targets: dir)
 * for i >= skip (linear mode: w_b + i < n, skip = 0). Tensors of up to
 * SK_CUDA_MAX_COMP dimensions, offsets in elements. */
typedef struct sk_cuda_ts {
    int ndim, axis, elem_size;
    bool wi_is64;
    int64_t numel, n, skip;
    int64_t shape[SK_CUDA_MAX_COMP];       /* update's */
    int64_t update_stride[SK_CUDA_MAX_COMP];
    int64_t out_stride[SK_CUDA_MAX_COMP];
    int64_t wi_stride;
    const char *update;
    char *out;
    const void *write_indices;             /* NULL: 0 for every batch */
    int64_t batch;
    bool circular;
    int dir;                               /* SK_CUDA_TS_* */
} sk_cuda_ts;
/* What ts_write does at each written target: the forward's write, the
 * backward's read of out into update, or a zero into out. */
enum { SK_CUDA_TS_WRITE = 0, SK_CUDA_TS_READ = 1, SK_CUDA_TS_ZERO = 2 };

/* ---- runtime (runtime.cu) ---- */
int sk_cuda_rt_set_device(int device, int *previous);
int sk_cuda_rt_restore_device(int device);
/* The device of a device pointer (NULL or host memory: the current one). */
int sk_cuda_rt_device_of(const void *ptr, int *device);
int sk_cuda_rt_alloc(void **p, size_t bytes, void *stream);
int sk_cuda_rt_free(void *p, void *stream);
int sk_cuda_rt_read(void *host, const void *device, size_t bytes, void *stream); /* waits */
int sk_cuda_rt_fill_status(uint64_t *word, void *stream);      /* = SK_CUDA_NO_ERROR */
int sk_cuda_rt_zero(void *device, size_t bytes, void *stream);
int sk_cuda_rt_last_error(void);
const char *sk_cuda_rt_error_string(int err);
bool sk_cuda_rt_is_oom(int err);
bool sk_cuda_rt_is_no_device(int err);

/* ---- kernels (walk.cu, check.cu, mask.cu, tensor_scatter.cu) ---- */
int sk_cuda_launch_walk(const sk_cuda_walk *w, void *stream);
/* *word = the lowest bad linear position (row-major over the index), if any. */
int sk_cuda_launch_check(const sk_cuda_check *c, uint64_t *word, void *stream);
/* total: one device uint64, += the True positions. */
int sk_cuda_launch_mask_total(const sk_cuda_mask_walk *m, unsigned long long *total, void *stream);
/* counts (device, tiles entries) scanned in place into the exclusive offsets,
 * with scratch from the stream; then the fill. */
int sk_cuda_launch_mask_fill(const sk_cuda_mask_walk *m, void *stream);
/* *word = the lowest bad batch of the write indices, if any. */
int sk_cuda_launch_ts_check(const sk_cuda_ts *t, uint64_t *word, void *stream);
int sk_cuda_launch_ts_write(const sk_cuda_ts *t, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* SK_CUDA_KERNELS_H */

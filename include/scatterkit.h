/*
 * scatterkit.h - the one public header of scatterkit, a C11 library of the
 * tensor scatter/gather operator family.
 *
 * Conventions
 * - Every symbol is prefixed sk_ / SK_. Enum values are only ever appended.
 * - Tensors are described by the non-owning sk_tensor: data pointer, dtype,
 *   shape and strides counted in ELEMENTS (not bytes). Any stride is allowed
 *   for inputs, including 0 (broadcast) and negative ones.
 * - Outputs are allocated by the caller. Shape helpers (sk_*_shape) tell the
 *   caller the output shape. Passing out == x (same data, same layout) is the
 *   in-place form; any other overlap between out and an input, or an out with
 *   internal overlap (a zero stride on a dimension of size > 1), is refused.
 * - Every function returns an sk_status. On failure nothing has been written,
 *   and sk_last_error() gives a message naming the operator and argument.
 * - The last argument of every operator is `const sk_options *opts`; NULL
 *   means the defaults (process-wide thread count).
 * - Results are bitwise identical for every thread count.
 */
#ifndef SCATTERKIT_H
#define SCATTERKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SK_BUILDING_SHARED)
#define SK_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif

#define SK_VERSION_MAJOR 0
#define SK_VERSION_MINOR 2
#define SK_VERSION_PATCH 0

/* Most dimensions an sk_tensor may have; more is SK_STATUS_INVALID_SHAPE. */
#define SK_MAX_DIMS 12

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */
typedef enum sk_status {
    SK_STATUS_OK = 0,
    SK_STATUS_INVALID_ARGUMENT = 1,   /* bad axis, reduce, mode, ... (ValueError) */
    SK_STATUS_INVALID_DTYPE = 2,      /* wrong or unsupported dtype   (TypeError)  */
    SK_STATUS_INVALID_SHAPE = 3,      /* shapes do not agree          (ValueError) */
    SK_STATUS_INDEX_OUT_OF_RANGE = 4, /* an index value is out of range (IndexError) */
    SK_STATUS_OVERLAP = 5,            /* out overlaps an input or itself (ValueError) */
    SK_STATUS_OUT_OF_MEMORY = 6,
    SK_STATUS_SIZE_OVERFLOW = 7,      /* a size or offset does not fit in 64 bits */
    SK_STATUS_UNSUPPORTED_DEVICE = 8, /* tensor on a device this build cannot use */
    SK_STATUS_NULL_POINTER = 9,       /* a required pointer argument is NULL */
    SK_STATUS_INTERNAL = 10
} sk_status;

/* A fixed description of a status code ("index out of range", ...). */
SK_API const char *sk_status_string(sk_status status);
/* The message of the last failed call on this thread ("" when none).
 * Example: "scatter: index[3, 7] = 12 is out of range for axis 1 of size 10". */
SK_API const char *sk_last_error(void);

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */
typedef enum sk_dtype {
    SK_DTYPE_BOOL = 0,
    SK_DTYPE_UINT8 = 1,
    SK_DTYPE_INT8 = 2,
    SK_DTYPE_INT16 = 3,
    SK_DTYPE_INT32 = 4,
    SK_DTYPE_INT64 = 5,
    SK_DTYPE_FLOAT16 = 6,
    SK_DTYPE_BFLOAT16 = 7,
    SK_DTYPE_FLOAT32 = 8,
    SK_DTYPE_FLOAT64 = 9,
    SK_DTYPE_COUNT
} sk_dtype;

SK_API size_t sk_dtype_size(sk_dtype dtype);     /* 0 for an invalid dtype */
SK_API const char *sk_dtype_name(sk_dtype dtype);/* "float32", ...; "invalid" */
SK_API bool sk_dtype_is_floating(sk_dtype dtype);

/* IEEE binary16 and bfloat16 conversion: round to nearest even; NaN and
 * infinity are kept (a NaN stays a quiet NaN with its sign). */
SK_API uint16_t sk_float_to_half(float value);
SK_API float sk_half_to_float(uint16_t bits);
SK_API uint16_t sk_float_to_bfloat16(float value);
SK_API float sk_bfloat16_to_float(uint16_t bits);

/* ------------------------------------------------------------------------ */
/* Tensor descriptor                                                        */
/* ------------------------------------------------------------------------ */
typedef enum sk_device_type {
    SK_DEVICE_CPU = 1,  /* the values are DLPack's DLDeviceType */
    SK_DEVICE_CUDA = 2
} sk_device_type;

typedef struct sk_tensor {
    void *data;                     /* address of element [0, 0, ..., 0] */
    sk_dtype dtype;
    int32_t ndim;                   /* 0 .. SK_MAX_DIMS */
    int64_t shape[SK_MAX_DIMS];
    int64_t strides[SK_MAX_DIMS];   /* in elements; any sign, zero allowed */
    int32_t device_type;            /* sk_device_type */
    int32_t device_id;
} sk_tensor;

/* Fills `t` for a CPU tensor. strides == NULL means row-major contiguous. */
SK_API sk_status sk_tensor_init(sk_tensor *t, void *data, sk_dtype dtype,
                                int32_t ndim, const int64_t *shape,
                                const int64_t *strides);
/* Number of elements (product of the shape; 1 for 0-d). -1 on overflow. */
SK_API int64_t sk_tensor_numel(const sk_tensor *t);

/* Converts a DLPack DLTensor (any version of the DLTensor struct; it is the
 * same layout in DLPack 0.x and 1.x) without copying: data + byte_offset,
 * shape and strides (NULL strides = row-major). Refuses dtypes outside
 * sk_dtype, lanes != 1, byte offsets that are not a multiple of the element
 * size, and ndim > SK_MAX_DIMS. */
struct DLTensor;
SK_API sk_status sk_tensor_from_dlpack(const struct DLTensor *dl, sk_tensor *t);

/* ------------------------------------------------------------------------ */
/* Options, threads                                                         */
/* ------------------------------------------------------------------------ */
typedef struct sk_options {
    int32_t num_threads;   /* 0 = the process-wide setting */
    uint32_t flags;        /* SK_OPTION_* */
    /* CUDA tensors: the cudaStream_t the call's work is enqueued on (NULL:
     * the legacy default stream). Scratch is allocated and freed on it; only
     * mode="error" and the calls that must learn a count (masked_select,
     * masked_scatter, tensor_scatter's write_indices) wait for it, and for
     * no other stream. Ignored for CPU tensors. */
    void *stream;
} sk_options;

/* out was allocated for this call and is thrown away if the call fails (the
 * Python binding's out=None): gather-type operators, and scatter-type ones
 * whose out is not x, may then check index values inside the kernel instead
 * of in a separate pass first. The error and its message are the same; only
 * out's contents after a failure differ (x is never written). */
#define SK_OPTION_FRESH_OUT 1u

/* Process-wide thread count. Default: the environment variable
 * SCATTERKIT_NUM_THREADS, else OMP_NUM_THREADS (its first entry), else the
 * CPUs this process may run on (its affinity mask, capped by its cgroup's CPU
 * quota; SCATTERKIT_CPUS=n, a testing override read once, counts n instead).
 * n < 1 resets to that default; counts above 256 (here and in sk_options) mean 256.
 * After a parallel call the library's threads poll for the next one for
 * SCATTERKIT_SPIN_US microseconds (read once; default 2000, 0: never) before
 * they sleep, yielding the CPU to any other runnable thread: waking a
 * sleeping thread can cost a millisecond. */
SK_API sk_status sk_set_num_threads(int32_t n);
SK_API int32_t sk_get_num_threads(void);

/* Scratch memory of 1 MiB and more (the reductions' partial results) is kept
 * after a call for the next one: fresh pages would fault again on every
 * call. At most SCATTERKIT_SCRATCH_CACHE_MB megabytes (default 256; 0: none)
 * are kept (the Python binding's result buffers likewise, up to
 * SCATTERKIT_BUFFER_CACHE_MB). This gives every kept block back to the
 * system; returns the bytes freed. */
SK_API size_t sk_release_cached_memory(void);

/* Result memory for bindings that allocate the outputs they hand to their
 * users (the Python package's out=None): blocks of 1 MiB and more come from
 * a pool of reused huge-page blocks, so that the next call's result does not
 * fault its pages in again. sk_result_alloc returns NULL when the pool has
 * nothing to give (the caller then allocates as it would have);
 * sk_result_free takes the size given to sk_result_alloc. At most `limit`
 * bytes are kept (trim unmaps blocks beyond it and, with set_limit, keeps
 * that limit; it returns the bytes freed); info reports the kept blocks. */
SK_API void *sk_result_alloc(size_t bytes);
SK_API void sk_result_free(void *ptr, size_t bytes);
SK_API size_t sk_result_cache_trim(size_t limit, bool set_limit);
SK_API void sk_result_cache_info(int *blocks, size_t *held, size_t *limit);

/* The name of the kernel path the last operator call on this thread ran,
 * e.g. "cpu/scatter/segments" ("" before any, or when the last call
 * failed before running): for tests and performance work. */
SK_API const char *sk_last_kernel(void);

/* ------------------------------------------------------------------------ */
/* Copy                                                                     */
/* ------------------------------------------------------------------------ */
/* out = src (same dtype; src broadcasts to out.shape). Any strides; a
 * contiguous pair is a parallel memcpy (the benchmark's bandwidth probe). */
SK_API sk_status sk_copy(const sk_tensor *src, sk_tensor *out, const sk_options *opts);

/* ------------------------------------------------------------------------ */
/* Reductions and index modes                                               */
/* ------------------------------------------------------------------------ */
typedef enum sk_reduce {
    SK_REDUCE_NONE = 0,  /* assign; with duplicates the last update in row-major order wins */
    SK_REDUCE_SUM = 1,
    SK_REDUCE_PROD = 2,
    SK_REDUCE_MEAN = 3,
    SK_REDUCE_AMAX = 4,
    SK_REDUCE_AMIN = 5
} sk_reduce;

typedef enum sk_index_mode {
    SK_INDEX_MODE_ERROR = 0, /* out of [-n, n-1]: SK_STATUS_INDEX_OUT_OF_RANGE */
    SK_INDEX_MODE_CLIP = 1,  /* clamp to [0, n-1] */
    SK_INDEX_MODE_DROP = 2,  /* scatter-type operators: skip that update */
    SK_INDEX_MODE_FILL = 3   /* gather-type operators: write the fill value */
} sk_index_mode;

/* ------------------------------------------------------------------------ */
/* Gather-type operators                                                    */
/*                                                                          */
/* fill_value: NULL (zero) or a 0-d tensor of x's dtype, read only with     */
/* SK_INDEX_MODE_FILL. Index tensors are int32 or int64.                    */
/* ------------------------------------------------------------------------ */

/* gather: index.ndim == x.ndim, index.shape[d] <= x.shape[d] for d != axis;
 * out.shape == index.shape; out[p] = x[p with p[axis] = index[p]]. */
SK_API sk_status sk_gather_shape(const sk_tensor *x, const sk_tensor *index,
                                 int32_t axis, int32_t *out_ndim, int64_t *out_shape);
SK_API sk_status sk_gather(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                           sk_index_mode mode, const sk_tensor *fill_value,
                           sk_tensor *out, const sk_options *opts);

/* gather with a tuple of naxes distinct axes (CINN gather_nd with dims):
 * index.shape == out.shape + (naxes,), out.ndim == x.ndim, and for
 * d not in axes: out.shape[d] <= x.shape[d];
 * out[p] = x[p with p[axes[k]] = index[p + (k,)]]. */
SK_API sk_status sk_gather_axes_shape(const sk_tensor *x, const sk_tensor *index,
                                      const int32_t *axes, int32_t naxes,
                                      int32_t *out_ndim, int64_t *out_shape);
SK_API sk_status sk_gather_axes(const sk_tensor *x, const sk_tensor *index,
                                const int32_t *axes, int32_t naxes,
                                sk_index_mode mode, const sk_tensor *fill_value,
                                sk_tensor *out, const sk_options *opts);

/* index_select: index of any rank; out.shape == x.shape[:axis] + index.shape
 * + x.shape[axis+1:]. */
SK_API sk_status sk_index_select_shape(const sk_tensor *x, const sk_tensor *index,
                                       int32_t axis, int32_t *out_ndim, int64_t *out_shape);
SK_API sk_status sk_index_select(const sk_tensor *x, const sk_tensor *index, int32_t axis,
                                 sk_index_mode mode, const sk_tensor *fill_value,
                                 sk_tensor *out, const sk_options *opts);

/* gather_nd: index.shape[-1] = k; the first batch_dims dimensions are shared by
 * x and index; out.shape == index.shape[:-1] + x.shape[batch_dims + k:]. */
SK_API sk_status sk_gather_nd_shape(const sk_tensor *x, const sk_tensor *index,
                                    int32_t batch_dims, int32_t *out_ndim, int64_t *out_shape);
SK_API sk_status sk_gather_nd(const sk_tensor *x, const sk_tensor *index, int32_t batch_dims,
                              sk_index_mode mode, const sk_tensor *fill_value,
                              sk_tensor *out, const sk_options *opts);

/* masked_select: out is 1-d with as many elements as the broadcast mask has
 * True values (sk_masked_select_count tells how many). */
SK_API sk_status sk_masked_select_count(const sk_tensor *x, const sk_tensor *mask,
                                        int64_t *count, const sk_options *opts);
SK_API sk_status sk_masked_select(const sk_tensor *x, const sk_tensor *mask,
                                  sk_tensor *out, const sk_options *opts);

/* ------------------------------------------------------------------------ */
/* Scatter-type operators. out has x's shape and dtype; out == x is in place. */
/* ------------------------------------------------------------------------ */

/* scatter: for every position p of index, t = p with p[axis] = index[p];
 * out[t] = reduce(out[t], src[p]). src.shape[d] >= index.shape[d] (a scalar
 * src is a tensor broadcast with zero strides). include_self == false: a
 * target that receives an update starts from the reduction's identity. */
SK_API sk_status sk_scatter(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                            int32_t axis, sk_reduce reduce, bool include_self,
                            sk_index_mode mode, sk_tensor *out, const sk_options *opts);
/* scatter with a tuple of axes: index.shape == src_block + (naxes,). */
SK_API sk_status sk_scatter_axes(const sk_tensor *x, const sk_tensor *index, const sk_tensor *src,
                                 const int32_t *axes, int32_t naxes, sk_reduce reduce,
                                 bool include_self, sk_index_mode mode, sk_tensor *out,
                                 const sk_options *opts);

/* index_scatter: index 1-d of length L (or 0-d); updates.shape == x.shape with
 * axis replaced by L (removed for a 0-d index). */
SK_API sk_status sk_index_scatter(const sk_tensor *x, const sk_tensor *index,
                                  const sk_tensor *updates, int32_t axis, sk_reduce reduce,
                                  bool include_self, sk_index_mode mode, sk_tensor *out,
                                  const sk_options *opts);

/* scatter_nd: updates.shape == index.shape[:-1] + x.shape[k:]. */
SK_API sk_status sk_scatter_nd(const sk_tensor *x, const sk_tensor *index,
                               const sk_tensor *updates, sk_reduce reduce,
                               sk_index_mode mode, sk_tensor *out, const sk_options *opts);

/* A bound of a slice that was left out (Python's None). */
#define SK_SLICE_NONE INT64_MIN

/* slice_scatter over naxes axes at once, Python slice rules (negative and
 * out-of-range bounds normalised, any nonzero step). src broadcasts to the
 * shape of the slice. */
SK_API sk_status sk_slice_scatter(const sk_tensor *x, const sk_tensor *src, int32_t naxes,
                                  const int32_t *axes, const int64_t *starts,
                                  const int64_t *stops, const int64_t *steps,
                                  sk_tensor *out, const sk_options *opts);

/* diagonal_scatter: src.shape must equal the shape of
 * numpy.diagonal(x, offset, axis1, axis2). */
SK_API sk_status sk_diagonal_scatter(const sk_tensor *x, const sk_tensor *src, int64_t offset,
                                     int32_t axis1, int32_t axis2, sk_tensor *out,
                                     const sk_options *opts);

/* select_scatter: src.shape == x.shape without axis; index wraps if negative. */
SK_API sk_status sk_select_scatter(const sk_tensor *x, const sk_tensor *src, int32_t axis,
                                   int64_t index, sk_tensor *out, const sk_options *opts);

/* masked_scatter: mask (bool) broadcasts to x.shape; the k-th True position in
 * row-major order receives source (flattened, row-major) element k. */
SK_API sk_status sk_masked_scatter(const sk_tensor *x, const sk_tensor *mask,
                                   const sk_tensor *source, sk_tensor *out,
                                   const sk_options *opts);

typedef enum sk_tensor_scatter_mode {
    SK_TENSOR_SCATTER_LINEAR = 0,
    SK_TENSOR_SCATTER_CIRCULAR = 1
} sk_tensor_scatter_mode;

/* tensor_scatter (ONNX TensorScatter): for each batch b (dimension 0),
 * update[b] is written into cache[b] along axis starting at write_indices[b]
 * (0 when write_indices is NULL); circular mode wraps around the axis. */
SK_API sk_status sk_tensor_scatter(const sk_tensor *cache, const sk_tensor *update,
                                   const sk_tensor *write_indices, int32_t axis,
                                   sk_tensor_scatter_mode mode, sk_tensor *out,
                                   const sk_options *opts);

/* bucketize (scatterkit.distributed): groups a 1-d index of global row ids
 * by the rank that owns each row. partition (int64, P + 1 offsets starting
 * at 0, nondecreasing) gives rank r the rows [partition[r],
 * partition[r + 1]); ids wrap and resolve against partition[P] as
 * index_select's do (mode error, clip, drop or fill; drop and fill set an
 * out-of-range id aside). Writes counts (int64 [P + 1]: ids per rank, then
 * the ids set aside), perm (int64 [L]: the positions of rank 0's ids, then
 * rank 1's, ..., then those set aside, each group in increasing position:
 * a stable counting sort) and local (int32 or int64 [L]: at k, the id of
 * position perm[k] minus its owner's first row; -1 for one set aside).
 * Every value is checked before anything is written. */
SK_API sk_status sk_bucketize(const sk_tensor *index, const sk_tensor *partition,
                              sk_index_mode mode, sk_tensor *counts, sk_tensor *perm,
                              sk_tensor *local, const sk_options *opts);


/* ------------------------------------------------------------------------ */
/* Backward (floating dtypes: float16, bfloat16, float32, float64)          */
/*                                                                          */
/* Given the gradient of the forward result (grad_out, the forward out's    */
/* shape) these compute the gradients of the inputs. Gradient outputs are   */
/* caller-allocated with the shape of the input they belong to; any of them */
/* may be NULL to skip it, except grad_x of the gather-type and             */
/* masked_select backward: their only output, it also gives x's shape and   */
/* dtype (grad_out must match its dtype), so it is required.                */
/* 16-bit types compute in float32 (or wider) and round once. Rules        */
/* (docs/CONTRACT.md, Backward):                                            */
/* - gather-type: grad_x is the scatter-sum of grad_out (positions written  */
/*   with the fill value, and clipped positions' originals, get nothing     */
/*   beyond what the resolved index says).                                  */
/* - scatter-type: assign gives the gradient to the winning (last) update   */
/*   only and none to the overwritten x element; sum passes it through;     */
/*   mean divides by the count (+1 with include_self); prod multiplies by   */
/*   the product of the other contributors, exact with zeros; amax/amin     */
/*   split it evenly among all contributors equal to the result, x included */
/*   when include_self. src/updates elements that were not read, or were    */
/*   dropped, get zero. A target that received no update passes grad_out to */
/*   grad_x; with include_self == false a touched target gives x nothing.   */
/* The forward result `out` is needed by prod, amax and amin.               */
/* ------------------------------------------------------------------------ */
SK_API sk_status sk_gather_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                    int32_t axis, sk_index_mode mode, sk_tensor *grad_x,
                                    const sk_options *opts);
SK_API sk_status sk_gather_axes_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                         const int32_t *axes, int32_t naxes, sk_index_mode mode,
                                         sk_tensor *grad_x, const sk_options *opts);
SK_API sk_status sk_index_select_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                          int32_t axis, sk_index_mode mode, sk_tensor *grad_x,
                                          const sk_options *opts);
SK_API sk_status sk_gather_nd_backward(const sk_tensor *grad_out, const sk_tensor *index,
                                       int32_t batch_dims, sk_index_mode mode, sk_tensor *grad_x,
                                       const sk_options *opts);
/* grad_x has x's shape; when x was broadcast against mask, the gradient is
 * summed over the broadcast dimensions. */
SK_API sk_status sk_masked_select_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                           sk_tensor *grad_x, const sk_options *opts);

SK_API sk_status sk_scatter_backward(const sk_tensor *x, const sk_tensor *index,
                                     const sk_tensor *src, int32_t axis, sk_reduce reduce,
                                     bool include_self, sk_index_mode mode, const sk_tensor *out,
                                     const sk_tensor *grad_out, sk_tensor *grad_x,
                                     sk_tensor *grad_src, const sk_options *opts);
SK_API sk_status sk_scatter_axes_backward(const sk_tensor *x, const sk_tensor *index,
                                          const sk_tensor *src, const int32_t *axes,
                                          int32_t naxes, sk_reduce reduce, bool include_self,
                                          sk_index_mode mode, const sk_tensor *out,
                                          const sk_tensor *grad_out, sk_tensor *grad_x,
                                          sk_tensor *grad_src, const sk_options *opts);
SK_API sk_status sk_index_scatter_backward(const sk_tensor *x, const sk_tensor *index,
                                           const sk_tensor *updates, int32_t axis,
                                           sk_reduce reduce, bool include_self,
                                           sk_index_mode mode, const sk_tensor *out,
                                           const sk_tensor *grad_out, sk_tensor *grad_x,
                                           sk_tensor *grad_updates, const sk_options *opts);
SK_API sk_status sk_scatter_nd_backward(const sk_tensor *x, const sk_tensor *index,
                                        const sk_tensor *updates, sk_reduce reduce,
                                        sk_index_mode mode, const sk_tensor *out,
                                        const sk_tensor *grad_out, sk_tensor *grad_x,
                                        sk_tensor *grad_updates, const sk_options *opts);
/* grad_src has src's shape: broadcast dimensions of src are summed over. */
SK_API sk_status sk_slice_scatter_backward(const sk_tensor *grad_out, int32_t naxes,
                                           const int32_t *axes, const int64_t *starts,
                                           const int64_t *stops, const int64_t *steps,
                                           sk_tensor *grad_x, sk_tensor *grad_src,
                                           const sk_options *opts);
SK_API sk_status sk_diagonal_scatter_backward(const sk_tensor *grad_out, int64_t offset,
                                              int32_t axis1, int32_t axis2, sk_tensor *grad_x,
                                              sk_tensor *grad_src, const sk_options *opts);
SK_API sk_status sk_select_scatter_backward(const sk_tensor *grad_out, int32_t axis,
                                            int64_t index, sk_tensor *grad_x,
                                            sk_tensor *grad_src, const sk_options *opts);
/* grad_source has source's shape: element k (row-major) gets grad_out at the
 * k-th True position; elements beyond the number of True positions get 0. */
SK_API sk_status sk_masked_scatter_backward(const sk_tensor *grad_out, const sk_tensor *mask,
                                            sk_tensor *grad_x, sk_tensor *grad_source,
                                            const sk_options *opts);
/* grad_update elements that a later circular write overwrote get 0. */
SK_API sk_status sk_tensor_scatter_backward(const sk_tensor *grad_out,
                                            const sk_tensor *write_indices, int32_t axis,
                                            sk_tensor_scatter_mode mode, sk_tensor *grad_cache,
                                            sk_tensor *grad_update, const sk_options *opts);

/* ------------------------------------------------------------------------ */
/* Source shapes                                                            */
/*                                                                          */
/* The shape a scalar (0-d) src, updates or source is broadcast to, with    */
/* zero strides, before it is passed to the operator. Each query makes only */
/* checks that its operator makes before it looks at the source, with the   */
/* same status and message. out_shape has room for SK_MAX_DIMS entries.     */
/* ------------------------------------------------------------------------ */
/* scatter: index.shape (scatter_axes: without its last dimension). */
SK_API sk_status sk_scatter_source_shape(const sk_tensor *x, const sk_tensor *index,
                                         int32_t axis, int32_t *out_ndim, int64_t *out_shape);
SK_API sk_status sk_scatter_axes_source_shape(const sk_tensor *x, const sk_tensor *index,
                                              const int32_t *axes, int32_t naxes,
                                              int32_t *out_ndim, int64_t *out_shape);
/* index_scatter: x.shape with axis replaced by L (removed for a 0-d index). */
SK_API sk_status sk_index_scatter_source_shape(const sk_tensor *x, const sk_tensor *index,
                                               int32_t axis, int32_t *out_ndim,
                                               int64_t *out_shape);
/* scatter_nd: index.shape[:-1] + x.shape[k:]. */
SK_API sk_status sk_scatter_nd_source_shape(const sk_tensor *x, const sk_tensor *index,
                                            int32_t *out_ndim, int64_t *out_shape);
/* diagonal_scatter: the shape of numpy.diagonal(x, offset, axis1, axis2). */
SK_API sk_status sk_diagonal_scatter_source_shape(const sk_tensor *x, int64_t offset,
                                                  int32_t axis1, int32_t axis2,
                                                  int32_t *out_ndim, int64_t *out_shape);
/* select_scatter: x.shape without axis. */
SK_API sk_status sk_select_scatter_source_shape(const sk_tensor *x, int32_t axis,
                                                int32_t *out_ndim, int64_t *out_shape);
/* masked_scatter: x.shape (mask must be bool and broadcast to it). */
SK_API sk_status sk_masked_scatter_source_shape(const sk_tensor *x, const sk_tensor *mask,
                                                int32_t *out_ndim, int64_t *out_shape);

#ifdef __cplusplus
}
#endif
#endif /* SCATTERKIT_H */

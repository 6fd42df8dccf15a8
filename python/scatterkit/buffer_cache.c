/*
 * A cache of large result buffers for the Python layer.
 *
 * Why: a result allocated with torch.empty or np.empty is fresh memory from
 * the kernel whenever it is large (glibc maps anything above its mmap
 * threshold, at most 32 MiB, and unmaps it on free). Each 4 KiB page then
 * faults on its first write and the kernel zeroes it, which can cost more
 * than the operator that writes the result. Frameworks cache device memory
 * for the same reason; PyTorch does not for CPU tensors.
 *
 * What: buffers of at least CACHE_MIN_BYTES come from the library's result
 * cache (sk_result_alloc in scatterkit.h: 2 MiB-aligned blocks with
 * transparent huge pages requested, at most SCATTERKIT_BUFFER_CACHE_MB,
 * default 1024; 0 turns it off) and are handed to torch or NumPy through
 * DLPack. When the tensor dies its deleter gives the block back to the
 * cache instead of unmapping it, and the next request of the same rounded
 * size takes it: no faults, no zeroing. Results from the cache hold whatever
 * the block held before: every operator writes every element of its result.
 * The deleter may run without the GIL: it touches no Python.
 */
#include "buffer_cache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "scatterkit.h"

#include "dlpack.h"

#define CACHE_MIN_BYTES ((size_t)1 << 20)

/* ------------------------------------------------------------------------ */
/* The DLPack side                                                          */
/* ------------------------------------------------------------------------ */
/* One allocation per result: the DLPack header in the form the consumer
 * asked for (NumPy imports the pre-1.0 form read-only), and the block. */
typedef struct cached_tensor {
    dl_managed managed;             /* pre-1.0 form */
    dl_managed_versioned versioned; /* 1.x form */
    int64_t shape[1];
    void *block;
    size_t bytes;
} cached_tensor;

static void cached_tensor_free(cached_tensor *t) {
    sk_result_free(t->block, t->bytes);
    free(t);
}

static void delete_managed(dl_managed *m) {
    cached_tensor_free((cached_tensor *)(void *)((char *)m - offsetof(cached_tensor, managed)));
}

static void delete_versioned(dl_managed_versioned *m) {
    cached_tensor_free((cached_tensor *)(void *)((char *)m - offsetof(cached_tensor, versioned)));
}

/* A capsule never consumed still owns its tensor; a consumed one was
 * renamed "used_..." and is the consumer's. */
static void capsule_destructor(PyObject *cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
        dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter) m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        dl_managed_versioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter) m->deleter(m);
    }
}

PyObject *py_cached_buffer(PyObject *self, PyObject *args) {
    (void)self;
    Py_ssize_t n;
    int versioned = 0;
    if (!PyArg_ParseTuple(args, "n|p:cached_buffer", &n, &versioned)) return NULL;
    int blocks;
    size_t held, limit;
    sk_result_cache_info(&blocks, &held, &limit);
    if (n < (Py_ssize_t)CACHE_MIN_BYTES || limit == 0) Py_RETURN_NONE;
    cached_tensor *t = calloc(1, sizeof *t);
    if (!t) return PyErr_NoMemory();
    t->bytes = (size_t)n;
    t->block = sk_result_alloc(t->bytes);
    if (!t->block) { /* the framework's own allocator reports the failure */
        free(t);
        Py_RETURN_NONE;
    }
    t->shape[0] = (int64_t)n;
    struct DLTensor *dl = versioned ? &t->versioned.dl_tensor : &t->managed.dl_tensor;
    dl->data = t->block;
    dl->device.device_type = DL_DEVICE_CPU;
    dl->ndim = 1;
    dl->dtype.code = DL_CODE_UINT;
    dl->dtype.bits = 8;
    dl->dtype.lanes = 1;
    dl->shape = t->shape;
    dl->strides = NULL; /* compact */
    PyObject *cap;
    if (versioned) {
        t->versioned.version.major = DL_SUPPORTED_MAJOR;
        t->versioned.deleter = delete_versioned;
        cap = PyCapsule_New(&t->versioned, "dltensor_versioned", capsule_destructor);
    } else {
        t->managed.deleter = delete_managed;
        cap = PyCapsule_New(&t->managed, "dltensor", capsule_destructor);
    }
    if (!cap) cached_tensor_free(t);
    return cap;
}

PyObject *py_buffer_cache_clear(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(sk_result_cache_trim(0, false)); /* the limit stays */
}

PyObject *py_buffer_cache_info(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    int blocks;
    size_t held, limit;
    sk_result_cache_info(&blocks, &held, &limit);
    return Py_BuildValue("(inn)", blocks, (Py_ssize_t)held, (Py_ssize_t)limit);
}

PyObject *py_buffer_cache_set_limit(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "set_buffer_cache_limit: nbytes must be >= 0");
        return NULL;
    }
    sk_result_cache_trim((size_t)n, true);
    Py_RETURN_NONE;
}

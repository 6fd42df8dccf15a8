/*
 * A cache of large result buffers for the Python layer.
 *
 * Why: a result allocated with torch.empty or np.empty is fresh memory from
 * the kernel whenever it is large (glibc maps anything above its mmap
 * threshold, at most 32 MiB, and unmaps it on free). Each 4 KiB page then
 * faults on its first write and the kernel zeroes it: on the reference
 * machine filling a fresh 32 MiB tensor took 15 ms, while the gather that
 * writes it takes 5 ms into memory that is already there. Frameworks cache
 * device memory for the same reason; PyTorch does not for CPU tensors.
 *
 * What: buffers of at least CACHE_MIN_BYTES are mapped here in 2 MiB-aligned
 * blocks (transparent huge pages requested, so a first touch costs one fault
 * per 2 MiB) and handed to torch or NumPy through DLPack. When the tensor
 * dies its deleter puts the block back on a short list instead of unmapping
 * it, and the next request of about the same size takes it: no faults, no
 * zeroing. The list holds at most CACHE_SLOTS blocks and `limit` bytes
 * (SCATTERKIT_BUFFER_CACHE_MB, default 1024; 0 turns the cache off); the
 * oldest block goes first. Results from the cache hold whatever the block
 * held before: every operator writes every element of its result.
 *
 * The deleter runs wherever the consumer frees the tensor, maybe without
 * the GIL, so the list is guarded by its own mutex and touches no Python.
 */
#include "buffer_cache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/internal.h" /* sk_map_huge: the library's 2 MiB-aligned mappings */
#include "dlpack.h"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define HAVE_CACHE 1
#endif

#define CACHE_MIN_BYTES ((size_t)1 << 20)
#define BLOCK_ALIGN ((size_t)2 << 20) /* one transparent huge page */
#define CACHE_SLOTS 16
#define DEFAULT_LIMIT_MB 1024

#if defined(HAVE_CACHE)

typedef struct block {
    void *base;
    size_t bytes; /* a multiple of BLOCK_ALIGN */
} block;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static block slots[CACHE_SLOTS]; /* oldest first */
static int nslots;
static size_t held_bytes;
static size_t limit_bytes;
static int limit_known;

/* A child of fork() may find the lock held by a thread it does not have. */
static void cache_after_fork_child(void) { pthread_mutex_init(&cache_lock, NULL); }
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static void cache_register_fork_handler(void) { pthread_atfork(NULL, NULL, cache_after_fork_child); }

/* Caller holds cache_lock. */
static size_t current_limit(void) {
    if (!limit_known) {
        const char *env = getenv("SCATTERKIT_BUFFER_CACHE_MB");
        long long mb = DEFAULT_LIMIT_MB;
        if (env && *env) {
            char *end;
            long long v = strtoll(env, &end, 10);
            if (*end == '\0' && v >= 0) mb = v;
        }
        limit_bytes = (size_t)mb << 20;
        limit_known = 1;
    }
    return limit_bytes;
}

static void unmap_block(block b) { sk_unmap_huge(b.base, b.bytes); }

/* The smallest cached block that fits `bytes` without wasting more than a
 * quarter of it, or a new one. */
static block take_block(size_t bytes) {
    block got = {NULL, 0};
    pthread_mutex_lock(&cache_lock);
    int best = -1;
    for (int i = 0; i < nslots; i++)
        if (slots[i].bytes >= bytes && slots[i].bytes - bytes <= bytes / 4 &&
            (best < 0 || slots[i].bytes < slots[best].bytes))
            best = i;
    if (best >= 0) {
        got = slots[best];
        held_bytes -= got.bytes;
        for (int i = best; i + 1 < nslots; i++) slots[i] = slots[i + 1];
        nslots--;
    }
    pthread_mutex_unlock(&cache_lock);
    if (!got.base) {
        got.base = sk_map_huge(bytes);
        got.bytes = got.base ? bytes : 0;
    }
    return got;
}

/* Keeps b for the next request, dropping the oldest blocks to stay within
 * the limits; unmapping happens outside the lock. */
static void give_block(block b) {
    block drop[CACHE_SLOTS + 1];
    int ndrop = 0;
    pthread_mutex_lock(&cache_lock);
    size_t limit = current_limit();
    if (b.bytes > limit) {
        drop[ndrop++] = b;
    } else {
        int first = 0;
        while (first < nslots && (held_bytes + b.bytes > limit || nslots - first >= CACHE_SLOTS)) {
            held_bytes -= slots[first].bytes;
            drop[ndrop++] = slots[first++];
        }
        for (int i = first; i < nslots; i++) slots[i - first] = slots[i];
        nslots -= first;
        slots[nslots++] = b;
        held_bytes += b.bytes;
    }
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < ndrop; i++) unmap_block(drop[i]);
}

/* Empties the list down to `limit` (0: all) and sets it. */
static size_t trim_to(size_t limit) {
    block drop[CACHE_SLOTS];
    int ndrop = 0;
    size_t freed = 0;
    pthread_mutex_lock(&cache_lock);
    current_limit();
    limit_bytes = limit;
    int first = 0;
    while (first < nslots && held_bytes > limit) {
        held_bytes -= slots[first].bytes;
        freed += slots[first].bytes;
        drop[ndrop++] = slots[first++];
    }
    for (int i = first; i < nslots; i++) slots[i - first] = slots[i];
    nslots -= first;
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < ndrop; i++) unmap_block(drop[i]);
    return freed;
}

/* ------------------------------------------------------------------------ */
/* The DLPack side                                                          */
/* ------------------------------------------------------------------------ */
/* One allocation per result: the DLPack header in the form the consumer
 * asked for (NumPy imports the pre-1.0 form read-only), and the block. */
typedef struct cached_tensor {
    dl_managed managed;             /* pre-1.0 form */
    dl_managed_versioned versioned; /* 1.x form */
    int64_t shape[1];
    block b;
} cached_tensor;

static void cached_tensor_free(cached_tensor *t) {
    give_block(t->b);
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
    pthread_once(&cache_once, cache_register_fork_handler);
    pthread_mutex_lock(&cache_lock);
    size_t limit = current_limit();
    pthread_mutex_unlock(&cache_lock);
    if (n < (Py_ssize_t)CACHE_MIN_BYTES || limit == 0) Py_RETURN_NONE;
    size_t bytes = ((size_t)n + BLOCK_ALIGN - 1) & ~(BLOCK_ALIGN - 1);
    if (bytes < (size_t)n) Py_RETURN_NONE; /* would wrap: let the framework say why */
    cached_tensor *t = calloc(1, sizeof *t);
    if (!t) return PyErr_NoMemory();
    t->b = take_block(bytes);
    if (!t->b.base) { /* the framework's own allocator reports the failure */
        free(t);
        Py_RETURN_NONE;
    }
    t->shape[0] = (int64_t)n;
    struct DLTensor *dl = versioned ? &t->versioned.dl_tensor : &t->managed.dl_tensor;
    dl->data = t->b.base;
    dl->device.device_type = DL_DEVICE_CPU;
    dl->ndim = 1;
    dl->dtype.code = DL_UINT;
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
    pthread_mutex_lock(&cache_lock);
    size_t limit = current_limit();
    pthread_mutex_unlock(&cache_lock);
    size_t freed = trim_to(0);
    trim_to(limit); /* keep the limit: only the blocks go */
    return PyLong_FromSize_t(freed);
}

PyObject *py_buffer_cache_info(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    pthread_mutex_lock(&cache_lock);
    size_t limit = current_limit();
    int blocks = nslots;
    size_t held = held_bytes;
    pthread_mutex_unlock(&cache_lock);
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
    trim_to((size_t)n);
    Py_RETURN_NONE;
}

#else /* no mmap: every result comes from the framework's allocator */

PyObject *py_cached_buffer(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    Py_RETURN_NONE;
}

PyObject *py_buffer_cache_clear(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromLong(0);
}

PyObject *py_buffer_cache_info(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return Py_BuildValue("(iii)", 0, 0, 0);
}

PyObject *py_buffer_cache_set_limit(PyObject *self, PyObject *arg) {
    (void)self;
    if (PyNumber_AsSsize_t(arg, PyExc_OverflowError) == -1 && PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

#endif

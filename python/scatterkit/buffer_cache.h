/* The binding's cache of large result buffers (buffer_cache.c). */
#ifndef SCATTERKIT_PY_BUFFER_CACHE_H
#define SCATTERKIT_PY_BUFFER_CACHE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* cached_buffer(nbytes, versioned=False) -> DLPack capsule (1.x form when
 * versioned) of nbytes uint8, or None when the request is not served by the
 * cache (too small, cache off, no mmap). */
PyObject *py_cached_buffer(PyObject *self, PyObject *args);
/* buffer_cache_clear() -> bytes given back to the system. */
PyObject *py_buffer_cache_clear(PyObject *self, PyObject *unused);
/* buffer_cache_info() -> (blocks held, bytes held, limit in bytes). */
PyObject *py_buffer_cache_info(PyObject *self, PyObject *unused);
/* buffer_cache_set_limit(nbytes): 0 turns the cache off and empties it. */
PyObject *py_buffer_cache_set_limit(PyObject *self, PyObject *arg);

#endif

/* The binding's converters: Python objects to the C library's arguments
 * (tensors through __array_interface__ or DLPack, ints, axes, slice bounds)
 * and the library's statuses to Python exceptions. Every function that
 * fails sets a Python exception and returns -1 (NULL for objects). */
#ifndef SCATTERKIT_PY_CONVERT_H
#define SCATTERKIT_PY_CONVERT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "scatterkit.h"

#include "dlpack.h"

/* A tensor argument and what keeps its memory alive during the call. */
typedef struct sk_arg {
    sk_tensor t;
    int present;                      /* 0 for an optional argument given as None */
    int readonly;
    PyObject *keep;                   /* interface dict or consumed capsule */
    dl_managed *managed;              /* consumed DLPack tensors, deleted on release */
    dl_managed_versioned *managed_v;
} sk_arg;

/* scatterkit.ArgumentTypeError: an argument of the wrong Python type (an
 * axis given as a float, a tensor given as None). docs/CONTRACT.md (Errors) files
 * argument errors under ValueError, Python under TypeError, so it is both.
 * Created by sk_py_convert_init. */
extern PyObject *sk_py_argument_type_error;
int sk_py_convert_init(void);

/* ---- errors (convert.c) ---- */
PyObject *sk_py_exception_for(sk_status st);
/* Raises the library's message for st (the status string when none is set). */
void sk_py_raise_status(sk_status st, const char *op);

/* ---- tensors (tensor_arg.c) ---- */
/* Converts obj into a->t (a zeroed beforehand). On failure a may hold
 * resources: release it like a converted one. */
int sk_py_arg_convert(sk_arg *a, PyObject *obj, const char *op, const char *name, int writable);
/* Safe on every path, including half-converted and never-converted ones. */
void sk_py_arg_release(sk_arg *a);

/* ---- scalars (convert.c) ---- */
int sk_py_to_i32(PyObject *o, const char *op, const char *name, int32_t *out);
int sk_py_to_i64(PyObject *o, const char *op, const char *name, int64_t *out);
/* A sequence of at most SK_MAX_DIMS ints. */
int sk_py_to_axes(PyObject *o, const char *op, const char *name, int32_t *axes, int32_t *naxes);
/* A sequence of n slice bounds; None entries become none_value. */
int sk_py_slice_seq(PyObject *o, Py_ssize_t n, int64_t none_value, const char *op,
                    const char *name, int64_t *v);
PyObject *sk_py_shape_tuple(int32_t ndim, const int64_t *shape);

#endif

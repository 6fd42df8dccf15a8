/*
 * The binding's errors and scalar arguments: the library's statuses as
 * Python exceptions, Python ints as int32/int64, axes and slice bounds.
 */
#include "convert.h"

#include <string.h>

PyObject *sk_py_argument_type_error;

int sk_py_convert_init(void) {
    if (sk_py_argument_type_error) return 0;
    PyObject *bases = PyTuple_Pack(2, PyExc_TypeError, PyExc_ValueError);
    sk_py_argument_type_error =
        bases ? PyErr_NewExceptionWithDoc("scatterkit.ArgumentTypeError",
                                          "An argument of the wrong Python type: both a TypeError "
                                          "and a ValueError (docs/CONTRACT.md, Errors).",
                                          bases, NULL)
              : NULL;
    Py_XDECREF(bases);
    return sk_py_argument_type_error ? 0 : -1;
}

PyObject *sk_py_exception_for(sk_status st) {
    switch (st) {
    case SK_STATUS_INVALID_DTYPE: return PyExc_TypeError;
    case SK_STATUS_INDEX_OUT_OF_RANGE: return PyExc_IndexError;
    case SK_STATUS_INVALID_ARGUMENT:
    case SK_STATUS_INVALID_SHAPE:
    case SK_STATUS_OVERLAP:
    case SK_STATUS_SIZE_OVERFLOW:
    case SK_STATUS_NULL_POINTER:
    case SK_STATUS_UNSUPPORTED_DEVICE: return PyExc_ValueError;
    case SK_STATUS_OUT_OF_MEMORY: return PyExc_MemoryError;
    default: return PyExc_RuntimeError;
    }
}

/* The library's message already names the operator and the argument; the
 * status string is only a fallback for a message that was not set. */
void sk_py_raise_status(sk_status st, const char *op) {
    const char *msg = sk_last_error();
    if (msg && msg[0])
        PyErr_SetString(sk_py_exception_for(st), msg);
    else
        PyErr_Format(sk_py_exception_for(st), "%s: %s", op, sk_status_string(st));
}

/* Reads a Python integer (or anything with __index__). `overflow` is set to
 * the sign of a value outside int64, which is then clamped. */
static int index_value(PyObject *o, const char *op, const char *name, long long *v, int *overflow) {
    PyObject *num = PyNumber_Index(o);
    if (!num) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(sk_py_argument_type_error, "%s: %s must be an int, got %.200s", op, name,
                         Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    *v = PyLong_AsLongLongAndOverflow(num, overflow);
    Py_DECREF(num);
    if (*v == -1 && PyErr_Occurred()) return -1;
    if (*overflow) *v = *overflow > 0 ? INT64_MAX : INT64_MIN;
    return 0;
}

int sk_py_to_i64(PyObject *o, const char *op, const char *name, int64_t *out) {
    long long v;
    int overflow;
    if (index_value(o, op, name, &v, &overflow) < 0) return -1;
    if (overflow) {
        /* an index that large is out of range of any axis: the same
         * exception as any other out-of-range index */
        PyErr_Format(strcmp(name, "index") == 0 ? PyExc_IndexError : PyExc_ValueError,
                     "%s: %s = %S is out of range (it does not fit in 64 bits)", op, name, o);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int sk_py_to_i32(PyObject *o, const char *op, const char *name, int32_t *out) {
    long long v;
    int overflow;
    if (index_value(o, op, name, &v, &overflow) < 0) return -1;
    if (overflow || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %s = %S is out of range", op, name, o);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* A slice bound: None is SK_SLICE_NONE; values beyond int64 behave like the
 * nearest representable bound (Python clamps them to the axis anyway), and
 * an explicit INT64_MIN must not be mistaken for None. */
static int to_slice_bound(PyObject *o, int64_t none_value, const char *op, const char *name,
                          int64_t *out) {
    if (o == Py_None) {
        *out = none_value;
        return 0;
    }
    long long v;
    int overflow;
    if (index_value(o, op, name, &v, &overflow) < 0) return -1;
    *out = v == INT64_MIN ? INT64_MIN + 1 : (int64_t)v;
    return 0;
}

int sk_py_to_axes(PyObject *o, const char *op, const char *name, int32_t *axes, int32_t *naxes) {
    PyObject *seq = PySequence_Fast(o, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(sk_py_argument_type_error, "%s: %s must be a sequence of ints, got %.200s",
                     op, name, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > SK_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd entries; at most %d are supported", op, name,
                     n, SK_MAX_DIMS);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (sk_py_to_i32(PySequence_Fast_GET_ITEM(seq, i), op, name, &axes[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    *naxes = (int32_t)n;
    Py_DECREF(seq);
    return 0;
}

/* Reads `o`, a sequence of n slice bounds, into v. */
int sk_py_slice_seq(PyObject *o, Py_ssize_t n, int64_t none_value, const char *op,
                    const char *name, int64_t *v) {
    PyObject *seq = PySequence_Fast(o, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(sk_py_argument_type_error,
                     "%s: %s must be a sequence of ints or None, got %.200s", op, name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd entries but axis has %zd", op, name,
                     PySequence_Fast_GET_SIZE(seq), n);
        rc = -1;
    }
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
        rc = to_slice_bound(PySequence_Fast_GET_ITEM(seq, i), none_value, op, name, &v[i]);
    Py_DECREF(seq);
    return rc;
}

PyObject *sk_py_shape_tuple(int32_t ndim, const int64_t *shape) {
    PyObject *t = PyTuple_New(ndim);
    if (!t) return NULL;
    for (int32_t d = 0; d < ndim; d++) {
        PyObject *v = PyLong_FromLongLong(shape[d]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, d, v);
    }
    return t;
}


/*
 * scatterkit._C - the CPython binding of the C library.
 *
 * One thin function per function of scatterkit.h. Tensors arrive as Python
 * objects and are described to C without copying: NumPy arrays (and anything
 * else with __array_interface__) through their interface dict, everything
 * else through DLPack. Outputs are allocated by the Python layer (large ones
 * from buffer_cache.c) and passed in as `out`. The operators run with the
 * GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scatterkit.h"

#include "dlpack.h"
#include "buffer_cache.h"


/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */
static PyObject *exception_for(sk_status st) {
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
static void raise_status(sk_status st, const char *op) {
    const char *msg = sk_last_error();
    if (msg && msg[0])
        PyErr_SetString(exception_for(st), msg);
    else
        PyErr_Format(exception_for(st), "%s: %s", op, sk_status_string(st));
}

/* ------------------------------------------------------------------------ */
/* Tensor arguments                                                         */
/* ------------------------------------------------------------------------ */
typedef struct sk_arg {
    sk_tensor t;
    int present;                      /* 0 for an optional argument given as None */
    int readonly;
    PyObject *keep;                   /* interface dict or consumed capsule */
    dl_managed *managed;              /* consumed DLPack tensors, deleted on release */
    dl_managed_versioned *managed_v;
} sk_arg;

static void args_init(sk_arg *a, int n) { memset(a, 0, (size_t)n * sizeof *a); }

/* Safe on every path, including half-converted arguments: the capsule was
 * renamed to "used_*" when it was consumed, so its own destructor leaves the
 * tensor alone and the deleter here is the only one that runs. */
static void arg_release(sk_arg *a) {
    if (a->managed && a->managed->deleter) a->managed->deleter(a->managed);
    if (a->managed_v && a->managed_v->deleter) a->managed_v->deleter(a->managed_v);
    a->managed = NULL;
    a->managed_v = NULL;
    Py_CLEAR(a->keep);
    a->present = 0;
}

static void args_release(sk_arg *a, int n) {
    for (int i = 0; i < n; i++) arg_release(&a[i]);
}

static const sk_tensor *opt_tensor(const sk_arg *a) { return a->present ? &a->t : NULL; }

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* ml_dtypes' bfloat16 has the anonymous typestr "V2"; its dtype name is the
 * only way to tell it from other two-byte void types. */
static int is_bfloat16_object(PyObject *obj) {
    int result = 0;
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    if (dtype) {
        PyObject *name = PyObject_GetAttrString(dtype, "name");
        if (name) {
            result = PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "bfloat16") == 0;
            Py_DECREF(name);
        }
        Py_DECREF(dtype);
    }
    PyErr_Clear();
    return result;
}

/* A Python argument of the wrong type (an axis given as a float, a tensor
 * given as None): SPEC section 4 files argument errors under ValueError,
 * Python under TypeError, so this class is both (scatterkit.ArgumentTypeError). */
static PyObject *ArgumentTypeError;

static const char supported_dtypes[] =
    "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 or float64";

/* What an argument of this name must be, when narrower than any dtype: the
 * message then says so, as the C library's own check would (a uint64 index
 * is refused here, before that check can run). */
static const char *dtypes_expected(const char *name) {
    if (strcmp(name, "index") == 0 || strcmp(name, "write_indices") == 0) return "int32 or int64";
    if (strcmp(name, "mask") == 0) return "bool";
    return NULL;
}

/* An unsupported dtype, described as `got` ("dtype '<u8'", "uint64"). */
static void unsupported_dtype(const char *op, const char *name, const char *got) {
    const char *want = dtypes_expected(name);
    if (want) PyErr_Format(PyExc_TypeError, "%s: %s must be %s, got %s", op, name, want, got);
    else PyErr_Format(PyExc_TypeError, "%s: %s has %s; supported dtypes are %s", op, name, got,
                      supported_dtypes);
}

static int dtype_from_typestr(PyObject *obj, PyObject *typestr, const char *op, const char *name,
                              sk_dtype *dtype) {
    const char *s = PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
    if (!s) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s has an __array_interface__ without a valid typestr",
                     op, name);
        return -1;
    }
    size_t len = strlen(s);
    long size = 0;
    int ok = len >= 3 && len <= 4 && strchr("<>|=", s[0]) != NULL;
    for (size_t i = 2; ok && i < len; i++) {
        if (s[i] < '0' || s[i] > '9') ok = 0;
        else size = size * 10 + (s[i] - '0');
    }
    if (ok && size > 1) {
        char native = host_is_little_endian() ? '<' : '>';
        if (s[0] != '=' && s[0] != '|' && s[0] != native) ok = 0;
    }
    if (ok) {
        ok = 0;
        switch (s[1]) {
        case 'b': if (size == 1) { *dtype = SK_DTYPE_BOOL; ok = 1; } break;
        case 'u': if (size == 1) { *dtype = SK_DTYPE_UINT8; ok = 1; } break;
        case 'i':
            ok = 1;
            switch (size) {
            case 1: *dtype = SK_DTYPE_INT8; break;
            case 2: *dtype = SK_DTYPE_INT16; break;
            case 4: *dtype = SK_DTYPE_INT32; break;
            case 8: *dtype = SK_DTYPE_INT64; break;
            default: ok = 0;
            }
            break;
        case 'f':
            ok = 1;
            switch (size) {
            case 2: *dtype = SK_DTYPE_FLOAT16; break;
            case 4: *dtype = SK_DTYPE_FLOAT32; break;
            case 8: *dtype = SK_DTYPE_FLOAT64; break;
            default: ok = 0;
            }
            break;
        case 'V':
            if (size == 2 && is_bfloat16_object(obj)) { *dtype = SK_DTYPE_BFLOAT16; ok = 1; }
            break;
        }
    }
    if (!ok) {
        /* NumPy's name when there is one: "dtype complex128 ('<c16')" */
        char got[160];
        PyObject *dt = PyObject_GetAttrString(obj, "dtype");
        PyObject *str = dt ? PyObject_Str(dt) : NULL;
        const char *dn = str ? PyUnicode_AsUTF8(str) : NULL;
        if (!dn) PyErr_Clear();
        char native = host_is_little_endian() ? '<' : '>';
        const char *order = (s[0] == '<' || s[0] == '>') && s[0] != native && len > 2 && s[2] != '1'
                                ? ", not in the machine's byte order" : "";
        if (dn && strcmp(dn, s) != 0)
            snprintf(got, sizeof got, "dtype %.40s ('%.40s'%s)", dn, s, order);
        else
            snprintf(got, sizeof got, "dtype '%.40s'%s%s%s", s, *order ? " (" : "",
                     *order ? order + 2 : "", *order ? ")" : "");
        Py_XDECREF(str);
        Py_XDECREF(dt);
        unsupported_dtype(op, name, got);
        return -1;
    }
    return 0;
}

/* Reads a tuple of ndim Python ints into v. */
static int int64_tuple(PyObject *tuple, Py_ssize_t ndim, int64_t *v, const char *op,
                       const char *name, const char *what) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != ndim) {
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ %s of %s is not a tuple of %zd ints",
                     op, what, name, ndim);
        return -1;
    }
    for (Py_ssize_t d = 0; d < ndim; d++) {
        long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, d));
        if (x == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s: the __array_interface__ %s of %s has an entry that is not a 64-bit int",
                         op, what, name);
            return -1;
        }
        v[d] = (int64_t)x;
    }
    return 0;
}

/* Takes ownership of iface (stored in a->keep, so numpy's "__ref" entry keeps
 * the memory of a scalar's temporary array alive for the whole call). */
static int from_array_interface(sk_arg *a, PyObject *obj, PyObject *iface, const char *op,
                                const char *name) {
    a->keep = iface;
    if (!PyDict_Check(iface)) {
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ of %s is not a dict", op, name);
        return -1;
    }
    PyObject *typestr = PyDict_GetItemString(iface, "typestr");
    PyObject *shape = PyDict_GetItemString(iface, "shape");
    PyObject *strides = PyDict_GetItemString(iface, "strides");
    PyObject *data = PyDict_GetItemString(iface, "data");
    PyObject *mask = PyDict_GetItemString(iface, "mask");
    if (!typestr || !shape) {
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ of %s has no typestr or shape",
                     op, name);
        return -1;
    }
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: %s is a masked array; pass its data instead", op, name);
        return -1;
    }
    if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        /* "data" as a buffer object (or absent) has no address to share. */
        PyErr_Format(PyExc_TypeError,
                     "%s: the __array_interface__ of %s has no (pointer, read-only) data tuple; "
                     "pass numpy.asarray(%s) instead", op, name, name);
        return -1;
    }
    sk_dtype dtype;
    if (dtype_from_typestr(obj, typestr, op, name, &dtype) < 0) return -1;
    int64_t elem = (int64_t)sk_dtype_size(dtype);

    if (!PyTuple_Check(shape)) {
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ shape of %s is not a tuple", op,
                     name);
        return -1;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (ndim > SK_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd dimensions; at most %d are supported", op,
                     name, ndim, SK_MAX_DIMS);
        return -1;
    }
    int64_t dims[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    if (int64_tuple(shape, ndim, dims, op, name, "shape") < 0) return -1;
    int have_strides = strides && strides != Py_None;
    if (have_strides) {
        if (int64_tuple(strides, ndim, steps, op, name, "strides") < 0) return -1;
        for (Py_ssize_t d = 0; d < ndim; d++) {
            if (steps[d] % elem == 0) {
                steps[d] /= elem;
            } else if (dims[d] <= 1) {
                steps[d] = 0; /* never stepped along, so any value will do */
            } else {
                PyErr_Format(PyExc_ValueError,
                             "%s: %s has a byte stride of %lld in dimension %zd, which is not a "
                             "multiple of its element size %lld",
                             op, name, (long long)steps[d], d, (long long)elem);
                return -1;
            }
        }
    }
    void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!ptr && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ data pointer of %s is not an int",
                     op, name);
        return -1;
    }
    int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (readonly < 0) return -1;
    a->readonly = readonly;

    sk_status st = sk_tensor_init(&a->t, ptr, dtype, (int32_t)ndim, dims, have_strides ? steps : NULL);
    if (st != SK_STATUS_OK) {
        PyErr_Format(exception_for(st), "%s: %s: %s", op, name, sk_last_error());
        return -1;
    }
    return 0;
}

/* Calls obj.__dlpack__, asking for a versioned capsule first because only
 * that form says whether the memory is read-only or a copy; producers that
 * predate DLPack 1.0 reject the keyword with a TypeError. */
static PyObject *call_dlpack(PyObject *method) {
    PyObject *kwargs = Py_BuildValue("{s:(ii)}", "max_version", (int)DL_SUPPORTED_MAJOR, 0);
    if (!kwargs) return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = empty ? PyObject_Call(method, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(kwargs);
    if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        cap = PyObject_CallNoArgs(method);
    }
    return cap;
}

/* Takes the pending exception as one normalised object (traceback attached)
 * and clears it; the API for this changed in 3.12. */
static PyObject *take_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb) PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
#endif
}

static void give_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyObject *type = (PyObject *)Py_TYPE(exc);
    Py_INCREF(type);
    PyErr_Restore(type, exc, PyException_GetTraceback(exc));
#endif
}

/* Re-raises the pending exception as a TypeError that names the operator and
 * the argument, keeping the original one as __cause__. */
static void reraise_export_error(const char *op, const char *name) {
    PyObject *cause = take_exception();
    PyObject *text = cause ? PyObject_Str(cause) : NULL;
    if (!text) PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: %s could not be exported through DLPack: %S", op, name,
                 text ? text : Py_None);
    Py_XDECREF(text);
    PyObject *exc = take_exception();
    if (exc && cause) {
        PyException_SetCause(exc, cause); /* steals cause */
        cause = NULL;
    }
    if (exc) give_exception(exc);
    Py_XDECREF(cause);
}

static int from_dlpack(sk_arg *a, PyObject *method, const char *op, const char *name,
                       int writable) {
    PyObject *cap = call_dlpack(method);
    if (!cap) {
        reraise_export_error(op, name);
        return -1;
    }
    const struct DLTensor *dl;
    int copied = 0;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        dl_managed_versioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (PyCapsule_SetName(cap, "used_dltensor_versioned") < 0) {
            Py_DECREF(cap);
            return -1;
        }
        a->keep = cap;
        a->managed_v = m;
        if (m->version.major != DL_SUPPORTED_MAJOR) {
            PyErr_Format(PyExc_TypeError, "%s: %s was exported with DLPack %u.%u; version %u.x is "
                         "supported", op, name, (unsigned)m->version.major,
                         (unsigned)m->version.minor, DL_SUPPORTED_MAJOR);
            return -1;
        }
        dl = &m->dl_tensor;
        a->readonly = (m->flags & DL_FLAG_READ_ONLY) != 0;
        copied = (m->flags & DL_FLAG_IS_COPIED) != 0;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
            Py_DECREF(cap);
            return -1;
        }
        a->keep = cap;
        a->managed = m;
        dl = &m->dl_tensor;
    } else {
        PyErr_Format(PyExc_TypeError, "%s: %s.__dlpack__() returned %.100s, not an unused DLPack "
                     "capsule", op, name, Py_TYPE(cap)->tp_name);
        Py_DECREF(cap);
        return -1;
    }
    sk_status st = sk_tensor_from_dlpack(dl, &a->t);
    if (st == SK_STATUS_INVALID_DTYPE) {
        static const char *const kinds[] = {"int", "uint", "float", "opaque", "bfloat", "complex",
                                            "bool"};
        char got[96];
        unsigned code = dl->dtype.code, bits = dl->dtype.bits, lanes = dl->dtype.lanes;
        if (code < sizeof kinds / sizeof kinds[0] && lanes == 1)
            snprintf(got, sizeof got, "dtype %s%u", kinds[code], bits);
        else
            snprintf(got, sizeof got, "DLPack dtype (code %u, %u bits, %u lanes)", code, bits, lanes);
        unsupported_dtype(op, name, got);
        return -1;
    }
    if (st != SK_STATUS_OK) {
        PyErr_Format(exception_for(st), "%s: %s: %s", op, name, sk_last_error());
        return -1;
    }
    if (writable && copied) {
        PyErr_Format(PyExc_ValueError, "%s: %s was exported through DLPack as a copy, so results "
                     "written there would be lost", op, name);
        return -1;
    }
    return 0;
}

/* Converts obj into a->t. On failure an exception is set and a may hold
 * resources; the caller releases it like a converted one. */
static int arg_convert(sk_arg *a, PyObject *obj, const char *op, const char *name, int writable) {
    if (obj == Py_None) {
        PyErr_Format(ArgumentTypeError, "%s: %s must be a tensor, got None", op, name);
        return -1;
    }
    int rc;
    PyObject *iface = PyObject_GetAttrString(obj, "__array_interface__");
    if (iface) {
        rc = from_array_interface(a, obj, iface, op, name);
    } else {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
        if (!method) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
            PyErr_Clear();
            PyErr_Format(ArgumentTypeError,
                         "%s: %s must be a numpy.ndarray, a torch.Tensor or another object "
                         "supporting DLPack or __array_interface__, got %.200s",
                         op, name, Py_TYPE(obj)->tp_name);
            return -1;
        }
        rc = from_dlpack(a, method, op, name, writable);
        Py_DECREF(method);
    }
    if (rc < 0) return -1;
    if (writable && a->readonly) {
        PyErr_Format(PyExc_ValueError, "%s: %s is read-only", op, name);
        return -1;
    }
    /* Kernels load elements through typed pointers; a packed view (e.g.
     * numpy.frombuffer at an odd offset) would make those loads misaligned. */
    size_t elem = sk_dtype_size(a->t.dtype);
    if (elem > 1 && ((uintptr_t)a->t.data % elem) != 0 && sk_tensor_numel(&a->t) > 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s is not aligned to its %zu-byte elements; pass an "
                     "aligned copy", op, name, elem);
        return -1;
    }
    a->present = 1;
    return 0;
}

static int conv_in(sk_arg *a, PyObject *obj, const char *op, const char *name) {
    return arg_convert(a, obj, op, name, 0);
}

static int conv_out(sk_arg *a, PyObject *obj, const char *op, const char *name) {
    return arg_convert(a, obj, op, name, 1);
}

static int conv_opt(sk_arg *a, PyObject *obj, const char *op, const char *name) {
    if (obj == Py_None) return 0;
    return arg_convert(a, obj, op, name, 0);
}

/* ------------------------------------------------------------------------ */
/* Scalar arguments                                                         */
/* ------------------------------------------------------------------------ */
/* Reads a Python integer (or anything with __index__). `overflow` is set to
 * the sign of a value outside int64, which is then clamped. */
static int index_value(PyObject *o, const char *op, const char *name, long long *v, int *overflow) {
    PyObject *num = PyNumber_Index(o);
    if (!num) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(ArgumentTypeError, "%s: %s must be an int, got %.200s", op, name,
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

static int to_i64(PyObject *o, const char *op, const char *name, int64_t *out) {
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

static int to_i32(PyObject *o, const char *op, const char *name, int32_t *out) {
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

static int to_axes(PyObject *o, const char *op, const char *name, int32_t *axes, int32_t *naxes) {
    PyObject *seq = PySequence_Fast(o, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(ArgumentTypeError, "%s: %s must be a sequence of ints, got %.200s", op, name,
                     Py_TYPE(o)->tp_name);
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
        if (to_i32(PySequence_Fast_GET_ITEM(seq, i), op, name, &axes[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    *naxes = (int32_t)n;
    Py_DECREF(seq);
    return 0;
}

static int make_options(int num_threads, const char *op, sk_options *opts) {
    if (num_threads < 0) {
        PyErr_Format(PyExc_ValueError, "%s: num_threads must be >= 0 (0: the process-wide "
                     "setting), got %d", op, num_threads);
        return -1;
    }
    opts->num_threads = num_threads;
    opts->flags = 0;
    return 0;
}

static PyObject *shape_tuple(int32_t ndim, const int64_t *shape) {
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

/* The message is read before the arguments are released: a DLPack deleter
 * may run arbitrary Python code, which could call into the library again and
 * replace this thread's last error. */
static PyObject *finish(sk_arg *a, int n, int converted, sk_status st, const char *op) {
    if (converted && st != SK_STATUS_OK) raise_status(st, op);
    args_release(a, n);
    if (!converted || st != SK_STATUS_OK) return NULL;
    Py_RETURN_NONE;
}

static PyObject *finish_shape(sk_arg *a, int n, int converted, sk_status st, const char *op,
                              int32_t ndim, const int64_t *shape) {
    if (converted && st != SK_STATUS_OK) raise_status(st, op);
    args_release(a, n);
    if (!converted || st != SK_STATUS_OK) return NULL;
    return shape_tuple(ndim, shape);
}

#define SK_NOGIL(st, call)          \
    do {                            \
        Py_BEGIN_ALLOW_THREADS      \
        (st) = (call);              \
        Py_END_ALLOW_THREADS        \
    } while (0)

#define SK_STR_(x) #x
#define SK_STR(x) SK_STR_(x)

#define KW(...) static char *kwlist[] = {__VA_ARGS__, NULL}

/* ------------------------------------------------------------------------ */
/* Gather-type operators                                                    */
/* ------------------------------------------------------------------------ */
static PyObject *py_gather(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather";
    KW("x", "index", "axis", "mode", "fill_value", "out", "num_threads", "fresh_out");
    PyObject *ox, *oi, *oaxis, *ofill, *oout;
    int mode, nt = 0, fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOO|$ip:gather", kwlist, &ox, &oi, &oaxis, &mode,
                                     &ofill, &oout, &nt, &fresh))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    if (fresh) opts.flags |= SK_OPTION_FRESH_OUT; /* out=None: ours, discarded on error */
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt(&a[2], ofill, op, "fill_value") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_gather(&a[0].t, &a[1].t, axis, (sk_index_mode)mode, opt_tensor(&a[2]),
                               &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_gather_shape(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather";
    KW("x", "index", "axis");
    PyObject *ox, *oi, *oaxis;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:gather_shape", kwlist, &ox, &oi, &oaxis))
        return NULL;
    int32_t axis, ndim = 0;
    int64_t shape[SK_MAX_DIMS];
    if (to_i32(oaxis, op, "axis", &axis) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index");
    if (ok) SK_NOGIL(st, sk_gather_shape(&a[0].t, &a[1].t, axis, &ndim, shape));
    return finish_shape(a, 2, ok, st, op, ndim, shape);
}

static PyObject *py_gather_axes(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather";
    KW("x", "index", "axes", "mode", "fill_value", "out", "num_threads", "fresh_out");
    PyObject *ox, *oi, *oaxes, *ofill, *oout;
    int mode, nt = 0, fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOO|$ip:gather_axes", kwlist, &ox, &oi, &oaxes,
                                     &mode, &ofill, &oout, &nt, &fresh))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    if (fresh) opts.flags |= SK_OPTION_FRESH_OUT; /* out=None: ours, discarded on error */
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt(&a[2], ofill, op, "fill_value") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_gather_axes(&a[0].t, &a[1].t, axes, naxes, (sk_index_mode)mode,
                                    opt_tensor(&a[2]), &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_gather_axes_shape(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather";
    KW("x", "index", "axes");
    PyObject *ox, *oi, *oaxes;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:gather_axes_shape", kwlist, &ox, &oi, &oaxes))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0, ndim = 0;
    int64_t shape[SK_MAX_DIMS];
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index");
    if (ok) SK_NOGIL(st, sk_gather_axes_shape(&a[0].t, &a[1].t, axes, naxes, &ndim, shape));
    return finish_shape(a, 2, ok, st, op, ndim, shape);
}

static PyObject *py_index_select(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "index_select";
    KW("x", "index", "axis", "mode", "fill_value", "out", "num_threads", "fresh_out");
    PyObject *ox, *oi, *oaxis, *ofill, *oout;
    int mode, nt = 0, fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOO|$ip:index_select", kwlist, &ox, &oi, &oaxis,
                                     &mode, &ofill, &oout, &nt, &fresh))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    if (fresh) opts.flags |= SK_OPTION_FRESH_OUT; /* out=None: ours, discarded on error */
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt(&a[2], ofill, op, "fill_value") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_index_select(&a[0].t, &a[1].t, axis, (sk_index_mode)mode,
                                     opt_tensor(&a[2]), &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_index_select_shape(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "index_select";
    KW("x", "index", "axis");
    PyObject *ox, *oi, *oaxis;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:index_select_shape", kwlist, &ox, &oi, &oaxis))
        return NULL;
    int32_t axis, ndim = 0;
    int64_t shape[SK_MAX_DIMS];
    if (to_i32(oaxis, op, "axis", &axis) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index");
    if (ok) SK_NOGIL(st, sk_index_select_shape(&a[0].t, &a[1].t, axis, &ndim, shape));
    return finish_shape(a, 2, ok, st, op, ndim, shape);
}

static PyObject *py_gather_nd(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather_nd";
    KW("x", "index", "batch_dims", "mode", "fill_value", "out", "num_threads", "fresh_out");
    PyObject *ox, *oi, *obd, *ofill, *oout;
    int mode, nt = 0, fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOO|$ip:gather_nd", kwlist, &ox, &oi, &obd,
                                     &mode, &ofill, &oout, &nt, &fresh))
        return NULL;
    int32_t batch_dims;
    sk_options opts;
    if (to_i32(obd, op, "batch_dims", &batch_dims) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    if (fresh) opts.flags |= SK_OPTION_FRESH_OUT; /* out=None: ours, discarded on error */
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt(&a[2], ofill, op, "fill_value") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_gather_nd(&a[0].t, &a[1].t, batch_dims, (sk_index_mode)mode,
                                  opt_tensor(&a[2]), &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_gather_nd_shape(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather_nd";
    KW("x", "index", "batch_dims");
    PyObject *ox, *oi, *obd;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:gather_nd_shape", kwlist, &ox, &oi, &obd))
        return NULL;
    int32_t batch_dims, ndim = 0;
    int64_t shape[SK_MAX_DIMS];
    if (to_i32(obd, op, "batch_dims", &batch_dims) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index");
    if (ok) SK_NOGIL(st, sk_gather_nd_shape(&a[0].t, &a[1].t, batch_dims, &ndim, shape));
    return finish_shape(a, 2, ok, st, op, ndim, shape);
}

static PyObject *py_masked_select_count(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "masked_select";
    KW("x", "mask", "num_threads");
    PyObject *ox, *om;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$i:masked_select_count", kwlist, &ox, &om, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int64_t count = 0;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], om, op, "mask");
    if (ok) SK_NOGIL(st, sk_masked_select_count(&a[0].t, &a[1].t, &count, &opts));
    PyObject *res = finish(a, 2, ok, st, op);
    if (!res) return NULL;
    Py_DECREF(res);
    return PyLong_FromLongLong(count);
}

static PyObject *py_masked_select(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "masked_select";
    KW("x", "mask", "out", "num_threads");
    PyObject *ox, *om, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$i:masked_select", kwlist, &ox, &om, &oout, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], om, op, "mask") &&
             !conv_out(&a[2], oout, op, "out");
    if (ok) SK_NOGIL(st, sk_masked_select(&a[0].t, &a[1].t, &a[2].t, &opts));
    return finish(a, 3, ok, st, op);
}

/* ------------------------------------------------------------------------ */
/* Scatter-type operators                                                   */
/* ------------------------------------------------------------------------ */
static PyObject *py_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "scatter";
    KW("x", "index", "src", "axis", "reduce", "include_self", "mode", "out", "num_threads",
       "fresh_out");
    PyObject *ox, *oi, *os, *oaxis, *oout;
    int reduce, include_self, mode, nt = 0, fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiO|$ip:scatter", kwlist, &ox, &oi, &os,
                                     &oaxis, &reduce, &include_self, &mode, &oout, &nt, &fresh))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    if (fresh) opts.flags |= SK_OPTION_FRESH_OUT; /* out=None: ours, discarded on error */
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_in(&a[2], os, op, "src") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_scatter(&a[0].t, &a[1].t, &a[2].t, axis, (sk_reduce)reduce,
                                include_self != 0, (sk_index_mode)mode, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_scatter_axes(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "scatter";
    KW("x", "index", "src", "axes", "reduce", "include_self", "mode", "out", "num_threads");
    PyObject *ox, *oi, *os, *oaxes, *oout;
    int reduce, include_self, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiO|$i:scatter_axes", kwlist, &ox, &oi, &os,
                                     &oaxes, &reduce, &include_self, &mode, &oout, &nt))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_in(&a[2], os, op, "src") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_scatter_axes(&a[0].t, &a[1].t, &a[2].t, axes, naxes, (sk_reduce)reduce,
                                     include_self != 0, (sk_index_mode)mode, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_index_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "index_scatter";
    KW("x", "index", "updates", "axis", "reduce", "include_self", "mode", "out", "num_threads");
    PyObject *ox, *oi, *ou, *oaxis, *oout;
    int reduce, include_self, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiO|$i:index_scatter", kwlist, &ox, &oi, &ou,
                                     &oaxis, &reduce, &include_self, &mode, &oout, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_in(&a[2], ou, op, "updates") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_index_scatter(&a[0].t, &a[1].t, &a[2].t, axis, (sk_reduce)reduce,
                                      include_self != 0, (sk_index_mode)mode, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_scatter_nd(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "scatter_nd";
    KW("x", "index", "updates", "reduce", "mode", "out", "num_threads");
    PyObject *ox, *oi, *ou, *oout;
    int reduce, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiiO|$i:scatter_nd", kwlist, &ox, &oi, &ou,
                                     &reduce, &mode, &oout, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
             !conv_in(&a[2], ou, op, "updates") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_scatter_nd(&a[0].t, &a[1].t, &a[2].t, (sk_reduce)reduce,
                                   (sk_index_mode)mode, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

/* Reads `o`, a sequence of n slice bounds, into v. */
static int slice_seq(PyObject *o, Py_ssize_t n, int64_t none_value, const char *op,
                     const char *name, int64_t *v) {
    PyObject *seq = PySequence_Fast(o, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(ArgumentTypeError, "%s: %s must be a sequence of ints or None, got %.200s", op,
                     name, Py_TYPE(o)->tp_name);
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

static PyObject *py_slice_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "slice_scatter";
    KW("x", "src", "axes", "starts", "stops", "steps", "out", "num_threads");
    PyObject *ox, *os, *oaxes, *ostarts, *ostops, *osteps, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOO|$i:slice_scatter", kwlist, &ox, &os, &oaxes,
                                     &ostarts, &ostops, &osteps, &oout, &nt))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    int64_t starts[SK_MAX_DIMS], stops[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 ||
        slice_seq(ostarts, naxes, SK_SLICE_NONE, op, "start", starts) < 0 ||
        slice_seq(ostops, naxes, SK_SLICE_NONE, op, "stop", stops) < 0 ||
        slice_seq(osteps, naxes, 1, op, "step", steps) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], os, op, "src") &&
             !conv_out(&a[2], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_slice_scatter(&a[0].t, &a[1].t, naxes, axes, starts, stops, steps, &a[2].t,
                                      &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_diagonal_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "diagonal_scatter";
    KW("x", "src", "offset", "axis1", "axis2", "out", "num_threads");
    PyObject *ox, *os, *ooff, *oa1, *oa2, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|$i:diagonal_scatter", kwlist, &ox, &os,
                                     &ooff, &oa1, &oa2, &oout, &nt))
        return NULL;
    int64_t offset;
    int32_t axis1, axis2;
    sk_options opts;
    if (to_i64(ooff, op, "offset", &offset) < 0 || to_i32(oa1, op, "axis1", &axis1) < 0 ||
        to_i32(oa2, op, "axis2", &axis2) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], os, op, "src") &&
             !conv_out(&a[2], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_diagonal_scatter(&a[0].t, &a[1].t, offset, axis1, axis2, &a[2].t, &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_select_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "select_scatter";
    KW("x", "src", "axis", "index", "out", "num_threads");
    PyObject *ox, *os, *oaxis, *oindex, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|$i:select_scatter", kwlist, &ox, &os, &oaxis,
                                     &oindex, &oout, &nt))
        return NULL;
    int32_t axis;
    int64_t index;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || to_i64(oindex, op, "index", &index) < 0 ||
        make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], os, op, "src") &&
             !conv_out(&a[2], oout, op, "out");
    if (ok) SK_NOGIL(st, sk_select_scatter(&a[0].t, &a[1].t, axis, index, &a[2].t, &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_masked_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "masked_scatter";
    KW("x", "mask", "source", "out", "num_threads");
    PyObject *ox, *om, *os, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|$i:masked_scatter", kwlist, &ox, &om, &os,
                                     &oout, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], ox, op, "x") && !conv_in(&a[1], om, op, "mask") &&
             !conv_in(&a[2], os, op, "source") && !conv_out(&a[3], oout, op, "out");
    if (ok) SK_NOGIL(st, sk_masked_scatter(&a[0].t, &a[1].t, &a[2].t, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_tensor_scatter(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "tensor_scatter";
    KW("cache", "update", "write_indices", "axis", "mode", "out", "num_threads");
    PyObject *oc, *ou, *ow, *oaxis, *oout;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOiO|$i:tensor_scatter", kwlist, &oc, &ou, &ow,
                                     &oaxis, &mode, &oout, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], oc, op, "cache") && !conv_in(&a[1], ou, op, "update") &&
             !conv_opt(&a[2], ow, op, "write_indices") && !conv_out(&a[3], oout, op, "out");
    if (ok)
        SK_NOGIL(st, sk_tensor_scatter(&a[0].t, &a[1].t, opt_tensor(&a[2]), axis,
                                       (sk_tensor_scatter_mode)mode, &a[3].t, &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_copy(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "copy";
    KW("src", "out", "num_threads");
    PyObject *os, *oout;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$i:copy", kwlist, &os, &oout, &nt)) return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[2];
    args_init(a, 2);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], os, op, "src") && !conv_out(&a[1], oout, op, "out");
    if (ok) SK_NOGIL(st, sk_copy(&a[0].t, &a[1].t, &opts));
    return finish(a, 2, ok, st, op);
}

/* ------------------------------------------------------------------------ */
/* Backward                                                                 */
/*                                                                          */
/* Gradient outputs (and the forward tensors that only some reductions     */
/* read) may be None, which is NULL in C: the library skips or refuses     */
/* them as its contract says.                                               */
/* ------------------------------------------------------------------------ */
static int conv_opt_out(sk_arg *a, PyObject *obj, const char *op, const char *name) {
    if (obj == Py_None) return 0;
    return arg_convert(a, obj, op, name, 1);
}

static sk_tensor *opt_out_tensor(sk_arg *a) { return a->present ? &a->t : NULL; }

/* The gather-type backwards share one shape: (grad_out, index, <int or axes>,
 * mode, grad_x). */
static PyObject *py_gather_backward(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather_backward";
    KW("grad_out", "index", "axis", "mode", "grad_x", "num_threads");
    PyObject *og, *oi, *oaxis, *ogx;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiO|$i:gather_backward", kwlist, &og, &oi,
                                     &oaxis, &mode, &ogx, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x");
    if (ok)
        SK_NOGIL(st, sk_gather_backward(&a[0].t, &a[1].t, axis, (sk_index_mode)mode,
                                        opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_gather_axes_backward(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather_backward";
    KW("grad_out", "index", "axes", "mode", "grad_x", "num_threads");
    PyObject *og, *oi, *oaxes, *ogx;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiO|$i:gather_axes_backward", kwlist, &og, &oi,
                                     &oaxes, &mode, &ogx, &nt))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x");
    if (ok)
        SK_NOGIL(st, sk_gather_axes_backward(&a[0].t, &a[1].t, axes, naxes, (sk_index_mode)mode,
                                             opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_index_select_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                          PyObject *kw) {
    static const char op[] = "index_select_backward";
    KW("grad_out", "index", "axis", "mode", "grad_x", "num_threads");
    PyObject *og, *oi, *oaxis, *ogx;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiO|$i:index_select_backward", kwlist, &og, &oi,
                                     &oaxis, &mode, &ogx, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x");
    if (ok)
        SK_NOGIL(st, sk_index_select_backward(&a[0].t, &a[1].t, axis, (sk_index_mode)mode,
                                              opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_gather_nd_backward(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "gather_nd_backward";
    KW("grad_out", "index", "batch_dims", "mode", "grad_x", "num_threads");
    PyObject *og, *oi, *obd, *ogx;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiO|$i:gather_nd_backward", kwlist, &og, &oi,
                                     &obd, &mode, &ogx, &nt))
        return NULL;
    int32_t batch_dims;
    sk_options opts;
    if (to_i32(obd, op, "batch_dims", &batch_dims) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], oi, op, "index") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x");
    if (ok)
        SK_NOGIL(st, sk_gather_nd_backward(&a[0].t, &a[1].t, batch_dims, (sk_index_mode)mode,
                                           opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_masked_select_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                           PyObject *kw) {
    static const char op[] = "masked_select_backward";
    KW("grad_out", "mask", "grad_x", "num_threads");
    PyObject *og, *om, *ogx;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$i:masked_select_backward", kwlist, &og, &om,
                                     &ogx, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], om, op, "mask") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x");
    if (ok)
        SK_NOGIL(st, sk_masked_select_backward(&a[0].t, &a[1].t, opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

/* Converts the arguments of the indexed scatter backwards, in this order:
 * x, index, src, out, grad_out, grad_x, grad_src. Returns 1 when all succeeded. */
static int conv_scatter_backward(sk_arg *a, PyObject *ox, PyObject *oi, PyObject *os,
                                 PyObject *oout, PyObject *og, PyObject *ogx, PyObject *ogs,
                                 const char *op, const char *src_name, const char *grad_src_name) {
    return !conv_opt(&a[0], ox, op, "x") && !conv_in(&a[1], oi, op, "index") &&
           !conv_opt(&a[2], os, op, src_name) && !conv_opt(&a[3], oout, op, "out") &&
           !conv_in(&a[4], og, op, "grad_out") && !conv_opt_out(&a[5], ogx, op, "grad_x") &&
           !conv_opt_out(&a[6], ogs, op, grad_src_name);
}

static PyObject *py_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "scatter_backward";
    KW("x", "index", "src", "axis", "reduce", "include_self", "mode", "out", "grad_out", "grad_x",
       "grad_src", "num_threads");
    PyObject *ox, *oi, *os, *oaxis, *oout, *og, *ogx, *ogs;
    int reduce, include_self, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiOOOO|$i:scatter_backward", kwlist, &ox, &oi,
                                     &os, &oaxis, &reduce, &include_self, &mode, &oout, &og, &ogx,
                                     &ogs, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[7];
    args_init(a, 7);
    sk_status st = SK_STATUS_OK;
    int ok = conv_scatter_backward(a, ox, oi, os, oout, og, ogx, ogs, op, "src", "grad_src");
    if (ok)
        SK_NOGIL(st, sk_scatter_backward(opt_tensor(&a[0]), &a[1].t, opt_tensor(&a[2]), axis,
                                         (sk_reduce)reduce, include_self != 0, (sk_index_mode)mode,
                                         opt_tensor(&a[3]), &a[4].t, opt_out_tensor(&a[5]),
                                         opt_out_tensor(&a[6]), &opts));
    return finish(a, 7, ok, st, op);
}

static PyObject *py_scatter_axes_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                          PyObject *kw) {
    static const char op[] = "scatter_backward";
    KW("x", "index", "src", "axes", "reduce", "include_self", "mode", "out", "grad_out", "grad_x",
       "grad_src", "num_threads");
    PyObject *ox, *oi, *os, *oaxes, *oout, *og, *ogx, *ogs;
    int reduce, include_self, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiOOOO|$i:scatter_axes_backward", kwlist, &ox,
                                     &oi, &os, &oaxes, &reduce, &include_self, &mode, &oout, &og,
                                     &ogx, &ogs, &nt))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[7];
    args_init(a, 7);
    sk_status st = SK_STATUS_OK;
    int ok = conv_scatter_backward(a, ox, oi, os, oout, og, ogx, ogs, op, "src", "grad_src");
    if (ok)
        SK_NOGIL(st, sk_scatter_axes_backward(opt_tensor(&a[0]), &a[1].t, opt_tensor(&a[2]), axes,
                                              naxes, (sk_reduce)reduce, include_self != 0,
                                              (sk_index_mode)mode, opt_tensor(&a[3]), &a[4].t,
                                              opt_out_tensor(&a[5]), opt_out_tensor(&a[6]), &opts));
    return finish(a, 7, ok, st, op);
}

static PyObject *py_index_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                           PyObject *kw) {
    static const char op[] = "index_scatter_backward";
    KW("x", "index", "updates", "axis", "reduce", "include_self", "mode", "out", "grad_out",
       "grad_x", "grad_updates", "num_threads");
    PyObject *ox, *oi, *ou, *oaxis, *oout, *og, *ogx, *ogu;
    int reduce, include_self, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOipiOOOO|$i:index_scatter_backward", kwlist,
                                     &ox, &oi, &ou, &oaxis, &reduce, &include_self, &mode, &oout,
                                     &og, &ogx, &ogu, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[7];
    args_init(a, 7);
    sk_status st = SK_STATUS_OK;
    int ok = conv_scatter_backward(a, ox, oi, ou, oout, og, ogx, ogu, op, "updates",
                                   "grad_updates");
    if (ok)
        SK_NOGIL(st, sk_index_scatter_backward(opt_tensor(&a[0]), &a[1].t, opt_tensor(&a[2]), axis,
                                               (sk_reduce)reduce, include_self != 0,
                                               (sk_index_mode)mode, opt_tensor(&a[3]), &a[4].t,
                                               opt_out_tensor(&a[5]), opt_out_tensor(&a[6]),
                                               &opts));
    return finish(a, 7, ok, st, op);
}

static PyObject *py_scatter_nd_backward(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    static const char op[] = "scatter_nd_backward";
    KW("x", "index", "updates", "reduce", "mode", "out", "grad_out", "grad_x", "grad_updates",
       "num_threads");
    PyObject *ox, *oi, *ou, *oout, *og, *ogx, *ogu;
    int reduce, mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiiOOOO|$i:scatter_nd_backward", kwlist, &ox, &oi,
                                     &ou, &reduce, &mode, &oout, &og, &ogx, &ogu, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[7];
    args_init(a, 7);
    sk_status st = SK_STATUS_OK;
    int ok = conv_scatter_backward(a, ox, oi, ou, oout, og, ogx, ogu, op, "updates",
                                   "grad_updates");
    if (ok)
        SK_NOGIL(st, sk_scatter_nd_backward(opt_tensor(&a[0]), &a[1].t, opt_tensor(&a[2]),
                                            (sk_reduce)reduce, (sk_index_mode)mode,
                                            opt_tensor(&a[3]), &a[4].t, opt_out_tensor(&a[5]),
                                            opt_out_tensor(&a[6]), &opts));
    return finish(a, 7, ok, st, op);
}

static PyObject *py_slice_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                           PyObject *kw) {
    static const char op[] = "slice_scatter_backward";
    KW("grad_out", "axes", "starts", "stops", "steps", "grad_x", "grad_src", "num_threads");
    PyObject *og, *oaxes, *ostarts, *ostops, *osteps, *ogx, *ogs;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOO|$i:slice_scatter_backward", kwlist, &og,
                                     &oaxes, &ostarts, &ostops, &osteps, &ogx, &ogs, &nt))
        return NULL;
    int32_t axes[SK_MAX_DIMS], naxes = 0;
    int64_t starts[SK_MAX_DIMS], stops[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    sk_options opts;
    if (to_axes(oaxes, op, "axis", axes, &naxes) < 0 ||
        slice_seq(ostarts, naxes, SK_SLICE_NONE, op, "start", starts) < 0 ||
        slice_seq(ostops, naxes, SK_SLICE_NONE, op, "stop", stops) < 0 ||
        slice_seq(osteps, naxes, 1, op, "step", steps) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_opt_out(&a[1], ogx, op, "grad_x") &&
             !conv_opt_out(&a[2], ogs, op, "grad_src");
    if (ok)
        SK_NOGIL(st, sk_slice_scatter_backward(&a[0].t, naxes, axes, starts, stops, steps,
                                               opt_out_tensor(&a[1]), opt_out_tensor(&a[2]),
                                               &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_diagonal_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                              PyObject *kw) {
    static const char op[] = "diagonal_scatter_backward";
    KW("grad_out", "offset", "axis1", "axis2", "grad_x", "grad_src", "num_threads");
    PyObject *og, *ooff, *oa1, *oa2, *ogx, *ogs;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|$i:diagonal_scatter_backward", kwlist, &og,
                                     &ooff, &oa1, &oa2, &ogx, &ogs, &nt))
        return NULL;
    int64_t offset;
    int32_t axis1, axis2;
    sk_options opts;
    if (to_i64(ooff, op, "offset", &offset) < 0 || to_i32(oa1, op, "axis1", &axis1) < 0 ||
        to_i32(oa2, op, "axis2", &axis2) < 0 || make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_opt_out(&a[1], ogx, op, "grad_x") &&
             !conv_opt_out(&a[2], ogs, op, "grad_src");
    if (ok)
        SK_NOGIL(st, sk_diagonal_scatter_backward(&a[0].t, offset, axis1, axis2,
                                                  opt_out_tensor(&a[1]), opt_out_tensor(&a[2]),
                                                  &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_select_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                            PyObject *kw) {
    static const char op[] = "select_scatter_backward";
    KW("grad_out", "axis", "index", "grad_x", "grad_src", "num_threads");
    PyObject *og, *oaxis, *oindex, *ogx, *ogs;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|$i:select_scatter_backward", kwlist, &og,
                                     &oaxis, &oindex, &ogx, &ogs, &nt))
        return NULL;
    int32_t axis;
    int64_t index;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || to_i64(oindex, op, "index", &index) < 0 ||
        make_options(nt, op, &opts) < 0)
        return NULL;
    sk_arg a[3];
    args_init(a, 3);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_opt_out(&a[1], ogx, op, "grad_x") &&
             !conv_opt_out(&a[2], ogs, op, "grad_src");
    if (ok)
        SK_NOGIL(st, sk_select_scatter_backward(&a[0].t, axis, index, opt_out_tensor(&a[1]),
                                                opt_out_tensor(&a[2]), &opts));
    return finish(a, 3, ok, st, op);
}

static PyObject *py_masked_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                            PyObject *kw) {
    static const char op[] = "masked_scatter_backward";
    KW("grad_out", "mask", "grad_x", "grad_source", "num_threads");
    PyObject *og, *om, *ogx, *ogs;
    int nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|$i:masked_scatter_backward", kwlist, &og, &om,
                                     &ogx, &ogs, &nt))
        return NULL;
    sk_options opts;
    if (make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_in(&a[1], om, op, "mask") &&
             !conv_opt_out(&a[2], ogx, op, "grad_x") &&
             !conv_opt_out(&a[3], ogs, op, "grad_source");
    if (ok)
        SK_NOGIL(st, sk_masked_scatter_backward(&a[0].t, &a[1].t, opt_out_tensor(&a[2]),
                                                opt_out_tensor(&a[3]), &opts));
    return finish(a, 4, ok, st, op);
}

static PyObject *py_tensor_scatter_backward(PyObject *Py_UNUSED(self), PyObject *args,
                                            PyObject *kw) {
    static const char op[] = "tensor_scatter_backward";
    KW("grad_out", "write_indices", "axis", "mode", "grad_cache", "grad_update", "num_threads");
    PyObject *og, *ow, *oaxis, *ogc, *ogu;
    int mode, nt = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOiOO|$i:tensor_scatter_backward", kwlist, &og,
                                     &ow, &oaxis, &mode, &ogc, &ogu, &nt))
        return NULL;
    int32_t axis;
    sk_options opts;
    if (to_i32(oaxis, op, "axis", &axis) < 0 || make_options(nt, op, &opts) < 0) return NULL;
    sk_arg a[4];
    args_init(a, 4);
    sk_status st = SK_STATUS_OK;
    int ok = !conv_in(&a[0], og, op, "grad_out") && !conv_opt(&a[1], ow, op, "write_indices") &&
             !conv_opt_out(&a[2], ogc, op, "grad_cache") &&
             !conv_opt_out(&a[3], ogu, op, "grad_update");
    if (ok)
        SK_NOGIL(st, sk_tensor_scatter_backward(&a[0].t, opt_tensor(&a[1]), axis,
                                                (sk_tensor_scatter_mode)mode,
                                                opt_out_tensor(&a[2]), opt_out_tensor(&a[3]),
                                                &opts));
    return finish(a, 4, ok, st, op);
}

/* ------------------------------------------------------------------------ */
/* Threads, descriptors, status and dtype helpers                           */
/* ------------------------------------------------------------------------ */
static PyObject *py_set_num_threads(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t n;
    if (to_i32(arg, "set_num_threads", "n", &n) < 0) return NULL;
    sk_status st;
    /* May start or stop pool threads; nothing here needs the GIL. */
    SK_NOGIL(st, sk_set_num_threads(n));
    if (st != SK_STATUS_OK) {
        raise_status(st, "set_num_threads");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg)) {
    return PyLong_FromLong((long)sk_get_num_threads());
}

/* What the binding sees of a tensor: lets the Python layer allocate a NumPy
 * result for a DLPack producer it knows nothing else about. */
static PyObject *py_describe(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    KW("obj", "op", "name", "writable");
    PyObject *obj;
    const char *op = "describe", *name = "obj";
    int writable = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ssp:describe", kwlist, &obj, &op, &name,
                                     &writable))
        return NULL;
    sk_arg a[1];
    args_init(a, 1);
    PyObject *res = NULL;
    if (arg_convert(&a[0], obj, op, name, writable) == 0) {
        PyObject *shape = shape_tuple(a[0].t.ndim, a[0].t.shape);
        PyObject *strides = shape ? shape_tuple(a[0].t.ndim, a[0].t.strides) : NULL;
        if (strides)
            res = Py_BuildValue("{s:s,s:O,s:O,s:i,s:i,s:O}", "dtype", sk_dtype_name(a[0].t.dtype),
                                "shape", shape, "strides", strides, "device_type",
                                (int)a[0].t.device_type, "device_id", (int)a[0].t.device_id,
                                "readonly", a[0].readonly ? Py_True : Py_False);
        Py_XDECREF(shape);
        Py_XDECREF(strides);
    }
    args_release(a, 1);
    return res;
}

static PyObject *py_status_string(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (to_i32(arg, "status_string", "status", &code) < 0) return NULL;
    return PyUnicode_FromString(sk_status_string((sk_status)code));
}

static PyObject *py_last_error(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg)) {
    return PyUnicode_FromString(sk_last_error());
}

static PyObject *py_dtype_name(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (to_i32(arg, "dtype_name", "dtype", &code) < 0) return NULL;
    return PyUnicode_FromString(sk_dtype_name((sk_dtype)code));
}

static PyObject *py_dtype_size(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (to_i32(arg, "dtype_size", "dtype", &code) < 0) return NULL;
    return PyLong_FromSize_t(sk_dtype_size((sk_dtype)code));
}

/* ------------------------------------------------------------------------ */
/* Module                                                                   */
/* ------------------------------------------------------------------------ */
#define METHOD_KW(name, fn, doc) {name, (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS, doc}

static PyObject *py_release_cached_memory(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(sk_release_cached_memory());
}

static PyMethodDef methods[] = {
    METHOD_KW("gather", py_gather,
              "gather(x, index, axis, mode, fill_value, out, *, num_threads=0)"),
    METHOD_KW("gather_shape", py_gather_shape, "gather_shape(x, index, axis) -> tuple"),
    METHOD_KW("gather_axes", py_gather_axes,
              "gather_axes(x, index, axes, mode, fill_value, out, *, num_threads=0)"),
    METHOD_KW("gather_axes_shape", py_gather_axes_shape,
              "gather_axes_shape(x, index, axes) -> tuple"),
    METHOD_KW("index_select", py_index_select,
              "index_select(x, index, axis, mode, fill_value, out, *, num_threads=0)"),
    METHOD_KW("index_select_shape", py_index_select_shape,
              "index_select_shape(x, index, axis) -> tuple"),
    METHOD_KW("gather_nd", py_gather_nd,
              "gather_nd(x, index, batch_dims, mode, fill_value, out, *, num_threads=0)"),
    METHOD_KW("gather_nd_shape", py_gather_nd_shape,
              "gather_nd_shape(x, index, batch_dims) -> tuple"),
    METHOD_KW("masked_select_count", py_masked_select_count,
              "masked_select_count(x, mask, *, num_threads=0) -> int"),
    METHOD_KW("masked_select", py_masked_select,
              "masked_select(x, mask, out, *, num_threads=0)"),
    METHOD_KW("scatter", py_scatter,
              "scatter(x, index, src, axis, reduce, include_self, mode, out, *, num_threads=0)"),
    METHOD_KW("scatter_axes", py_scatter_axes,
              "scatter_axes(x, index, src, axes, reduce, include_self, mode, out, *, "
              "num_threads=0)"),
    METHOD_KW("index_scatter", py_index_scatter,
              "index_scatter(x, index, updates, axis, reduce, include_self, mode, out, *, "
              "num_threads=0)"),
    METHOD_KW("scatter_nd", py_scatter_nd,
              "scatter_nd(x, index, updates, reduce, mode, out, *, num_threads=0)"),
    METHOD_KW("slice_scatter", py_slice_scatter,
              "slice_scatter(x, src, axes, starts, stops, steps, out, *, num_threads=0)\n"
              "starts/stops entries may be None; steps entries None mean 1."),
    METHOD_KW("diagonal_scatter", py_diagonal_scatter,
              "diagonal_scatter(x, src, offset, axis1, axis2, out, *, num_threads=0)"),
    METHOD_KW("select_scatter", py_select_scatter,
              "select_scatter(x, src, axis, index, out, *, num_threads=0)"),
    METHOD_KW("masked_scatter", py_masked_scatter,
              "masked_scatter(x, mask, source, out, *, num_threads=0)"),
    METHOD_KW("tensor_scatter", py_tensor_scatter,
              "tensor_scatter(cache, update, write_indices, axis, mode, out, *, num_threads=0)"),
    METHOD_KW("copy", py_copy, "copy(src, out, *, num_threads=0)"),
    METHOD_KW("gather_backward", py_gather_backward,
              "gather_backward(grad_out, index, axis, mode, grad_x, *, num_threads=0)"),
    METHOD_KW("gather_axes_backward", py_gather_axes_backward,
              "gather_axes_backward(grad_out, index, axes, mode, grad_x, *, num_threads=0)"),
    METHOD_KW("index_select_backward", py_index_select_backward,
              "index_select_backward(grad_out, index, axis, mode, grad_x, *, num_threads=0)"),
    METHOD_KW("gather_nd_backward", py_gather_nd_backward,
              "gather_nd_backward(grad_out, index, batch_dims, mode, grad_x, *, num_threads=0)"),
    METHOD_KW("masked_select_backward", py_masked_select_backward,
              "masked_select_backward(grad_out, mask, grad_x, *, num_threads=0)"),
    METHOD_KW("scatter_backward", py_scatter_backward,
              "scatter_backward(x, index, src, axis, reduce, include_self, mode, out, grad_out, "
              "grad_x, grad_src, *, num_threads=0)"),
    METHOD_KW("scatter_axes_backward", py_scatter_axes_backward,
              "scatter_axes_backward(x, index, src, axes, reduce, include_self, mode, out, "
              "grad_out, grad_x, grad_src, *, num_threads=0)"),
    METHOD_KW("index_scatter_backward", py_index_scatter_backward,
              "index_scatter_backward(x, index, updates, axis, reduce, include_self, mode, out, "
              "grad_out, grad_x, grad_updates, *, num_threads=0)"),
    METHOD_KW("scatter_nd_backward", py_scatter_nd_backward,
              "scatter_nd_backward(x, index, updates, reduce, mode, out, grad_out, grad_x, "
              "grad_updates, *, num_threads=0)"),
    METHOD_KW("slice_scatter_backward", py_slice_scatter_backward,
              "slice_scatter_backward(grad_out, axes, starts, stops, steps, grad_x, grad_src, *, "
              "num_threads=0)"),
    METHOD_KW("diagonal_scatter_backward", py_diagonal_scatter_backward,
              "diagonal_scatter_backward(grad_out, offset, axis1, axis2, grad_x, grad_src, *, "
              "num_threads=0)"),
    METHOD_KW("select_scatter_backward", py_select_scatter_backward,
              "select_scatter_backward(grad_out, axis, index, grad_x, grad_src, *, "
              "num_threads=0)"),
    METHOD_KW("masked_scatter_backward", py_masked_scatter_backward,
              "masked_scatter_backward(grad_out, mask, grad_x, grad_source, *, num_threads=0)"),
    METHOD_KW("tensor_scatter_backward", py_tensor_scatter_backward,
              "tensor_scatter_backward(grad_out, write_indices, axis, mode, grad_cache, "
              "grad_update, *, num_threads=0)"),
    METHOD_KW("describe", py_describe,
              "describe(obj, op='describe', name='obj', writable=False) -> dict\n"
              "dtype, shape, strides (elements), device and read-only flag of a tensor."),
    {"cached_buffer", py_cached_buffer, METH_VARARGS,
     "cached_buffer(nbytes, versioned=False) -> DLPack capsule of nbytes uint8 from the "
     "result cache, or None"},
    {"buffer_cache_clear", py_buffer_cache_clear, METH_NOARGS,
     "buffer_cache_clear() -> bytes unmapped"},
    {"release_cached_memory", py_release_cached_memory, METH_NOARGS,
     "release_cached_memory() -> bytes of the C library's scratch cache given back"},
    {"buffer_cache_info", py_buffer_cache_info, METH_NOARGS,
     "buffer_cache_info() -> (blocks, bytes held, limit)"},
    {"buffer_cache_set_limit", py_buffer_cache_set_limit, METH_O,
     "buffer_cache_set_limit(nbytes); 0 turns the cache off"},
    {"set_num_threads", py_set_num_threads, METH_O, "set_num_threads(n); n < 1 resets"},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, "get_num_threads() -> int"},
    {"status_string", py_status_string, METH_O, "status_string(code) -> str"},
    {"last_error", py_last_error, METH_NOARGS, "last_error() -> str (this thread)"},
    {"dtype_name", py_dtype_name, METH_O, "dtype_name(code) -> str"},
    {"dtype_size", py_dtype_size, METH_O, "dtype_size(code) -> int"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "scatterkit._C",
    "CPython binding of the scatterkit C library (use the scatterkit package).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

typedef struct int_constant {
    const char *name;
    long long value;
} int_constant;

PyMODINIT_FUNC PyInit__C(void) {
    static const int_constant constants[] = {
        {"REDUCE_NONE", SK_REDUCE_NONE},
        {"REDUCE_SUM", SK_REDUCE_SUM},
        {"REDUCE_PROD", SK_REDUCE_PROD},
        {"REDUCE_MEAN", SK_REDUCE_MEAN},
        {"REDUCE_AMAX", SK_REDUCE_AMAX},
        {"REDUCE_AMIN", SK_REDUCE_AMIN},
        {"MODE_ERROR", SK_INDEX_MODE_ERROR},
        {"MODE_CLIP", SK_INDEX_MODE_CLIP},
        {"MODE_DROP", SK_INDEX_MODE_DROP},
        {"MODE_FILL", SK_INDEX_MODE_FILL},
        {"TENSOR_SCATTER_LINEAR", SK_TENSOR_SCATTER_LINEAR},
        {"TENSOR_SCATTER_CIRCULAR", SK_TENSOR_SCATTER_CIRCULAR},
        {"MAX_DIMS", SK_MAX_DIMS},
        {"SLICE_NONE", SK_SLICE_NONE},
        {"DEVICE_CPU", SK_DEVICE_CPU},
        {"DEVICE_CUDA", SK_DEVICE_CUDA},
        {"VERSION_MAJOR", SK_VERSION_MAJOR},
        {"VERSION_MINOR", SK_VERSION_MINOR},
        {"VERSION_PATCH", SK_VERSION_PATCH},
    };
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (!ArgumentTypeError) {
        PyObject *bases = PyTuple_Pack(2, PyExc_TypeError, PyExc_ValueError);
        ArgumentTypeError = bases ? PyErr_NewExceptionWithDoc(
                                        "scatterkit.ArgumentTypeError",
                                        "An argument of the wrong Python type: both a TypeError "
                                        "and a ValueError (SPEC section 4).",
                                        bases, NULL)
                                  : NULL;
        Py_XDECREF(bases);
    }
    if (!ArgumentTypeError) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(ArgumentTypeError);
    if (PyModule_AddObject(m, "ArgumentTypeError", ArgumentTypeError) < 0) {
        Py_DECREF(ArgumentTypeError);
        Py_DECREF(m);
        return NULL;
    }
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        PyObject *v = PyLong_FromLongLong(constants[i].value);
        if (!v || PyModule_AddObject(m, constants[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(m);
            return NULL;
        }
    }
    PyObject *dtypes = PyTuple_New(SK_DTYPE_COUNT);
    if (!dtypes) {
        Py_DECREF(m);
        return NULL;
    }
    for (int d = 0; d < SK_DTYPE_COUNT; d++) {
        PyObject *s = PyUnicode_FromString(sk_dtype_name((sk_dtype)d));
        if (!s) {
            Py_DECREF(dtypes);
            Py_DECREF(m);
            return NULL;
        }
        PyTuple_SET_ITEM(dtypes, d, s);
    }
    if (PyModule_AddObject(m, "DTYPES", dtypes) < 0) {
        Py_DECREF(dtypes);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddStringConstant(m, "__version__", SK_STR(SK_VERSION_MAJOR) "." SK_STR(
                                       SK_VERSION_MINOR) "." SK_STR(SK_VERSION_PATCH)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

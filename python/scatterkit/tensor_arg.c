/*
 * Tensor arguments of the binding: a Python object described to C without
 * copying, NumPy arrays (and anything else with __array_interface__) through
 * their interface dict, everything else through DLPack.
 */
#include "call.h"
#include "convert.h"

#include <stdio.h>
#include <string.h>


/* Safe on every path, including half-converted arguments: the capsule was
 * renamed to "used_*" when it was consumed, so its own destructor leaves the
 * tensor alone and the deleter here is the only one that runs. */
void sk_py_arg_release(sk_arg *a) {
    if (a->managed && a->managed->deleter) a->managed->deleter(a->managed);
    if (a->managed_v && a->managed_v->deleter) a->managed_v->deleter(a->managed_v);
    a->managed = NULL;
    a->managed_v = NULL;
    Py_CLEAR(a->keep);
    a->present = 0;
}

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

/* The dtype of a typestr such as "<f4"; 0 when it is none of ours. */
static int typestr_dtype(PyObject *obj, const char *s, sk_dtype *dtype) {
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
    if (!ok) return 0;
    static const sk_dtype ints[9] = {SK_DTYPE_COUNT, SK_DTYPE_INT8, SK_DTYPE_INT16, SK_DTYPE_COUNT,
                                     SK_DTYPE_INT32, SK_DTYPE_COUNT, SK_DTYPE_COUNT,
                                     SK_DTYPE_COUNT, SK_DTYPE_INT64};
    static const sk_dtype floats[9] = {SK_DTYPE_COUNT, SK_DTYPE_COUNT, SK_DTYPE_FLOAT16,
                                       SK_DTYPE_COUNT, SK_DTYPE_FLOAT32, SK_DTYPE_COUNT,
                                       SK_DTYPE_COUNT, SK_DTYPE_COUNT, SK_DTYPE_FLOAT64};
    sk_dtype d = SK_DTYPE_COUNT;
    switch (s[1]) {
    case 'b': if (size == 1) d = SK_DTYPE_BOOL; break;
    case 'u': if (size == 1) d = SK_DTYPE_UINT8; break;
    case 'i': if (size <= 8) d = ints[size]; break;
    case 'f': if (size <= 8) d = floats[size]; break;
    case 'V': if (size == 2 && is_bfloat16_object(obj)) d = SK_DTYPE_BFLOAT16; break;
    }
    *dtype = d;
    return d != SK_DTYPE_COUNT;
}

/* The TypeError for a typestr that is none of ours, with NumPy's name when
 * there is one: "dtype complex128 ('<c16')". */
static void unsupported_typestr(PyObject *obj, const char *s, const char *op, const char *name) {
    char got[160];
    size_t len = strlen(s);
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
    if (typestr_dtype(obj, s, dtype)) return 0;
    unsupported_typestr(obj, s, op, name);
    return -1;
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

/* The shape and element strides of an interface dict (strides: NULL when
 * it has none, row-major). */
static int interface_dims(PyObject *shape, PyObject *strides, int64_t elem, const char *op,
                          const char *name, Py_ssize_t *ndim_out, int64_t *dims, int64_t *steps) {
    if (!PyTuple_Check(shape)) {
        PyErr_Format(PyExc_TypeError, "%s: the __array_interface__ shape of %s is not a tuple", op,
                     name);
        return -1;
    }
    Py_ssize_t ndim = *ndim_out = PyTuple_GET_SIZE(shape);
    if (ndim > SK_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd dimensions; at most %d are supported", op,
                     name, ndim, SK_MAX_DIMS);
        return -1;
    }
    if (int64_tuple(shape, ndim, dims, op, name, "shape") < 0) return -1;
    if (strides) {
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
    Py_ssize_t ndim;
    int64_t dims[SK_MAX_DIMS], steps[SK_MAX_DIMS];
    int have_strides = strides && strides != Py_None;
    if (interface_dims(shape, have_strides ? strides : NULL, (int64_t)sk_dtype_size(dtype), op,
                       name, &ndim, dims, steps) < 0)
        return -1;
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
        PyErr_Format(sk_py_exception_for(st), "%s: %s: %s", op, name, sk_last_error());
        return -1;
    }
    return 0;
}

/* The stream argument of __dlpack__ for obj (DLPack's stream protocol): the
 * call's CUDA stream when one is set (call.h) and obj is on a CUDA device,
 * its handle 0 (the legacy default stream) given as 1; NULL otherwise. */
static PyObject *dlpack_stream(PyObject *obj) {
    uintptr_t stream;
    if (!sk_py_get_stream(&stream)) return NULL;
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    long type = dev && PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2
                    ? PyLong_AsLong(PyTuple_GET_ITEM(dev, 0)) : -1;
    Py_XDECREF(dev);
    PyErr_Clear();
    if (type != 2) return NULL; /* kDLCUDA */
    return PyLong_FromUnsignedLongLong(stream ? (unsigned long long)stream : 1ull);
}

/* Calls obj.__dlpack__, asking for a versioned capsule first because only
 * that form says whether the memory is read-only or a copy; producers that
 * predate DLPack 1.0 reject the keyword with a TypeError. */
static PyObject *call_dlpack(PyObject *obj, PyObject *method) {
    PyObject *stream = dlpack_stream(obj);
    PyObject *kwargs = Py_BuildValue("{s:(ii)}", "max_version", (int)DL_SUPPORTED_MAJOR, 0);
    if (kwargs && stream && PyDict_SetItemString(kwargs, "stream", stream) < 0) Py_CLEAR(kwargs);
    PyObject *empty = kwargs ? PyTuple_New(0) : NULL;
    PyObject *cap = empty ? PyObject_Call(method, empty, kwargs) : NULL;
    if (!cap && empty && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        if (stream) PyDict_DelItemString(kwargs, "max_version");
        cap = stream ? PyObject_Call(method, empty, kwargs) : PyObject_CallNoArgs(method);
    }
    Py_XDECREF(empty);
    Py_XDECREF(kwargs);
    Py_XDECREF(stream);
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

/* Consumes the capsule into a (a->keep owns it from then on) and points
 * *dl at its tensor. */
static int take_capsule(sk_arg *a, PyObject *cap, const char *op, const char *name,
                        const struct DLTensor **dl, int *copied) {
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
        *dl = &m->dl_tensor;
        a->readonly = (m->flags & DL_FLAG_READ_ONLY) != 0;
        *copied = (m->flags & DL_FLAG_IS_COPIED) != 0;
        return 0;
    }
    if (PyCapsule_IsValid(cap, "dltensor")) {
        dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
            Py_DECREF(cap);
            return -1;
        }
        a->keep = cap;
        a->managed = m;
        *dl = &m->dl_tensor;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: %s.__dlpack__() returned %.100s, not an unused DLPack "
                 "capsule", op, name, Py_TYPE(cap)->tp_name);
    Py_DECREF(cap);
    return -1;
}

static void unsupported_dl_dtype(const struct DLTensor *dl, const char *op, const char *name) {
    static const char *const kinds[] = {"int", "uint", "float", "opaque", "bfloat", "complex",
                                        "bool"};
    char got[96];
    unsigned code = dl->dtype.code, bits = dl->dtype.bits, lanes = dl->dtype.lanes;
    if (code < sizeof kinds / sizeof kinds[0] && lanes == 1)
        snprintf(got, sizeof got, "dtype %s%u", kinds[code], bits);
    else
        snprintf(got, sizeof got, "DLPack dtype (code %u, %u bits, %u lanes)", code, bits, lanes);
    unsupported_dtype(op, name, got);
}

static int from_dlpack(sk_arg *a, PyObject *obj, PyObject *method, const char *op,
                       const char *name, int writable) {
    PyObject *cap = call_dlpack(obj, method);
    if (!cap) {
        reraise_export_error(op, name);
        return -1;
    }
    const struct DLTensor *dl = NULL;
    int copied = 0;
    if (take_capsule(a, cap, op, name, &dl, &copied) < 0) return -1;
    sk_status st = sk_tensor_from_dlpack(dl, &a->t);
    if (st == SK_STATUS_INVALID_DTYPE) {
        unsupported_dl_dtype(dl, op, name);
        return -1;
    }
    if (st != SK_STATUS_OK) {
        PyErr_Format(sk_py_exception_for(st), "%s: %s: %s", op, name, sk_last_error());
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
int sk_py_arg_convert(sk_arg *a, PyObject *obj, const char *op, const char *name, int writable) {
    if (obj == Py_None) {
        PyErr_Format(sk_py_argument_type_error, "%s: %s must be a tensor, got None", op, name);
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
            PyErr_Format(sk_py_argument_type_error,
                         "%s: %s must be a numpy.ndarray, a torch.Tensor or another object "
                         "supporting DLPack or __array_interface__, got %.200s",
                         op, name, Py_TYPE(obj)->tp_name);
            return -1;
        }
        rc = from_dlpack(a, obj, method, op, name, writable);
        Py_DECREF(method);
    }
    if (rc < 0) return -1;
    if (writable && a->readonly) {
        PyErr_Format(PyExc_ValueError, "%s: %s is read-only (marked so by its array interface "
                     "or its DLPack export); pass a writable array or tensor", op, name);
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

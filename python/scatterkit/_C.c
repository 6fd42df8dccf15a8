/*
 * scatterkit._C - the CPython binding of the C library.
 *
 * The operators come from scatterkit_ops.def: each entry becomes a
 * trampoline that fills the C function's arguments from converted values,
 * a descriptor run by the one generic caller (call.c), and a method. Tensors
 * arrive as Python objects and are described to C without copying
 * (convert.h). Outputs are allocated by the Python layer (large ones from
 * buffer_cache.c) and passed in as `out`.
 */
#include "call.h"

#include <string.h>

#include "buffer_cache.h"

/* The argspec's k-th value as the C function takes it. */
#define T(k) (&v[k].arg.t)
#define OUT(k) (&v[k].arg.t)
#define OPT(k) (v[k].arg.present ? &v[k].arg.t : NULL)
#define OPTOUT(k) (v[k].arg.present ? &v[k].arg.t : NULL)
#define I32(k) (v[k].i32)
#define I64(k) (v[k].i64)
#define BOOL(k) (v[k].i32 != 0)
#define RED(k) ((sk_reduce)v[k].i32)
#define MODE(k) ((sk_index_mode)v[k].i32)
#define TSMODE(k) ((sk_tensor_scatter_mode)v[k].i32)
#define AXES_PTR(k) (v[k].axes)
#define AXES_N(k) (v[k].n)
#define BOUNDS(k) (v[k].v)
#define STEPS(k) (v[k].v)
#define SHAPE_NDIM(k) (&v[k].n)
#define SHAPE_DIMS(k) (v[k].v)
#define COUNT(k) (&v[k].i64)
#define OPTS opts

#define SK_OP(op, kind_, spec_, call_)                                                  \
    static sk_status sk_run_##op(sk_py_val *v, const sk_options *opts) {                 \
        (void)opts;                                                                       \
        return call_;                                                                     \
    }                                                                                     \
    static sk_py_desc sk_desc_##op = {.name = #op, .kind = kind_, .spec = spec_,          \
                                      .run = sk_run_##op};                                \
    static PyObject *py_##op(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {   \
        return sk_py_call(&sk_desc_##op, args, kw);                                       \
    }
#include "scatterkit_ops.def"
#undef SK_OP

static sk_py_desc *const descs[] = {
#define SK_OP(name, kind, spec, call) &sk_desc_##name,
#include "scatterkit_ops.def"
#undef SK_OP
};
#define NDESCS ((Py_ssize_t)(sizeof descs / sizeof descs[0]))

/* ------------------------------------------------------------------------ */
/* Threads, descriptors, status and dtype helpers                           */
/* ------------------------------------------------------------------------ */
static PyObject *py_set_num_threads(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t n;
    if (sk_py_to_i32(arg, "set_num_threads", "n", &n) < 0) return NULL;
    sk_status st;
    /* May start or stop pool threads; nothing here needs the GIL. */
    Py_BEGIN_ALLOW_THREADS
    st = sk_set_num_threads(n);
    Py_END_ALLOW_THREADS
    if (st != SK_STATUS_OK) {
        sk_py_raise_status(st, "set_num_threads");
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
    static char *kwlist[] = {"obj", "op", "name", "writable", NULL};
    PyObject *obj;
    const char *op = "describe", *name = "obj";
    int writable = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ssp:describe", kwlist, &obj, &op, &name,
                                     &writable))
        return NULL;
    sk_arg a[1];
    memset(a, 0, sizeof a);
    PyObject *res = NULL;
    if (sk_py_arg_convert(&a[0], obj, op, name, writable) == 0) {
        PyObject *shape = sk_py_shape_tuple(a[0].t.ndim, a[0].t.shape);
        PyObject *strides = shape ? sk_py_shape_tuple(a[0].t.ndim, a[0].t.strides) : NULL;
        if (strides)
            res = Py_BuildValue("{s:s,s:O,s:O,s:i,s:i,s:O}", "dtype", sk_dtype_name(a[0].t.dtype),
                                "shape", shape, "strides", strides, "device_type",
                                (int)a[0].t.device_type, "device_id", (int)a[0].t.device_id,
                                "readonly", a[0].readonly ? Py_True : Py_False);
        Py_XDECREF(shape);
        Py_XDECREF(strides);
    }
    sk_py_arg_release(&a[0]);
    return res;
}

static PyObject *py_status_string(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (sk_py_to_i32(arg, "status_string", "status", &code) < 0) return NULL;
    return PyUnicode_FromString(sk_status_string((sk_status)code));
}

static PyObject *py_last_kernel(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg)) {
    return PyUnicode_FromString(sk_last_kernel());
}

static PyObject *py_last_error(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg)) {
    return PyUnicode_FromString(sk_last_error());
}

static PyObject *py_dtype_name(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (sk_py_to_i32(arg, "dtype_name", "dtype", &code) < 0) return NULL;
    return PyUnicode_FromString(sk_dtype_name((sk_dtype)code));
}

static PyObject *py_dtype_size(PyObject *Py_UNUSED(self), PyObject *arg) {
    int32_t code;
    if (sk_py_to_i32(arg, "dtype_size", "dtype", &code) < 0) return NULL;
    return PyLong_FromSize_t(sk_dtype_size((sk_dtype)code));
}

/* set_stream(handle or None) -> the previous handle or None (call.h). */
static PyObject *py_set_stream(PyObject *Py_UNUSED(self), PyObject *arg) {
    uintptr_t previous = 0, handle = 0;
    int had = sk_py_get_stream(&previous);
    if (arg != Py_None) {
        handle = (uintptr_t)PyLong_AsUnsignedLongLong(arg);
        if (PyErr_Occurred()) return NULL;
    }
    sk_py_set_stream(arg != Py_None, handle);
    if (!had) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong((unsigned long long)previous);
}

static PyObject *py_release_cached_memory(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg)) {
    return PyLong_FromSize_t(sk_release_cached_memory());
}

/* ------------------------------------------------------------------------ */
/* Module                                                                   */
/* ------------------------------------------------------------------------ */
/* The operators' rows come first, in descs order: their docstrings are
 * filled from the parsed argspecs at import. */
static PyMethodDef methods[] = {
#define SK_OP(name, kind, spec, call) \
    {#name, (PyCFunction)(void (*)(void))py_##name, METH_VARARGS | METH_KEYWORDS, NULL},
#include "scatterkit_ops.def"
#undef SK_OP
    {"describe", (PyCFunction)(void (*)(void))py_describe, METH_VARARGS | METH_KEYWORDS,
     "describe(obj, op='describe', name='obj', writable=False) -> dict\n"
     "dtype, shape, strides (elements), device and read-only flag of a tensor."},
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
    {"last_kernel", py_last_kernel, METH_NOARGS,
     "last_kernel() -> str: the path the last call on this thread ran"},
    {"set_stream", py_set_stream, METH_O,
     "set_stream(handle or None) -> previous: the cudaStream_t of this thread's calls"},
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

/* Parses every argspec once and gives each operator its docstring. */
static int parse_descs(void) {
    for (Py_ssize_t i = 0; i < NDESCS; i++) {
        if (sk_py_desc_parse(descs[i]) < 0) return -1;
        methods[i].ml_doc = descs[i]->doc;
    }
    return 0;
}

/* Steals value; -1 (value released) when it is NULL or cannot be added. */
static int add_object(PyObject *m, const char *name, PyObject *value) {
    if (!value) return -1;
    if (PyModule_AddObject(m, name, value) < 0) {
        Py_DECREF(value);
        return -1;
    }
    return 0;
}

static int add_constants(PyObject *m) {
    static const struct {
        const char *name;
        long long value;
    } constants[] = {
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
#ifdef SK_HAVE_CUDA
        {"HAS_CUDA", 1},
#else
        {"HAS_CUDA", 0},
#endif
        {"VERSION_MAJOR", SK_VERSION_MAJOR},
        {"VERSION_MINOR", SK_VERSION_MINOR},
        {"VERSION_PATCH", SK_VERSION_PATCH},
    };
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
        if (add_object(m, constants[i].name, PyLong_FromLongLong(constants[i].value)) < 0)
            return -1;
    return 0;
}

/* DTYPES: the dtype names by code; OPS: (name, kind) of every .def entry. */
static int add_tables(PyObject *m) {
    PyObject *dtypes = PyTuple_New(SK_DTYPE_COUNT);
    for (int d = 0; dtypes && d < SK_DTYPE_COUNT; d++) {
        PyObject *s = PyUnicode_FromString(sk_dtype_name((sk_dtype)d));
        if (!s) Py_CLEAR(dtypes);
        else PyTuple_SET_ITEM(dtypes, d, s);
    }
    if (add_object(m, "DTYPES", dtypes) < 0) return -1;
    PyObject *ops = PyTuple_New(NDESCS);
    for (Py_ssize_t i = 0; ops && i < NDESCS; i++) {
        PyObject *row = Py_BuildValue("(ss)", descs[i]->name, sk_py_kind_name(descs[i]->kind));
        if (!row) Py_CLEAR(ops);
        else PyTuple_SET_ITEM(ops, i, row);
    }
    return add_object(m, "OPS", ops);
}

#define SK_STR_(x) #x
#define SK_STR(x) SK_STR_(x)

PyMODINIT_FUNC PyInit__C(void) {
    if (parse_descs() < 0 || sk_py_convert_init() < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(sk_py_argument_type_error);
    if (add_object(m, "ArgumentTypeError", sk_py_argument_type_error) < 0 ||
        add_constants(m) < 0 || add_tables(m) < 0 ||
        PyModule_AddStringConstant(m, "__version__", SK_STR(SK_VERSION_MAJOR) "." SK_STR(
                                       SK_VERSION_MINOR) "." SK_STR(SK_VERSION_PATCH)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

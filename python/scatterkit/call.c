/*
 * The generic caller of the table-driven binding. An argspec is parsed once
 * into typed params; a call matches positional and keyword arguments to
 * them, converts scalars first and tensors second (in argspec order),
 * releases the GIL around the trampoline and maps a failed status to the
 * library's message. Every entry takes the keywords num_threads and
 * fresh_out, whatever its argspec.
 */
#include "call.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[SK_PY_TYPE_COUNT] = {
    "in", "opt", "out", "optout", "i32", "i64", "bool", "reduce", "mode", "tsmode", "axes",
    "bounds", "steps", "shape", "count",
};

const char *sk_py_kind_name(int kind) {
    switch (kind) {
    case SK_KIND_FORWARD: return "forward";
    case SK_KIND_BACKWARD: return "backward";
    default: return "shape";
    }
}

static int is_tensor(sk_py_type t) { return t <= SK_PY_OPTOUT; }
static int is_result(sk_py_type t) { return t == SK_PY_SHAPE || t == SK_PY_COUNT; }

static int spec_error(const sk_py_desc *d, const char *what) {
    PyErr_Format(PyExc_SystemError, "scatterkit_ops.def: %s: %s in \"%s\"", d->name, what, d->spec);
    return -1;
}

/* The operator named in messages: gather_axes, gather_shape and
 * gather_axes_backward report as gather and gather_backward do. */
static void op_label(const char *name, char *op, size_t size) {
    static const char *const suffixes[] = {"_source_shape", "_shape", "_count"};
    snprintf(op, size, "%s", name);
    char *axes = strstr(op, "_axes");
    if (axes) memmove(axes, axes + 5, strlen(axes + 5) + 1);
    size_t n = strlen(op);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(op + n - k, suffixes[i]) == 0) {
            op[n - k] = '\0';
            break;
        }
    }
}

/* Splits one "name[/label]:type" token (NUL-terminated in d->text). */
static int parse_param(sk_py_desc *d, char *tok, sk_py_param *p) {
    char *colon = strchr(tok, ':');
    if (!colon) return spec_error(d, "an argument without a type");
    *colon = '\0';
    char *slash = strchr(tok, '/');
    if (slash) *slash = '\0';
    p->name = tok;
    p->label = slash ? slash + 1 : tok;
    for (int t = 0; t < SK_PY_TYPE_COUNT; t++) {
        if (strcmp(colon + 1, type_names[t]) == 0) {
            p->type = (sk_py_type)t;
            return 0;
        }
    }
    return spec_error(d, "an unknown type");
}

/* "gather(x, index, axis, mode, fill_value, out, *, num_threads=0, fresh_out=False)". */
static void make_doc(sk_py_desc *d) {
    size_t len = (size_t)snprintf(d->doc, sizeof d->doc, "%s(", d->name);
    for (int i = 0; i < d->nparams && len < sizeof d->doc; i++)
        if (!is_result(d->params[i].type))
            len += (size_t)snprintf(d->doc + len, sizeof d->doc - len, "%s, ", d->params[i].name);
    if (len < sizeof d->doc) {
        const char *ret = d->result < 0 ? ""
                          : d->params[d->result].type == SK_PY_SHAPE ? " -> tuple" : " -> int";
        snprintf(d->doc + len, sizeof d->doc - len, "*, num_threads=0, fresh_out=False)%s", ret);
    }
}

int sk_py_desc_parse(sk_py_desc *d) {
    if (strlen(d->spec) >= sizeof d->text) return spec_error(d, "too long");
    memcpy(d->text, d->spec, strlen(d->spec) + 1);
    op_label(d->name, d->op, sizeof d->op);
    d->nparams = d->nargs = 0;
    d->result = -1;
    int bounded = 0; /* an axes param came before: bounds and steps count its entries */
    for (char *tok = strtok(d->text, " "); tok; tok = strtok(NULL, " ")) {
        if (d->nparams == SK_PY_MAX_PARAMS) return spec_error(d, "too many arguments");
        sk_py_param *p = &d->params[d->nparams];
        if (parse_param(d, tok, p) < 0) return -1;
        if ((p->type == SK_PY_BOUNDS || p->type == SK_PY_STEPS) && !bounded)
            return spec_error(d, "slice bounds without axes before them");
        bounded |= p->type == SK_PY_AXES;
        if (is_result(p->type)) {
            if (d->result >= 0) return spec_error(d, "two results");
            d->result = d->nparams;
        } else {
            d->nargs++;
        }
        d->nparams++;
    }
    make_doc(d);
    return 0;
}

/* The Python arguments: objs[i] for params[i] (results stay NULL), and the
 * two keywords every entry takes. All references are borrowed. */
typedef struct sk_py_given {
    PyObject *objs[SK_PY_MAX_PARAMS];
    PyObject *num_threads, *fresh_out;
} sk_py_given;

static int match_keyword(const sk_py_desc *d, PyObject *key, PyObject *value, sk_py_given *g) {
    if (PyUnicode_Check(key)) {
        for (int i = 0; i < d->nparams; i++) {
            if (is_result(d->params[i].type) ||
                PyUnicode_CompareWithASCIIString(key, d->params[i].name) != 0)
                continue;
            if (g->objs[i]) {
                PyErr_Format(PyExc_TypeError, "argument for %s() given by name ('%s') and "
                             "position (%d)", d->name, d->params[i].name, i + 1);
                return -1;
            }
            g->objs[i] = value;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(key, "num_threads") == 0) {
            g->num_threads = value;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(key, "fresh_out") == 0) {
            g->fresh_out = value;
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError, "%R is an invalid keyword argument for %s()", key, d->name);
    return -1;
}

static int match_args(const sk_py_desc *d, PyObject *args, PyObject *kwargs, sk_py_given *g) {
    memset(g, 0, sizeof *g);
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > d->nargs) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", d->name,
                     d->nargs, n);
        return -1;
    }
    for (int i = 0, k = 0; k < n; i++)
        if (!is_result(d->params[i].type)) g->objs[i] = PyTuple_GET_ITEM(args, k++);
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value))
        if (match_keyword(d, key, value, g) < 0) return -1;
    for (int i = 0; i < d->nparams; i++) {
        if (!g->objs[i] && !is_result(d->params[i].type)) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", d->name,
                         d->params[i].name, i + 1);
            return -1;
        }
    }
    return 0;
}

static _Thread_local int sk_py_stream_set;
static _Thread_local uintptr_t sk_py_stream;

void sk_py_set_stream(int set, uintptr_t stream) {
    sk_py_stream_set = set;
    sk_py_stream = set ? stream : 0;
}

int sk_py_get_stream(uintptr_t *stream) {
    *stream = sk_py_stream;
    return sk_py_stream_set;
}

static int make_options(const sk_py_desc *d, const sk_py_given *g, sk_options *opts) {
    int32_t nt = 0;
    int fresh = g->fresh_out ? PyObject_IsTrue(g->fresh_out) : 0;
    if (fresh < 0) return -1;
    if (g->num_threads && sk_py_to_i32(g->num_threads, d->op, "num_threads", &nt) < 0) return -1;
    if (nt < 0) {
        PyErr_Format(PyExc_ValueError, "%s: num_threads must be >= 0 (0: the process-wide "
                     "setting), got %d", d->op, (int)nt);
        return -1;
    }
    opts->num_threads = nt;
    /* out=None: the caller's own buffer, discarded on error */
    opts->flags = fresh ? SK_OPTION_FRESH_OUT : 0;
    opts->stream = (void *)sk_py_stream;
    return 0;
}

/* One scalar argument; `naxes` is the entry count of the last axes param. */
static int convert_scalar(const sk_py_desc *d, const sk_py_param *p, PyObject *o, int32_t naxes,
                          sk_py_val *v) {
    switch (p->type) {
    case SK_PY_I64: return sk_py_to_i64(o, d->op, p->label, &v->i64);
    case SK_PY_AXES: return sk_py_to_axes(o, d->op, p->label, v->axes, &v->n);
    case SK_PY_BOUNDS: return sk_py_slice_seq(o, naxes, SK_SLICE_NONE, d->op, p->label, v->v);
    case SK_PY_STEPS: return sk_py_slice_seq(o, naxes, 1, d->op, p->label, v->v);
    case SK_PY_BOOL: {
        int b = PyObject_IsTrue(o);
        v->i32 = b > 0;
        return b < 0 ? -1 : 0;
    }
    default: return sk_py_to_i32(o, d->op, p->label, &v->i32); /* i32, reduce, mode, tsmode */
    }
}

static int convert_scalars(const sk_py_desc *d, const sk_py_given *g, sk_py_val *v) {
    int32_t naxes = 0;
    for (int i = 0; i < d->nparams; i++) {
        const sk_py_param *p = &d->params[i];
        if (is_tensor(p->type) || is_result(p->type)) continue;
        if (convert_scalar(d, p, g->objs[i], naxes, &v[i]) < 0) return -1;
        if (p->type == SK_PY_AXES) naxes = v[i].n;
    }
    return 0;
}

static int convert_tensors(const sk_py_desc *d, const sk_py_given *g, sk_py_val *v) {
    for (int i = 0; i < d->nparams; i++) {
        sk_py_type t = d->params[i].type;
        if (!is_tensor(t) || ((t == SK_PY_OPT || t == SK_PY_OPTOUT) && g->objs[i] == Py_None))
            continue;
        int writable = t == SK_PY_OUT || t == SK_PY_OPTOUT;
        if (sk_py_arg_convert(&v[i].arg, g->objs[i], d->op, d->params[i].label, writable) < 0)
            return -1;
    }
    return 0;
}

/* The message is read before the arguments are released: a DLPack deleter
 * may run arbitrary Python code, which could call into the library again and
 * replace this thread's last error. */
static PyObject *finish(const sk_py_desc *d, sk_py_val *v, int converted, sk_status st) {
    if (converted && st != SK_STATUS_OK) sk_py_raise_status(st, d->op);
    for (int i = 0; i < d->nparams; i++)
        if (is_tensor(d->params[i].type)) sk_py_arg_release(&v[i].arg);
    if (!converted || st != SK_STATUS_OK) return NULL;
    if (d->result < 0) Py_RETURN_NONE;
    const sk_py_val *r = &v[d->result];
    if (d->params[d->result].type == SK_PY_COUNT) return PyLong_FromLongLong(r->i64);
    return sk_py_shape_tuple(r->n, r->v);
}

PyObject *sk_py_call(const sk_py_desc *d, PyObject *args, PyObject *kwargs) {
    sk_py_given g;
    sk_py_val v[SK_PY_MAX_PARAMS];
    sk_options opts;
    memset(v, 0, sizeof(sk_py_val) * (size_t)d->nparams);
    if (match_args(d, args, kwargs, &g) < 0 || convert_scalars(d, &g, v) < 0 ||
        make_options(d, &g, &opts) < 0)
        return NULL;
    sk_status st = SK_STATUS_OK;
    int converted = convert_tensors(d, &g, v) == 0;
    if (converted) {
        Py_BEGIN_ALLOW_THREADS
        st = d->run(v, &opts);
        Py_END_ALLOW_THREADS
    }
    return finish(d, v, converted, st);
}

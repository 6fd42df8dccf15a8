/* The binding's one caller: every entry of scatterkit_ops.def is a
 * descriptor (its argspec, parsed once, and a trampoline that calls the C
 * function) run by sk_py_call. */
#ifndef SCATTERKIT_PY_CALL_H
#define SCATTERKIT_PY_CALL_H

#include "convert.h"

enum { SK_KIND_FORWARD, SK_KIND_BACKWARD, SK_KIND_SHAPE };

/* Most arguments an argspec may have (results included). */
#define SK_PY_MAX_PARAMS 12

typedef enum sk_py_type {
    SK_PY_IN,     /* input tensor */
    SK_PY_OPT,    /* input tensor or None */
    SK_PY_OUT,    /* written tensor */
    SK_PY_OPTOUT, /* written tensor or None */
    SK_PY_I32,
    SK_PY_I64,
    SK_PY_BOOL,   /* any object, by its truth value */
    SK_PY_REDUCE,
    SK_PY_MODE,
    SK_PY_TSMODE,
    SK_PY_AXES,   /* a sequence of ints */
    SK_PY_BOUNDS, /* slice bounds, one per axis of the preceding axes: None = SK_SLICE_NONE */
    SK_PY_STEPS,  /* slice steps, one per axis of the preceding axes: None = 1 */
    SK_PY_SHAPE,  /* result: a shape, returned as a tuple */
    SK_PY_COUNT,  /* result: a count, returned as an int */
    SK_PY_TYPE_COUNT
} sk_py_type;

/* One argument of a call, converted: the trampolines read it through the
 * .def's macros (T, I32, AXES_PTR, ...). */
typedef struct sk_py_val {
    sk_arg arg;                 /* tensor types */
    int32_t i32;                /* i32, bool, reduce, mode, tsmode */
    int32_t n;                  /* axes: how many; shape: ndim */
    int64_t i64;                /* i64, count */
    int32_t axes[SK_MAX_DIMS];
    int64_t v[SK_MAX_DIMS];     /* bounds, steps, shape */
} sk_py_val;

typedef sk_status (*sk_py_run)(sk_py_val *v, const sk_options *opts);

typedef struct sk_py_param {
    const char *name;  /* the keyword */
    const char *label; /* the name in messages ("axis" for axes) */
    sk_py_type type;
} sk_py_param;

typedef struct sk_py_desc {
    const char *name; /* the method */
    int kind;         /* SK_KIND_* */
    const char *spec; /* "name[/label]:type ..." */
    sk_py_run run;
    /* filled once by sk_py_desc_parse */
    char op[48];      /* the operator in messages: name without _axes, _shape, ... */
    int nparams;      /* results included */
    int nargs;        /* the Python arguments: params that are not results */
    int result;       /* index of the shape or count param, -1: the call returns None */
    sk_py_param params[SK_PY_MAX_PARAMS];
    char text[256];   /* storage for names and labels */
    char doc[320];
} sk_py_desc;

/* Parses d->spec; -1 with a SystemError when it is malformed. */
int sk_py_desc_parse(sk_py_desc *d);
/* Matches args and kwargs to d's params (plus the keywords num_threads and
 * fresh_out), converts them, runs d->run without the GIL and returns its
 * result: None, a shape tuple or a count. */
PyObject *sk_py_call(const sk_py_desc *d, PyObject *args, PyObject *kwargs);
/* The CUDA stream of this thread's calls (scatterkit/_device.py sets it
 * around an operator on CUDA tensors): sk_options.stream, and the stream
 * passed to __dlpack__ of CUDA producers. set: 0 clears it. */
void sk_py_set_stream(int set, uintptr_t stream);
int sk_py_get_stream(uintptr_t *stream);

/* "forward", "backward", "shape". */
const char *sk_py_kind_name(int kind);

#endif

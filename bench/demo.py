#!/usr/bin/env python3
"""A tour of scatterkit's operators on small inputs: NumPy in -> NumPy out,
torch in -> torch out. Operators the installed scatterkit lacks are skipped
with a note.

    python bench/demo.py
"""
import sys

import numpy as np

try:
    import torch
except ImportError:  # the NumPy half of the demo still runs
    torch = None

try:
    import scatterkit as sk
except Exception as e:
    print("scatterkit is not importable (%s: %s); build and install it first "
          "(pip install .)" % (type(e).__name__, e))
    sys.exit(1)

np.set_printoptions(linewidth=100)
if torch is not None:
    torch.set_printoptions(linewidth=100)

skipped = []


def show(title, call, **inputs):
    """Print the inputs, run call(**inputs), print the result."""
    print("=" * 72)
    print(title)
    for k, v in inputs.items():
        print("  %s%s =\n%s" % (k, "" if not hasattr(v, "dtype") else " (%s)" % v.dtype,
                                _indent(v)))
    try:
        r = call(**inputs)
    except AttributeError as e:
        if "is not implemented yet" not in str(e):
            print("  -> AttributeError: %s" % e)
            return None
        print("  -> skipped: %s" % e)
        skipped.append(title)
        return None
    except Exception as e:
        print("  -> %s: %s" % (type(e).__name__, e))
        return None
    print("  -> %s%s =\n%s" % (type(r).__module__.split(".")[0] + "." + type(r).__name__,
                               "" if not hasattr(r, "shape") else " " + str(tuple(r.shape)),
                               _indent(r)))
    return r


def _indent(v):
    return "\n".join("     " + line for line in str(v).splitlines())


def op(name):
    """Look the operator up when it is called, so a missing one is skipped."""
    def f(*a, **k):
        fn = getattr(sk, name, None)
        if fn is None:
            raise AttributeError("scatterkit.%s is not implemented yet" % name)
        return fn(*a, **k)
    return f


def T(a):
    return None if torch is None else torch.as_tensor(np.asarray(a))


x = np.arange(12, dtype=np.float32).reshape(3, 4)
idx = np.array([[3, 0], [1, 1], [2, 0]])

# -- gather / scatter -------------------------------------------------------
show("gather(x, index, axis=1)  [NumPy]", lambda x, index: op("gather")(x, index, 1),
     x=x, index=idx)
if torch is not None:
    show("gather(x, index, axis=1)  [torch]", lambda x, index: op("gather")(x, index, 1),
         x=T(x), index=T(idx))

base = np.full((3, 4), 5, dtype=np.float32)
dup = np.array([[0, 0, 3], [1, 2, 1], [3, 3, 3]])
src = np.array([[2, 3, 4], [5, 6, 7], [8, 9, 10]], dtype=np.float32)
for red in (None, "sum", "prod", "mean", "amax", "amin"):
    show("scatter(x, index, src, axis=1, reduce=%r)  [NumPy]" % red,
         lambda x, index, src, red=red: op("scatter")(x, index, src, 1, reduce=red),
         x=base, index=dup, src=src)
show("scatter(..., reduce='sum', include_self=False)  [torch]",
     lambda x, index, src: op("scatter")(x, index, src, 1, reduce="sum", include_self=False),
     x=T(base), index=T(dup), src=T(src))
show("gather(x, index, axis=(0, 1))  (tuple axis, CINN gather_nd)  [NumPy]",
     lambda x, index: op("gather")(x, index, (0, 1)),
     x=x, index=np.array([[[2, 3], [0, 0], [1, 2], [2, 0]]]).reshape(1, 4, 2))

# -- index_select / index_scatter ------------------------------------------
show("index_select(x, index, axis=0)  [NumPy]", lambda x, index: op("index_select")(x, index, 0),
     x=x, index=np.array([2, 0, 2]))
if torch is not None:
    show("index_select(x, index, axis=1)  [torch]",
         lambda x, index: op("index_select")(x, index, 1), x=T(x), index=T(np.array([3, 1])))
show("index_scatter(x, index, updates, axis=0, reduce='sum')  (paddle.scatter, overwrite=False "
     "with include_self=True)  [NumPy]",
     lambda x, index, updates: op("index_scatter")(x, index, updates, 0, reduce="sum"),
     x=base, index=np.array([2, 0, 2]), updates=np.arange(12, dtype=np.float32).reshape(3, 4))
if torch is not None:
    show("index_scatter(x, index, updates, axis=0)  (assign, last wins)  [torch]",
         lambda x, index, updates: op("index_scatter")(x, index, updates, 0),
         x=T(base), index=T(np.array([2, 0, 2])),
         updates=T(np.arange(12, dtype=np.float32).reshape(3, 4)))

# -- gather_nd / scatter_nd -------------------------------------------------
show("gather_nd(x, index)  [NumPy]", lambda x, index: op("gather_nd")(x, index),
     x=x, index=np.array([[0, 1], [2, 3], [1, 0]]))
if torch is not None:
    show("gather_nd(x, index) (rows)  [torch]", lambda x, index: op("gather_nd")(x, index),
         x=T(x), index=T(np.array([[2], [0]])))
show("scatter_nd(x, index, updates, reduce='sum')  [NumPy]",
     lambda x, index, updates: op("scatter_nd")(x, index, updates, reduce="sum"),
     x=base, index=np.array([[0, 1], [0, 1], [2, 3]]),
     updates=np.array([10, 20, 30], dtype=np.float32))
if torch is not None:
    show("scatter_nd(x, index, updates)  (assign rows)  [torch]",
         lambda x, index, updates: op("scatter_nd")(x, index, updates),
         x=T(base), index=T(np.array([[1]])), updates=T(np.full((1, 4), 7, np.float32)))

# -- slice / diagonal / select scatter --------------------------------------
show("slice_scatter(x, src, axis=1, start=None, stop=None, step=2)  [NumPy]",
     lambda x, src: op("slice_scatter")(x, src, 1, None, None, 2),
     x=x, src=np.full((3, 2), -1, np.float32))
if torch is not None:
    show("slice_scatter(x, src, axis=0, start=-1)  [torch]",
         lambda x, src: op("slice_scatter")(x, src, 0, -1),
         x=T(x), src=T(np.full((1, 4), -1, np.float32)))
show("diagonal_scatter(x, src, offset=1)  [NumPy]",
     lambda x, src: op("diagonal_scatter")(x, src, 1, 0, 1),
     x=x, src=np.array([-1, -2, -3], np.float32))
if torch is not None:
    show("diagonal_scatter(x, src, offset=0, axis1=1, axis2=2)  (batched)  [torch]",
         lambda x, src: op("diagonal_scatter")(x, src, 0, 1, 2),
         x=T(np.arange(18, dtype=np.float32).reshape(2, 3, 3)),
         src=T(-np.ones((2, 3), np.float32)))
show("select_scatter(x, src, axis=0, index=-1)  [NumPy]",
     lambda x, src: op("select_scatter")(x, src, 0, -1), x=x, src=np.zeros(4, np.float32) - 5)
if torch is not None:
    show("select_scatter(x, src, axis=1, index=2)  [torch]",
         lambda x, src: op("select_scatter")(x, src, 1, 2),
         x=T(x), src=T(np.array([-1, -2, -3], np.float32)))

# -- masked -----------------------------------------------------------------
mask = np.array([[True], [False], [True]])
show("masked_scatter(x, mask [3,1] broadcast, source)  [NumPy]",
     lambda x, mask, source: op("masked_scatter")(x, mask, source),
     x=x, mask=mask, source=-np.arange(1, 13, dtype=np.float32))
if torch is not None:
    show("masked_scatter(x, mask, source)  [torch]",
         lambda x, mask, source: op("masked_scatter")(x, mask, source),
         x=T(x), mask=T(x % 3 == 0), source=T(np.full(12, 100, np.float32)))
show("masked_select(x, mask)  [NumPy]", lambda x, mask: op("masked_select")(x, mask),
     x=x, mask=x > 6)
if torch is not None:
    show("masked_select(x, mask [1,4] broadcast)  [torch]",
         lambda x, mask: op("masked_select")(x, mask),
         x=T(x), mask=T(np.array([[True, False, False, True]])))

# -- tensor_scatter (ONNX TensorScatter, KV cache update) -------------------
cache = np.arange(2 * 5 * 2, dtype=np.float32).reshape(2, 5, 2)
upd = -np.arange(1, 2 * 2 * 2 + 1, dtype=np.float32).reshape(2, 2, 2)
show("tensor_scatter(cache, update, write_indices=[1, 4], axis=-2, mode='circular')  [NumPy]",
     lambda cache, update, write_indices: op("tensor_scatter")(
         cache, update, write_indices, axis=-2, mode="circular"),
     cache=cache, update=upd, write_indices=np.array([1, 4]))
if torch is not None:
    show("tensor_scatter(cache, update, write_indices=[0, 3], mode='linear')  [torch]",
         lambda cache, update, write_indices: op("tensor_scatter")(cache, update, write_indices),
         cache=T(cache), update=T(upd), write_indices=T(np.array([0, 3])))

# -- an error message (section 4 of the spec) --------------------------------
print("=" * 72)
print("errors name the operator, the argument and the offending index:")
try:
    op("gather")(x, np.array([[0, 9], [0, 0], [0, 0]]), 1)
    print("  (no error raised!)")
except AttributeError as e:
    print("  -> skipped: %s" % e)
except Exception as e:
    print("  -> %s: %s" % (type(e).__name__, e))

print("=" * 72)
if skipped:
    print("skipped (not implemented): %d demo(s)" % len(skipped))
    for s in skipped:
        print("  - " + s)
else:
    print("every operator ran")

"""_C.OPS (include/scatterkit_ops.def) and the Python surface name the same
operators: every forward and backward entry is reachable from scatterkit's
__all__ (an _axes entry through its base name, which takes a tuple axis),
and every operator in __all__ has an entry."""
import scatterkit as sk

# Entries with no public Python name: sk_copy backs the backward's 0-d sums;
# sk_bucketize is scatterkit.distributed.bucketize.
INTERNAL = {"copy", "bucketize"}
NOT_OPERATORS = {"set_num_threads", "get_num_threads", "empty_cache",
                 "set_buffer_cache_limit", "buffer_cache_info", "last_kernel"}


def _public(name):
    return name.replace("_axes", "")


def test_ops_and_all_agree():
    kinds = dict(sk._C.OPS)
    assert len(kinds) == len(sk._C.OPS), "a name is listed twice"
    ops = {n for n, k in sk._C.OPS if k in ("forward", "backward")} - INTERNAL
    assert {_public(n) for n in ops} <= set(sk.__all__)
    assert set(sk.__all__) - NOT_OPERATORS <= ops


def test_every_entry_is_a_method():
    for name, kind in sk._C.OPS:
        assert kind in ("forward", "backward", "shape")
        assert callable(getattr(sk._C, name)), name


def test_last_kernel_names_the_path():
    import numpy as np
    x = np.zeros((64, 8), np.float32)
    index = np.arange(64)[:, None].repeat(8, 1) % 16
    sk.scatter(x, index, np.ones((64, 8), np.float32), 0, reduce="sum")
    name = sk.last_kernel()
    assert name.startswith("cpu/scatter/"), name
    sk.index_select(x, np.array([3, 0]), 0)
    assert sk.last_kernel().startswith("cpu/gather/")

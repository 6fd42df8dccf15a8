"""scatterkit.torch_scatter: a drop-in for the torch_scatter package.

    from scatterkit.torch_scatter import scatter, scatter_max, segment_csr
    out = scatter(src, index, dim=0, dim_size=num_nodes, reduce="mean")

The functions of torch_scatter 2.1 with its signatures, broadcasting (a
1-d index lies along ``dim``), output sizes (``dim_size``, else
``index.max() + 1``), ``out=`` (written and returned) and arg outputs
(``scatter_max``/``scatter_min`` and the segment ``min``/``max`` give the
position along ``dim`` of the winning element, ``src.size(dim)`` for an
empty target). The reductions run in scatterkit's C library through
``scatterkit.torch`` (CPU, and CUDA when the library is built with it),
deterministically (the canonical order of docs/CONTRACT.md), float16 and
bfloat16 accumulating in float32. Every function is differentiable.

Where the results differ from torch_scatter's (docs/torch_scatter.md):
- ties of max/min share the gradient evenly (torch_scatter sends it to
  the arg element only); the arg output is still the first of the tied;
- a NaN among a target's values is its max/min (torch_scatter skips NaN
  on the CPU);
- ``scatter_mul``'s gradient is exact where src has zeros (torch_scatter
  divides by src);
- negative index values count from the end, values out of range raise
  IndexError (torch_scatter does not check them);
- the softmax family gets the exact gradient of the function (the
  subtracted maximum carries none).
"""

from ._composite import scatter_log_softmax, scatter_logsumexp, scatter_softmax, scatter_std
from ._scatter import (scatter, scatter_add, scatter_max, scatter_mean, scatter_min, scatter_mul,
                       scatter_sum)
from ._segment import (gather_coo, gather_csr, segment_add_coo, segment_add_csr, segment_coo,
                       segment_csr, segment_max_coo, segment_max_csr, segment_mean_coo,
                       segment_mean_csr, segment_min_coo, segment_min_csr, segment_sum_coo,
                       segment_sum_csr)

# torch_scatter's __all__, in its order
__all__ = [
    "scatter_sum", "scatter_add", "scatter_mul", "scatter_mean", "scatter_min", "scatter_max",
    "scatter",
    "segment_sum_csr", "segment_add_csr", "segment_mean_csr", "segment_min_csr",
    "segment_max_csr", "segment_csr", "gather_csr",
    "segment_sum_coo", "segment_add_coo", "segment_mean_coo", "segment_min_coo",
    "segment_max_coo", "segment_coo", "gather_coo",
    "scatter_std", "scatter_logsumexp", "scatter_softmax", "scatter_log_softmax",
]

"""The row-sharded operators beside the other scatterkit.torch wrappers:
the functions of scatterkit.distributed, differentiable for torch tensors
(docs/distributed.md)."""
from scatterkit.distributed import (Plan, even_partition, index_scatter, index_select,
                                    partition_from_local, plan)

__all__ = ["index_select", "index_scatter", "plan", "Plan", "even_partition",
           "partition_from_local"]

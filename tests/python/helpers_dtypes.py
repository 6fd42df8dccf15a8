"""dtype tables of the scatterkit Python tests (scatterkit names, NumPy and
torch dtypes); helpers.py re-exports them."""
import numpy as np
import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
LOW_FLOAT_DTYPES = ["float16", "bfloat16"]
INDEX_DTYPES = ["int32", "int64"]
REDUCES = [None, "sum", "prod", "mean", "amax", "amin"]
BOOL_REDUCES = [None, "amax", "amin"]
SCATTER_MODES = ["error", "clip", "drop"]
GATHER_MODES = ["error", "clip", "fill"]

TORCH_DTYPE = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8,
    "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
    "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64,
}
# NumPy has no bfloat16: bfloat16 tests use torch tensors only.
NP_DTYPE = {k: np.dtype(k) for k in DTYPES if k != "bfloat16"}
TORCH_TO_NAME = {v: k for k, v in TORCH_DTYPE.items()}

"""The CUDA test modules' precondition: torch, a CUDA build of scatterkit
and a device, else the whole module is skipped (the reason says which).
With SK_REQUIRE_CUDA=1 (scripts/gpu-check.sh) a missing piece fails the
module instead: on the GPU machine a skip would hide that nothing ran."""
import os

import pytest

from scatterkit import _C


def require_cuda_torch():
    """torch, after skipping the calling module unless CUDA can run."""
    required = os.environ.get("SK_REQUIRE_CUDA") == "1"

    def missing(reason):
        if required:
            pytest.fail("SK_REQUIRE_CUDA=1: " + reason, pytrace=False)
        pytest.skip(reason, allow_module_level=True)

    try:
        import torch
    except ImportError:
        missing("torch is not importable")
    if not _C.HAS_CUDA:
        missing("scatterkit was built without CUDA (SCATTERKIT_CUDA=1 pip install .)")
    if not torch.cuda.is_available():
        missing("no CUDA device")
    return torch

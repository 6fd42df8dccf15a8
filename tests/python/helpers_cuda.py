"""The CUDA test modules' precondition: torch, a CUDA build of scatterkit
and a device, else the whole module is skipped (the reason says which)."""
import pytest

from scatterkit import _C


def require_cuda_torch():
    """torch, after skipping the calling module unless CUDA can run."""
    torch = pytest.importorskip("torch")
    if not _C.HAS_CUDA:
        pytest.skip("scatterkit was built without CUDA (SCATTERKIT_CUDA=1 pip install .)",
                    allow_module_level=True)
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device", allow_module_level=True)
    return torch

"""pytest configuration for the scatterkit Python tests.

helpers.py (next to this file) holds the shared dtype tables, layout makers,
references and comparisons; pytest puts this folder on sys.path (rootdir
conftest, no __init__.py), so test modules do `from helpers import ...`.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def rng(request):
    """A NumPy Generator seeded from the test's node id, so each test's
    random inputs are the same on every run."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.nodeid)) % (2**32)
    return np.random.default_rng(seed)


@pytest.fixture
def restore_threads():
    import scatterkit as sk
    before = sk.get_num_threads()
    yield
    sk.set_num_threads(before)

"""The thread pool survives fork(): a child process (multiprocessing's "fork"
start method, as used by data loaders) can run parallel kernels after the
parent already started worker threads."""
import multiprocessing as mp
import os

import numpy as np
import pytest

import scatterkit as sk


def _child_scatter(queue):
    sk.set_num_threads(2)
    x = np.zeros(1000, np.float32)
    idx = np.arange(300000) % 1000
    out = sk.scatter(x, idx, np.ones(300000, np.float32), 0, reduce="sum")
    queue.put(float(out.sum()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_parallel_call_in_forked_child():
    sk.set_num_threads(2)
    # start the parent's workers with a call large enough to use two threads
    big = np.zeros(1 << 20, np.float32)
    sk.scatter(big, np.arange(1 << 20) % 7, np.ones(1 << 20, np.float32), 0, reduce="sum")
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_scatter, args=(queue,))
    proc.start()
    proc.join(timeout=60)
    hung = proc.is_alive()
    if hung:
        proc.kill()
    assert not hung, "the forked child hung in its first parallel call"
    assert proc.exitcode == 0
    assert queue.get(timeout=5) == 300000.0

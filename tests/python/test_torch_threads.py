"""The default thread count: SCATTERKIT_NUM_THREADS, then OMP_NUM_THREADS
(the variable PyTorch and OpenMP read), then the CPUs this process may use
(its affinity mask, capped by the cgroup CPU quota), each in a fresh process."""
import os
import shutil
import subprocess
import sys

import pytest

CODE = "import scatterkit; print(scatterkit.get_num_threads())"


def threads(env, preexec_fn=None, prefix=()):
    full = {k: v for k, v in os.environ.items()
            if k not in ("SCATTERKIT_NUM_THREADS", "OMP_NUM_THREADS", "SCATTERKIT_CPUS")}
    full.update(env)
    out = subprocess.run([*prefix, sys.executable, "-c", CODE], env=full, check=True,
                         capture_output=True, text=True, preexec_fn=preexec_fn)
    return int(out.stdout)


def test_scatterkit_variable_wins():
    assert threads({"SCATTERKIT_NUM_THREADS": "3", "OMP_NUM_THREADS": "2"}) == 3


def test_omp_num_threads_is_next():
    assert threads({"OMP_NUM_THREADS": "2"}) == 2
    assert threads({"OMP_NUM_THREADS": "3,1"}) == 3  # OpenMP's nested list
    assert threads({"OMP_NUM_THREADS": "0", "SCATTERKIT_NUM_THREADS": "x"}) == \
        threads({})  # invalid values are ignored


def test_default_is_the_usable_cpus():
    n = threads({})
    assert 1 <= n <= len(os.sched_getaffinity(0))


def test_affinity_mask_limits_the_default():
    one = min(os.sched_getaffinity(0))
    assert threads({}, preexec_fn=lambda: os.sched_setaffinity(0, {one})) == 1


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset is not installed")
def test_taskset_limits_the_default():
    one = min(os.sched_getaffinity(0))
    assert threads({}, prefix=("taskset", "-c", str(one))) == 1


def test_cpus_override_replaces_the_usable_cpus():
    """SCATTERKIT_CPUS=n (a testing override: docs/CHOICES.md) counts n
    usable CPUs whatever the affinity mask says; the thread variables still
    come first, and an invalid value is ignored."""
    one = min(os.sched_getaffinity(0))
    assert threads({"SCATTERKIT_CPUS": "5"}) == 5
    assert threads({"SCATTERKIT_CPUS": "5"}, preexec_fn=lambda: os.sched_setaffinity(0, {one})) == 5
    assert threads({"SCATTERKIT_CPUS": "5", "SCATTERKIT_NUM_THREADS": "3"}) == 3
    assert threads({"SCATTERKIT_CPUS": "5", "OMP_NUM_THREADS": "2"}) == 2
    assert threads({"SCATTERKIT_CPUS": "x"}) == threads({})

"""Same bits at every thread count on machines of 3, 7, 16 and 64 CPUs:
the scatter paths take min(threads, usable CPUs) groups, so on the 2-CPU
test machine 16 threads run two groups. Each case runs
test_group_counts_worker.py in a process with SCATTERKIT_CPUS set (a
testing override, docs/CHOICES.md), where 60 random row scatters must give
1 thread's bits at 2, 3, 5, 7, 16 and 64 threads."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("cpus", [3, 7, 16, 64])
def test_thread_counts_give_one_threads_bits(cpus):
    env = dict(os.environ, SCATTERKIT_CPUS=str(cpus))
    env.pop("SCATTERKIT_NUM_THREADS", None)
    out = subprocess.run([sys.executable, os.path.join(HERE, "test_group_counts_worker.py"),
                          str(1000 + cpus), "60"], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines and lines[-1] == "checked 60", out.stdout[-3000:]
    assert not [ln for ln in lines if ln.startswith("differs")], out.stdout[-3000:]

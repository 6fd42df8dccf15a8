#!/usr/bin/env bash
# Builds and installs scatterkit, shows a short demo of every operator, and
# runs the standard benchmark (bench/bench.py: every workload of
# docs/BENCHMARKS.md against PyTorch and NumPy, at 1 thread and at all
# threads, with the copy bandwidth probe). Extra arguments go to bench.py
# (e.g. --quick). Needs Python 3.9+ with pip and a C compiler; CMake and
# Ninja come from PyPI when the machine has none.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
PY=${PYTHON:-python3}
show() { printf '+ %s\n' "$*"; "$@"; }

printf '\n==== pip: benchmark dependencies and the build of scatterkit (-v: the build'"'"'s own output) ====\n'
show "$PY" -m pip install -v ".[bench]"
printf '\n==== demo of every operator ====\n'
show "$PY" bench/demo.py
printf '\n==== benchmark ====\n'
show "$PY" bench/bench.py "$@"

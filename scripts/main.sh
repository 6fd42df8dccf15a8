#!/usr/bin/env bash
# Builds and installs scatterkit, shows a short demo of every operator, and
# runs the standard benchmark (bench/bench.py: every workload of BENCH.md
# against PyTorch and NumPy, at 1 thread and at all threads, with the copy
# bandwidth probe). Extra arguments go to bench.py (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q ".[bench]"
python3 bench/demo.py
python3 bench/bench.py "$@"

#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh machine:
#   1. builds and installs the Python package with its test extras (torch==2.13.0, ...)
#   2. C unit tests (ctest) against the plain reference in src/ref
#   3. the same C tests again, built by Clang, under AddressSanitizer +
#      UndefinedBehaviorSanitizer (fatal); then the fuzz target for 60 s
#   4. install test: cmake --install, then the C example built with find_package and pkg-config
#   5. pytest: every operator against PyTorch, hypothesis, errors, ONNX node tests, onnxruntime
# It starts with the layer rule (includes, calls, call cycles) and the size rule
# of docs/DESIGN.md (scripts/check_layers.py, scripts/check_sizes.py).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

step() { printf '\n==== %s ====\n' "$*"; }

for tool in pkg-config clang; do
  command -v "$tool" >/dev/null 2>&1 && continue
  step "installing $tool (Debian)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null
  else
    echo "$tool is missing: install it (apt-get install $tool)" >&2
    exit 1
  fi
done

step "layer and size rules (docs/DESIGN.md)"
python3 scripts/check_layers.py
python3 scripts/check_sizes.py

step "pip install .[test]"
python3 -m pip install -q ".[test]"

step "C tests (Release)"
cmake -S . -B build/ctest -G Ninja -DCMAKE_BUILD_TYPE=Release -DSK_BUILD_TESTS=ON >/dev/null
cmake --build build/ctest -j "$JOBS"
ctest --test-dir build/ctest --output-on-failure -j "$JOBS"

step "C tests under AddressSanitizer + UndefinedBehaviorSanitizer (Clang; UBSan fatal)"
# Clang here, GCC above: both compilers build and pass. SK_FUZZ adds
# libFuzzer's coverage, so this build also gives the fuzz target below.
CC=clang cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
  -DSK_SANITIZE=ON -DSK_FUZZ=ON -DSK_BUILD_TESTS=ON >/dev/null
cmake --build build/asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$JOBS"

step "fuzz target (tests/fuzz: libFuzzer + ASan + UBSan), 60 s from the seed corpus"
FUZZ_BUILD=build/asan FUZZ_NO_BUILD=1 bash scripts/fuzz.sh 60

step "install test (find_package and pkg-config)"
# installs the Release build of step 2 (reconfigured with a temporary prefix)
SK_INSTALL_BUILD_DIR="$PWD/build/ctest" bash tests/install/test_install.sh

step "Python tests (pytest)"
python3 -m pytest tests/python -q -p no:cacheprovider

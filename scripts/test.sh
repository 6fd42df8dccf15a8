#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh machine (needs Python
# 3.9+ with pip, a C compiler and pkg-config; CMake and Ninja come from PyPI):
#   0. the layer and size rules of docs/DESIGN.md (scripts/check_layers.py,
#      scripts/check_sizes.py)
#   1. pip: the test dependencies (torch==2.13.0, onnx, onnxruntime, cmake,
#      ninja, ...), then the build of scatterkit (Release, in parallel), shown
#      as it runs
#   2. the C tests (ctest), built by Clang, under AddressSanitizer +
#      UndefinedBehaviorSanitizer (fatal): every C test, with memory and UB
#      checks (GCC builds them in step 4, and the extension of step 1);
#      then the fuzz target (tests/fuzz) for 30 s from its seed corpus
#   3. install test: cmake --install to a prefix chosen at install time, then
#      the C example built with find_package and with pkg-config
#   4. every C test again, built by GCC (Release, -O3): the CUDA variant where nvcc
#      is (its kernels emulated on the CPU, docs/GPU.md); then every path
#      against the reference once more, built by Clang at -O0 and at -O1
#   5. pytest: every operator against PyTorch, hypothesis, errors, ONNX node
#      tests, onnxruntime, docstring examples, the API reference, links
#   6. the scatter and backward tests again (C and Python) as a 16-CPU machine
#      runs them (SCATTERKIT_CPUS=16: as many thread groups as 16 cores take)
# Each step prints what it runs; the end prints the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
PY=${PYTHON:-python3}

TIMES=()
step_start=$SECONDS
step_name=""
step() {
  if [ -n "$step_name" ]; then TIMES+=("$(printf '%5ds  %s' $((SECONDS - step_start)) "$step_name")"); fi
  step_name=$*
  step_start=$SECONDS
  printf '\n==== %s ====\n' "$*"
}
show() { printf '+ %s\n' "$*"; "$@"; }

for tool in pkg-config clang; do
  command -v "$tool" >/dev/null 2>&1 && continue
  step "installing $tool (Debian)"
  if [ "$(id -u)" = 0 ]; then
    show apt-get update
    show apt-get install -y "$tool"
  else
    echo "$tool is missing: install it (apt-get install $tool)" >&2
    exit 1
  fi
done

step "layer and size rules (docs/DESIGN.md)"
show "$PY" scripts/check_layers.py
show "$PY" scripts/check_sizes.py

step "pip: test dependencies and the build of scatterkit (-v: the build's own output)"
show "$PY" -m pip install -v ".[test]"
# cmake and ninja from PyPI, where the machine has none of its own
scripts=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
user_scripts=$("$PY" -c 'import os, sysconfig; print(sysconfig.get_path("scripts", os.name + "_user"))')
export PATH="$PATH:$scripts:$user_scripts"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

step "C tests under AddressSanitizer + UndefinedBehaviorSanitizer (Clang; UBSan fatal)"
# Clang here, GCC in the step after the install test: both compilers build
# and pass. -g1: line tables only, enough for the sanitizers' stack traces.
# SK_FUZZ adds libFuzzer's coverage, so this build also gives the fuzz
# target below.
CC=clang show cmake -S . -B build/asan "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-g1 -O1" -DSK_SANITIZE=ON -DSK_FUZZ=ON -DSK_BUILD_TESTS=ON
show cmake --build build/asan -j "$JOBS"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
show ctest --test-dir build/asan --output-on-failure -j "$JOBS"
unset ASAN_OPTIONS UBSAN_OPTIONS

step "fuzz target (tests/fuzz: libFuzzer + ASan + UBSan), 30 s from the seed corpus"
FUZZ_BUILD=build/asan FUZZ_NO_BUILD=1 show bash scripts/fuzz.sh 30

step "install test (cmake --install --prefix, find_package and pkg-config)"
SK_JOBS=$JOBS show bash tests/install/test_install.sh "${generator[@]}"

step "C tests built by GCC (Release; with the CUDA variant where nvcc is: docs/GPU.md)"
# Every C test again, from GCC (Release, -O3), so that both compilers build and pass
# them (the sanitizer run above is Clang's). Where nvcc is, this build is the
# CUDA variant for one architecture: its tests include the GPU tester, which
# checks that a CUDA tensor is refused without a GPU (77: skipped), and the
# CUDA backend's host code and kernels run thread after thread on the CPU
# (test_cuda_emulated).
gcc_cc=$(command -v gcc || command -v cc)
cuda=()
if command -v nvcc >/dev/null 2>&1; then
  cuda=(-DSK_CUDA=ON)
else
  echo "nvcc not found: the CUDA variant is not built"
fi
CC=$gcc_cc CUDAARCHS=90-real show cmake -S . -B build/gcc "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DSK_BUILD_TESTS=ON "${cuda[@]}"
show cmake --build build/gcc -j "$JOBS"
show ctest --test-dir build/gcc --output-on-failure -j "$JOBS"

step "every path against the reference, built by Clang at -O0 and -O1"
# The bits of a result must not hang on what an optimiser does: a float32
# amax through double quiets a signalling NaN unless the conversions are
# elided (they are above, not at -O0), and Clang -O1 merged a value passed
# through beside an add into one add of -0.0, which quiets it too (in the
# library and in the reference; CHANGELOG, issue 21, fifteenth session).
# layers.paths forces every path of every table.
for level in O0 O1; do
  CC=clang show cmake -S . -B "build/$level" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_C_FLAGS_DEBUG=-$level" -DSK_BUILD_TESTS=ON
  show cmake --build "build/$level" -j "$JOBS" --target test_paths
  show ctest --test-dir "build/$level" --output-on-failure -R 'layers[.]paths$'
done

step "Python tests (pytest)"
show "$PY" -m pytest tests/python -q -p no:cacheprovider

step "the paths of a 16-CPU machine (SCATTERKIT_CPUS=16), C and Python"
# The scatter paths and the backward take as many groups and walkers as the
# usable CPUs allow (min(threads, CPUs)): on two CPUs, 3, 7, 16 or 64
# threads run two groups. SCATTERKIT_CPUS=16 (docs/CHOICES.md) counts 16, so
# the tests' thread counts run the groups a 16-core machine would, against
# the same reference bits.
export SCATTERKIT_CPUS=16
# The tests of the paths that count CPUs: owner, owner_chunks, segments*,
# inner_axis and the backward's rows (every path forced: layers.paths).
show ctest --test-dir build/gcc --output-on-failure -j "$JOBS" -R 'layers[.]paths|backward[.]'
many_cpu_tests=()
for t in canonical_order few_keys sorted_runs seg_keys threads inner_axis chunks backward \
         backward_gather nan_bits distributed; do
  many_cpu_tests+=("tests/python/test_$t.py")
done
show "$PY" -m pytest -q -p no:cacheprovider "${many_cpu_tests[@]}"
unset SCATTERKIT_CPUS
step "done"

printf '\nseconds per step:\n'
printf '%s\n' "${TIMES[@]}"
printf '%5ds  total\n' "$SECONDS"

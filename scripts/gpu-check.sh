#!/usr/bin/env bash
# The GPU check (docs/GPU.md): one prepared run on a machine with an NVIDIA
# GPU, nvcc, cmake, ninja, PyTorch CUDA (CuPy optional), no network needed.
#   1. nvidia-smi
#   2. builds the CUDA variant twice, at the same time: the C library with its
#      tests (cmake -DSK_CUDA=ON) and the Python package (SCATTERKIT_CUDA=1 pip
#      install --no-build-isolation into build/gpu-venv, a venv that sees the
#      machine's Python packages), for this GPU only
#   3. C tests on the GPU (ctest: the GPU tester, the CUDA planning, kernel
#      bodies, devices; the CPU emulation is left to scripts/test.sh)
#   4. Python GPU tests (tests/python/test_cuda_*.py: data movement, scatter
#      reductions, backward and autograd, errors; SK_REQUIRE_CUDA=1 makes a
#      missing device a failure, not a skip) and a few CPU suites against the
#      CUDA build
#   5. the GPU benchmark (bench/gpu_bench.py: W1, W7, W9-W12, W2-W6, W8,
#      W13, HOT f32/bf16, W2x8 against PyTorch default and deterministic,
#      copy bandwidth)
#   6. the CPU benchmark on this machine's cores (bench/bench.py at
#      $CPU_THREADS threads, default 2,16; skipped with CPU_THREADS=0)
#   7. compute-sanitizer memcheck over the small subset of the C GPU tester,
#      and over a small subset of the Python scatter tests (the segment
#      kernels: sort, partials, fold, backward)
# Two steps run only when named in GPU_CHECK_STEPS, for CPU measurements on
# the machine's cores without the CUDA build: build-cpu (the Python package
# without CUDA into the same venv, in a fraction of build's time) and
# cpu-extra (the command in $CPU_EXTRA, e.g. bench/ab.py runs, with
# $VPY the venv's python, in the repository root).
# GPU_CHECK_STEPS="build c-tests ..." runs only the steps named (the names
# of the summary). It prints a summary. Every step runs, under its own time limit, even when
# an earlier one fails; the exit status is 1 when any failed. Logs and the
# benchmarks' JSON go to build/gpu-check/, packed into one gpu-check.tgz in
# $OUT when set. Meant to finish in under 7 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG=$ROOT/build/gpu-check
mkdir -p "$LOG"
JOBS=${JOBS:-$(nproc)}
BUDGET=${GPU_CHECK_BUDGET:-480} # seconds for the whole run; each step is cut to what is left
PY=${PYTHON:-python3}
declare -a SUMMARY
FAILED=0

step() { # step NAME SECONDS COMMAND...: runs it, logs it, records PASS/FAIL and seconds
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    case " ${GPU_CHECK_STEPS:-$name} " in *" $name "*) ;; *) return 0 ;; esac # not asked for
    local left=$((BUDGET - SECONDS - 15)) # what the whole run has left, the archive's time kept
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -le 0 ]; then
        SUMMARY+=("$(printf '%-14s %-4s %4ds' "$name" "OUT" 0)") # out of time: counted as failed
        FAILED=1
        return 0
    fi
    printf '\n==== %s ====\n' "$name"
    timeout --kill-after=10 "$limit" bash -c '"$@"' step "$@" 2>&1 | tee "$LOG/$name.log"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 124 ] && echo "$name: stopped after its limit of ${limit}s" | tee -a "$LOG/$name.log"
    local verdict=FAIL
    [ "$rc" = 0 ] && verdict=PASS
    [ "$rc" = 77 ] && verdict=SKIP # a tool this machine lacks: said in the log
    SUMMARY+=("$(printf '%-14s %-4s %4ds' "$name" "$verdict" $((SECONDS - t0)))")
    [ "$verdict" = FAIL ] && FAILED=1
    return 0
}

# This GPU's architecture only (the full build is 80-real;90-real;90-virtual).
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
export CUDAARCHS=${CUDAARCHS:-${CAP:+${CAP}-real}}
export CUDAARCHS=${CUDAARCHS:-90-real}

build_c() {
    cmake -S . -B build/gpu-c -G Ninja -DCMAKE_BUILD_TYPE=Release -DSK_CUDA=ON \
        -DSK_BUILD_TESTS=ON >/dev/null &&
        cmake --build build/gpu-c -j "$JOBS" --target test_cuda test_cuda_plan test_cuda_bodies \
            test_cuda_emulated test_devices
}

make_venv() {
    # A venv made from inside another venv would see the base interpreter's
    # packages, not the machine's torch: a .pth file adds the machine's own.
    local pkgs
    pkgs=$("$PY" -c 'import site, sys; print("\n".join(p for p in sys.path if p.endswith("-packages")))') &&
        "$PY" -m venv --system-site-packages build/gpu-venv &&
        build/gpu-venv/bin/python -c 'import sys, sysconfig; open(sysconfig.get_paths()["purelib"] + "/machine.pth", "w").write(sys.stdin.read())' <<<"$pkgs"
}

build_python() {
    make_venv && SCATTERKIT_CUDA=1 build/gpu-venv/bin/python -m pip install -q --no-build-isolation \
        --no-deps -C build-dir=build/gpu-py .
}

build_both() { # the two builds at once: nvcc dominates both
    build_c >"$LOG/build-c.log" 2>&1 &
    local c=$!
    build_python >"$LOG/build-python.log" 2>&1
    local p=$?
    wait "$c"
    local rc=$?
    tail -n 5 "$LOG/build-c.log" "$LOG/build-python.log"
    [ "$rc" = 0 ] && [ "$p" = 0 ]
}

sanitize() {
    local cs
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer \
        /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
    [ -n "$cs" ] || { echo "compute-sanitizer not found: memcheck not run"; return 77; }
    "$cs" --tool memcheck --error-exitcode 3 build/gpu-c/tests/c/test_cuda small
}

sanitize_scatter() { # the segment kernels under memcheck: a few small cases
    local cs
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer \
        /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
    [ -n "$cs" ] || { echo "compute-sanitizer not found: memcheck not run"; return 77; }
    cd /tmp && "$cs" --tool memcheck --error-exitcode 3 "$ROOT/build/gpu-venv/bin/python" -m pytest \
        -q -x -p no:cacheprovider "$ROOT/tests/python/test_cuda_scatter.py" \
        "$ROOT/tests/python/test_cuda_scatter_grad.py" \
        -k "(chunk_boundaries and float32 and 257) or index_errors_write_nothing"
}

python_tests() {
    cd /tmp && SK_REQUIRE_CUDA=1 "$ROOT/build/gpu-venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
        "$ROOT"/tests/python/test_cuda_*.py "$ROOT/tests/python/test_input_kinds.py" \
        "$ROOT/tests/python/test_errors.py"
}

bench() {
    cd /tmp && "$ROOT/build/gpu-venv/bin/python" "$ROOT/bench/gpu_bench.py" --runs 20 \
        --json "$LOG/gpu-bench.json"
}

c_tests() { # on the GPU machine a skipped test (no usable device) is a failure
    ctest --test-dir build/gpu-c --output-on-failure -R "cuda|layers.devices" -E emulated |
        tee "$LOG/ctest.out"
    [ "${PIPESTATUS[0]}" = 0 ] && ! grep -q "(Skipped)" "$LOG/ctest.out"
}

build_cpu() {
    # symbols kept for perf (scikit-build-core strips by default)
    make_venv && build/gpu-venv/bin/python -m pip install -q --no-build-isolation --no-deps \
        -C build-dir=build/cpu-py -C install.strip=false .
}

cpu_extra() { VPY=$ROOT/build/gpu-venv/bin/python bash -c "$CPU_EXTRA"; }

cpu_bench() {
    # shellcheck disable=SC2086 # CPU_BENCH_ARGS: more arguments, e.g. --only W2,W5
    cd /tmp && "$ROOT/build/gpu-venv/bin/python" "$ROOT/bench/bench.py" --threads "$CPU_THREADS" \
        --reps "${CPU_REPS:-5}" --out "$LOG/cpu-bench" ${CPU_BENCH_ARGS:-}
}

CPU_EXTRA=${CPU_EXTRA:-}
export -f make_venv build_c build_python build_both build_cpu cpu_extra c_tests sanitize sanitize_scatter \
    python_tests bench cpu_bench
export ROOT LOG JOBS PY CPU_EXTRA
CPU_THREADS=${CPU_THREADS:-2,16}
export CPU_THREADS

step nvidia-smi 30 nvidia-smi
named() { case " ${GPU_CHECK_STEPS:-} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
! named build-cpu || step build-cpu 120 build_cpu
step build 240 build_both
step c-tests 90 c_tests
step python-tests 150 python_tests
step benchmark 120 bench
[ "$CPU_THREADS" = 0 ] || step cpu-benchmark 180 cpu_bench
step memcheck 90 sanitize
step memcheck-scatter 120 sanitize_scatter
! named cpu-extra || step cpu-extra 300 cpu_extra

printf '\n==== summary (CUDAARCHS=%s) ====\n' "$CUDAARCHS"
printf '%s\n' "${SUMMARY[@]}"
[ -f "$LOG/benchmark.log" ] && grep -E "^(device|id|W[0-9]|HOT)" "$LOG/benchmark.log"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then # at most 8 files come back: one archive
    tar -C "$(dirname "$LOG")" -czf "$OUT/gpu-check.tgz" "$(basename "$LOG")"
fi
exit "$FAILED"

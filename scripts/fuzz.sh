#!/usr/bin/env bash
# The fuzz target of tests/fuzz (fuzz.h) run by hand: builds it with Clang
# (libFuzzer, ASan, UBSan; SK_FUZZ=ON) and runs it for SECONDS (default one
# hour) at low priority, from the seed corpus in the repository plus what
# earlier runs found (BUILD/corpus). A finding stops the run and is saved
# as BUILD/findings/crash-*; rerun it with BUILD/tests/fuzz/sk_fuzz_ops FILE.
#   scripts/fuzz.sh [SECONDS] [libFuzzer flags, e.g. -jobs=2 -workers=2]
# FUZZ_BUILD (default build/fuzz) and JOBS as in scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-3600}
shift || true
BUILD=${FUZZ_BUILD:-build/fuzz}
if [ ! -x "$BUILD/tests/fuzz/sk_fuzz_ops" ] || [ -z "${FUZZ_NO_BUILD:-}" ]; then
  CC=${FUZZ_CC:-clang} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSK_FUZZ=ON >/dev/null
  cmake --build "$BUILD" -j "${JOBS:-2}" --target sk_fuzz_ops
fi
mkdir -p "$BUILD/corpus" "$BUILD/findings"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  nice -n "${FUZZ_NICE:-15}" "$BUILD/tests/fuzz/sk_fuzz_ops" "$BUILD/corpus" tests/fuzz/corpus \
  -max_total_time="$SECS" -max_len=512 -timeout=30 -rss_limit_mb=4096 \
  -artifact_prefix="$BUILD/findings/" -print_final_stats=1 "$@"

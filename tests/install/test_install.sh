#!/bin/sh
# Install test: configure and build scatterkit, install it with
# `cmake --install <build> --prefix P` into a prefix P chosen at install time
# (the configure-time prefix points elsewhere, at a folder that never
# exists), build examples/example.c against P two ways - CMake's
# find_package(scatterkit) and pkg-config with a plain cc - and run both.
# Then move the whole install tree and build and run the example again from
# its new place: both the CMake package and scatterkit.pc find their prefix
# from where they lie. Exits nonzero on any failure. Needs cmake, a C
# compiler and pkg-config (Debian/Ubuntu: apt-get install -y pkg-config).
#
# Usage: tests/install/test_install.sh [extra cmake configure arguments]
# The library is built without optimisation or forced inlining (the install
# layout does not depend on it) and without the tests: it takes a fraction of
# a Release build.
# SK_INSTALL_BUILD_DIR names an existing build directory to install instead.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
jobs=${SK_JOBS:-2}
cc=${CC:-cc}

for tool in cmake pkg-config "$cc"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "test_install: '$tool' is not installed" >&2
        exit 1
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/sk-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
configure_prefix="$work/configure-prefix-never-used"
prefix="$work/prefix"

# run LOG CMD...: runs CMD quietly, prints its log when it fails
run() {
    log="$work/$1.log"
    shift
    "$@" >"$log" 2>&1 || { cat "$log"; echo "test_install: failed: $*" >&2; exit 1; }
}

build=${SK_INSTALL_BUILD_DIR:-$work/build}
if [ -z "${SK_INSTALL_BUILD_DIR:-}" ]; then
    echo "== configure and build the library (-O0, no tests) in $build"
    run configure cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O0 -DSK_NO_FORCED_INLINE" \
        -DSK_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$configure_prefix" "$@"
    run build cmake --build "$build" -j "$jobs"
fi
echo "== cmake --install $build --prefix $prefix"
run install cmake --install "$build" --prefix "$prefix"
[ ! -e "$configure_prefix" ] || { echo "test_install: wrote into the configure prefix" >&2; exit 1; }

# check_prefix P: the installed files are there, and the example builds and
# runs against P through find_package and through pkg-config
check_prefix() {
    p=$1
    # the library directory depends on the platform (lib, lib64, lib/<triplet>)
    pc=$(find "$p" -name scatterkit.pc | head -n 1)
    [ -n "$pc" ] || { echo "test_install: scatterkit.pc is not under $p" >&2; exit 1; }
    pcdir=$(dirname "$pc")
    libdir=$(dirname "$pcdir")
    for f in "$p/include/scatterkit.h" "$p/include/scatterkit_dlpack.h" \
             "$libdir/cmake/scatterkit/scatterkitConfig.cmake"; do
        [ -f "$f" ] || { echo "test_install: $f was not installed" >&2; exit 1; }
    done
    if grep -q "$work" "$pc"; then
        echo "test_install: scatterkit.pc names an absolute path:" >&2
        cat "$pc" >&2
        exit 1
    fi

    echo "== example via find_package(scatterkit) from $p"
    rm -rf "$work/example-cmake"
    run example-configure cmake -S "$src/examples" -B "$work/example-cmake" -DCMAKE_PREFIX_PATH="$p"
    run example-build cmake --build "$work/example-cmake"
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/example-cmake/example"

    echo "== example via pkg-config and $cc from $p"
    flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs scatterkit)
    echo "pkg-config --cflags --libs scatterkit: $flags"
    incdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=includedir scatterkit)
    if [ "$(cd "$incdir" && pwd -P)" != "$(cd "$p/include" && pwd -P)" ]; then
        echo "test_install: pkg-config's includedir $incdir is not $p/include" >&2
        exit 1
    fi
    # shellcheck disable=SC2086 # the flags are meant to split
    "$cc" -std=c11 -Wall -Wextra -Werror -o "$work/example-pc" "$src/examples/example.c" $flags
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/example-pc"
}

check_prefix "$prefix"
moved="$work/moved/elsewhere"
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"
echo "== the install tree moved to $moved"
check_prefix "$moved"

echo "test_install: OK"

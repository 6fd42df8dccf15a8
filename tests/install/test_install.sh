#!/bin/sh
# Install test: build and install scatterkit into a temporary prefix, then
# build examples/example.c against the installed copy two ways - CMake's
# find_package(scatterkit) and pkg-config with a plain cc - and run both.
# Exits nonzero on any failure. Needs cmake, a C compiler and pkg-config
# (Debian/Ubuntu: apt-get install -y pkg-config).
#
# Usage: tests/install/test_install.sh [extra cmake configure arguments]
# With SK_INSTALL_BUILD_DIR set to an existing Release build directory (the
# test suite passes its ctest build), that build is reconfigured with the
# temporary prefix and installed instead of building the library again: the
# prefix changes no compile flag, so nothing is recompiled.
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
prefix="$work/prefix"

build=${SK_INSTALL_BUILD_DIR:-$work/build}
echo "== configure, build and install the library into $prefix (build: $build)"
# a build of our own is configured as Release without tests; a given one keeps its settings
fresh="-DCMAKE_BUILD_TYPE=Release -DSK_BUILD_TESTS=OFF"
[ -z "${SK_INSTALL_BUILD_DIR:-}" ] || fresh=""
# shellcheck disable=SC2086  # $fresh is zero or two words
cmake -S "$src" -B "$build" $fresh -DCMAKE_INSTALL_PREFIX="$prefix" "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; exit 1; }
cmake --install "$build" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; exit 1; }

# The library directory depends on the platform (lib, lib64, lib/<triplet>):
# find it from the installed pkg-config file.
pc=$(find "$prefix" -name scatterkit.pc | head -n 1)
if [ -z "$pc" ]; then
    echo "test_install: scatterkit.pc was not installed" >&2
    exit 1
fi
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
for f in "$prefix/include/scatterkit.h" "$libdir/cmake/scatterkit/scatterkitConfig.cmake"; do
    [ -f "$f" ] || { echo "test_install: $f was not installed" >&2; exit 1; }
done

echo "== example via find_package(scatterkit)"
cmake -S "$src/examples" -B "$work/example-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/example-configure.log" 2>&1 || { cat "$work/example-configure.log"; exit 1; }
cmake --build "$work/example-cmake" >"$work/example-build.log" 2>&1 ||
    { cat "$work/example-build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/example-cmake/example"

echo "== example via pkg-config and $cc"
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs scatterkit)
echo "pkg-config --cflags --libs scatterkit: $flags"
# shellcheck disable=SC2086 # the flags are meant to split
"$cc" -std=c11 -Wall -Wextra -Werror -o "$work/example-pc" "$src/examples/example.c" $flags
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/example-pc"

echo "test_install: OK"

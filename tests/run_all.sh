#!/usr/bin/env bash
# run_all.sh - builds webnnc and runs its test suites.  The README's test command and .ci/run both
# call this script, so the two cannot drift.
#
#   tests/run_all.sh [BUILD_DIR [MESON_SETUP_ARGS...]]
#
# BUILD_DIR defaults to ./build (relative to the source root).  WEBNNC_TEST_ARGS adds arguments to
# `meson test` (e.g. "--no-suite e2e" for the unit tests only); WEBNNC_TEST_PRELOAD becomes the
# tests' LD_PRELOAD (not the build's; .ci/run's sanitizer stage uses it).  Exit status: meson test's.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
case "$build" in /*) ;; *) build="$src/$build" ;; esac

for tool in meson ninja pkg-config cc glslc protoc-c /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "run_all.sh: error: '$tool' not found (see README: set-up)" >&2; exit 2; }
done
/usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null ||
    { echo "run_all.sh: error: /usr/bin/python3 lacks onnx/numpy (apt-get install python3-onnx python3-numpy)" >&2; exit 2; }

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" "$@"
fi
ninja -C "$build"
if [ -n "${WEBNNC_TEST_PRELOAD:-}" ]; then export LD_PRELOAD=$WEBNNC_TEST_PRELOAD; fi
# shellcheck disable=SC2086 # WEBNNC_TEST_ARGS is a word list on purpose
meson test -C "$build" --print-errorlogs ${WEBNNC_TEST_ARGS:-}

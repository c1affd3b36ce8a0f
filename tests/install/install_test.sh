#!/usr/bin/env bash
# install_test.sh - the installed library as a user sees it (suite `install`):
#   1. `meson install --destdir` of the build into a temporary folder: libwebnnc.so, the webnnc
#      CLI, include/webnnc/webnnc.h and webnnc.pc are there, and nothing else under include/
#   2. the public header compiles alone with -Werror against only the installed include folder
#      (so it reaches no internal header), as C17 and as C++
#   3. libwebnnc.so exports only webnnc_* symbols
#   4. the README's example equals examples/convert_and_run.c; it builds with
#      `cc $(pkg-config --cflags --libs webnnc)` (PKG_CONFIG_SYSROOT_DIR = the destdir), runs with
#      LD_LIBRARY_PATH, and its logits (argmax per row, sum) and next token equal `webnnc run`'s on
#      the same input (testdata/tiny_decoder/test_data_set_0)
#   5. tests/install/api_checks.c, built the same way: statuses and messages of the API's error
#      paths, fused convert + validate, tensor facts
#   6. `meson setup -Dtests=disabled` configures without Check and registers no tests
#
#   tests/install/install_test.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. install
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
pc=$(find "$dest" -name webnnc.pc | head -1)
lib=$(find "$dest" -name 'libwebnnc.so' | head -1)
exe=$(find "$dest" -path '*/bin/webnnc' | head -1)
header=$(find "$dest" -path '*/include/webnnc/webnnc.h' | head -1)
[ -n "$pc" ] && [ -n "$lib" ] && [ -n "$exe" ] && [ -n "$header" ] || fail "missing from the install: pc=$pc lib=$lib exe=$exe header=$header"
incdir=$(dirname "$(dirname "$header")")
others=$(find "$incdir" -type f ! -path "$header")
[ -z "$others" ] || fail "unexpected installed headers: $others"
echo "installed: ${pc#$dest} ${lib#$dest} ${exe#$dest} ${header#$dest}"

# 2. the public header alone, against only the installed include folder
echo '#include <webnnc/webnnc.h>' >"$tmp/h.c"
cc -std=c17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$incdir" "$tmp/h.c" || fail "webnnc.h does not compile alone (C)"
if command -v c++ >/dev/null; then
    c++ -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$incdir" "$tmp/h.c" || fail "webnnc.h does not compile alone (C++)"
fi
grep -E '^#include' "$header" | grep -vE '<(stddef|stdint)\.h>' && fail "webnnc.h includes a non-standard header"

# 3. exported symbols
leaked=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^webnnc_' || true)
[ -z "$leaked" ] || fail "libwebnnc.so exports non-API symbols: $(echo "$leaked" | head -5 | tr '\n' ' ')"

# 4. the README example, built with pkg-config against the install
example=$src/examples/convert_and_run.c
sed -n '/<!-- example: examples\/convert_and_run.c -->/,/^```$/p' "$src/README.md" | sed '1,2d;$d' >"$tmp/readme.c"
cmp -s "$tmp/readme.c" "$example" || { diff "$tmp/readme.c" "$example" | head; fail "README's example differs from examples/convert_and_run.c"; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs webnnc)
echo "pkg-config --cflags --libs webnnc: $flags"
# a sanitized build (.ci/run's second stage) gives a sanitized library: the example goes with it
san=$(meson introspect --buildoptions "$build" | /usr/bin/python3 -c \
    'import json, sys; print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"), "none"))')
[ "$san" = none ] && san_flags=() || san_flags=("-fsanitize=$san")
cc -std=c17 -Wall -Wextra -Werror "${san_flags[@]}" "$example" $flags -o "$tmp/convert_and_run" || fail "the example does not build"
if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f "$lavapipe" ] && ! "$build/cli/webnnc" devices >/dev/null 2>&1; then
    export VK_ICD_FILENAMES=$lavapipe
fi
LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/convert_and_run" "$src/testdata/tiny_decoder.onnx" "$tmp/out" | tee "$tmp/example.txt"
data=$src/testdata/tiny_decoder/test_data_set_0
LD_LIBRARY_PATH=$(dirname "$lib") "$exe" run "$tmp/out" --inputs "$data" --output-dir "$tmp/cli" >/dev/null 2>&1 || fail "webnnc run"
/usr/bin/python3 - "$tmp/example.txt" "$tmp/cli" <<'PY'
import glob, sys
import numpy as np
lines = open(sys.argv[1]).read().splitlines()
want = np.load(glob.glob(sys.argv[2] + "/*.npy")[0]).astype(np.float64)
argmax = [int(x) for x in lines[1].split(":")[1].split()]
total = float(lines[2].split()[1])
nxt = int(lines[3].split()[2])
assert lines[0].startswith("webnnc "), lines[0]
assert argmax == want[0].argmax(-1).tolist(), (argmax, want[0].argmax(-1).tolist())
assert abs(total - want.sum()) <= 1e-6 * max(1.0, abs(want.sum())), (total, want.sum())
assert nxt == argmax[-1], (nxt, argmax)
print(f"example = webnnc run: argmax {argmax}, sum {total:.9g}, next token {nxt}")
PY

# 5. the API's error paths and the rest of it
cc -std=c17 -Wall -Wextra -Werror "${san_flags[@]}" "$src/tests/install/api_checks.c" $flags -o "$tmp/api_checks" ||
    fail "api_checks.c does not build"
LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/api_checks" "$src/testdata/tiny_decoder.onnx" "$tmp" || fail "api_checks"

# 6. a build without the tests (and without Check): configure only (building it is the same code)
meson setup "$tmp/build-notests" "$src" -Dtests=disabled >"$tmp/setup.log" 2>&1 || { tail "$tmp/setup.log"; fail "meson setup -Dtests=disabled"; }
ntests=$(meson introspect --tests "$tmp/build-notests" | /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[ "$ntests" = 0 ] || fail "-Dtests=disabled still registers $ntests tests"
grep -i 'dependency check' "$tmp/setup.log" || true
echo "meson setup -Dtests=disabled: configured, no tests"
echo PASS

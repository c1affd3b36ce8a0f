#!/bin/sh
# run_fuzzers.sh - runs the libFuzzer harnesses one after another (one process at a time, nice 19),
# each for SECONDS, with its corpus, seeds, dictionary and crash folder kept outside git.
#
# Usage: tests/fuzz/run_fuzzers.sh SECONDS [HARNESS...]      (default: every harness built)
#        tests/fuzz/run_fuzzers.sh --replay [HARNESS...]     each libFuzzer binary over its
#            tests/fuzz/regressions/<h>/ only (-runs=0; CI's smoke test of the clang build)
# Env:   WEBNNC_FUZZ_DIR  work folder (default ~/.cache/webnnc-fuzz): corpus/<h>/ (grows),
#                         seeds/<h>/ (make_seeds.py, made once), crashes/<h>/, logs/<h>.<time>.log
#        WEBNNC_FUZZ_BUILD  clang build with -Dfuzz=true (default build-fuzz)
# Then tests/fuzz/fuzz_report.py "$WEBNNC_FUZZ_DIR" prints execs, coverage, crashes and CPU time per
# harness over every run so far.  A crash input belongs in tests/fuzz/regressions/<h>/ once fixed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WEBNNC_FUZZ_DIR:-$HOME/.cache/webnnc-fuzz}
build=${WEBNNC_FUZZ_BUILD:-$root/build-fuzz}
[ $# -ge 1 ] || { echo "usage: $0 SECONDS|--replay [HARNESS...]" >&2; exit 2; }
secs=$1
shift
if [ $# -eq 0 ]; then
    set -- $(ls "$build/tests/fuzz" | sed -n "s/^fuzz_\([a-z_0-9]*\)$/\1/p")
fi
if [ "$secs" = --replay ]; then
    failed=0
    for h in "$@"; do
        if "$build/tests/fuzz/fuzz_$h" -runs=0 "$here/regressions/$h" >"$build/fuzz-replay-$h.log" 2>&1; then
            echo "ok   fuzz_$h: $(ls "$here/regressions/$h" | grep -vc README) inputs, $(grep -o 'INITED cov: [0-9]*' "$build/fuzz-replay-$h.log")"
        else
            echo "FAIL fuzz_$h (see $build/fuzz-replay-$h.log)" >&2
            failed=1
        fi
    done
    exit $failed
fi
max_len() {
    case $1 in
        npy) echo 4096 ;;
        genai_config | webnn_read) echo 16384 ;;
        onnx_dir | webnn_dir) echo 131072 ;;
        *) echo 65536 ;;
    esac
}
mkdir -p "$work/logs"
if [ ! -d "$work/seeds" ]; then
    # made beside and moved into place whole: a failed make_seeds.py leaves no partial seeds folder
    # that the next run would take as made
    rm -rf "$work/seeds.partial"
    "$root/tests/fuzz/make_seeds.py" "$work/seeds.partial" --webnnc "$build/cli/webnnc" >&2
    mv "$work/seeds.partial" "$work/seeds"
fi
for h in "$@"; do
    bin=$build/tests/fuzz/fuzz_$h
    [ -x "$bin" ] || { echo "$0: $bin not built (ninja -C $build)" >&2; exit 2; }
    mkdir -p "$work/corpus/$h" "$work/crashes/$h" "$work/seeds/$h"
    dict=
    [ -f "$here/dicts/${h%%_*}.dict" ] && dict=-dict=$here/dicts/${h%%_*}.dict # onnx_dir -> onnx.dict
    [ -f "$here/dicts/$h.dict" ] && dict=-dict=$here/dicts/$h.dict
    regress=
    [ -d "$here/regressions/$h" ] && regress=$here/regressions/$h
    log=$work/logs/$h.$(date +%Y%m%d-%H%M%S).log
    echo "fuzz_$h: ${secs}s -> $log" >&2
    # Runs inside the work folder so stray files (libFuzzer's own) stay out of the tree.
    (cd "$work" && nice -n 19 /usr/bin/time -a -o "$log" -f "webnnc-fuzz cpu_seconds: %U %S" "$bin" -max_total_time="$secs" -max_len="$(max_len "$h")" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crashes/$h/" $dict \
        "$work/corpus/$h" "$work/seeds/$h" $regress) >"$log" 2>&1 || echo "fuzz_$h: stopped with a finding, see $log" >&2
done

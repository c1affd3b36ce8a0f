#!/bin/sh
# bad_inputs.sh - end-to-end bad-input suite: generates the corpus with testdata/gen_bad_inputs.py
# into a temporary folder and runs `webnnc convert` on every case; each must exit 2, print exactly
# one line on stderr ("webnnc: error: ..."), and leave no output folder behind.
# Usage: bad_inputs.sh WEBNNC_BINARY GENERATOR_SCRIPT
set -u
webnnc=${1:?usage: bad_inputs.sh WEBNNC_BINARY GENERATOR_SCRIPT}
gen=${2:?usage: bad_inputs.sh WEBNNC_BINARY GENERATOR_SCRIPT}
if [ ! -x "$webnnc" ]; then
    echo "FAIL: webnnc binary '$webnnc' is missing or not executable" >&2
    exit 1
fi
if [ ! -f "$gen" ]; then
    echo "FAIL: generator '$gen' not found" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/webnnc-bad-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
if ! /usr/bin/python3 "$gen" "$work/corpus" >"$work/gen.log" 2>&1; then
    echo "FAIL: generator failed:" >&2
    cat "$work/gen.log" >&2
    exit 1
fi
cases=0
failures=0
tab=$(printf '\t')
while IFS="$tab" read -r name input why; do
    [ -n "$name" ] || continue
    cases=$((cases + 1))
    out="$work/out/$name"
    mkdir -p "$work/out"
    "$webnnc" convert "$work/corpus/$input" -o "$out" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    lines=$(wc -l <"$work/stderr")
    problem=""
    if [ "$rc" -ne 2 ]; then
        problem="exit status $rc, expected 2"
    elif [ "$lines" -ne 1 ]; then
        problem="$lines lines on stderr, expected 1"
    elif ! grep -q '^webnnc: error: ' "$work/stderr"; then
        problem="stderr does not start with 'webnnc: error: '"
    elif [ -e "$out" ]; then
        problem="output folder $out was created"
    elif [ -n "$(ls -A "$work/out")" ]; then
        problem="left files in the output's parent folder: $(ls -A "$work/out" | tr '\n' ' ')"
    fi
    if [ -n "$problem" ]; then
        failures=$((failures + 1))
        echo "FAIL $name ($why): $problem" >&2
        sed 's/^/    stderr: /' "$work/stderr" | head -5 >&2
    else
        echo "ok $name: $(cat "$work/stderr")"
    fi
    rm -rf "$work/out"
done <"$work/corpus/cases.txt"
echo "$cases bad inputs, $failures failures"
if [ "$cases" -eq 0 ]; then
    echo "FAIL: the generator produced no cases" >&2
    exit 1
fi
[ "$failures" -eq 0 ]

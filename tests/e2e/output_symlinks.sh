#!/bin/sh
# output_symlinks.sh - webnnc never writes through a symlink it did not make (issue 15; the write
# side of CVE-2025-51480) and a failed command leaves existing output untouched:
#   1. `run --output-dir DIR` with DIR/logits.npy -> a victim file: the victim keeps its bytes and
#      DIR/logits.npy becomes a real .npy file; a dangling link at an output's name does not create
#      its target;
#   2. `convert -o LINK` where LINK -> a folder: exit 2, one error line, the folder stays empty;
#   3. `convert -o OUT` over a previous output holding a planted symlink: exit 2, nothing replaced;
#   4. a failing convert over a previous output leaves it byte for byte as it was;
#   5. the pipeline cache: a corrupt file is ignored and rewritten, a planted link replaced;
#   6. single output files (`emit-js -o`, `profile --trace`, `view -o`) with a symlink planted at
#      their name: exit 2, one error line, the link and its target untouched.
# Usage: output_symlinks.sh WEBNNC_BINARY SOURCE_ROOT
set -u
webnnc=${1:?usage: output_symlinks.sh WEBNNC_BINARY SOURCE_ROOT}
root=${2:?usage: output_symlinks.sh WEBNNC_BINARY SOURCE_ROOT}
work=$(mktemp -d "${TMPDIR:-/tmp}/webnnc-links-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
check() { # check CONDITION-STATUS WHAT
    if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2" >&2; failures=$((failures + 1)); fi
}
one_error_line() { # exit status 2 and exactly one "webnnc: error:" line on stderr
    [ "$1" -eq 2 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && grep -q '^webnnc: error: ' "$work/stderr"
}
printf precious >"$work/victim"
"$webnnc" convert "$root/testdata/tiny_decoder.onnx" -o "$work/model" >/dev/null 2>"$work/stderr"
check $? "convert tiny_decoder"

mkdir "$work/res"
ln -s "$work/victim" "$work/res/logits.npy"
"$webnnc" run "$work/model" --random --output-dir "$work/res" >/dev/null 2>"$work/stderr"
check $? "run --output-dir with planted links"
[ "$(cat "$work/victim")" = precious ]
check $? "run: the victim behind res/logits.npy is untouched"
[ -f "$work/res/logits.npy" ] && [ ! -L "$work/res/logits.npy" ] && head -c 6 "$work/res/logits.npy" | grep -q NUMPY
check $? "run: res/logits.npy is a real .npy file"
rm "$work/res/logits.npy"
ln -s "$work/created-through-link" "$work/res/logits.npy"
"$webnnc" run "$work/model" --random --output-dir "$work/res" >/dev/null 2>"$work/stderr"
check $? "run --output-dir with a dangling link at logits.npy"
[ ! -e "$work/created-through-link" ] && [ -f "$work/res/logits.npy" ] && [ ! -L "$work/res/logits.npy" ]
check $? "run: the dangling link's target is not created, logits.npy is a real file"
[ -z "$(ls -A "$work/res" | grep '^\.')" ]
check $? "run: no temporary files left"

mkdir "$work/elsewhere"
ln -s "$work/elsewhere" "$work/linkout"
"$webnnc" convert "$root/testdata/tiny_decoder.onnx" -o "$work/linkout" >/dev/null 2>"$work/stderr"
one_error_line $? && [ -z "$(ls -A "$work/elsewhere")" ]
check $? "convert -o SYMLINK: refused, the linked folder stays empty ($(cat "$work/stderr"))"

sums() { (cd "$work/model" && ls -la --time-style=+ . && cat ./* | cksum); }
before=$(sums)
ln -s "$work/victim" "$work/model/model.webnn"
"$webnnc" convert "$root/testdata/tiny_decoder.onnx" -o "$work/model" --text >/dev/null 2>"$work/stderr"
one_error_line $? && [ "$(cat "$work/victim")" = precious ]
check $? "convert over an output holding a planted link: refused, victim untouched ($(cat "$work/stderr"))"
rm "$work/model/model.webnn"

printf 'not a model' >"$work/bad.onnx"
"$webnnc" convert "$work/bad.onnx" -o "$work/model" >/dev/null 2>"$work/stderr"
one_error_line $? && [ "$(sums)" = "$before" ]
check $? "failed convert leaves the previous output as it was"
[ -z "$(ls -A "$work" | grep 'tmp-')" ]
check $? "no temporary folders left"
# Pipeline cache: a corrupt cache file is ignored and rewritten, a planted link replaced.
export XDG_CACHE_HOME="$work/cache"
unset WEBNNC_NO_PIPELINE_CACHE
"$webnnc" run "$work/model" --random >/dev/null 2>"$work/stderr"
check $? "run fills the pipeline cache"
set -- "$work/cache/webnnc"/*.bin
[ $# -ge 2 ] && [ "$(head -c 4 "$1")" = WNPC ]
check $? "cache files ($#) start with the WNPC header"
printf 'WNPC-corrupted-cache' >"$1"
rm "$2" && ln -s "$work/victim" "$2"
"$webnnc" run "$work/model" --random >/dev/null 2>"$work/stderr"
check $? "run with a corrupt cache file and a planted link in the cache"
[ "$(cat "$1")" != WNPC-corrupted-cache ] && [ "$(head -c 4 "$1")" = WNPC ]
check $? "the corrupt cache file was rewritten"
[ ! -L "$2" ] && [ "$(cat "$work/victim")" = precious ]
check $? "the planted cache link was replaced, its target untouched"
# Single output files, written atomically (outfile_write_atomic): a planted link is refused.
for out in emit-js:module.js profile:trace.json view:graph.html; do
    cmd=${out%%:*} name=${out#*:}
    ln -sf "$work/victim" "$work/$name"
    case $cmd in
    emit-js) "$webnnc" emit-js "$work/model" -o "$work/$name" >/dev/null 2>"$work/stderr" ;;
    profile) # a decoder with KV caches (tiny_decoder has none, so no decode steps)
        decoder="$root/../shared/models/qwen2-int4-webgpu"
        if [ ! -d "$decoder" ]; then
            echo "missing $decoder (../shared)" >"$work/stderr"
            [ "${CI:-}" = true ] && check 1 "profile --trace: the corpus decoder $decoder is missing"
            continue
        fi
        "$webnnc" profile "$decoder" --prompt-len 4 --new 2 --trace "$work/$name" >/dev/null 2>"$work/stderr" ;;
    view) "$webnnc" view "$work/model" -o "$work/$name" >/dev/null 2>"$work/stderr" ;;
    esac
    one_error_line $? && grep -q "not replacing it" "$work/stderr" && [ -L "$work/$name" ] && [ "$(cat "$work/victim")" = precious ]
    check $? "$cmd over a planted link: refused, link and victim untouched ($(cat "$work/stderr"))"
done
echo "$failures failures"
[ "$failures" -eq 0 ]

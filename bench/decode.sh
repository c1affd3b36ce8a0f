#!/bin/bash
# bench/decode.sh - the issue #5 GPU decode benchmark, unattended: generates a full-size ORT-GenAI-shaped
# model with random weights (bench/make_genai_model.py, default the Qwen2-0.5B shape, int4, target
# webgpu), converts it once, then times greedy decoding with `webnnc generate` (the KV caches stay on
# the device) on the spec-only baseline (--fuse none) and fused (--fuse all; when that fails, its
# error is printed and the next list of FALLBACKS that works is used), and a PyTorch baseline of the
# same shape (bench/torch_decode.py: transformers, random init, fp16, dynamic and static cache).
# generate prints TTFT (prefill of the prompt + first token) and decode tokens/s on stderr; every
# configuration runs REPEAT times (the first includes pipeline creation), all lines are printed and
# the last run of each goes into the summary.
#   usage: bench/decode.sh [WEBNNC_BINARY]            (default build/cli/webnnc)
#   env:   MODELS=DIR   model cache (default ${TMPDIR:-/tmp}/webnnc-decode; regenerated when missing)
#          PRESET=qwen2-0.5b PRECISION=int4 TARGET=webgpu   make_genai_model.py arguments
#          PROMPT=1,17,42,99,7,300,512,8 MAX_NEW=64 REPEAT=2 FUSE=all
#          DIMS="--dim sequence_length=64 --dim total_sequence_length=256"   convert bounds (the
#               KV-cache capacity; the preset's max_length would size buffers for 32768 tokens)
#          TORCH=0 skips the PyTorch baseline (run with python3: the one with torch + transformers);
#          PY=python for make_genai_model.py;  OUT=DIR also writes summary.txt there
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/cli/webnnc}
models=${MODELS:-${TMPDIR:-/tmp}/webnnc-decode}
preset=${PRESET:-qwen2-0.5b}
precision=${PRECISION:-int4}
target=${TARGET:-webgpu}
prompt=${PROMPT:-1,17,42,99,7,300,512,8}
max_new=${MAX_NEW:-64}
repeat=${REPEAT:-2}
fuse=${FUSE:-all}
dims=${DIMS:---dim sequence_length=64 --dim total_sequence_length=256}
fallbacks=${FALLBACKS:-matmulNBits,gqa,rmsNorm,rotary,silu,qkv matmulNBits,gqa,rmsNorm,rotary,silu matmulNBits,gqa,rmsNorm,rotary matmulNBits,gqa matmulNBits}
# the model generator needs numpy + onnx: PY, else the first python3 that has them
py=${PY:-python3}
"$py" -c 'import numpy, onnx' 2>/dev/null || py=/usr/bin/python3
src="$models/$preset-$precision-$target"
out="$models/$preset-$precision-$target.webnn"
summary=()

[ -x "$bin" ] || { echo "decode.sh: no webnnc binary at $bin" >&2; exit 2; }
echo "== webnnc devices"
"$bin" devices || exit 2

if [ ! -f "$src/model.onnx" ]; then
    echo "== make_genai_model.py --preset $preset --precision $precision --target $target"
    mkdir -p "$models"
    start=$(date +%s.%N)
    "$py" "$here/make_genai_model.py" --preset "$preset" --precision "$precision" --target "$target" \
        --no-test-inputs "$src.tmp" || exit 1
    rm -rf "$src" && mv "$src.tmp" "$src"
    echo "generated in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi
echo "== webnnc convert $src -o $out $dims"
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$bin" convert "$src" -o "$out" $dims || exit 1
echo "converted in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

# run_generate FUSE: REPEAT runs of webnnc generate; 0 when all succeeded (last stderr line in $last)
last=
run_generate() {
    local f=$1 i log ids
    for i in $(seq 1 "$repeat"); do
        echo "-- $bin generate $out --prompt-ids $prompt --max-new $max_new --fuse $f   (run $i)"
        if ! log=$("$bin" generate "$out" --prompt-ids "$prompt" --max-new "$max_new" --fuse "$f" 2>&1); then
            echo "$log"
            last=$(echo "$log" | grep -m1 'error' || echo "$log" | tail -1)
            return 1
        fi
        echo "$log"
        ids=$(echo "$log" | grep -E '^[0-9]+(,[0-9]+)*$' | head -c 48)
        last="$(echo "$log" | grep 'tokens/s' | sed 's/^webnnc: //'); ids $ids..."
    done
    return 0
}

echo "== webnnc generate, spec-only baseline (--fuse none)"
if run_generate none; then summary+=("webnnc --fuse none: $last"); else summary+=("webnnc --fuse none FAILED: $last"); fi
echo "== webnnc generate --fuse $fuse"
if run_generate "$fuse"; then
    summary+=("webnnc --fuse $fuse: $last")
else
    summary+=("webnnc --fuse $fuse FAILED: $last")
    for f in $fallbacks; do
        echo "== fallback: --fuse $f"
        if run_generate "$f"; then summary+=("webnnc --fuse $f (best working list): $last"); break; fi
        summary+=("webnnc --fuse $f FAILED: $last")
    done
fi

if [ "${TORCH:-1}" != 0 ]; then
    echo "== PyTorch baseline: python3 $here/torch_decode.py --prompt-ids $prompt --max-new $max_new --preset $preset"
    if tlog=$(python3 "$here/torch_decode.py" --prompt-ids "$prompt" --max-new "$max_new" --preset "$preset" 2>&1); then
        echo "$tlog"
        while IFS= read -r l; do summary+=("$l"); done < <(echo "$tlog" | grep '^torch ')
    else
        echo "$tlog" | tail -5
        summary+=("torch baseline FAILED: $(echo "$tlog" | tail -1)")
    fi
fi

echo "== summary ($preset $precision $target, prompt $prompt, $max_new new tokens)"
printf '%s\n' "${summary[@]}" | tee ${OUT:+"$OUT/summary.txt"}

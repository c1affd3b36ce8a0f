#!/bin/bash
# bench/decode.sh - the issue 9 GPU decode benchmark, unattended: generates a full-size ORT-GenAI-shaped
# model with random weights (bench/make_genai_model.py, default the Qwen2-0.5B shape, int4, target
# webgpu), converts it once (the spec-only baseline graph), then for every fusion ladder stage
# (Baseline = --fuse none, +matmulNBits, +GQA, +norms and rotary, +silu, +qkv and gatedMlp = fully
# fused; the stages of `webnnc ladder`, passes/pipeline_plan.c) times greedy decoding with
# `webnnc generate --fuse LIST` (KV caches on the device) at prompt lengths 8, 128 and 512 (ids
# (1 + 7919 k) mod vocab): TTFT at 8 and 512 prompt tokens, decode tokens/s at contexts 128 and 512
# (MAX_NEW tokens after a prompt of that length).  PyTorch runs the same shape (bench/torch_decode.py:
# transformers, random init, fp16; eager, static cache, compiled static cache).  Every webnnc
# configuration runs REPEAT times (the first includes pipeline creation), the last run counts.
# bench/decode_report.py prints one markdown table and writes decode.json + decode.md (with device,
# driver and versions) into OUT.
#   usage: bench/decode.sh [WEBNNC_BINARY]            (default build/cli/webnnc)
#   env:   MODELS=DIR   model cache (default ${TMPDIR:-/tmp}/webnnc-decode; regenerated when missing)
#          OUT=DIR      results (default MODELS)
#          PRESET=qwen2-0.5b PRECISION=int4 TARGET=webgpu   make_genai_model.py arguments
#          LENGTHS="8 128 512" MAX_NEW=64 REPEAT=2
#          STAGES="none matmulNBits ..."   --fuse lists (default: the ladder, cumulative)
#          DIMS="--dim sequence_length=512 --dim total_sequence_length=1024"   convert bounds (the
#               KV-cache capacity; the preset's max_length would size buffers for 32768 tokens)
#          PROFILE=1 also saves `webnnc profile --json` of every stage (PROFILE_LEN, default the second
#               length: 128) as OUT/profile-STAGE.json and prints bench/fused_table.py's tables of
#               what each stage's fused ops replaced (prefill and decode GPU time per step) into OUT/fused.md
#          TORCH=0 skips PyTorch (run with python3: the one with torch + transformers);
#          TORCH_MODES=eager,static,compiled;  PY=python for make_genai_model.py
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/cli/webnnc}
models=${MODELS:-${TMPDIR:-/tmp}/webnnc-decode}
out_dir=${OUT:-$models}
preset=${PRESET:-qwen2-0.5b}
precision=${PRECISION:-int4}
target=${TARGET:-webgpu}
lengths=${LENGTHS:-8 128 512}
max_new=${MAX_NEW:-64}
repeat=${REPEAT:-2}
dims=${DIMS:---dim sequence_length=512 --dim total_sequence_length=1024}
ladder="matmulNBits,gatherBlockQuantized gqa rmsNorm,rotary silu qkv,gatedMlp" # patterns each stage adds (pipeline_plan.c)
if [ -z "${STAGES:-}" ]; then
    STAGES=none acc=
    for s in $ladder; do acc=${acc:+$acc,}$s; STAGES="$STAGES $acc"; done
fi
# the model generator needs numpy + onnx: PY, else the first python3 that has them
py=${PY:-python3}
"$py" -c 'import numpy, onnx' 2>/dev/null || py=/usr/bin/python3
src="$models/$preset-$precision-$target"
model="$models/$preset-$precision-$target.webnn"
runs="$out_dir/decode-runs.tsv"

[ -x "$bin" ] || { echo "decode.sh: no webnnc binary at $bin" >&2; exit 2; }
mkdir -p "$models" "$out_dir" || exit 2
echo "== webnnc devices"
"$bin" devices | tee "$out_dir/devices.txt" || exit 2

if [ ! -f "$src/model.onnx" ]; then
    echo "== make_genai_model.py --preset $preset --precision $precision --target $target"
    "$py" "$here/make_genai_model.py" --preset "$preset" --precision "$precision" --target "$target" \
        --no-test-inputs "$src.tmp" || exit 1
    rm -rf "$src" && mv "$src.tmp" "$src"
fi
echo "== webnnc convert $src -o $model $dims"
# shellcheck disable=SC2086
"$bin" convert "$src" -o "$model" $dims || exit 1
vocab=$("$bin" inspect "$model" --json | "$py" -c '
import json, sys
j = json.load(sys.stdin)
print(next(o["shape"][-1] for o in j["outputs"] if "logits" in o["name"]))' 2>/dev/null) || vocab=32000
read -r -a lens <<< "$lengths"
profile_len=${PROFILE_LEN:-${lens[1]:-${lens[0]}}}
ids() { awk -v n="$1" -v v="$vocab" 'BEGIN { for (k = 0; k < n; k++) printf "%s%d", k ? "," : "", (1 + 7919 * k) % v }'; }

# one line per run: stage fuse prompt run exit "last stderr line" "first ids"
printf 'stage\tfuse\tprompt\trun\texit\tline\tids\n' > "$runs"
stage=0
for fuse in $STAGES; do
    for len in $lengths; do
        for i in $(seq 1 "$repeat"); do
            echo "-- generate --fuse $fuse, prompt $len, --max-new $max_new (run $i)"
            log=$("$bin" generate "$model" --prompt-ids "$(ids "$len")" --max-new "$max_new" --fuse "$fuse" 2>&1)
            rc=$?
            line=$(echo "$log" | grep -m1 -E 'tokens/s|error' || echo "$log" | tail -1)
            first=$(echo "$log" | grep -m1 -E '^[0-9]+(,[0-9]+)*$' | cut -d, -f1-8)
            echo "$line"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$stage" "$fuse" "$len" "$i" "$rc" "$line" "$first" >> "$runs"
        done
    done
    if [ "${PROFILE:-0}" = 1 ]; then
        "$bin" profile "$model" --prompt-len "$profile_len" --new 16 --fuse "$fuse" --json > "$out_dir/profile-$stage.json" ||
            echo "profile --fuse $fuse failed"
    fi
    stage=$((stage + 1))
done

torch_json="$out_dir/torch.json"
rm -f "$torch_json"
if [ "${TORCH:-1}" != 0 ]; then
    echo "== PyTorch: python3 $here/torch_decode.py --prompt-lens ${lengths// /,} --max-new $max_new --preset $preset"
    if python3 "$here/torch_decode.py" --prompt-lens "${lengths// /,}" --max-new "$max_new" --preset "$preset" \
        --modes "${TORCH_MODES:-eager,static,compiled}" > "$out_dir/torch.log" 2>&1; then
        grep -v '^{' "$out_dir/torch.log"
        grep '^{' "$out_dir/torch.log" | tail -1 > "$torch_json"
    else
        tail -5 "$out_dir/torch.log"
    fi
fi

echo "== report"
driver=$(head -1 /proc/driver/nvidia/version 2>/dev/null || true)
"$py" "$here/decode_report.py" --runs "$runs" --devices "$out_dir/devices.txt" ${torch_json:+--torch "$torch_json"} \
    --webnnc "$("$bin" --version)" --driver "$driver" --model "$preset $precision $target" --max-new "$max_new" \
    --dims "$dims" --out "$out_dir"
status=$? # 1: some configuration generated other ids than the baseline
if [ "${PROFILE:-0}" = 1 ]; then
    echo "== fused against replaced (bench/fused_table.py)"
    "$py" "$here/fused_table.py" "$out_dir" || echo "fused_table.py failed"
fi
exit $status

#!/usr/bin/env bash
# genai_scale.sh - scale figures on full-size ORT-GenAI-shaped models with random weights
# (bench/make_genai_model.py): Qwen2-0.5B int4 dml / webgpu and SmolLM-135M int4 dml, plus the tiny
# preset as a self-check against the shared corpus.  Steps:
#   1. generate the models into a cache outside the repository (regenerated when the generator changes)
#   2. tiny preset (qwen2, llama x int4/fp16/fp32 x dml/webgpu/cpu): structure equal to the corpus
#      model of the same name (make_genai_model.py --compare: nodes, attributes, I/O, initializers,
#      value_info, rotary caches, genai_config.json)
#   3. full-size node counts and op histograms equal the figures of ../shared/models/README.md
#   4. ONNX Runtime (onnxruntime-node, CPU, optimizations off) runs one prefill step of the tiny and
#      full-size models (testdata/make_refs.mjs); outputs must be finite, logits [1, 8, vocab]
#   5. webnnc convert (wall time, peak RSS, WebNN nodes), webnnc inspect, webnnc ladder, and
#      webnnc convert --fuse all, whose node count must equal the ladder's last row
# Prints one summary table; exit 0 all passed, 1 a check failed, 77 nothing failed but a step was
# skipped (no ../shared corpus, no onnxruntime-node): a skipped check is never reported as passed.
#
#   bench/genai_scale.sh [BUILD_DIR]      (default: build)
# Environment: MODELS_DIR (cache, default ${TMPDIR:-/tmp}/webnnc-models), ORT_NODE_ROOT (folder whose
# node_modules has onnxruntime-node, default /tmp/ortnpm; install it there with
# `npm install --ignore-scripts onnxruntime-node`), SHARED (default ../shared next to the repository).
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
webnnc=$build/cli/webnnc
gen=$src/bench/make_genai_model.py
cache=${MODELS_DIR:-${TMPDIR:-/tmp}/webnnc-models}
ort_root=${ORT_NODE_ROOT:-/tmp/ortnpm}
shared=${SHARED:-$src/../shared}
py=/usr/bin/python3
[ -x "$webnnc" ] || { echo "genai_scale.sh: error: $webnnc not built (ninja -C $build cli/webnnc)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "genai_scale.sh: error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
case $cache in "$src"|"$src"/*) echo "genai_scale.sh: error: MODELS_DIR must be outside the repository" >&2; exit 2 ;; esac
mkdir -p "$cache" || exit 2

failed=0 skipped=0
pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; failed=$((failed + 1)); }
skip() { echo "SKIP  $*"; skipped=$((skipped + 1)); }

# generate NAME ARGS...: $cache/NAME, rebuilt when the generator or its arguments changed
generate() {
    local name=$1 dir=$cache/$1
    shift
    local stamp
    stamp="$(sha256sum "$gen" | cut -d' ' -f1) $*"
    if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ]; then return 0; fi
    rm -rf "$dir"
    "$py" "$gen" "$@" "$dir" >/dev/null || { fail "generate $name ($*)"; return 1; }
    echo "$stamp" >"$dir/.stamp"
}

# ---- 1+2. tiny preset against the corpus ---------------------------------------------------------
echo "== tiny preset vs the shared corpus (structure)"
if [ -d "$shared/models" ]; then
    for arch in qwen2 llama; do
        for pt in int4-dml int4-webgpu int4-cpu fp16-dml fp16-webgpu fp32-cpu; do
            name=tiny-$arch-$pt
            generate "$name" --preset tiny --arch "$arch" --precision "${pt%-*}" --target "${pt#*-}" || continue
            if out=$("$py" "$gen" --compare "$cache/$name/model.onnx" "$shared/models/$arch-$pt/model.onnx" 2>&1); then
                pass "$name == corpus $arch-$pt ($(echo "$out" | grep -c ' equal$') sections equal)"
            else
                fail "$name differs from corpus $arch-$pt:"; printf '      %s\n' "$out"
            fi
        done
    done
else
    skip "tiny preset comparison: no corpus at $shared/models (set SHARED)"
    generate tiny-qwen2-int4-dml --preset tiny --arch qwen2 --precision int4 --target dml
fi

# ---- 1+3. full-size models and the README's figures ------------------------------------------------
echo "== full-size models: node counts and op histograms"
# name | generator arguments | expected "N nodes" and histogram entries (models/README.md)
full_models=(
    "qwen2-0.5b-int4-dml|--preset qwen2-0.5b --target dml|373 nodes|MatMulNBitsx169 RotaryEmbeddingx48 GroupQueryAttentionx24 SkipSimplifiedLayerNormalizationx48"
    "qwen2-0.5b-int4-webgpu|--preset qwen2-0.5b --target webgpu|277 nodes|"
    "smollm-135m-int4-dml|--preset smollm-135m --target dml|463 nodes|"
)
names=()
for entry in "${full_models[@]}"; do
    IFS='|' read -r name args count hist <<<"$entry"
    # shellcheck disable=SC2086 # args is a word list
    generate "$name" $args || continue
    names+=("$name")
    line=$("$py" "$gen" --describe "$cache/$name/model.onnx")
    ok=1
    [[ $line == "$count:"* ]] || ok=0
    for h in $hist; do [[ " ${line//,/ } " == *" $h "* ]] || ok=0; done
    if [ $ok = 1 ]; then pass "$name: $line"; else fail "$name: $line (expected $count ${hist:+with $hist})"; fi
done

# ---- 4. ONNX Runtime prefill --------------------------------------------------------------------
echo "== ONNX Runtime: one prefill step (8 tokens, zero-length past)"
if [ -d "$ort_root/node_modules/onnxruntime-node" ] && command -v node >/dev/null; then
    for name in tiny-qwen2-int4-dml "${names[@]}"; do
        [ -f "$cache/$name/model.onnx" ] || continue
        # make_refs.mjs runs NAME.onnx with NAME/test_data_set_K: a folder of links gives it that layout
        link=$cache/ort-$name
        rm -rf "$link" && mkdir -p "$link"
        ln -s "../$name/model.onnx" "$link/model.onnx"
        ln -s "../$name/model.onnx.data" "$link/model.onnx.data"
        ln -s "../$name" "$link/model"
        rm -f "$cache/$name"/test_data_set_0/output_*.pb
        if log=$(cd "$src" && MODELS_DIR=$link /usr/bin/time -f "ort: %e s, peak RSS %M KB" \
                 node testdata/make_refs.mjs "$ort_root" 2>&1) \
           && check=$("$py" "$gen" --check-outputs "$cache/$name/test_data_set_0" 2>&1); then
            pass "ORT $name: ${check#*: } ($(echo "$log" | grep '^ort:'))"
        else
            fail "ORT $name:"; echo "$log" "${check:-}" | tail -5 | sed 's/^/      /'
        fi
    done
else
    skip "ONNX Runtime step: no onnxruntime-node under $ort_root (npm install --ignore-scripts onnxruntime-node there)"
fi

# ---- 5. webnnc convert / inspect / ladder -------------------------------------------------------
echo "== webnnc convert, inspect, ladder"
declare -A onnx_nodes webnn_nodes convert_stats ladders fused_nodes
for name in tiny-qwen2-int4-dml "${names[@]}"; do
    [ -f "$cache/$name/model.onnx" ] || continue
    out=$cache/out-$name
    onnx_nodes[$name]=$("$webnnc" inspect "$cache/$name" --json 2>/dev/null | "$py" -c 'import json,sys; print(json.load(sys.stdin)["nodes"])' 2>/dev/null || echo "?")
    if log=$(/usr/bin/time -f "time %e s, peak RSS %M KB" "$webnnc" convert "$cache/$name" -o "$out" 2>&1); then
        webnn_nodes[$name]=$("$webnnc" inspect "$out" --json | "$py" -c 'import json,sys; print(json.load(sys.stdin)["nodes"])')
        convert_stats[$name]=$(echo "$log" | grep '^time')
        pass "convert $name: $(echo "$log" | grep '^converted' | sed 's/^converted [^:]*: //'); ${convert_stats[$name]}"
    else
        webnn_nodes[$name]="-"
        fail "convert $name: $(echo "$log" | grep -m1 'error')"
        continue
    fi
    # the ladder of the ONNX model (origin = ONNX nodes); the converted graph's ladder when that fails
    # convert's genai_config defaults, spelled out (ladder has no genai_config reader of its own)
    read -r head max < <("$py" -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["model"]["decoder"]["head_size"], c["search"]["max_length"])' "$cache/$name/genai_config.json")
    if lad=$("$webnnc" ladder "$cache/$name" --json --fix batch_size=1 --fix "kv_cache_dim=$head" \
             --dim "sequence_length=$max" --dim "total_sequence_length=$max" --dim "past_sequence_length=$max" 2>&1); then
        ladders[$name]="onnx: $lad"
        pass "ladder $name: $lad"
    else
        echo "note  ladder on the ONNX model failed: $lad"
        if lad=$("$webnnc" ladder "$out" --json 2>&1); then
            ladders[$name]="converted graph: $lad"
            pass "ladder $name (of the converted graph): $lad"
        else
            fail "ladder $name: $lad"
        fi
    fi
    # convert --fuse all writes the ladder's last row (its node count), and the output reads back
    fused=$cache/out-fused-$name
    if log=$(/usr/bin/time -f "time %e s, peak RSS %M KB" "$webnnc" convert "$cache/$name" -o "$fused" --fuse all 2>&1) &&
       nodes=$("$webnnc" inspect "$fused" --json | "$py" -c 'import json,sys; print(json.load(sys.stdin)["nodes"])'); then
        last=$(echo "${ladders[$name]#*: }" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["rows"][-1]["nodes"])' 2>/dev/null || echo "?")
        fused_nodes[$name]=$nodes
        if [ "$nodes" = "$last" ]; then
            pass "convert --fuse all $name: $nodes WebNN nodes (= the ladder's last row); $(echo "$log" | grep '^time')"
        else
            fail "convert --fuse all $name: $nodes WebNN nodes, the ladder's last row has $last"
        fi
    else
        fail "convert --fuse all $name: $(echo "$log" | grep -m1 'error')"
    fi
    rm -rf "$fused"
done

echo
echo "== summary (models in $cache)"
printf '%-26s %10s %12s %7s %10s  %s\n' model "ONNX nodes" "WebNN nodes" "fused" "weights" "convert"
for name in tiny-qwen2-int4-dml "${names[@]}"; do
    [ -f "$cache/$name/model.onnx.data" ] || continue
    mb=$(awk -v b="$(stat -c %s "$cache/$name/model.onnx.data")" 'BEGIN { printf "%.1f", b / 1e6 }')
    printf '%-26s %10s %12s %7s %8s MB  %s\n' "$name" "${onnx_nodes[$name]:-?}" "${webnn_nodes[$name]:-?}" \
        "${fused_nodes[$name]:-?}" "$mb" \
        "${convert_stats[$name]:--}"
done
for name in tiny-qwen2-int4-dml "${names[@]}"; do
    [ -n "${ladders[$name]:-}" ] || continue
    echo "ladder $name (${ladders[$name]%%:*}):"
    echo "${ladders[$name]#*: }" | "$py" -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
base = next((r["nodes"] for r in rows if r["stage"] == "Baseline"), 0) or 1
for r in rows:
    print("  %-22s %6d %7.1f%%" % (r["stage"], r["nodes"], 100.0 * r["nodes"] / base))'
done
echo "$failed failed, $skipped skipped"
[ "$failed" -gt 0 ] && exit 1
[ "$skipped" -gt 0 ] && exit 77
exit 0

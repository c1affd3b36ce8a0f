#!/bin/bash
# bench/knobs.sh - A/B of runtime settings (README "Runtime environment variables") on one converted
# model: for every configuration (a space-separated list of NAME=VALUE, "-" for the defaults) runs
# `webnnc generate --fuse FUSE` at each prompt length of LENGTHS and prints one line per
# configuration with TTFT and decode tokens/s per length, and whether its first ids equal the first
# configuration's (a setting that changes tokens is a bug, not a speed-up).  One warm-up run first
# (pipeline creation).  Prompt ids (1 + 7919 k) mod VOCAB, as bench/decode.sh.
#   usage: bench/knobs.sh WEBNNC MODEL_DIR CONFIG...
#   env:   LENGTHS="8 128 512" MAX_NEW=128 FUSE=all VOCAB=151936
#   e.g.:  bench/knobs.sh build-rel/cli/webnnc /tmp/c - WEBNNC_GQA_DEC_CHUNKS=4 WEBNNC_FUSED_PREFILL=tile
set -u
[ $# -ge 3 ] || { sed -n 2,11p "$0" >&2; exit 2; }
bin=$1 model=$2
shift 2
lengths=${LENGTHS:-8 128 512} max_new=${MAX_NEW:-128} fuse=${FUSE:-all} vocab=${VOCAB:-151936}
ids() { awk -v n="$1" -v v="$vocab" 'BEGIN { for (k = 0; k < n; k++) printf "%s%d", k ? "," : "", (1 + 7919 * k) % v }'; }
"$bin" generate "$model" --fuse "$fuse" --prompt-ids "$(ids 8)" --max-new 2 >/dev/null 2>&1
status=0 first=
for cfg in "$@"; do
    settings=()
    [ "$cfg" != - ] && read -r -a settings <<< "$cfg"
    line="$cfg |" got=
    for len in $lengths; do
        out=$(env "${settings[@]}" "$bin" generate "$model" --fuse "$fuse" --prompt-ids "$(ids "$len")" --max-new "$max_new" 2>&1)
        t=$(echo "$out" | grep -m1 -oE '\(TTFT\) [0-9.]+ ms|error.*' | sed 's/(TTFT) //')
        tps=$(echo "$out" | grep -m1 -oE '= [0-9.]+ tokens/s' | sed 's/= //')
        line="$line p$len: $t, ${tps:-failed} |"
        got="$got $(echo "$out" | grep -m1 -E '^[0-9]+(,[0-9]+)*$' | cut -d, -f1-16)"
    done
    [ -z "$first" ] && first=$got
    if [ "$got" != "$first" ]; then line="$line WRONG TOKENS"; status=1; fi
    echo "$line"
done
exit $status

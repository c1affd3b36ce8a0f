#!/bin/bash
# bench/tokenizer.sh - tokenizer speed (issue 10 targets: encode >= 20 MB/s of mixed text on one core,
# load of a 150k-vocab tokenizer.json < 200 ms).  For each tokenizer of ../shared/tokenizers (or the
# folders given), times `webnnc tokenize --file` on a mixed text (English prose, code, digits, CJK,
# accents, emoji; made from the reference cases, repeated to SIZE_MB) and on a tiny text (= load
# time), REPEAT times each, best run counts; pinned to one core with taskset when available.
#   usage: bench/tokenizer.sh [WEBNNC_BINARY] [TOKENIZER_DIR...]     (default build/cli/webnnc)
#   env:   SIZE_MB=8 REPEAT=3
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/cli/webnnc}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("$here"/../../shared/tokenizers/*/)
size_mb=${SIZE_MB:-8}
repeat=${REPEAT:-3}
[ -x "$bin" ] || { echo "tokenizer.sh: no webnnc binary at $bin" >&2; exit 2; }
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# mixed text from every case text of the first tokenizer's cases.jsonl, repeated to size
python3 - "${dirs[0]}/cases.jsonl" "$tmp/mixed.txt" "$size_mb" <<'PY'
import json, sys
texts = [json.loads(l)["text"] for l in open(sys.argv[1], encoding="utf-8") if '"text"' in l]
texts = [t for t in texts if "<|" not in t and "<s>" not in t]  # added-token strings are not prose
prose = ("The quick brown fox jumps over the lazy dog. In 2024, 3.14159 people wrote code like "
         "`for (int i = 0; i < n; i++) sum += a[i];` and said: \"it's fine, isn't it?\" ")
block = (prose + " ".join(texts) + "\n").encode()
want = int(float(sys.argv[3]) * 1e6)
with open(sys.argv[2], "wb") as f:
    f.write(block * (want // len(block) + 1))
PY
printf 'hi' > "$tmp/tiny.txt"
best() { # best wall seconds of REPEAT runs of "$@"
    local b=999999 t0 t1 s
    for _ in $(seq 1 "$repeat"); do
        t0=$(date +%s.%N)
        "${pin[@]}" "$@" > /dev/null || { echo "failed: $*" >&2; echo -1; return; }
        t1=$(date +%s.%N)
        s=$(echo "$t1 - $t0" | bc -l)
        (( $(echo "$s < $b" | bc -l) )) && b=$s
    done
    echo "$b"
}
bytes=$(stat -c %s "$tmp/mixed.txt")
echo "| tokenizer | vocab | load (ms) | encode $((bytes / 1000000)) MB (s) | encode MB/s (excl. load) | ids |"
echo "|---|---:|---:|---:|---:|---:|"
for d in "${dirs[@]}"; do
    name=$(basename "$d")
    vocab=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); v=j['model']['vocab']; print(max(list(v.values()) + [t['id'] for t in j['added_tokens']]) + 1)" "$d/tokenizer.json")
    load=$(best "$bin" tokenize "$d" --file "$tmp/tiny.txt")
    enc=$(best "$bin" tokenize "$d" --file "$tmp/mixed.txt")
    ids=$("$bin" tokenize "$d" --file "$tmp/mixed.txt" | tr ',' '\n' | wc -l)
    mbs=$(echo "$bytes / 1000000 / ($enc - $load)" | bc -l)
    printf '| %s | %s | %.0f | %.2f | %.1f | %s |\n' "$name" "$vocab" "$(echo "$load * 1000" | bc -l)" "$enc" "$mbs" "$ids"
done
echo
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); one core (taskset) when available; best of $repeat"

#!/usr/bin/env bash
# convert.sh - times `webnnc convert` on a ~1 GB fp32 model (bench/make_big_model.py, built on first
# use) with a warm page cache, RUNS times, each run followed by a `dd` copy of the same external
# data file (the kernel's page-cache read + write of the same bytes: the floor for any converter).
# Prints per-run wall/user/sys time, throughput and peak RSS (/usr/bin/time -v), then the median
# and best of each, and checks the medians against the targets (>= 1 GB/s; peak RSS < 200 MB +
# largest tensor).  Exit 1 when a target is missed.
#
#   bench/convert.sh [BUILD_DIR]        (default: build; model and output under $BENCH_DIR,
#                                        default /tmp/webnnc-bench; RUNS, default 5)
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
webnnc=$build/cli/webnnc
bench_dir=${BENCH_DIR:-/tmp/webnnc-bench}
runs=${RUNS:-5}
model=$bench_dir/big/model.onnx
data=$bench_dir/big/model.onnx.data
out=$bench_dir/out
copy=$bench_dir/dd.out
[ -x "$webnnc" ] || { echo "convert.sh: error: $webnnc not built (ninja -C $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "convert.sh: error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "convert.sh: error: RUNS must be a positive integer" >&2; exit 2; }

[ -f "$model" ] || /usr/bin/python3 "$src/bench/make_big_model.py" "$bench_dir/big"
weights=$(stat -c %s "$data")
largest=$((4096 * 4096 * 4)) # make_big_model.py's default tensor
cat "$data" >/dev/null # warm the page cache

logs=$(mktemp -d)
trap 'rm -rf "$logs" "$copy"' EXIT
for i in $(seq "$runs"); do
    rm -rf "$out" "$copy"
    sync # start each run without the previous run's dirty pages being written back
    /usr/bin/time -v "$webnnc" convert "$model" -o "$out" -v 2>"$logs/convert.$i" >/dev/null ||
        { cat "$logs/convert.$i" >&2; exit 2; }
    rm -rf "$out"
    sync
    /usr/bin/time -v dd if="$data" of="$copy" bs=4M status=none 2>"$logs/dd.$i" ||
        { cat "$logs/dd.$i" >&2; exit 2; }
done
rm -rf "$copy"
grep '^webnnc: ' "$logs/convert.$runs" || true

/usr/bin/python3 - "$logs" "$runs" "$weights" "$largest" <<'PY'
import re, statistics, sys
logs, runs, weights, largest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def parse(path):
    log = open(path).read()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", log)
    return {"wall": int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3)),
            "user": float(re.search(r"User time \(seconds\): ([\d.]+)", log).group(1)),
            "sys": float(re.search(r"System time \(seconds\): ([\d.]+)", log).group(1)),
            "rss": int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1)) * 1024}

def line(name, r):
    return (f"{name}: wall {r['wall']:.2f} s (user {r['user']:.2f} s, sys {r['sys']:.2f} s), "
            f"{weights / 1e9 / max(r['wall'], 1e-3):.2f} GB/s, peak RSS {r['rss'] / 1e6:.0f} MB")

res = {tool: [parse(f"{logs}/{tool}.{i}") for i in range(1, runs + 1)] for tool in ("convert", "dd")}
print(f"weights {weights / 1e9:.2f} GB, {runs} runs")
for i in range(runs):
    print(f"  run {i + 1}  " + line("convert", res["convert"][i]) + ";  " + line("dd", res["dd"][i]))
summary = {}
for tool, rs in res.items():
    med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
    best = {k: min(r[k] for r in rs) for k in rs[0]}
    summary[tool] = med
    print(f"{tool:7s} median " + line("", med)[2:])
    print(f"{tool:7s} best   " + line("", best)[2:])
share = summary["dd"]["wall"] / max(summary["convert"]["wall"], 1e-3)
print(f"the dd copy of the same bytes takes {100 * share:.0f}% of convert's median wall time")
gbps = weights / 1e9 / max(summary["convert"]["wall"], 1e-3)
rss_limit = 200e6 + largest
ok_speed, ok_rss = gbps >= 1.0, summary["convert"]["rss"] < rss_limit
print(f"target throughput >= 1.00 GB/s (median): {'met' if ok_speed else 'MISSED'}; "
      f"target peak RSS < {rss_limit / 1e6:.0f} MB (median): {'met' if ok_rss else 'MISSED'}")
sys.exit(0 if ok_speed and ok_rss else 1)
PY

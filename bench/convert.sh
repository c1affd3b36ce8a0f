#!/usr/bin/env bash
# convert.sh - times `webnnc convert` on a ~1 GB fp32 model (bench/make_big_model.py, built on first
# use) with a warm page cache, and prints wall time, weight throughput and peak RSS against the
# targets (>= 1 GB/s; peak RSS < 200 MB + largest tensor).  Exit 1 when a target is missed.
#
#   bench/convert.sh [BUILD_DIR]        (default: build; model and output under $BENCH_DIR,
#                                        default /tmp/webnnc-bench)
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build}
webnnc=$build/cli/webnnc
bench_dir=${BENCH_DIR:-/tmp/webnnc-bench}
model=$bench_dir/big/model.onnx
out=$bench_dir/out
[ -x "$webnnc" ] || { echo "convert.sh: error: $webnnc not built (ninja -C $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "convert.sh: error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }

[ -f "$model" ] || /usr/bin/python3 "$src/bench/make_big_model.py" "$bench_dir/big"
weights=$(stat -c %s "$bench_dir/big/model.onnx.data")
largest=$((4096 * 4096 * 4)) # make_big_model.py's default tensor
cat "$bench_dir/big/model.onnx.data" >/dev/null # warm the page cache
rm -rf "$out"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
/usr/bin/time -v "$webnnc" convert "$model" -o "$out" -v 2>"$log" || { cat "$log" >&2; exit 2; }
grep '^webnnc: ' "$log" || true

/usr/bin/python3 - "$log" "$weights" "$largest" <<'PY'
import re, sys
log, weights, largest = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", log)
seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1)) * 1024
user = float(re.search(r"User time \(seconds\): ([\d.]+)", log).group(1))
system = float(re.search(r"System time \(seconds\): ([\d.]+)", log).group(1))
gbps = weights / 1e9 / max(seconds, 1e-9)
rss_limit = 200e6 + largest
print(f"weights {weights / 1e9:.2f} GB, wall {seconds:.2f} s (user {user:.2f} s, sys {system:.2f} s), "
      f"throughput {gbps:.2f} GB/s, peak RSS {rss / 1e6:.0f} MB")
ok_speed, ok_rss = gbps >= 1.0, rss < rss_limit
print(f"target throughput >= 1.00 GB/s: {'met' if ok_speed else 'MISSED'}; "
      f"target peak RSS < {rss_limit / 1e6:.0f} MB: {'met' if ok_rss else 'MISSED'}")
sys.exit(0 if ok_speed and ok_rss else 1)
PY

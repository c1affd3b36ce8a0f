#!/bin/sh
# bench/matvec_sweep.sh - work-split sweep of the row-major mat-vec kernel (k_matvec.c): runs
# `webnnc bench BENCH --json` for every WEBNNC_MATVEC_WG x WEBNNC_MATVEC_ROWS pair and prints one
# line each (wg, rows, us per product, GB/s, % of copy), best last.
#   usage: bench/matvec_sweep.sh WEBNNC_BINARY [BENCH (default matvec-int4)] [extra bench options]
#   env:   WGS="32 64 128 256"  ROWS="1 2 4 8"
set -u
bin=${1:?usage: matvec_sweep.sh WEBNNC_BINARY [BENCH] [options]}
bench=${2:-matvec-int4}
[ $# -ge 2 ] && shift 2 || shift $#
tmp=$(mktemp)
for wg in ${WGS:-32 64 128 256}; do
    for rows in ${ROWS:-1 2 4 8}; do
        WEBNNC_MATVEC_WG=$wg WEBNNC_MATVEC_ROWS=$rows "$bin" bench "$bench" --json "$@" |
            python3 -c '
import json, sys
d = json.load(sys.stdin)
r = next(x for x in d["results"] if x["name"] == sys.argv[1])
print("%s %s %.3f %.1f %.1f" % (sys.argv[2], sys.argv[3], r["per_item_us"], r["gbps"], r["pct_of_copy"]))' \
                "$bench" "$wg" "$rows" >>"$tmp"
    done
done
echo "$bench: wg rows us/product GB/s %copy"
sort -k3 -n -r "$tmp"
rm -f "$tmp"

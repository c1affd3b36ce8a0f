#!/bin/sh
# bench/matvec_sweep.sh - sweep of the row-major mat-vec kernel (k_matvec.c): runs
# `webnnc bench BENCH --json` for every kernel variant x WEBNNC_MATVEC_WG x WEBNNC_MATVEC_ROWS
# and prints one line each (variant, wg, rows, us per product, GB/s, % of copy measured in the
# same invocation), best last.
#   usage: bench/matvec_sweep.sh WEBNNC_BINARY [BENCH (default matvec-int4)] [extra bench options]
#   env:   WGS="32 64 128 256"  ROWS="1 2 4 8"
#          VARIANTS="half=0 half=1" (default: "default", the built-in choice); a variant's
#          comma-separated settings: half=0|1 sets WEBNNC_MATVEC_HALF (exact f32 / float16-pair
#          dequantization of 4-bit weights); tpr=N sets WEBNNC_MATVEC_TPR (N invocations per
#          row group, reduced with subgroup shuffles; 0: the whole workgroup)
set -u
bin=${1:?usage: matvec_sweep.sh WEBNNC_BINARY [BENCH] [options]}
bench=${2:-matvec-int4}
[ $# -ge 2 ] && shift 2 || shift $#
tmp=$(mktemp)
for variant in ${VARIANTS:-default}; do
    half= tpr=
    for kv in $(echo "$variant" | tr ',' ' '); do
        case $kv in
        half=*) half=${kv#half=} ;;
        tpr=*) tpr=${kv#tpr=} ;;
        default) ;;
        *) echo "matvec_sweep.sh: unknown variant setting '$kv'" >&2; exit 2 ;;
        esac
    done
    for wg in ${WGS:-32 64 128 256}; do
        for rows in ${ROWS:-1 2 4 8}; do
            WEBNNC_MATVEC_HALF=$half WEBNNC_MATVEC_TPR=$tpr WEBNNC_MATVEC_WG=$wg WEBNNC_MATVEC_ROWS=$rows \
                "$bin" bench "$bench" --json "$@" |
                python3 -c '
import json, sys
d = json.load(sys.stdin)
r = next(x for x in d["results"] if x["name"] == sys.argv[1])
print("%-20s %4s %2s %8.3f %8.1f %6.1f" % (sys.argv[2], sys.argv[3], sys.argv[4], r["per_item_us"], r["gbps"], r["pct_of_copy"]))' \
                    "$bench" "$variant" "$wg" "$rows" >>"$tmp" || echo "$variant $wg $rows: failed" >&2
        done
    done
done
echo "$bench: variant wg rows us/product GB/s %copy"
sort -k6 -n "$tmp"
rm -f "$tmp"

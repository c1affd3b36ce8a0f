#!/usr/bin/env python3
"""bench/bench_summary.py - one table from the JSON files bench/gpu.sh writes: every `webnnc bench
--json` result (time per item, TB/s, % of our copy from the same invocation, % of PyTorch's copy)
next to the PyTorch baselines of bench/torch_matvec.py.
usage: bench_summary.py --torch torch-baseline.json LABEL=webnnc-bench.json [LABEL=FILE ...]"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return None


def row(label, name, per_us, gbps, ours_copy, torch_copy):
    pct = lambda ref: f"{100.0 * gbps / ref:6.1f}%" if gbps and ref else "      -"  # noqa: E731
    tbs = f"{gbps / 1e3:6.3f}" if gbps else "     -"
    print(f"{label:<10} {name:<18} {per_us:10.3f} {tbs} {pct(ours_copy)} {pct(torch_copy)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torch", help="bench/torch_matvec.py output")
    ap.add_argument("runs", nargs="+", help="LABEL=FILE of `webnnc bench --json` output")
    a = ap.parse_args()
    t = load(a.torch) if a.torch else None
    torch_copy = t["copy"]["gbps"] if t and "copy" in t else None
    print(f"{'run':<10} {'benchmark':<18} {'us/item':>10} {'TB/s':>6} {'%copy':>7} {'%torch':>7}")
    for spec in a.runs:
        label, _, path = spec.partition("=")
        d = load(path)
        if not d:
            continue
        res = d.get("results", [])
        ours_copy = next((r["gbps"] for r in res if r["name"] == "copy"), None)
        for r in res:
            if r["name"] == "dispatch":
                print(f"{label:<10} {'dispatch':<18} {r['per_dispatch_us']:10.3f}  (us per dependent dispatch)")
            else:
                row(label, r["name"], r["per_item_us"], r["gbps"], ours_copy, torch_copy)
    if t:
        row("pytorch", "copy", t["copy"]["run_us"], t["copy"]["gbps"], None, torch_copy)
        for key in ("matvec_f16", "matvec_int4"):
            v = t.get(key)
            if v and "gbps" in v:
                row("pytorch", key, v["per_item_us"], v["gbps"], None, torch_copy)
            elif v:
                print(f"{'pytorch':<10} {key:<18} {v.get('error', 'n/a')}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""bench/fused_table.py - "every fused kernel beats what it replaces" (issue 9): from the
`webnnc profile --json` of each ladder stage (bench/decode.sh PROFILE=1 writes OUT/profile-N.json,
N = 0 for the baseline, 1.. for the stages), one markdown table per phase (prefill, decode) of what
each stage changed, per step: the op types whose dispatches went away (replaced: their share of the
previous stage's GPU time) against the op types that appeared or grew (fused: their share of this
stage's time), and the stage's whole GPU time per step before and after.  A stage whose fused side
is not faster than what it replaced is marked.  GPU times come from timestamps around every dispatch
(they serialize the dispatches).

usage: fused_table.py OUT_DIR [--labels L0,L1,...]   (prints the tables and writes OUT_DIR/fused.md)
"""
import argparse
import glob
import json
import os
import re

LABELS = ["Baseline", "+matmulNBits", "+GQA", "+norms and rotary", "+silu", "+qkv and gatedMlp"]


def per_step(profile, phase):
    """{op: (dispatches per step, us per step)} and the GPU us per step of one phase."""
    ph = next((p for p in profile["phases"] if p["name"] == phase), None)
    if not ph or not ph["steps"]:
        return {}, 0.0
    n = ph["steps"]
    return {o["op"]: (o["calls"] / n, o["total_us"] / n) for o in ph["ops"]}, ph["gpu_us"] / n


def share(ops, grew):
    """(text, us) of the dispatch changes in `grew` ({op: extra calls}) priced at ops' mean time."""
    parts, total = [], 0.0
    for op, extra in sorted(grew.items(), key=lambda kv: -kv[1] * ops[kv[0]][1] / ops[kv[0]][0]):
        us = extra * ops[op][1] / ops[op][0]
        total += us
        parts.append(f"{op} x{extra:g} {us:.0f}")
    return ", ".join(parts) or "-", total


def table(profiles, labels, phase):
    rows = [f"**{phase}** (us per step)", "",
            "| stage | replaced (op x dispatches us) | us | fused (op x dispatches us) | us | GPU per step before -> after |",
            "|---|---|---|---|---|---|"]
    for k in range(1, len(profiles)):
        before, gpu0 = per_step(profiles[k - 1], phase)
        after, gpu1 = per_step(profiles[k], phase)
        gone = {op: c - after.get(op, (0, 0))[0] for op, (c, _) in before.items() if c > after.get(op, (0, 0))[0]}
        came = {op: c - before.get(op, (0, 0))[0] for op, (c, _) in after.items() if c > before.get(op, (0, 0))[0]}
        rtext, rus = share(before, gone)
        ftext, fus = share(after, came)
        mark = "" if fus < rus else " (not faster)"
        rows.append(f"| {labels[k] if k < len(labels) else k} | {rtext} | {rus:.0f} | {ftext} | {fus:.0f}{mark} | "
                    f"{gpu0:.0f} -> {gpu1:.0f} |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--labels", default=",".join(LABELS))
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.out, "profile-*.json")), key=lambda f: int(re.findall(r"\d+", f)[-1]))
    if len(files) < 2:
        raise SystemExit(f"fused_table.py: fewer than two profile-N.json in {a.out}")
    profiles = [json.load(open(f)) for f in files]
    p = profiles[0]
    md = [f"Fused against replaced, per ladder stage: {p.get('device', '')}, prompt {p.get('prompt_tokens')} tokens, "
          f"{p.get('new_tokens')} decode steps (`webnnc profile --json`, GPU time from timestamps).", ""]
    for phase in ("prefill", "decode"):
        md += table(profiles, a.labels.split(","), phase) + [""]
    print("\n".join(md))
    with open(os.path.join(a.out, "fused.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()

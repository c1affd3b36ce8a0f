#!/usr/bin/python3
"""bench/fused_table.py - "every fused kernel beats what it replaces" (issue 9): from the
`webnnc profile --json` of each ladder stage (bench/decode.sh PROFILE=1 writes OUT/profile-N.json,
N = 0 for the baseline, 1.. for the stages), one markdown table per phase (prefill, decode) of what
each stage changed, per step: the nodes of the previous stage that are gone (replaced: their own
measured GPU time there) against the nodes that are new (fused: their time in this stage), both
summed by op type, and the stage's whole GPU time per step before and after.  Nodes are matched by
(name, op): a fused node that keeps the name of a node it replaced is still new, by its op.  A
stage whose fused side is not faster than what it replaced is marked.  GPU times come from
timestamps around every dispatch (they serialize the dispatches).  (Before Nov 27 2026 the
replaced side was priced at the previous stage's mean time per dispatch of each op, which
undercounted replaced GEMMs whenever cheaper dispatches of the same op shared the mean.)

usage: fused_table.py OUT_DIR [--labels L0,L1,...]   (prints the tables and writes OUT_DIR/fused.md)
"""
import argparse
import glob
import json
import os
import re

LABELS = ["Baseline", "+matmulNBits", "+GQA", "+norms and rotary", "+silu", "+qkv and gatedMlp"]


def phase_of(profile, phase):
    """The phase object of a profile, or None."""
    ph = next((p for p in profile["phases"] if p["name"] == phase), None)
    return ph if ph and ph["steps"] else None


def node_times(ph):
    """{(node name, op): [dispatches per step, us per step]} of one phase."""
    out = {}
    for n in ph["nodes"]:
        v = out.setdefault((n["node"], n["op"]), [0.0, 0.0])
        v[0] += n["calls"] / ph["steps"]
        v[1] += n["total_us"] / ph["steps"]
    return out


def by_op(nodes, keys):
    """(text, us) of the nodes `keys`, summed by op type, the most expensive first."""
    ops = {}
    for k in keys:
        v = ops.setdefault(k[1], [0.0, 0.0])
        v[0] += nodes[k][0]
        v[1] += nodes[k][1]
    parts = [f"{op} x{c:g} {us:.0f}" for op, (c, us) in sorted(ops.items(), key=lambda kv: -kv[1][1])]
    return ", ".join(parts) or "-", sum(us for _, us in ops.values())


def table(profiles, labels, phase):
    rows = [f"**{phase}** (us per step)", "",
            "| stage | replaced (op x dispatches us) | us | fused (op x dispatches us) | us | GPU per step before -> after |",
            "|---|---|---|---|---|---|"]
    for k in range(1, len(profiles)):
        ph0, ph1 = phase_of(profiles[k - 1], phase), phase_of(profiles[k], phase)
        if not ph0 or not ph1:
            continue
        before, after = node_times(ph0), node_times(ph1)
        rtext, rus = by_op(before, [key for key in before if key not in after])
        ftext, fus = by_op(after, [key for key in after if key not in before])
        mark = "" if fus < rus else " (not faster)"
        rows.append(f"| {labels[k] if k < len(labels) else k} | {rtext} | {rus:.0f} | {ftext} | {fus:.0f}{mark} | "
                    f"{ph0['gpu_us'] / ph0['steps']:.0f} -> {ph1['gpu_us'] / ph1['steps']:.0f} |")
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

#!/usr/bin/python3
"""bench/decode_report.py - the table of bench/decode.sh: one markdown table (printed, and written to
OUT/decode.md) and one JSON (OUT/decode.json) of TTFT at the shortest and longest prompt and decode
tokens/s at every other prompt length (the decode context), per ladder stage of `webnnc generate`
(the last run of each configuration) and per PyTorch mode, with device, driver and versions.

Inputs: --runs decode-runs.tsv (decode.sh: stage, fuse, prompt, run, exit, generate's stderr line,
first ids), --devices (`webnnc devices` output), --torch (torch_decode.py's JSON line, optional),
--webnnc, --driver, --model, --max-new, --dims (text), --out DIR.  Exits 1 when a configuration's
first ids differ from the baseline's at some prompt length (listed as WRONG TOKENS).
"""
import argparse
import csv
import datetime
import json
import os
import re
import sys

# ladder stages (passes/pipeline_plan.c): the patterns each adds, cumulatively from the baseline
LADDER = [("+matmulNBits", "matmulNBits,gatherBlockQuantized"), ("+GQA", "gqa"), ("+norms and rotary", "rmsNorm,rotary"), ("+silu", "silu"),
          ("+qkv and gatedMlp (fully fused)", "qkv,gatedMlp")]
TORCH = {"eager": "PyTorch fp16 eager (dynamic cache)", "static": "PyTorch fp16 static cache",
         "compiled": "PyTorch fp16 compiled static cache"}
LINE = re.compile(r"prefill (?P<p>\d+) tokens \(TTFT\) (?P<ttft>[\d.]+) ms, decode (?P<n>\d+) tokens "
                  r"(?P<ms>[\d.]+) ms = (?P<tps>[\d.]+) tokens/s")


def read_runs(path):
    """{(stage, fuse): {prompt: {"ttft_ms", "decode_tokens_per_s", "ids"} or {"error"}}} from the last run."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            key = (int(r["stage"]), r["fuse"])
            m = LINE.search(r["line"])
            if r["exit"] == "0" and m:
                res = {"ttft_ms": float(m["ttft"]), "decode_tokens_per_s": float(m["tps"]), "ids": r["ids"]}
            else:
                res = {"error": r["line"].replace("webnnc: ", "")[:200]}
            rows.setdefault(key, {})[int(r["prompt"])] = res  # later runs replace earlier ones
    return rows


def ids_mismatches(runs):
    """Every configuration must generate the baseline's (--fuse none) first ids at every prompt length:
    fusion changes the kernels, not the tokens (a kernel that yields NaN logits decodes token 0 at
    full speed, so the timings alone do not show it)."""
    base = next((res for (stage, fuse), res in runs.items() if fuse == "none"), None)
    out = []
    for (stage, fuse), res in sorted(runs.items()):
        for n, r in sorted(res.items()):
            want = (base or {}).get(n, {}).get("ids")
            if fuse != "none" and want and r.get("ids") and r["ids"] != want:
                out.append(f"--fuse {fuse}, prompt {n}: {r['ids']} (baseline {want})")
    return out


def stage_label(fuse):
    """Ladder stage of a --fuse list ("--fuse LIST" for other lists)."""
    if fuse == "none":
        return "Baseline"
    if fuse == "all":
        return "fully fused (--fuse all)"
    acc = []
    for label, patterns in LADDER:
        acc += patterns.split(",")
        if sorted(fuse.split(",")) == sorted(acc):
            return label
    return f"--fuse {fuse}"


def fmt(v, unit):
    return "-" if v is None else (f"{v:.1f}" if unit == "ms" else f"{v:.0f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", required=True)
    p.add_argument("--devices", required=True)
    p.add_argument("--torch")
    p.add_argument("--webnnc", default="")
    p.add_argument("--driver", default="")
    p.add_argument("--model", default="")
    p.add_argument("--max-new", type=int, default=64)
    p.add_argument("--dims", default="")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    runs = read_runs(a.runs)
    lengths = sorted({n for r in runs.values() for n in r})
    if not lengths:
        sys.exit("decode_report: no runs")
    ttft_at = sorted({lengths[0], lengths[-1]})
    decode_at = lengths[1:] or lengths
    with open(a.devices) as f:
        device = f.readline().strip()
    torch = None
    if a.torch and os.path.isfile(a.torch) and os.path.getsize(a.torch):
        with open(a.torch) as f:
            torch = json.load(f)

    rows = []
    for (stage, fuse), res in sorted(runs.items()):
        rows.append({"config": f"webnnc {stage_label(fuse)}", "fuse": fuse, "results": {str(k): v for k, v in res.items()}})
    for mode, label in TORCH.items():
        res = (torch or {}).get("modes", {}).get(mode)
        if res is not None:
            rows.append({"config": label, "fuse": None, "results": res if "error" not in res else
                         {str(n): {"error": res["error"]} for n in lengths}})

    head = ["configuration", "--fuse"] + [f"TTFT {n} tok (ms)" for n in ttft_at] + \
           [f"decode @{n} (tok/s)" for n in decode_at]
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    errors = []
    for r in rows:
        res = r["results"]
        cells = [r["config"], f"`{r['fuse']}`" if r["fuse"] else ""]
        for n, key, unit in [(n, "ttft_ms", "ms") for n in ttft_at] + [(n, "decode_tokens_per_s", "") for n in decode_at]:
            x = res.get(str(n), {})
            if "error" in x:
                cells.append("failed")
                errors.append(f"{r['config']} (prompt {n}): {x['error']}")
            else:
                cells.append(fmt(x.get(key), unit))
        md.append("| " + " | ".join(cells) + " |")
    mismatches = ids_mismatches(runs)
    info = {"device": device, "driver": a.driver or None, "webnnc": a.webnnc, "model": a.model, "max_new": a.max_new,
            "convert_dims": a.dims, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    if torch:
        info.update({k: torch.get(k) for k in ("torch", "transformers", "cuda")})
        info["torch_device"] = torch.get("device")
    md.append("")
    md.append(f"{a.model}; {a.max_new} new tokens per run (decode @N: tokens/s after an N-token prompt); "
              f"convert {a.dims}.")
    md.append("; ".join(f"{k}: {v}" for k, v in info.items() if v and k not in ("model", "max_new", "convert_dims")) + ".")
    for e in errors:
        md.append(f"- failed: {e}")
    for m in mismatches:
        md.append(f"- WRONG TOKENS: {m}")
    text = "\n".join(md) + "\n"
    print(text, end="")
    with open(os.path.join(a.out, "decode.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "decode.json"), "w") as f:
        json.dump({**info, "ttft_at": ttft_at, "decode_at": decode_at, "rows": rows, "ids_mismatches": mismatches}, f,
                  indent=1)
        f.write("\n")
    if mismatches:
        print(f"decode_report.py: error: {len(mismatches)} runs generated other ids than the baseline (WRONG TOKENS above)",
              file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

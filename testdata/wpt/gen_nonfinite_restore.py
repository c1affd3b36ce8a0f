#!/usr/bin/env python3
"""gen_nonfinite_restore.py - writes testdata/wpt/nonfinite_restore.json: the clamp cases of
../shared/wpt-webnn whose Infinity/-Infinity/NaN values the corpus's JS -> JSON conversion turned
into null, with each null replaced by the tag "Infinity", "-Infinity" or "NaN".

The values come from upstream WPT webnn/conformance_tests/clamp.https.any.js: every case feeds the
float32 constant [-Infinity, Infinity, -3e35, 2147483647, -2, 1, 0] with the options its name says.
The expected outputs are derived from those (a NaN bound is ignored, as the corpus's own finite
expected values show).  Only nulls are replaced: the script asserts that each derived value at a
non-null position equals the corpus value and that every null gets a non-finite value.

Usage: python3 testdata/wpt/gen_nonfinite_restore.py [CORPUS_DIR]   (default ../shared/wpt-webnn)
"""
import copy
import json
import math
import os
import sys

INF = math.inf
NAN = math.nan
INPUT = [-INF, INF, -3e35, 2147483647, -2, 1, 0]
# case name -> clamp options (upstream values)
CASES = {
    "minValue as -Infinity": {"minValue": -INF},
    "minValue as Infinity": {"minValue": INF},
    "maxValue as -Infinity": {"maxValue": -INF},
    "maxValue as Infinity": {"maxValue": INF},
    "minValue == maxValue": {"minValue": 0.5, "maxValue": 0.5},
    "minValue as NaN": {"minValue": NAN},
    "maxValue as NaN": {"maxValue": NAN},
}


def clamp(x, lo, hi):
    """WebNN clamp; a NaN bound means no bound on that side."""
    if not math.isnan(lo) and x < lo:
        x = lo
    if not math.isnan(hi) and x > hi:
        x = hi
    return x


def tag(v):
    if math.isnan(v):
        return "NaN"
    return "Infinity" if v > 0 else "-Infinity"


def restore(corpus, upstream, path):
    """corpus with each null replaced by the tag of the upstream value at the same place."""
    if corpus is None:
        assert not math.isfinite(upstream), f"{path}: null but upstream value {upstream} is finite"
        return tag(upstream)
    if isinstance(corpus, list):
        assert len(corpus) == len(upstream), path
        return [restore(c, u, f"{path}[{i}]") for i, (c, u) in enumerate(zip(corpus, upstream))]
    assert corpus == upstream, f"{path}: corpus {corpus} != upstream {upstream}"
    return corpus


def restored_graph(name, graph):
    opts = CASES[name]
    lo, hi = opts.get("minValue", -INF), opts.get("maxValue", INF)
    g = copy.deepcopy(graph)
    inp = g["inputs"]["clampInput"]
    inp["data"] = restore(inp["data"], INPUT, "inputs.clampInput.data")
    options = g["operators"][0]["arguments"][1]["options"]
    assert set(options) == set(opts), f"{name}: options {options}"
    for key, value in opts.items():
        options[key] = restore(options[key], value, f"options.{key}")
    out = g["expectedOutputs"]["clampOutput"]
    out["data"] = restore(out["data"], [clamp(x, lo, hi) for x in INPUT], "expectedOutputs.clampOutput.data")
    return g


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "wpt-webnn")
    with open(os.path.join(corpus_dir, "clamp.json")) as f:
        corpus = json.load(f)
    by_name = {t["name"]: t for t in corpus["tests"]}
    doc = {
        "about": "Restores the Infinity/-Infinity/NaN values that the JS -> JSON conversion of the WPT "
                 "corpus (../shared/wpt-webnn) turned into null. Each case's graph is the corpus graph "
                 "with every null replaced by the tag \"Infinity\", \"-Infinity\" or \"NaN\"; nothing "
                 "else differs (tests/common/wpt_restore.c verifies this before using it). Values: "
                 "upstream WPT webnn/conformance_tests/clamp.https.any.js, input array "
                 "[-Infinity, Infinity, -3e35, 2147483647, -2, 1, 0] and the options named by each case; "
                 "expected outputs follow (a NaN bound is ignored, as the corpus's finite expected "
                 "values show). Written by testdata/wpt/gen_nonfinite_restore.py.",
        "wpt_version": corpus.get("wpt_version"),
        "wpt_commit": corpus.get("wpt_commit"),
        "cases": [{"file": "clamp", "name": n, "graph": restored_graph(n, by_name[n]["graph"])} for n in CASES],
    }
    # one line per case graph, so a diff shows which case changed
    cases = doc.pop("cases")
    text = json.dumps(doc, indent=1, allow_nan=False)[:-2] + ',\n "cases": [\n'
    text += ",\n".join("  " + json.dumps(c, allow_nan=False) for c in cases) + "\n ]\n}\n"
    json.loads(text)
    with open(os.path.join(here, "nonfinite_restore.json"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()

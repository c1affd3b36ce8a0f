#!/usr/bin/python3
"""dynamic_shapes.py - shape expressions and `webnnc validate`, end to end.

1. The `*-torch-dynamo` models of ../shared/models convert ONCE with a dynamic sequence length
   (`--dim sequence_length=64`: Shape/Gather/Concat/Range chains become dim expressions, the causal
   mask folds through the bound) and that one graph matches ONNX Runtime's test_data_set_0 (8 tokens)
   and test_data_set_1 (1 token) within 1e-4 on the Vulkan runtime (lavapipe without a GPU).  The
   written graph keeps `sequence_length` as its only dynamic dim.
2. `webnnc validate` accepts a converted graph (exit 0, "OK ..."), rejects an extension op and a
   dynamic dim no graph input binds with one line naming the node or value (exit 1), and a zero
   dim, an unknown op and malformed JSON with one line and exit 2 (the reader refuses them).
Without ../shared, part 1 is skipped and says so (it fails under CI=true); part 2 always runs.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

ATOL = 1e-4
failures = []


def check(ok, what):
    print(("ok       " if ok else "FAIL     ") + what, flush=True)
    if not ok:
        failures.append(what)


def torch_dynamo_dynamic(tmp):
    shared = os.path.normpath(os.path.join(e2e.source_root(), "..", "shared"))
    if not os.path.isdir(shared):
        if os.environ.get("CI") == "true":
            check(False, f"{shared} is missing and CI=true")
        else:
            print(f"SKIP: {shared} is missing, so the torch-dynamo dynamic-shape part cannot run")
        return
    device = e2e.use_working_vulkan_device()
    for arch in ("llama", "qwen2"):
        name = f"{arch}-fp32-torch-dynamo"
        model = os.path.join(shared, "models", name)
        out = os.path.join(tmp, name)
        r = e2e.convert(model, out, ["--dim", "sequence_length=64"])
        check(r.returncode == 0, f"{name}: converts with --dim sequence_length=64 ({r.describe()})")
        if r.returncode != 0:
            continue
        with open(os.path.join(out, "model.webnn.json")) as f:
            text = f.read()
        check('"sequence_length"' in text and '"maxSize": 64' in text.replace('"maxSize":64', '"maxSize": 64'),
              f"{name}: input keeps the dynamic sequence_length")
        v = e2e.run_webnnc(["validate", out])
        check(v.returncode == 0 and v.stdout.startswith("OK "), f"{name}: validate ({v.describe()})")
        if device is None:
            check(False, f"{name}: no Vulkan device for the parity runs")
            continue
        for data_set in ("test_data_set_0", "test_data_set_1"):
            d = os.path.join(model, data_set)
            rr = e2e.run_graph(out, d, d, ATOL, 0)
            rows = e2e.parity_lines(rr.stdout)
            worst = max((row["max_abs"] or 0) for row in rows) if rows else None
            check(rr.returncode == 0 and rows and all(row["ok"] for row in rows),
                  f"{name} {data_set}: one dynamic graph within {ATOL} (max_abs {worst}; {e2e.classify_run(rr)})")


def write_graph(folder, graph):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.webnn.json"), "w") as f:
        json.dump(graph, f)


def tiny_graph(dim, op="relu", options=None):
    return {"format": "webnn-graph-json", "version": 2, "name": "t",
            "inputs": {"x": {"dataType": "float32", "shape": [1, dim]}},
            "consts": {},
            "nodes": [{"id": "y", "op": op, "inputs": ["x"], "options": options or {}, "outputs": ["y"]}],
            "outputs": {"y": "y"}}


def validate_cases(tmp):
    good = os.path.join(tmp, "good")
    write_graph(good, tiny_graph({"name": "seq", "maxSize": 16}))
    r = e2e.run_webnnc(["validate", good])
    check(r.returncode == 0 and r.stdout.startswith("OK ") and "seq<=16" in r.stdout, f"validate good graph: {r.stdout.strip()} {r.describe()}")
    bad = {
        "extension op": (tiny_graph(4, "quickGelu", {"alpha": 1.702}), 1, "quickGelu"),
        "zero dim": (tiny_graph(0), None, None),
        "unbound dynamic dim": (tiny_graph(1, "expand", {"newShape": [1, {"name": "t", "maxSize": 8}]}), 1,
                                "dynamic dimension 't' is not a dimension of any graph input"),
        "unknown op": (tiny_graph(4, "frobnicate"), 2, "frobnicate"),
    }
    for what, (graph, code, needle) in bad.items():
        folder = os.path.join(tmp, what.replace(" ", "_"))
        write_graph(folder, graph)
        r = e2e.run_webnnc(["validate", folder])
        lines = r.stderr_lines
        ok = r.returncode in (1, 2) and len(lines) == 1 and lines[0].startswith("webnnc: error: ") and not r.stdout
        if code is not None:
            ok = ok and r.returncode == code and needle in lines[0]
        check(ok, f"validate {what}: exit {r.returncode}, {lines[0] if lines else '(no message)'}")
    folder = os.path.join(tmp, "malformed")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.webnn.json"), "w") as f:
        f.write("{\"format\": \"webnn-graph-json\", \"version\": 2, ")
    r = e2e.run_webnnc(["validate", folder])
    check(r.is_clean_error(), f"validate malformed JSON: exit 2 + one line ({r.describe()})")


def main():
    with tempfile.TemporaryDirectory(prefix="webnnc-dyn-") as tmp:
        validate_cases(tmp)
        torch_dynamo_dynamic(tmp)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""view_tests.py - `webnnc view GRAPH|MODEL -o FILE.html|FILE.dot|FILE.svg` (issue 13).

- testdata models (ONNX, the output folder of `convert --limits none`, its .webnn text form) and a corpus model of
  ../shared/models (unfused and --fuse all) as .dot, .html and .svg: the DOT has one node statement
  per graph node (the count `webnnc inspect --json` gives for the same graph), the HTML holds the
  graph as JSON in a <script type="application/json"> element that parses and has those nodes, the
  SVG is an <svg> document made by Graphviz's dot.
- a webnn-graph whose names hold `</script><img src=x onerror=alert(1)>`, quotes, & and U+2028: no
  markup from it in the HTML (only the page's own script elements), DOT strings escaped.
- a symlink planted at the -o path is not followed (its target untouched), an unknown extension
  is exit 2 with one error line naming it and no file, SVG without `dot` on PATH is exit 2 with one
  line naming the tool and the package and no file.
- a graph of thousands of nodes still gives an HTML file (size and time bounded).
"""
import json
import os
import re
import sys
import shutil
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []
HOSTILE = "</script><img src=x onerror=alert(1)>\"'&\u2028"


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def dot_nodes(text):
    """Node statements of view's DOT: op nodes n<i>, graph inputs in<i>, outputs out<i>."""
    return {kind: len(re.findall(rf"^  {kind}\d+ \[", text, re.M)) for kind in ("n", "in", "out")}


def dot_strings_ok(text):
    """Every line is a whole statement whose quoted strings close (no name ends a string early).
    Split on \\n only: names may hold U+2028, which str.splitlines() would also split on."""
    for line in text.rstrip("\n").split("\n"):
        rest = re.sub(r'"(?:[^"\\\n]|\\.)*"', '', line)
        if '"' in rest or not (rest in ("digraph  {", "}") or re.fullmatch(r"  [^\n]*;", rest)):
            return False
    return True


def page_json(html):
    m = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1)) if m else None


def inspect_nodes(path):
    r = e2e.run_webnnc(["inspect", path, "--json"])
    return json.loads(r.stdout)["nodes"] if r.returncode == 0 else -1


def view(src, out, *extra):
    if os.path.lexists(out):
        os.unlink(out)
    return e2e.run_webnnc(["view", src, "-o", out, *extra])


def check_formats(src, nodes, work, tag, *extra):
    """src viewed as .dot, .html and .svg; `nodes` is the graph's node count (inspect --json)."""
    r = view(src, os.path.join(work, tag + ".dot"), *extra)
    text = open(os.path.join(work, tag + ".dot")).read() if r.returncode == 0 else ""
    counts = dot_nodes(text)
    check(r.returncode == 0 and counts["n"] == nodes and counts["in"] > 0 and counts["out"] > 0 and dot_strings_ok(text),
          f"{tag}: DOT has one node per graph node ({counts} vs {nodes} nodes) {r.describe() if r.returncode else ''}")
    r = view(src, os.path.join(work, tag + ".html"), *extra)
    html = open(os.path.join(work, tag + ".html"), encoding="utf-8").read() if r.returncode == 0 else ""
    data = page_json(html) if html else None
    external = re.search(r'<(?:script|link|img|iframe|object)\b[^>]*\b(?:src|href)=', html)
    check(data is not None and len(data["nodes"]) == nodes and not external,
          f"{tag}: HTML embeds the graph JSON ({len(data['nodes']) if data else None} nodes), nothing external")
    r = view(src, os.path.join(work, tag + ".svg"), *extra)
    svg = open(os.path.join(work, tag + ".svg")).read() if r.returncode == 0 else ""
    drawn = svg.count('class="node"')
    check(r.returncode == 0 and "<svg" in svg and drawn == nodes + counts["in"] + counts["out"],
          f"{tag}: SVG by Graphviz with every node ({drawn}) {r.describe() if r.returncode else ''}")


def hostile_graph(path):
    g = {"format": "webnn-graph-json", "version": 2, "name": "evil" + HOSTILE,
         "inputs": {"x" + HOSTILE: {"dataType": "float32", "shape": [2, 4]}},
         "consts": {"c" + HOSTILE: {"dataType": "float32", "shape": [4], "init": {"kind": "inlineBytes", "bytes": [0] * 16}}},
         "nodes": [{"id": "a" + HOSTILE, "op": "add", "inputs": ["x" + HOSTILE, "c" + HOSTILE], "options": {}},
                   {"id": "r\"" + HOSTILE, "op": "relu", "inputs": ["a" + HOSTILE], "options": {}}],
         "outputs": {"y" + HOSTILE: "r\"" + HOSTILE}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(g, f, ensure_ascii=False)


def large_graph(path, n):
    """n nodes: a chain of add/relu with a side branch every 10 nodes."""
    nodes, prev = [], "x"
    for i in range(n):
        op = "relu" if i % 2 else "add"
        inputs = [prev] if op == "relu" else [prev, nodes[i - 9]["id"] if i >= 10 and i % 10 == 0 else "x"]
        nodes.append({"id": f"n{i}", "op": op, "inputs": inputs, "options": {}})
        prev = f"n{i}"
    g = {"format": "webnn-graph-json", "version": 2, "name": "large", "inputs": {"x": {"dataType": "float32", "shape": [4]}},
         "consts": {}, "nodes": nodes, "outputs": {"y": prev}}
    with open(path, "w") as f:
        json.dump(g, f)


def main():
    src = e2e.source_root()
    shared = e2e.shared_dir_or_skip("view_tests (corpus model)")
    work = os.path.join(e2e.build_root(), "view-tests")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tiny = os.path.join(src, "testdata", "tiny_decoder.onnx")
    folder = os.path.join(work, "tiny_out")
    r = e2e.run_webnnc(["convert", tiny, "--limits", "none", "-o", folder])
    check(r.returncode == 0, f"convert tiny_decoder --limits none {r.describe() if r.returncode else ''}")
    nodes = inspect_nodes(folder)
    check_formats(tiny, nodes, work, "tiny_onnx")
    check_formats(folder, nodes, work, "tiny_folder")
    text = os.path.join(work, "tiny.webnn")
    r = e2e.run_webnnc(["unpack", folder, "-o", text])
    check(r.returncode == 0, f"unpack to the .webnn text form {r.describe() if r.returncode else ''}")
    check_formats(text, nodes, work, "tiny_text")
    mlp = os.path.join(src, "testdata", "tiny_mlp.onnx")
    r = e2e.run_webnnc(["convert", mlp, "--limits", "none", "--fix", "batch=2", "-o", os.path.join(work, "mlp_out")])
    check_formats(mlp, inspect_nodes(os.path.join(work, "mlp_out")), work, "tiny_mlp", "--fix", "batch=2")

    corpus = os.path.join(shared, "models", "qwen2-int4-cpu")
    fused = os.path.join(work, "qwen2_fused")
    r = e2e.run_webnnc(["convert", corpus, "--fuse", "all", "-o", fused], timeout=600)
    check(r.returncode == 0, f"convert qwen2-int4-cpu --fuse all {r.describe() if r.returncode else ''}")
    check_formats(fused, inspect_nodes(fused), work, "qwen2_fused_folder")
    check_formats(corpus, inspect_nodes(fused), work, "qwen2_fuse_all", "--fuse", "all")
    html = open(os.path.join(work, "qwen2_fuse_all.html"), encoding="utf-8").read()
    data = page_json(html)
    ext = [n for n in data["nodes"] if n.get("ext")]
    check(bool(ext) and ("## matmulNBits" in data["docs"] or "### qkvProjection" in data["docs"]),
          f"fused qwen2: {len(ext)} extension ops marked, their docs/extension-ops.md text embedded")

    evil = os.path.join(work, "evil.webnn.json")
    hostile_graph(evil)
    r = view(evil, os.path.join(work, "evil.html"))
    html = open(os.path.join(work, "evil.html"), encoding="utf-8").read() if r.returncode == 0 else ""
    data = page_json(html) if html else None
    check(r.returncode == 0 and "<img" not in html and html.count("</script>") == 2 and html.count("<script") == 2
          and "\u2028" not in html and data and data["graph"] == "evil" + HOSTILE,
          "hostile names: no markup in the HTML, the JSON keeps the name exactly")
    r = view(evil, os.path.join(work, "evil.dot"))
    text = open(os.path.join(work, "evil.dot"), encoding="utf-8").read() if r.returncode == 0 else ""
    check(r.returncode == 0 and dot_strings_ok(text) and '\\"' in text and dot_nodes(text)["n"] == 2,
          "hostile names: DOT strings escaped")
    r = view(evil, os.path.join(work, "evil.svg"))
    check(r.returncode == 0, f"hostile names: dot reads the DOT {r.describe() if r.returncode else ''}")

    target, link = os.path.join(work, "target.txt"), os.path.join(work, "link.html")
    with open(target, "w") as f:
        f.write("keep\n")
    os.symlink(target, link)
    r = e2e.run_webnnc(["view", tiny, "-o", link])
    check(r.is_clean_error() and open(target).read() == "keep\n" and os.path.islink(link),
          f"symlink at -o: not followed, target untouched ({r.describe()})")
    for bad in ("pic.png", "pic"):
        out = os.path.join(work, bad)
        r = e2e.run_webnnc(["view", tiny, "-o", out])
        check(r.is_clean_error() and not os.path.lexists(out) and (".png" in r.stderr or "no extension" in r.stderr),
              f"-o {bad}: exit 2, names the extension, no file ({r.describe()})")
    out = os.path.join(work, "nodot.svg")
    p = e2e.subprocess.run([e2e.webnnc(), "view", tiny, "-o", out], capture_output=True, text=True,
                           env={**os.environ, "PATH": "/nonexistent"})
    run = e2e.Run([], p.returncode, p.stdout, p.stderr)
    check(run.is_clean_error() and "`dot`" in p.stderr and "graphviz" in p.stderr and not os.path.lexists(out),
          f"SVG without dot: exit 2, names dot and graphviz, no file ({run.describe()})")
    r = e2e.run_webnnc(["view", "--help"])
    check(r.returncode == 0 and all(s in r.stdout for s in (".html", ".dot", ".svg", "--fuse")), "view --help names the formats")

    big = os.path.join(work, "large.webnn.json")
    large_graph(big, 4000)
    t0 = time.monotonic()
    r = view(big, os.path.join(work, "large.html"))
    dt = time.monotonic() - t0
    size = os.path.getsize(os.path.join(work, "large.html")) if r.returncode == 0 else 0
    check(r.returncode == 0 and len(page_json(open(os.path.join(work, "large.html")).read())["nodes"]) == 4000
          and size < 4 << 20 and dt < 30, f"4000-node graph: {size} bytes HTML in {dt:.1f} s")
    if failures:
        print(f"{len(failures)} failed", flush=True)
        return 1
    print("all passed (files in " + work + ")", flush=True)
    return 0


if __name__ == "__main__":
    e2e.webnnc()
    sys.exit(main())

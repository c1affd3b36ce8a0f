#!/usr/bin/python3
"""format_interop.py - webnnc's output folders load in the webnn-graph tools without renaming files.

The readers below follow those tools' rules as their source states them (docs: ../shared/docs/
webnn-graph-format.md section 3), independently of webnnc's own reader:
- webnn-graph `resolve_external_weights` (src/external_weights.rs): weights found as
  model.safetensors, <stem>.safetensors, <stem>.weights, model.weights beside the graph, the manifest
  as manifest.json or <stem>.manifest.json (stem = the graph file name without its last extension,
  "model.webnn" for model.webnn.json); a ref matches exactly or, failing that, through the
  sanitized name ("::" -> "__", "." -> "_") when that is unique; byteOffset is absolute from the
  file start and the range must lie inside the file.  A missing file is an error ("Missing").
- rustnn's `load_graph_from_path` (src/loader.rs): manifest.json / <stem>.manifest.json,
  model.weights / <stem>.weights, for model.webnn.json and for the text form model.webnn; refs are
  looked up by sanitized manifest name, then with "_" -> "."; an unresolved ref stays silently empty
  there, so it is a failure here.
- webnn-graph `pack-weights` / `unpack-weights` (src/weights_io.rs): format "wg-weights-manifest",
  version 1, WGWT magic + u32 version 1, tensors sorted by byteOffset exactly contiguous from 8,
  byteLength = elements x dtype size (int4/uint4: one byte each); unpack slices [byteOffset - 8, ..)
  of the data after the header.  Our `convert --contiguous-weights` output must repack to the
  same bytes.
- graph JSON: format/version, identifiers [A-Za-z_][A-Za-z0-9_]*, input dims a number or
  {"name", "maxSize"}, const shapes numbers, nodes in topological order, outputs key == value.

Then webnnc itself: the contiguous output runs with parity on the Vulkan runtime (unaligned tensors),
and folders of earlier webnnc versions (model.manifest.json) are still read and replaced.  The text
form: validate / inspect / run read model.webnn (a folder holding only the text form too), bad text
is one error line (exit 2); `unpack` writes one self-contained file (every const inlineBytes, as
webnn-graph's inline-weights: lengths = elements x size) and `pack` turns it back into a folder
byte-identical to what convert wrote.
"""
import json
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []
DTYPE_SIZE = {"float32": 4, "float16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
              "int8": 1, "uint8": 1, "int4": 1, "uint4": 1}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def file_stem(path):
    """Rust's Path::file_stem: the file name without its last extension."""
    base = os.path.basename(path)
    return base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base


def sanitize(name):
    return name.replace("::", "__").replace(".", "_")


def first_existing(paths):
    return next((p for p in paths if os.path.exists(p)), None)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def webnn_graph_resolve(graph_path, consts):
    """{const name: bytes} by webnn-graph's resolve_external_weights; raises ValueError like it."""
    d, stem = os.path.dirname(graph_path), file_stem(graph_path)
    refs = {name: c["init"]["ref"] for name, c in consts.items() if c["init"]["kind"] == "weights"}
    if not refs:
        return {}
    wp = first_existing([os.path.join(d, n) for n in
                         ("model.safetensors", f"{stem}.safetensors", f"{stem}.weights", "model.weights")])
    if not wp:
        raise ValueError(f"Missing: no weights file next to {graph_path}")
    mp = first_existing([os.path.join(d, "manifest.json"), os.path.join(d, f"{stem}.manifest.json")])
    if not mp:
        raise ValueError(f"Missing: weights blob {wp} requires a manifest (manifest.json / {stem}.manifest.json)")
    with open(mp) as f:
        tensors = json.load(f).get("tensors", {})
    with open(wp, "rb") as f:
        blob = f.read()
    by_sanitized = {}
    for name, entry in tensors.items():
        by_sanitized.setdefault(sanitize(name), []).append(entry)
    out = {}
    for const, ref in refs.items():
        entry = tensors.get(ref)
        if entry is None and len(by_sanitized.get(ref, [])) == 1:
            entry = by_sanitized[ref][0]
        if entry is None:
            raise ValueError(f"no manifest tensor entry for weight ref `{ref}` (constant `{const}`)")
        start, length = entry["byteOffset"], entry["byteLength"]
        if start + length > len(blob):
            raise ValueError(f"byte range of `{ref}` exceeds the weights file")
        out[const] = blob[start:start + length]
    return out


def rustnn_resolve(graph_path, refs):
    """{ref: bytes} by rustnn's load_graph_from_path; refs it would leave empty are missing."""
    d, stem = os.path.dirname(graph_path), file_stem(graph_path)
    mp = first_existing([os.path.join(d, "manifest.json"), os.path.join(d, f"{stem}.manifest.json")])
    wp = first_existing([os.path.join(d, "model.weights"), os.path.join(d, f"{stem}.weights")])
    if not mp or not wp:
        return {}
    with open(mp) as f:
        tensors = json.load(f)["tensors"]
    with open(wp, "rb") as f:
        blob = f.read()
    by_sanitized = {sanitize(name): e for name, e in tensors.items()}
    out = {}
    for ref in refs:
        e = by_sanitized.get(ref) or tensors.get(ref.replace("_", "."))
        if e and e["byteOffset"] + e["byteLength"] <= len(blob):
            out[ref] = blob[e["byteOffset"]:e["byteOffset"] + e["byteLength"]]
    return out


def unpack_weights(weights_path, manifest):
    """webnn-graph unpack-weights: {name: bytes}."""
    with open(weights_path, "rb") as f:
        data = f.read()
    if data[:4] != b"WGWT" or struct.unpack("<I", data[4:8])[0] != 1:
        raise ValueError("Invalid magic bytes / version")
    body = data[8:]
    out = {}
    for name, e in manifest["tensors"].items():
        start = e["byteOffset"] - 8
        if start < 0 or start + e["byteLength"] > len(body):
            raise ValueError(f"Tensor '{name}' extends beyond weights file")
        out[name] = body[start:start + e["byteLength"]]
    return out


def pack_weights(manifest, tensors):
    """webnn-graph pack-weights: the blob, or ValueError on a non-contiguous manifest."""
    if manifest.get("format") != "wg-weights-manifest" or manifest.get("version") != 1:
        raise ValueError("Invalid manifest format/version")
    out, current = bytearray(b"WGWT" + struct.pack("<I", 1)), 8
    for name, e in sorted(manifest["tensors"].items(), key=lambda kv: kv[1]["byteOffset"]):
        if e["byteOffset"] != current:
            raise ValueError(f"Tensor '{name}' has unexpected byte_offset: expected {current}, got {e['byteOffset']}")
        if e["byteLength"] != numel(e["shape"]) * DTYPE_SIZE[e["dataType"]]:
            raise ValueError(f"Tensor '{name}' has incorrect byte_length")
        if len(tensors[name]) != e["byteLength"]:
            raise ValueError(f"Tensor file '{name}' has wrong size")
        out += tensors[name]
        current += e["byteLength"]
    return bytes(out)


def check_graph_json(graph, what):
    check(graph.get("format") == "webnn-graph-json" and graph.get("version") in (1, 2), f"{what}: format/version")
    names = list(graph["inputs"]) + list(graph.get("consts", {}))
    dims_ok = all(isinstance(d, int) and d >= 0 or (isinstance(d, dict) and set(d) == {"name", "maxSize"}
                                                  and isinstance(d["maxSize"], int))
                  for i in graph["inputs"].values() for d in i["shape"])
    check(dims_ok, f"{what}: input dims are numbers or {{name, maxSize}}")
    check(all(isinstance(d, int) and d >= 0 for c in graph.get("consts", {}).values() for d in c["shape"]),
          f"{what}: const shapes are static")
    defined, order_ok = set(names), True
    for n in graph["nodes"]:
        order_ok &= all(i in defined for i in n["inputs"])
        outs = n.get("outputs") or [n["id"]]
        names += outs
        defined.update(outs)
    check(order_ok, f"{what}: nodes in topological order (inputs defined earlier)")
    check(all(IDENT.match(n) for n in names), f"{what}: every name is an identifier")
    check(all(k == v for k, v in graph["outputs"].items()), f"{what}: outputs key == value")


def resolved_by_tools(outdir, what):
    """The consts' bytes as the webnn-graph tools read them from OUTDIR, or None."""
    graph_path = os.path.join(outdir, "model.webnn.json")
    with open(graph_path) as f:
        graph = json.load(f)
    check_graph_json(graph, what)
    consts = graph.get("consts", {})
    try:
        got = webnn_graph_resolve(graph_path, consts)
    except (ValueError, KeyError) as err:
        check(False, f"{what}: webnn-graph resolve_external_weights: {err}")
        return None
    for name, b in got.items():
        c = consts[name]
        if len(b) != numel(c["shape"]) * DTYPE_SIZE[c["dataType"]]:
            check(False, f"{what}: const {name}: {len(b)} bytes for its type")
            return None
    refs = {c["init"]["ref"] for c in consts.values() if c["init"]["kind"] == "weights"}
    check(len(rustnn_resolve(graph_path, refs)) == len(refs),
          f"{what}: webnn-graph and rustnn resolve all {len(got)} weights consts ({len(refs)} refs)")
    text = os.path.join(outdir, "model.webnn")
    if os.path.exists(text):
        with open(text) as f:
            text_refs = set(re.findall(r'@weights\("([^"]+)"\)', f.read()))
        check(text_refs == refs and len(rustnn_resolve(text, {sanitize(r) for r in text_refs})) == len(refs),
              f"{what}: rustnn resolves the {len(text_refs)} @weights refs of model.webnn")
    return got


def text_form_and_pack(tmp, aligned, contiguous):
    text = os.path.join(aligned, "model.webnn")
    r = e2e.run_webnnc(["validate", text])
    check(r.returncode == 0 and r.stdout.startswith(f"OK {text}: 108 nodes"), f"validate model.webnn: {r.stdout.strip()}")
    r = e2e.run_webnnc(["inspect", text, "--json"])
    check(r.returncode == 0 and json.loads(r.stdout or "{}").get("nodes") == 108, f"inspect --json model.webnn: {r.describe()}")
    only = os.path.join(tmp, "text-only")
    os.mkdir(only)
    for f in ("model.webnn", "model.weights", "manifest.json"):
        shutil.copy(os.path.join(aligned, f), only)
    r = e2e.run_webnnc(["validate", only])
    check(r.returncode == 0, f"validate a folder holding only the text form: {r.describe()}")
    bad = os.path.join(tmp, "bad.webnn")
    with open(bad, "w") as f:
        f.write('webnn_graph "t" v2 {\n  inputs { x: f32[2] }\n}\n')
    r = e2e.run_webnnc(["validate", bad])
    check(r.is_clean_error() and f"{bad}:2: expected ';'" in r.stderr, f"bad text: one error line with the line: {r.describe()}")

    inline = os.path.join(tmp, "inline.webnn.json")
    r = e2e.run_webnnc(["unpack", aligned, "-o", inline])
    check(r.returncode == 0 and os.path.isfile(inline), f"unpack -> one file: {r.describe()}")
    with open(inline) as f:
        consts = json.load(f)["consts"]
    kinds = {c["init"]["kind"] for c in consts.values()}
    sizes_ok = all(len(c["init"]["bytes"]) == numel(c["shape"]) * DTYPE_SIZE[c["dataType"]]
                   for c in consts.values() if c["init"]["kind"] == "inlineBytes")
    check(kinds <= {"inlineBytes", "scalar"} and sizes_ok, f"unpacked consts are inline, lengths = elements x size: {kinds}")
    inline_text = os.path.join(tmp, "inline.webnn")
    r = e2e.run_webnnc(["unpack", inline, "-o", inline_text])
    check(r.returncode == 0, f"unpack to the text form: {r.describe()}")
    packed = os.path.join(tmp, "packed")
    r = e2e.run_webnnc(["pack", inline_text, "-o", packed, "--contiguous-weights", "--text"])
    check(r.returncode == 0, f"pack the inline text form: {r.describe()}")
    same = all(open(os.path.join(packed, f), "rb").read() == open(os.path.join(contiguous, f), "rb").read()
               for f in ("model.webnn.json", "model.weights", "manifest.json", "model.webnn"))
    check(same, "unpack -> text -> pack gives the files convert --contiguous-weights --text wrote, byte for byte")
    r = e2e.run_webnnc(["unpack", aligned, "-o", tmp])
    check(r.is_clean_error(), f"unpack onto a folder: one error line: {r.describe()}")


def main():
    e2e.webnnc()
    testdata = os.path.join(e2e.source_root(), "testdata")
    model = os.path.join(testdata, "tiny_decoder.onnx")
    data = os.path.join(testdata, "tiny_decoder", "test_data_set_0")
    with tempfile.TemporaryDirectory(prefix="webnnc-interop-") as tmp:
        aligned, contiguous, mlp = (os.path.join(tmp, n) for n in ("aligned", "contiguous", "mlp"))
        for out, extra in ((aligned, ["--text"]), (contiguous, ["--contiguous-weights", "--text"])):
            r = e2e.run_webnnc(["convert", model, "-o", out] + extra)
            check(r.returncode == 0, f"convert {' '.join(extra)}: {r.stdout.strip() or r.describe()}")
        r = e2e.run_webnnc(["convert", os.path.join(testdata, "tiny_mlp.onnx"), "-o", mlp, "--dim", "batch=8"])
        check(r.returncode == 0, f"convert tiny_mlp --dim batch=8: {r.describe()}")
        if failures:
            return
        check(sorted(os.listdir(aligned)) == ["manifest.json", "model.webnn", "model.webnn.json", "model.weights"],
              f"output folder files: {sorted(os.listdir(aligned))}")
        a = resolved_by_tools(aligned, "aligned")
        c = resolved_by_tools(contiguous, "contiguous")
        resolved_by_tools(mlp, "tiny_mlp dynamic")
        with open(os.path.join(mlp, "model.webnn.json")) as f:
            x = json.load(f)["inputs"]["x"]["shape"]
        check(x[0] == {"name": "batch", "maxSize": 8}, f"tiny_mlp: dynamic dim as {{name, maxSize}}: {x}")
        check(a is not None and a == c, "aligned and contiguous layouts hold the same bytes for every const")

        with open(os.path.join(contiguous, "manifest.json")) as f:
            manifest = json.load(f)
        weights = os.path.join(contiguous, "model.weights")
        try:
            repacked = pack_weights(manifest, unpack_weights(weights, manifest))
            with open(weights, "rb") as f:
                check(repacked == f.read(), "contiguous: pack-weights(unpack-weights(model.weights)) == model.weights")
        except (ValueError, KeyError) as err:
            check(False, f"contiguous: pack-weights rules: {err}")
        with open(os.path.join(aligned, "manifest.json")) as f:
            aligned_manifest = json.load(f)
        try:
            pack_weights(aligned_manifest, unpack_weights(os.path.join(aligned, "model.weights"), aligned_manifest))
            check(False, "aligned (default) layout is not contiguous, pack-weights must refuse it")
        except ValueError as err:
            check("unexpected byte_offset" in str(err), f"default 64-byte layout: pack-weights refuses it ({err})")

        # webnnc reads the names of earlier versions and of the tools, and replaces old folders.
        for name in ("model.manifest.json", "model.webnn.manifest.json"):
            old = os.path.join(tmp, "old-" + name)
            shutil.copytree(contiguous, old)
            os.rename(os.path.join(old, "manifest.json"), os.path.join(old, name))
            r = e2e.run_webnnc(["validate", old])
            check(r.returncode == 0, f"validate reads a folder whose manifest is {name}: {r.describe()}")
        old = os.path.join(tmp, "old-model.manifest.json")
        r = e2e.run_webnnc(["convert", model, "-o", old])
        check(r.returncode == 0 and sorted(os.listdir(old)) == ["manifest.json", "model.webnn.json", "model.weights"],
              f"convert replaces an earlier version's folder: {sorted(os.listdir(old))} {r.describe()}")

        text_form_and_pack(tmp, aligned, contiguous)

        if e2e.use_working_vulkan_device() is None:
            check(os.environ.get("CI") != "true", "a Vulkan device (lavapipe) for the run of the contiguous output")
            return
        for what, graph in (("contiguous (unaligned) output", contiguous),
                            ("text form (folder holding model.webnn only)", os.path.join(tmp, "text-only"))):
            r = e2e.run_webnnc(["run", graph, "--inputs", data, "--expect", data])
            rows = e2e.parity_lines(r.stdout)
            check(r.returncode == 0 and rows and all(x["ok"] for x in rows),
                  f"run of the {what} passes parity: {r.describe()}")


if __name__ == "__main__":
    main()
    print(f"{len(failures)} failure(s)" if failures else "all format interop checks passed", flush=True)
    sys.exit(1 if failures else 0)

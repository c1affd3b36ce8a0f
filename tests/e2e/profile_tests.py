#!/usr/bin/python3
"""profile_tests.py - `webnnc profile` and `webnnc run --profile` end to end on the Vulkan runtime
(lavapipe in CI), on the corpus model qwen2-int4-webgpu (../shared/models), unfused and fused.

- `profile --json --trace`: the JSON's structure (phases prefill + decode with the step counts
  asked for; per step dispatches == the dispatches of the plan the run recorded, one run each, host
  phases summing to no more than the step's wall time, GPU time no more than the wall time; per
  phase the op-type and node tables account for every dispatch, each node the same number of times
  in every step; every node row with the nodes absorbed into it, the attention-mask chain as one
  row; fused, as many matmulNBits rows with the rewrite "+add" as normalized projections with
  "-add" (runtime/plan_residual.c, forced on for this small model with WEBNNC_RESIDUAL_MIN_KIB=0),
  none unfused; times non-negative), and the Chrome trace's: the GPU track holds every dispatch of
  every step exactly once (count per step = the JSON's, names = the JSON's nodes), events inside
  their step, host phase events nested in their step, non-negative times.
- WEBNNC_NO_TIMESTAMPS=1: the profile says why it has host times only (timestamps false, null GPU
  times, no GPU track) and still counts every dispatch.
- the text tables; `run --profile` on testdata/tiny_decoder.onnx; the trace written atomically (an
  existing file replaced, no temporary file left); bad input exits 2 with one line and writes no
  trace.
Exit 1 on any failure; without ../shared: skip (77), or fail under CI=true.
"""
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

MODEL = "qwen2-int4-webgpu"
NEW = 3
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def non_negative(x):
    return x is None or x >= 0


def check_json(j, label, timed, fused):
    check(j["timestamps"] is timed, f"{label}: timestamps {timed}")
    check([p["name"] for p in j["phases"]] == ["prefill", "decode"], f"{label}: phases prefill, decode")
    check([p["steps"] for p in j["phases"]] == [1, NEW], f"{label}: 1 prefill step, {NEW} decode steps")
    check(len(j["steps"]) == 1 + NEW, f"{label}: {1 + NEW} step records")
    for s in j["steps"]:
        what = f"{label}: {s['phase']} step {s['step']}"
        check(s["runs"] == 1 and s["dispatches"] > 0 and s["dispatches"] == s["plan_dispatches"],
              f"{what}: {s['dispatches']} dispatches timed = {s['plan_dispatches']} in the recording, one run")
        host = sum(s["host_us"].values())
        check(all(v >= 0 for v in s["host_us"].values()) and host <= s["wall_us"],
              f"{what}: host phases {host:.0f} us <= wall {s['wall_us']:.0f} us")
        check((s["gpu_us"] is None) != timed and (s["gpu_us"] is None or 0 < s["gpu_us"] <= s["wall_us"]),
              f"{what}: GPU time {s['gpu_us']} within the wall time")
    wall = sum(p["wall_us"] for p in j["phases"])
    check(abs(wall - j["wall_us"]) < 1e-3 * max(wall, 1) and j["runs"] == 1 + NEW and 1 <= j["recordings"] <= j["runs"],
          f"{label}: totals (wall {j['wall_us']:.0f} us, runs {j['runs']}, recordings {j['recordings']})")
    for p in j["phases"]:
        what = f"{label}: {p['name']}"
        steps = [s for s in j["steps"] if s["phase"] == p["name"]]
        check(p["dispatches"] == sum(s["dispatches"] for s in steps), f"{what}: dispatches = sum of its steps")
        check(sum(r["calls"] for r in p["ops"]) == p["dispatches"] == sum(r["calls"] for r in p["nodes"]),
              f"{what}: op-type and node tables hold all {p['dispatches']} dispatches")
        check(all(r["calls"] % p["steps"] == 0 for r in p["nodes"]), f"{what}: each node dispatched alike in every step")
        check(len({r["index"] for r in p["nodes"]}) == len(p["nodes"]), f"{what}: one row per node")
        check(all(isinstance(r["absorbed"], list) and all(isinstance(n, str) for n in r["absorbed"]) for r in p["nodes"]),
              f"{what}: every node row lists the nodes absorbed into it")
        # the attention-mask chain reduceSum -> sub -> cast runs as one dispatch (runtime/plan_reduce.c)
        mask = [r for r in p["nodes"] if r["op"] == "cast" and len(r["absorbed"]) == 2]
        check(len(mask) == 1 and mask[0]["calls"] == p["steps"], f"{what}: the mask chain as one cast row with 2 absorbed nodes")
        # the skip sums of the normalized projections added by the matmulNBits before them; at decode the
        # attention before an o_proj takes it (runtime/plan_oproj.c): that matmulNBits has no dispatches
        adds = collections.Counter((r["op"], r["rewrite"]) for r in p["nodes"] if r["rewrite"] is not None)
        projections = adds[("qkvProjection", "-add")] + adds[("gatedMlp", "-add")]
        oproj = adds[("groupQueryAttention", "+matmulNBits,add")]
        products = projections - (oproj if p["name"] == "decode" else 0)
        check(all("rewrite" in r for r in p["nodes"]) and
              (projections >= 1 and adds[("matmulNBits", "+add")] == products and sum(adds.values()) == projections + products + oproj
               if fused else not adds),
              f"{what}: skip sums folded into the matmulNBits before {projections} projections, {oproj} by the attention ({dict(adds)})")
        if fused and p["name"] == "decode":
            check(oproj == 2, f"{what}: both layers' attention took their o_proj ({oproj})")
        rows = p["ops"] + p["nodes"]
        check(all(non_negative(r["total_us"]) and non_negative(r["mean_us"]) and non_negative(r["pct"]) for r in rows),
              f"{what}: times non-negative")
        check(all((r["total_us"] is None) != timed for r in rows), f"{what}: GPU times {'present' if timed else 'null'}")
        if timed:
            total = sum(r["total_us"] for r in p["ops"])
            check(abs(total - p["gpu_us"]) <= 1e-3 * total + 1 and sum(r["pct"] for r in p["ops"]) <= 100.01,
                  f"{what}: op times sum to the GPU time {p['gpu_us']:.0f} us, <= 100% of the wall time")
            check(p["ops"] == sorted(p["ops"], key=lambda r: -r["total_us"]), f"{what}: ops slowest first")


def check_trace(path, j, label, timed):
    with open(path) as f:
        t = json.load(f)
    ev = t["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
    check(tracks == {1: "host", 2: "GPU"}, f"{label}: trace tracks host and GPU")
    xs = [e for e in ev if e.get("ph") == "X"]
    check(all(e["ts"] >= 0 and e["dur"] >= 0 for e in xs), f"{label}: trace times non-negative")
    steps = {(e["args"]["phase"], e["args"]["step"]): e for e in xs if e["cat"] == "step"}
    check(len(steps) == 1 + NEW, f"{label}: one host event per step")
    gpu = [e for e in xs if e["tid"] == 2]
    per_step = collections.Counter((e["args"]["phase"], e["args"]["step"]) for e in gpu)
    want = {(s["phase"], s["step"]): s["dispatches"] for s in j["steps"]}
    if not timed:
        check(not gpu, f"{label}: no GPU track events without timestamps")
        return
    check(dict(per_step) == want, f"{label}: every dispatch of every step once on the GPU track")
    nodes = collections.Counter(e["name"] for e in gpu)
    jnodes = collections.Counter()
    for p in j["phases"]:
        for r in p["nodes"]:
            jnodes[r["node"]] += r["calls"]
    check(nodes == jnodes, f"{label}: GPU event names are the profile's nodes")
    slack = 1000  # us: GPU ticks converted to the host clock
    inside = all(steps[k]["ts"] - slack <= e["ts"] and e["ts"] + e["dur"] <= steps[k]["ts"] + steps[k]["dur"] + slack
                 for e in gpu for k in [(e["args"]["phase"], e["args"]["step"])])
    check(inside, f"{label}: GPU events inside their step")
    host = [e for e in xs if e["cat"] == "host"]
    nested = all(any(s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3 for s in steps.values())
                 for e in host)
    check(host and nested, f"{label}: {len(host)} host phase events nested in steps")


def profile(model, tmp, fuse, timed):
    label = f"profile --fuse {fuse}" + ("" if timed else " (WEBNNC_NO_TIMESTAMPS=1)")
    trace = os.path.join(tmp, f"trace-{fuse}-{timed}.json")
    with open(trace, "w") as f:
        f.write("old")  # replaced atomically
    env = None if timed else "1"
    if env:
        os.environ["WEBNNC_NO_TIMESTAMPS"] = env
    try:
        r = e2e.run_webnnc(["profile", model, "--new", str(NEW), "--fuse", fuse, "--json", "--trace", trace], 900)
        txt = e2e.run_webnnc(["profile", model, "--new", "1", "--fuse", fuse], 900)
    finally:
        os.environ.pop("WEBNNC_NO_TIMESTAMPS", None)
    if not check(r.returncode == 0, f"{label}: exit 0 ({r.describe()})"):
        return
    j = json.loads(r.stdout)
    check_json(j, label, timed, fuse == "all")
    check_trace(trace, j, label, timed)
    check(not [f for f in os.listdir(tmp) if ".tmp-" in f], f"{label}: no temporary file left")
    check(txt.returncode == 0 and all(s in txt.stdout for s in ("== prefill: 1 step", "== decode: 1 step", "op type", "node ")),
          f"{label}: text tables ({txt.describe()})")
    check(("matmulNBits +add" in txt.stdout) == (fuse == "all"), f"{label}: the op column shows 'matmulNBits +add' when fused")
    took = "groupQueryAttention +matmulNBits,add"
    check((took in txt.stdout and f"{took}: at decode" in txt.stdout) == (fuse == "all"),
          f"{label}: the op column shows '{took}' in full, and its legend, when fused")
    if not timed:
        check("no GPU timestamps (WEBNNC_NO_TIMESTAMPS" in txt.stdout and "WEBNNC_NO_TIMESTAMPS" in j["timestamp_note"],
              f"{label}: says why there are host times only")


def bad_inputs(model, tmp):
    trace = os.path.join(tmp, "bad.json")
    for args, what in [([model, "--prompt-ids", "1,2", "--prompt-len", "3"], "--prompt-ids with --prompt-len"),
                       ([model, "--new", "0"], "--new 0"), ([model, "--prompt-len", "x"], "--prompt-len x"),
                       ([os.path.join(tmp, "missing")], "missing model"),
                       ([model, "--prompt-len", "100000"], "prompt beyond the cache")]:
        r = e2e.run_webnnc(["profile"] + args + ["--trace", trace])
        check(r.is_clean_error() and not os.path.exists(trace), f"profile {what}: exit 2, one line, no trace ({r.describe()})")
    os.mkdir(os.path.join(tmp, "adir"))
    r = e2e.run_webnnc(["profile", model, "--new", "1", "--trace", os.path.join(tmp, "adir")])
    check(r.is_clean_error() and "not a regular file" in r.stderr, f"profile --trace FOLDER: exit 2 ({r.describe()})")


def run_profile(tmp):
    out = os.path.join(tmp, "tiny")
    c = e2e.convert(os.path.join(e2e.source_root(), "testdata", "tiny_decoder.onnx"), out)
    if not check(c.returncode == 0, f"convert tiny_decoder ({c.describe()})"):
        return
    r = e2e.run_webnnc(["run", out, "--random", "--profile"])
    check(r.returncode == 0 and "== run: 1 step" in r.stdout and "op type" in r.stdout and "matmul" in r.stdout,
          f"run --profile prints the table ({r.describe()})")
    plain = e2e.run_webnnc(["run", out, "--random"])
    check(plain.returncode == 0 and "== run" not in plain.stdout, "run without --profile prints no table")


def main():
    shared = e2e.shared_dir_or_skip("profile_tests")
    if e2e.use_working_vulkan_device() is None:
        return 1
    model = os.path.join(shared, "models", MODEL)
    os.environ["WEBNNC_RESIDUAL_MIN_KIB"] = "0"  # the skip-sum rewrite on this model's small projections too
    with tempfile.TemporaryDirectory() as tmp:
        for fuse, timed in (("all", True), ("none", True), ("all", False)):
            profile(model, tmp, fuse, timed)
        bad_inputs(model, tmp)
        run_profile(tmp)
    print(f"{len(failures)} failure(s)" if failures else "all profile checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

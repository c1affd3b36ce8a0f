#!/usr/bin/python3
"""generate_replay.py - `webnnc generate` on every corpus model (../shared/models, straight from the
ONNX folder) gives the same token ids on every runtime path:
- `rerecord`: WEBNNC_REPLAY=0, one recording per set of sizes, argmax on the host, logits of every
  position (WEBNNC_ALL_LOGITS=1; the other modes compute only the last row: pass last_logits) - the
  older path, the reference;
- `replay`: the default, one recording per dispatch plan replayed for every size (runtime/replay.c),
  made in pieces of 32 dispatches each submitted as soon as recorded (runtime/record.c), and, for models with KV caches, the token loop on the device (runtime/loop.c: argmax on the GPU,
  the next step's inputs written there, 64 steps per submission (16 on CPU devices such as lavapipe), the first one recorded at load,
  every later one captured while the one before ran);
- `replay-host-loop`: replay with the argmax on the host every step (WEBNNC_DEVICE_LOOP=0);
- `replay-staging`: the default with graph inputs/outputs forced through host staging buffers
  (WEBNNC_FORCE_STAGING=1: the io_copy dispatches a discrete GPU uses; lavapipe maps its memory);
- `replay-batches-of-3`: the device loop in batches of 3 steps (WEBNNC_LOOP_STEPS=3), so that batches
  after the second write only the parameter slots found changed while the one before ran, the host
  polling each batch's fence (WEBNNC_WAIT_POLL=1, the GPU default), and every greedy pick split over
  2 workgroups (WEBNNC_PICK_GROUPS=2; the corpus' 1024-token vocabularies fit one by default);
- `replay-no-push`: the device loop with every dispatch's parameters read from its slot
  (WEBNNC_PUSH_PARAMS=0; by default those that do not change from step to step are push constants,
  runtime/vk_spirv_push.h);
- `replay-push-all-batches-of-3`: every dispatch's parameters pushed (WEBNNC_PUSH_PARAMS=all), in
  batches of 3: the loop must find the pushed parameters that a later batch changes (the pick's
  position, the attention mask's length) and record again.
Also: a 64-token generation (qwen2-int4-webgpu) whose runtime statistics (`generate -v`) show at most
2 recordings and 63 decode steps in the device loop, in batches of 16 and of 64 (one partial
submission), some dispatches with pushed parameters (none with WEBNNC_PUSH_PARAMS=0; with
WEBNNC_PUSH_PARAMS=all more than 2 recordings: the stale pushes found and recorded again), against
64 recordings without replay, all with the same ids; sampling
on the device (--temperature/--top-k/--top-p/--seed) is deterministic per seed, --top-k 1 and --top-p 1e-6
equal greedy, two seeds differ, and sampling without the device loop is refused (exit 2); a model whose
logits are all NaN, at the prompt's last position or only at the first decode step's, stops generate with an
error naming the position (exit 2, like any model that cannot run), on the device loop (the head's fused
pick and a pick dispatch) and on the host argmax; the device pick (16-byte and scalar loads, one workgroup or split over
several, or a decode step's pick made by the vocabulary head's dispatch) equals the host argmax on logits full of bit-identical ties and with maxima in the elements after the last whole vector (pick_checks), and on int4 heads with their rows on
workgroup reductions and on subgroup row groups (fused_pick_checks); a 40-token prompt gives the same ids unfused and fully fused (composed
prefill of qkvProjection / gatedMlp, with gatedMlp's act(gate) * up in its GEMM or as a separate
dispatch, and the tile kernel) on three int4 models; and fully fused, the same ids with the skip sums of
qkvProjection / gatedMlp folded into the matmulNBits before them (runtime/plan_residual.c, forced on
these small models with WEBNNC_RESIDUAL_MIN_KIB=0) as without, on float32 and float16 int4 models.
The pipelines warmed at load cover the whole generation: `generate -v` reports none created during
the runs (and some with WEBNNC_WARM=0).
Exit 1 on any difference.  Without ../shared: skip (77), or fail under CI=true.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

PROMPT = "1,17,42,99,7,300,512,8"
MAX_NEW = 12
TORCH_DIM = ["--dim", "sequence_length=64"]
MODES = {
    "rerecord": {"WEBNNC_REPLAY": "0", "WEBNNC_ALL_LOGITS": "1"},
    "replay": {},
    "replay-host-loop": {"WEBNNC_DEVICE_LOOP": "0"},
    "replay-staging": {"WEBNNC_FORCE_STAGING": "1"},
    "replay-batches-of-3": {"WEBNNC_LOOP_STEPS": "3", "WEBNNC_WAIT_POLL": "1", "WEBNNC_PICK_GROUPS": "2"},
    "replay-no-push": {"WEBNNC_PUSH_PARAMS": "0"},
    "replay-push-all-batches-of-3": {"WEBNNC_PUSH_PARAMS": "all", "WEBNNC_LOOP_STEPS": "3"},
}
LOOP_MODES = ("replay", "replay-staging", "replay-batches-of-3", "replay-no-push", "replay-push-all-batches-of-3")
STATS = re.compile(r"runtime: (\d+) recordings, (\d+) replays")
LOOP = re.compile(r"device token loop: (\d+) decode steps in (\d+) submissions, (\d+) of them prepared ahead")
ENV_KEYS = ("WEBNNC_REPLAY", "WEBNNC_FORCE_STAGING", "WEBNNC_DEVICE_LOOP", "WEBNNC_ALL_LOGITS", "WEBNNC_LOOP_STEPS", "WEBNNC_WAIT_POLL",
            "WEBNNC_PICK_VEC", "WEBNNC_PICK_GROUPS", "WEBNNC_PICK_FUSED", "WEBNNC_MATVEC_TPR", "WEBNNC_PUSH_PARAMS")
PUSHED = re.compile(r"device token loop: (\d+) dispatches of each step take their parameters as push constants")
FUSED_PICK = "each step's greedy pick made by the dispatch that writes its logits"


def generate(model, env_extra, max_new, extra=()):
    """(ids or None, recordings, loop steps, description) of one `generate -v` run."""
    generate.fused_pick = False  # whether `generate -v` said the steps' picks were made by the logits' dispatch
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env.update(env_extra)
    cmd = [e2e.webnnc(), "generate", model, "--prompt-ids", PROMPT, "--max-new", str(max_new), "-v"] + list(extra)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=env)
    except subprocess.TimeoutExpired:
        return None, None, None, "timed out"
    run = e2e.Run(cmd, p.returncode, p.stdout, p.stderr)
    m = STATS.search(p.stderr)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not m or not lines:
        return None, None, None, run.describe()
    loop = LOOP.search(p.stderr)
    # every batch captured ahead: the first recorded at load with the warm-up (not under WEBNNC_WARM=0),
    # every later one while the one before ran
    ahead = int(loop[2]) - (1 if env_extra.get("WEBNNC_WARM") == "0" else 0) if loop else 0
    if loop and int(loop[3]) != ahead:
        return None, None, None, f"{loop[0]}: {ahead} prepared ahead expected\n{run.describe()}"
    generate.fused_pick = FUSED_PICK in p.stderr
    pushed = PUSHED.search(p.stderr)
    generate.pushed = int(pushed[1]) if pushed else None  # dispatches per step with pushed parameters
    return lines[-1], int(m[1]), int(loop[1]) if loop else 0, ""


RUN_PIPELINES = re.compile(r"created at load .*, (\d+) more during the runs")


def warm_checks(model):
    """The pipelines warmed at load cover the whole generation (prefill, token pick, decode steps):
    none is created during the runs, and without the warm-up (WEBNNC_WARM=0) some are."""
    problems = []
    for env, want_none in (({}, True), ({"WEBNNC_WARM": "0"}, False)):
        cmd = [e2e.webnnc(), "generate", model, "--prompt-ids", PROMPT, "--max-new", "16", "-v"]
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600,
                           env={**{k: v for k, v in os.environ.items() if k not in ENV_KEYS + ("WEBNNC_WARM",)}, **env})
        m = RUN_PIPELINES.search(p.stderr)
        if p.returncode != 0 or not m:
            problems.append(f"warm-up {env or 'default'}: " + e2e.Run(cmd, p.returncode, p.stdout, p.stderr).describe())
        elif (int(m[1]) == 0) != want_none:
            problems.append(f"warm-up {env or 'default'}: {m[1]} pipelines created during the runs")
        else:
            print(f"warm-up {env or 'default'}: {m[1]} pipelines created during the runs", flush=True)
    return problems


def sampling_checks(model):
    """Device sampling: deterministic per seed, --top-k 1 / tiny --top-p are greedy, seeds differ, refused off the loop."""
    problems = []
    greedy = generate(model, {}, 24)[0]
    runs = {}
    for name, args in (("a", ["--seed", "7"]), ("a-again", ["--seed", "7"]), ("b", ["--seed", "8"]),
                       ("nucleus", ["--seed", "7", "--top-k", "40", "--top-p", "0.9"]),
                       ("nucleus-again", ["--seed", "7", "--top-k", "40", "--top-p", "0.9"]),
                       ("top1", ["--seed", "3", "--top-k", "1"]), ("top-p-tiny", ["--seed", "3", "--top-p", "1e-6"])):
        ids, _, _, why = generate(model, {}, 24, ["--temperature", "1.5"] + args)
        if ids is None:
            problems.append(f"sampling {name}: {why}")
        runs[name] = ids
    if runs.get("a") != runs.get("a-again") or runs.get("nucleus") != runs.get("nucleus-again"):
        problems.append(f"sampling: the same seed gave {runs.get('a')} / {runs.get('a-again')}, "
                        f"{runs.get('nucleus')} / {runs.get('nucleus-again')}")
    if runs.get("a") == runs.get("b"):
        problems.append(f"sampling: seeds 7 and 8 gave the same 24 tokens {runs.get('a')}")
    if runs.get("a") == greedy:
        problems.append("sampling at temperature 1.5 gave the greedy tokens")
    for name in ("top1", "top-p-tiny"):  # only the most likely token is kept
        if runs.get(name) != greedy:
            problems.append(f"sampling {name} gave {runs.get(name)}, greedy {greedy}")
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env["WEBNNC_REPLAY"] = "0"
    cmd = [e2e.webnnc(), "generate", model, "--prompt-ids", PROMPT, "--max-new", "4", "--temperature", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=env)
    if p.returncode != 2 or p.stdout or "device token loop" not in p.stderr:
        problems.append(f"sampling with WEBNNC_REPLAY=0: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}"
                        " (exit 2 naming the device token loop expected)")
    if not problems:
        print(f"sampling: deterministic per seed, --top-k 1 == greedy, seeds differ ({runs['a']})", flush=True)
    return problems


LONG_PROMPT = ",".join(str((1 + 7919 * k) % 1000) for k in range(40))


def last_line_ids(model, prompt, max_new, fuse, env, cleared):
    """The ids line of a plain `generate --fuse FUSE` run with env (the ENV_KEYS and `cleared` taken
    from the environment first), or "exit N"."""
    run_env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS + cleared}
    run_env.update(env)
    cmd = [e2e.webnnc(), "generate", model, "--prompt-ids", prompt, "--max-new", str(max_new), "--fuse", fuse]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=run_env)
    return p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else f"exit {p.returncode}"


def fused_prefill_checks(models_dir):
    """A 40-token prompt (the prefill forms for 17+ rows) gives the same ids unfused, fully fused with
    the composed qkvProjection / gatedMlp prefill (runtime/k_fused_prefill.c: gatedMlp's act(gate) * up
    in its GEMM, and as a separate dispatch with WEBNNC_FUSED_PREFILL=gate_mul) and with the tile
    kernel (WEBNNC_FUSED_PREFILL=tile), on int4 models with packed (webgpu) and separate (dml) projections."""
    problems = []
    for name in ("qwen2-int4-webgpu", "phi3-int4-webgpu", "llama-int4-dml"):
        model = os.path.join(models_dir, name)
        got = {}
        for label, fuse, env in (("none", "none", {}), ("all", "all", {}), ("all, tile", "all", {"WEBNNC_FUSED_PREFILL": "tile"}),
                                 ("all, gate_mul", "all", {"WEBNNC_FUSED_PREFILL": "gate_mul"})):
            got[label] = last_line_ids(model, LONG_PROMPT, 8, fuse, env, ("WEBNNC_FUSED_PREFILL",))
        if len(set(got.values())) != 1:
            problems.append(f"{name}, 40-token prompt: " + "; ".join(f"--fuse {k}: {v}" for k, v in got.items()))
        else:
            print(f"{name}, 40-token prompt: unfused, fused (gated GEMM, separate act(gate) * up, tile kernel) agree "
                  f"({got['none']})", flush=True)
    return problems


def residual_fold_checks(models_dir):
    """Fully fused, the skip sums folded into the matmulNBits before the projections (WEBNNC_RESIDUAL_MIN_KIB=0:
    every one; by default these models' projections are too small) give the same ids as not folded
    (float32: the same bytes; float16: the projections normalize the rounded sum)."""
    problems = []
    for name in ("qwen2-int4-cpu", "phi3-int4-cpu", "qwen2-int4-webgpu", "llama-int4-dml"):
        model = os.path.join(models_dir, name)
        got = {}
        for label, env in (("default", {}), ("folded", {"WEBNNC_RESIDUAL_MIN_KIB": "0"})):
            got[label] = last_line_ids(model, PROMPT, MAX_NEW, "all", env, ("WEBNNC_RESIDUAL_MIN_KIB",))
        if len(set(got.values())) != 1 or got["default"].startswith("exit"):
            problems.append(f"{name}, skip sums folded: " + "; ".join(f"{k}: {v}" for k, v in got.items()))
        else:
            print(f"{name}: the same ids with the skip sums folded ({got['default']})", flush=True)
    return problems


def edited_model(src, tmp, edit):
    """Corpus model folder src written to tmp with its model.onnx changed by edit(model) (the other
    files copied as they are, the weights saved as external data)."""
    import shutil

    import onnx
    for f in os.listdir(src):
        if f not in ("model.onnx", "model.onnx.data") and os.path.isfile(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), tmp)
    m = onnx.load(os.path.join(src, "model.onnx"))
    edit(m)
    onnx.save(m, os.path.join(tmp, "model.onnx"), save_as_external_data=True, location="model.onnx.data")
    return tmp


def nan_checks(models_dir):
    """Models whose logits are all NaN stop generate with an error naming the logits and their position (exit
    2), on the device loop (fully fused: each decode step's pick made by the vocabulary head, and by a pick
    dispatch per step; unfused) and on the host argmax alike: NaN logits must not decode as token 0.  qwen2-int4-webgpu edited two
    ways: its final norm weight NaN (every position's logits NaN: the prompt's last, position 7, reports it)
    and row 8 of its rotary cosines NaN (the prompt's 8 positions are finite, so the prefill picks a token,
    and the first decode step, at position 8, computes NaN everywhere)."""
    import tempfile

    import numpy as np
    from onnx import numpy_helper

    def nan_norm(m):
        norm = next(n for n in m.graph.node if "final_norm" in n.name)
        init = next(t for t in m.graph.initializer if t.name == norm.input[-1])
        init.CopyFrom(numpy_helper.from_array(np.full(numpy_helper.to_array(init).shape, np.nan,
                                                      numpy_helper.to_array(init).dtype), init.name))

    def nan_cos_row8(m):
        init = next(t for t in m.graph.initializer if t.name == "cos_cache")
        rows = numpy_helper.to_array(init).copy()
        rows[8, :] = np.nan
        init.CopyFrom(numpy_helper.from_array(rows, init.name))
    problems = []
    for what, edit, position, max_new in (("final norm", nan_norm, 7, ("1", "4")), ("rotary row 8", nan_cos_row8, 8, ("4",))):
        with tempfile.TemporaryDirectory() as tmp:
            edited_model(os.path.join(models_dir, "qwen2-int4-webgpu"), tmp, edit)
            for mode, env, fuse in (("device loop, fused", {}, "all"),
                                    ("device loop, fused, a pick dispatch per step", {"WEBNNC_PICK_FUSED": "0"}, "all"),
                                    ("device loop, unfused", {}, "none"), ("host argmax", {"WEBNNC_DEVICE_LOOP": "0"}, "none")):
                run_env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
                run_env.update(env)
                for n in max_new:  # --max-new 1: the prefill's pick alone (it once came back as id 2^31)
                    cmd = [e2e.webnnc(), "generate", tmp, "--prompt-ids", PROMPT, "--max-new", n, "--fuse", fuse]
                    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=run_env)
                    want = f"output logits: every logit at position {position} is NaN"
                    if p.returncode != 2 or p.stdout.strip() or want not in p.stderr:
                        problems.append(f"NaN logits ({what}), {mode}, --max-new {n}: exit {p.returncode}, stdout "
                                        f"{p.stdout.strip()!r}, stderr {p.stderr.strip()[-300:]!r} (exit 2 and {want!r} expected)")
                    else:
                        print(f"NaN logits ({what}), {mode}, --max-new {n}: {p.stderr.strip().splitlines()[-1]}", flush=True)
    return problems


PICK_VOCAB = 1019  # 127 vectors of 8 float16 or 254 of 4 float32, and a tail the pick reads element by element
PICK_TAIL = 1016   # the first logit of that tail (for both)


def pick_checks(models_dir):
    """The device loop's greedy pick (next_token.comp) on logits full of ties and with maxima past the last
    whole 16-byte vector: qwen2-fp32-cpu and qwen2-fp16-webgpu with their vocabulary head rewritten to
    PICK_VOCAB columns, 1016..1018 (the tail) copies of original columns 0..2 and every column before
    them a copy of one of columns 3..13 (j -> 3 + j % 11: each of those logits 92 times, bit-identical).
    The ids of the device loop with 16-byte loads (the default), with scalar loads (WEBNNC_PICK_VEC=0) and
    with logits of every prompt position (WEBNNC_ALL_LOGITS=1: the prefill's pick reads row 7, which
    starts off a 16-byte boundary, so it must fall back to scalar loads), each in one workgroup (the
    default for this vocabulary) and split over several (WEBNNC_PICK_GROUPS: each workgroup's chunk
    holds ties of the others', the last one the tail), must equal the host argmax's
    (first index of the largest), and the host's must hold both kinds of pick (a tail index, and a tied
    one below 11) for the check to mean anything."""
    import tempfile

    import numpy as np
    from onnx import numpy_helper

    def tied_head(m):
        head = next(n for n in m.graph.node if n.output[0] == "logits")
        init = next(t for t in m.graph.initializer if t.name == head.input[1])
        cols = [3 + j % 11 for j in range(PICK_TAIL)] + list(range(PICK_VOCAB - PICK_TAIL))
        init.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(numpy_helper.to_array(init)[:, cols]), init.name))
        next(o for o in m.graph.output if o.name == "logits").type.tensor_type.shape.dim[-1].dim_value = PICK_VOCAB
    problems = []
    for name in ("qwen2-fp32-cpu", "qwen2-fp16-webgpu"):
        with tempfile.TemporaryDirectory() as tmp:
            edited_model(os.path.join(models_dir, name), tmp, tied_head)
            got = {}
            for mode, env in (("host argmax", {"WEBNNC_DEVICE_LOOP": "0"}), ("device, 16-byte loads", {}),
                              ("device, scalar loads", {"WEBNNC_PICK_VEC": "0"}),
                              ("device, every logits row", {"WEBNNC_ALL_LOGITS": "1"}),
                              ("device, 16-byte loads, 4 workgroups", {"WEBNNC_PICK_GROUPS": "4"}),
                              ("device, scalar loads, 3 workgroups", {"WEBNNC_PICK_VEC": "0", "WEBNNC_PICK_GROUPS": "3"}),
                              ("device, every logits row, 5 workgroups", {"WEBNNC_ALL_LOGITS": "1", "WEBNNC_PICK_GROUPS": "5"}),
                              ("device, a pick dispatch per step", {"WEBNNC_PICK_FUSED": "0"})):
                ids, _, steps, why = generate(tmp, env, 24)
                if ids is None:
                    problems.append(f"pick {name} {mode}: {why}")
                    continue
                if (steps == 0) != (mode == "host argmax"):
                    problems.append(f"pick {name} {mode}: {steps} device loop steps")
                got[mode] = ids
            ref = [int(i) for i in got.get("host argmax", "").split(",") if i]
            for mode, ids in got.items():
                if ids != got.get("host argmax"):
                    problems.append(f"pick {name} {mode}: ids {ids} differ from the host argmax's {got.get('host argmax')}")
            if ref and not (any(i >= PICK_TAIL for i in ref) and any(i < 11 for i in ref)):
                problems.append(f"pick {name}: the host's ids {ref} hold no tail index or no tied one (test lost its point)")
            print(f"pick {name}: {len(got)} paths, ids {','.join(map(str, ref))}", flush=True)
    return problems


def fused_pick_checks(models_dir):
    """The decode steps' greedy pick made by the vocabulary head's dispatch (shaders/matvec_rows_pick.comp,
    runtime/loop.c offer_pick; `generate -v` says so) gives the host argmax's ids on fully fused int4 models (the head a matmulNBits), with the
    head's rows on workgroup reductions (lavapipe's default) and on subgroup row groups (WEBNNC_MATVEC_TPR=8,
    the GPUs' form), and so does a pick dispatch per step (WEBNNC_PICK_FUSED=0, which must not say so)."""
    problems = []
    for name in ("qwen2-int4-webgpu", "phi3-int4-cpu", "llama-int4-dml"):
        model = os.path.join(models_dir, name)
        got = {}
        for mode, env, fused in (("host argmax", {"WEBNNC_DEVICE_LOOP": "0"}, False), ("device", {}, True),
                                 ("device, subgroup row groups", {"WEBNNC_MATVEC_TPR": "8"}, True),
                                 ("device, a pick dispatch per step", {"WEBNNC_PICK_FUSED": "0"}, False)):
            ids, _, _, why = generate(model, env, 24, ["--fuse", "all"])
            if ids is None:
                problems.append(f"fused pick {name} {mode}: {why}")
                continue
            if generate.fused_pick != fused:
                problems.append(f"fused pick {name} {mode}: `generate -v` {'does not say' if fused else 'says'} {FUSED_PICK!r}")
            got[mode] = ids
        if len(set(got.values())) != 1:
            problems.append(f"fused pick {name}: " + "; ".join(f"{k}: {v}" for k, v in got.items()))
        else:
            print(f"fused pick {name}: {len(got)} paths agree ({got['host argmax']})", flush=True)
    return problems


def main():
    e2e.webnnc()
    shared = e2e.shared_dir_or_skip("generate_replay (model corpus)")
    models_dir = os.path.join(shared, "models")
    if e2e.use_working_vulkan_device() is None:
        return 1
    failures = []
    names = sorted(d for d in os.listdir(models_dir) if os.path.isfile(os.path.join(models_dir, d, "model.onnx")))
    for name in names:
        model = os.path.join(models_dir, name)
        extra = TORCH_DIM if name.endswith("-torch-dynamo") else []
        got = {}
        for mode, env in MODES.items():
            ids, rec, steps, why = generate(model, env, MAX_NEW, extra)
            if ids is None:
                failures.append(f"{name} {mode}: {why}")
                continue
            got[mode] = (ids, rec)
            # the device loop runs every decode step where there are KV caches (not torch-dynamo exports)
            want = MAX_NEW - 1 if mode in LOOP_MODES and not extra else 0
            if steps != want:
                failures.append(f"{name} {mode}: {steps} device loop steps, {want} expected")
        ref = got.get("rerecord")
        for mode, (ids, rec) in got.items():
            if ref and ids != ref[0]:
                failures.append(f"{name} {mode}: ids {ids} differ from WEBNNC_REPLAY=0's {ref[0]}")
        line = ", ".join(f"{mode} {rec} recordings" for mode, (_, rec) in got.items())
        print(f"{name}: {'ok' if not any(f.startswith(name + ' ') for f in failures) else 'FAIL'} ({line})", flush=True)

    model = os.path.join(models_dir, "qwen2-int4-webgpu")
    long_ids = {}
    # batches of 64 steps (the GPU default; lavapipe's is 16): 63 steps in one partial submission
    # (pushed parameters: some by default, none with WEBNNC_PUSH_PARAMS=0; with =all the pushes that a
    # later batch would change are found and recorded again: more than 2 recordings)
    for mode, env, most, pushed in (("replay", {}, 2, "some"), ("replay-batches-of-64", {"WEBNNC_LOOP_STEPS": "64"}, 2, "some"),
                                    ("replay-no-push", {"WEBNNC_PUSH_PARAMS": "0"}, 2, "none"),
                                    ("replay-push-all", {"WEBNNC_PUSH_PARAMS": "all"}, 64, "all"),
                                    ("rerecord", {"WEBNNC_REPLAY": "0"}, None, None)):
        ids, rec, steps, why = generate(model, env, 64)
        long_ids[mode] = ids
        if ids is None:
            failures.append(f"64 tokens {mode}: {why}")
        elif len(ids.split(",")) != 64:
            failures.append(f"64 tokens {mode}: {len(ids.split(','))} ids")
        elif most is not None and (rec > most or steps != 63):
            failures.append(f"64 tokens {mode}: {rec} recordings (at most {most}), {steps} device loop steps (63)")
        elif pushed is not None and (generate.pushed is None or (generate.pushed > 0) != (pushed != "none") or
                                     (pushed == "all" and rec <= 2)):
            failures.append(f"64 tokens {mode}: {generate.pushed} dispatches per step with pushed parameters "
                            f"({pushed} expected), {rec} recordings")
        elif most is None and (rec != 64 or steps != 0):
            failures.append(f"64 tokens {mode}: {rec} recordings, {steps} loop steps (one recording per size, host loop)")
        else:
            print(f"64 tokens {mode}: {rec} recordings, {steps} device loop steps, {generate.pushed} dispatches per step "
                  "with pushed parameters", flush=True)
    for mode, ids in long_ids.items():
        if ids is not None and long_ids["rerecord"] is not None and ids != long_ids["rerecord"]:
            failures.append(f"64 tokens {mode}: ids differ from WEBNNC_REPLAY=0's")
    failures += sampling_checks(model)
    failures += warm_checks(model)
    failures += nan_checks(models_dir)
    failures += pick_checks(models_dir)
    failures += fused_pick_checks(models_dir)
    failures += fused_prefill_checks(models_dir)
    failures += residual_fold_checks(models_dir)
    if failures:
        print(f"FAIL: {len(failures)} problem(s):\n  " + "\n  ".join(failures))
        return 1
    print(f"PASS: {len(names)} models, {len(MODES)} paths each")
    return 0


if __name__ == "__main__":
    sys.exit(main())

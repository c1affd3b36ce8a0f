#!/usr/bin/python3
"""generate_replay.py - `webnnc generate` on every corpus model (../shared/models, straight from the
ONNX folder) gives the same token ids on every runtime path:
- `rerecord`: WEBNNC_REPLAY=0, one recording per set of sizes (the older path, the reference);
- `replay`: the default, one recording per dispatch plan replayed for every size (runtime/replay.c);
- `replay-staging`: the same with graph inputs/outputs forced through host staging buffers
  (WEBNNC_FORCE_STAGING=1: the io_copy dispatches a discrete GPU uses; lavapipe maps its memory).
Also: a 64-token generation (qwen2-int4-webgpu) whose runtime statistics (`generate -v`) show at most
2 recordings and a replay for every other step, against 64 without replay.
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
    "rerecord": {"WEBNNC_REPLAY": "0"},
    "replay": {},
    "replay-staging": {"WEBNNC_FORCE_STAGING": "1"},
}
STATS = re.compile(r"runtime: (\d+) recordings, (\d+) replays")


def generate(model, env_extra, max_new, extra=()):
    """(ids or None, recordings, replays, description) of one `generate -v` run."""
    env = dict(os.environ)
    env.pop("WEBNNC_REPLAY", None)
    env.pop("WEBNNC_FORCE_STAGING", None)
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
    return lines[-1], int(m[1]), int(m[2]), ""


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
            ids, rec, _, why = generate(model, env, MAX_NEW, extra)
            if ids is None:
                failures.append(f"{name} {mode}: {why}")
                continue
            got[mode] = (ids, rec)
        ref = got.get("rerecord")
        for mode, (ids, rec) in got.items():
            if ref and ids != ref[0]:
                failures.append(f"{name} {mode}: ids {ids} differ from WEBNNC_REPLAY=0's {ref[0]}")
        line = ", ".join(f"{mode} {rec} recordings" for mode, (_, rec) in got.items())
        print(f"{name}: {'ok' if not any(f.startswith(name + ' ') for f in failures) else 'FAIL'} ({line})", flush=True)

    model = os.path.join(models_dir, "qwen2-int4-webgpu")
    for mode, env, most in (("replay", {}, 2), ("rerecord", {"WEBNNC_REPLAY": "0"}, None)):
        ids, rec, rep, why = generate(model, env, 64)
        if ids is None:
            failures.append(f"64 tokens {mode}: {why}")
        elif len(ids.split(",")) != 64 or rec + rep != 64:
            failures.append(f"64 tokens {mode}: {len(ids.split(','))} ids, {rec} recordings + {rep} replays (64 runs expected)")
        elif most is not None and rec > most:
            failures.append(f"64 tokens {mode}: {rec} recordings, at most {most} expected")
        elif most is None and rec != 64:
            failures.append(f"64 tokens {mode}: {rec} recordings, one per size (64) expected")
        else:
            print(f"64 tokens {mode}: {rec} recordings, {rep} replays", flush=True)
    if failures:
        print(f"FAIL: {len(failures)} problem(s):\n  " + "\n  ".join(failures))
        return 1
    print(f"PASS: {len(names)} models, {len(MODES)} paths each")
    return 0


if __name__ == "__main__":
    sys.exit(main())

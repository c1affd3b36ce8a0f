#!/usr/bin/python3
"""api_generate.py - webnnc_generate (the library, through api_generate.c built against libwebnnc.so
and the public header) gives the same token ids as `webnnc generate` on every corpus model
(../shared/models, straight from the ONNX folder), because both run lib/run/decoder_generate.c:
- the default path: for models with KV caches the device token loop (runtime/loop.c), shown by the
  library's verbose statistics ("device token loop: 11 decode steps"), else the host argmax;
- WEBNNC_DEVICE_LOOP=0: the host argmax every step, the same ids;
and on qwen2-int4-webgpu: sampling on the device (temperature, top-k, top-p, seed) equals the CLI's
for the same seed, and an eos id stops the library's generation after it (a prefix of the greedy ids).
Exit 1 on any difference.  Without ../shared: skip (77), or fail under CI=true.
  api_generate.py WEBNNC API_GENERATE
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

PROMPT = "1,17,42,99,7,300,512,8"
MAX_NEW = 12
TORCH_DIM = "sequence_length=64"
LOOP = re.compile(r"device token loop: (\d+) decode steps in (\d+) submissions")
ENV_KEYS = ("WEBNNC_REPLAY", "WEBNNC_FORCE_STAGING", "WEBNNC_DEVICE_LOOP", "WEBNNC_ALL_LOGITS")


def run(cmd, env_extra):
    """(ids line or None, stderr, description)."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS and not k.startswith("API_")}
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600, env=env)
    except subprocess.TimeoutExpired:
        return None, "", f"{' '.join(cmd)}: timed out"
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        return None, p.stderr, e2e.Run(cmd, p.returncode, p.stdout, p.stderr).describe()
    return lines[-1], p.stderr, ""


def cli(model, torch, env=None, extra=()):
    dims = ["--dim", TORCH_DIM] if torch else []
    return run([e2e.webnnc(), "generate", model, "--prompt-ids", PROMPT, "--max-new", str(MAX_NEW)] + dims + list(extra),
               env or {})


def api(tool, model, torch, env=None):
    return run([tool, model, PROMPT, str(MAX_NEW)] + ([TORCH_DIM] if torch else []), env or {})


def model_checks(tool, model, name):
    torch = name.endswith("-torch-dynamo")
    problems = []
    want, _, why = cli(model, torch)
    if want is None:
        return [f"{name} webnnc generate: {why}"]
    got, err, why = api(tool, model, torch, {"API_VERBOSE": "1"})
    loop = LOOP.search(err)
    steps = int(loop[1]) if loop else 0
    if got is None:
        problems.append(f"{name} webnnc_generate: {why}")
    elif got != want:
        problems.append(f"{name}: webnnc_generate {got} != webnnc generate {want}")
    elif steps != (0 if torch else MAX_NEW - 1):  # KV caches (not the torch-dynamo exports): every decode step on the device
        problems.append(f"{name}: webnnc_generate ran {steps} device loop steps, {0 if torch else MAX_NEW - 1} expected")
    host, _, why = api(tool, model, torch, {"WEBNNC_DEVICE_LOOP": "0"})
    if host != want:
        problems.append(f"{name} WEBNNC_DEVICE_LOOP=0: webnnc_generate {host or why} != webnnc generate {want}")
    print(f"{name}: {'ok' if not problems else 'FAIL'} ({want}; {steps} device loop steps)", flush=True)
    return problems


def sampling_and_eos(tool, model):
    problems = []
    for name, args, env in (("seed 7", ["--seed", "7"], {"API_SEED": "7"}),
                            ("nucleus", ["--seed", "3", "--top-k", "40", "--top-p", "0.9"],
                             {"API_SEED": "3", "API_TOP_K": "40", "API_TOP_P": "0.9"})):
        want, _, why = cli(model, False, extra=["--temperature", "1.5"] + args)
        got, _, why2 = api(tool, model, False, dict(env, API_TEMPERATURE="1.5"))
        if want is None or got != want:
            problems.append(f"sampling {name}: webnnc_generate {got or why2} != webnnc generate {want or why}")
    greedy, _, why = cli(model, False)
    ids = greedy.split(",") if greedy else []
    if len(ids) > 3:
        stop = ids[3]
        got, _, why = api(tool, model, False, {"API_EOS": stop})
        prefix = ",".join(ids[:ids.index(stop) + 1])
        if got != prefix:
            problems.append(f"eos {stop}: webnnc_generate {got or why}, {prefix} expected")
    if not problems:
        print("sampling = webnnc generate's per seed; eos stops after the id", flush=True)
    return problems


def main():
    tool, shared = e2e.api_suite_start("api_generate (model corpus)", __doc__)
    models_dir = os.path.join(shared, "models")
    failures = []
    names = sorted(d for d in os.listdir(models_dir) if os.path.isfile(os.path.join(models_dir, d, "model.onnx")))
    for name in names:
        failures += model_checks(tool, os.path.join(models_dir, name), name)
    failures += sampling_and_eos(tool, os.path.join(models_dir, "qwen2-int4-webgpu"))
    return e2e.finish(failures, f"{len(names)} models, webnnc_generate == webnnc generate")


if __name__ == "__main__":
    sys.exit(main())

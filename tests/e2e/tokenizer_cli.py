#!/usr/bin/python3
"""tokenizer_cli.py - text in, text out through the CLI (issue 10).

- `tokenize` (--text, --file, --jsonl; with and without --special) and `detokenize` (--ids, --jsonl;
  with and without --skip-special) give the reference results of ../shared/tokenizers/*/cases.jsonl
  (a sample of cases per tokenizer through every input form; the library suite checks all cases).
- --jsonl answers a bad line with {"error": ...} and goes on.
- Bad input: malformed tokenizer.json, a merges entry naming an unknown token, invalid UTF-8 text, an
  id outside the vocab, no tokenizer next to the model: one `webnnc: error:` line, exit 2, empty stdout.
- `generate MODEL --prompt TEXT --ids` on a corpus model folder (which ships tokenizer.json): its ids
  equal `generate --prompt-ids` with `tokenize --special`'s ids (BOS per tokenizer_config), and the
  streamed text equals `detokenize --skip-special` of the generated ids.
- Stop tokens: with genai_config.json's eos_token_id set to a later generated id (in a list),
  generation ends there; the text is that of the ids before it.
- `convert` copies genai_config.json and the tokenizer files, so `generate --prompt OUTDIR` works and
  gives the same ids.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_common as e2e  # noqa: E402

failures = []
MODEL = "llama-int4-webgpu"  # random weights whose first ids fall in its tokenizer's vocab
PROMPT = "the quick brown fox"


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}", flush=True)
    return cond


def run(args, stdin=None, timeout=600):
    """(returncode, stdout bytes, stderr text) of webnnc args (bytes arguments allowed)."""
    p = subprocess.run([e2e.webnnc()] + list(args), input=stdin, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def ids_of(out):
    line = out.decode().strip()
    return [int(x) for x in line.split(",")] if line else []


def clean_error(what, args, stdin=None):
    rc, out, err = run(args, stdin)
    lines = [x for x in err.splitlines() if x.strip()]
    check(rc == 2 and out == b"" and len(lines) == 1 and lines[0].startswith("webnnc: error: "),
          f"{what}: exit {rc}, stdout {out[:80]!r}, stderr {err.strip()[:300]!r}")


def cases_checks(tok_dir, tmp):
    cases = [json.loads(x) for x in open(os.path.join(tok_dir, "cases.jsonl"), encoding="utf-8")]
    enc = [c for c in cases if "text" in c and "ids" in c]
    dec = [c for c in cases if "decode_ids" in c]
    rnd = random.Random(7)
    sample = enc[:12] + rnd.sample(enc[12:], 12)
    name = os.path.basename(tok_dir)
    for i, c in enumerate(sample):
        for special, want in ((False, c["ids"]), (True, c["ids_special"])):
            flag = ["--special"] if special else []
            if c["text"] and "\0" not in c["text"]:
                rc, out, err = run(["tokenize", tok_dir, "--text", c["text"]] + flag)
                check(rc == 0 and ids_of(out) == want, f"{name} case {i} --text special={special}: {out[:100]!r} {err.strip()}")
            path = os.path.join(tmp, f"{name}-{i}.txt")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(c["text"])
            rc, out, err = run(["tokenize", tok_dir, "--file", path] + flag)
            check(rc == 0 and ids_of(out) == want, f"{name} case {i} --file special={special}: {out[:100]!r} {err.strip()}")
    # --jsonl: the sample plus a line that is not JSON and one without text; every line answered
    lines = [json.dumps({"text": c["text"]}) for c in sample] + ["{not json", json.dumps({"txt": 1})]
    lines.insert(3, json.dumps({"text": sample[3]["text"], "special": True}))
    rc, out, err = run(["tokenize", tok_dir, "--jsonl"], stdin="\n".join(lines).encode() + b"\n")
    got = [json.loads(x) for x in out.decode().splitlines()]
    want = [{"ids": c["ids"]} for c in sample]
    want.insert(3, {"ids": sample[3]["ids_special"]})
    check(rc == 0 and len(got) == len(lines) and got[:-2] == want and all("error" in g for g in got[-2:]),
          f"{name} tokenize --jsonl: exit {rc}, {len(got)} answers for {len(lines)} lines, last {got[-2:]} {err.strip()}")
    # detokenize: encode cases (decoded keeps specials) and the decode cases
    for i, c in enumerate(enc[:8]):
        if not c["ids"]:
            continue
        rc, out, err = run(["detokenize", tok_dir, "--ids", ",".join(map(str, c["ids"]))])
        check(rc == 0 and out.decode() == c["decoded"] + "\n", f"{name} detokenize case {i}: {out[:100]!r} {err.strip()}")
    reqs = [{"ids": c["decode_ids"], "skip_special": c["skip_special"]} for c in dec[:20]]
    rc, out, err = run(["detokenize", tok_dir, "--jsonl"], stdin=("\n".join(map(json.dumps, reqs)) + "\n[1,2]\n").encode())
    got = [json.loads(x) for x in out.decode().splitlines()]
    check(rc == 0 and [g.get("text") for g in got[:-1]] == [c["text"] for c in dec[:20]] and "error" in got[-1],
          f"{name} detokenize --jsonl: exit {rc} {got[-1:]} {err.strip()}")
    for c in dec[:6]:
        flag = ["--skip-special"] if c["skip_special"] else []
        rc, out, err = run(["detokenize", tok_dir, "--ids", ",".join(map(str, c["decode_ids"]))] + flag)
        check(rc == 0 and out.decode() == c["text"] + "\n", f"{name} detokenize --ids {c['decode_ids'][:4]}..: {out[:80]!r} {err.strip()}")


def bad_input_checks(tok_dir, tmp):
    text = open(os.path.join(tok_dir, "tokenizer.json"), encoding="utf-8").read()
    bad = os.path.join(tmp, "bad")
    os.makedirs(bad, exist_ok=True)
    with open(os.path.join(bad, "tokenizer.json"), "w", encoding="utf-8") as f:
        f.write(text[: len(text) // 2])
    clean_error("truncated tokenizer.json", ["tokenize", bad, "--text", "hello"])
    j = json.loads(text)
    merges = j["model"]["merges"]
    merges[0] = "zzzunknownzzz qqqunknownqqq" if isinstance(merges[0], str) else ["zzzunknownzzz", "qqqunknownqqq"]
    with open(os.path.join(bad, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(j, f)
    clean_error("merges entry naming an unknown token", ["tokenize", bad, "--text", "hello"])
    with open(os.path.join(bad, "tokenizer.json"), "wb") as f:  # a string of bytes that are not UTF-8
        f.write(b'{"comment": "\xab\x81\xff", ' + text.encode()[1:])
    clean_error("tokenizer.json that is not UTF-8", ["tokenize", bad, "--text", "hello 12"])
    invalid = os.path.join(tmp, "invalid.txt")
    with open(invalid, "wb") as f:
        f.write(b"abc \xff\xfe def")
    clean_error("invalid UTF-8 text (--file)", ["tokenize", tok_dir, "--file", invalid])
    clean_error("invalid UTF-8 text (--text)", ["tokenize", tok_dir, "--text", b"abc \xc3"])
    clean_error("id outside the vocab", ["detokenize", tok_dir, "--ids", "1,99999999"])
    clean_error("no tokenizer.json", ["tokenize", tmp, "--text", "hello"])
    clean_error("two inputs", ["tokenize", tok_dir, "--text", "a", "--jsonl"])


def vocab_size(model):
    """Largest id of the model folder's tokenizer.json + 1."""
    j = json.load(open(os.path.join(model, "tokenizer.json"), encoding="utf-8"))
    vocab = j["model"]["vocab"]
    ids = list(vocab.values()) if isinstance(vocab, dict) else list(range(len(vocab)))
    return max(ids + [t["id"] for t in j.get("added_tokens", [])]) + 1


def generate(model, args):
    rc, out, err = run(["generate", model, "--max-new", "12"] + args)
    return rc, out.decode("utf-8", "replace"), err


def generate_checks(models_dir, tmp):
    src = os.path.join(models_dir, MODEL)
    rc, out, err = run(["tokenize", src, "--text", PROMPT, "--special"])
    prompt_ids = ids_of(out) if rc == 0 else []
    check(rc == 0 and prompt_ids, f"tokenize {MODEL}: {err.strip()}")
    rc, out, err = generate(src, ["--prompt", PROMPT, "--ids"])
    lines = out.split("\n")
    check(rc == 0 and len(lines) == 3 and lines[2] == "", f"generate --prompt --ids: exit {rc}, stdout {out[:200]!r} {err.strip()}")
    if rc != 0 or len(lines) != 3:
        return
    text, ids = lines[0], [int(x) for x in lines[1].split(",")]
    rc, out, err = generate(src, ["--prompt-ids", ",".join(map(str, prompt_ids))])
    check(rc == 0 and [int(x) for x in out.split(",")] == ids, f"--prompt ids {ids} == --prompt-ids ids {out.strip()} {err.strip()}")
    eos = json.load(open(os.path.join(src, "genai_config.json")))["model"].get("eos_token_id")
    eos = set(eos if isinstance(eos, list) else [eos])
    shown = [i for i in ids if i not in eos and i < vocab_size(src)]  # ids past the tokenizer's vocab have no text
    rc, out, err = run(["detokenize", src, "--skip-special", "--ids", ",".join(map(str, shown))])
    check(rc == 0 and out.decode() == text + "\n", f"streamed text {text!r} == detokenize {out[:200]!r}")
    rc, out, err = generate(src, ["--prompt", PROMPT])
    check(rc == 0 and out == text + "\n", f"generate --prompt without --ids prints the text only: {out[:200]!r}")
    check(text != "", f"the streamed text is not empty (ids {ids})")
    # eos: the first repeat-free later id j ends the generation there
    j = next((j for j in range(1, len(ids)) if ids[j] not in ids[:j] and ids[j] not in eos), None)
    if check(j is not None, f"a later id to stop at in {ids}"):
        m = os.path.join(tmp, "eos-model")
        shutil.copytree(src, m)
        cfg = json.load(open(os.path.join(src, "genai_config.json")))
        cfg["model"]["eos_token_id"] = [999999, ids[j]]
        with open(os.path.join(m, "genai_config.json"), "w") as f:
            json.dump(cfg, f)
        rc, out, err = generate(m, ["--prompt", PROMPT, "--ids"])
        before = [i for i in ids[:j] if i < vocab_size(src)]
        first = run(["detokenize", m, "--skip-special", "--ids", ",".join(map(str, before))])[1].decode() if before else "\n"
        check(rc == 0 and out == first + ",".join(map(str, ids[: j + 1])) + "\n", f"eos stop at {ids[j]}: {out!r} (ids {ids}) {err.strip()}")
        check(f"decode {j} tokens" in err, f"eos stop timing line counts the tokens decoded: {err.strip()}")
    # convert carries the tokenizer and genai_config
    outdir = os.path.join(tmp, "converted")
    rc, out, err = run(["convert", src, "-o", outdir])
    check(rc == 0 and all(os.path.isfile(os.path.join(outdir, f)) for f in ("tokenizer.json", "tokenizer_config.json", "genai_config.json")),
          f"convert copies the tokenizer files: {sorted(os.listdir(outdir)) if os.path.isdir(outdir) else err.strip()}")
    rc, out, err = run(["convert", src, "-o", outdir])
    check(rc == 0, f"convert again into the same folder (the copied files are webnnc's own): {err.strip()}")
    rc, out, err = generate(outdir, ["--prompt", PROMPT, "--ids"])
    check(rc == 0 and out.split("\n")[:2] == lines[:2], f"generate --prompt OUTDIR: {out[:200]!r} {err.strip()}")
    # no tokenizer next to the model: a clean error and nothing on stdout
    bare = os.path.join(tmp, "bare")
    os.makedirs(bare)
    for f in ("model.onnx", "model.onnx.data", "genai_config.json"):
        shutil.copy(os.path.join(src, f), bare)
    clean_error("generate --prompt without tokenizer.json", ["generate", bare, "--prompt", PROMPT])
    clean_error("generate with --prompt and --prompt-ids", ["generate", src, "--prompt", PROMPT, "--prompt-ids", "1,2"])


def main():
    e2e.webnnc()
    shared = e2e.shared_dir_or_skip("tokenizer_cli (tokenizers and model corpus)")
    if e2e.use_working_vulkan_device() is None:
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("qwen3", "llama2"):
            tok_dir = os.path.join(shared, "tokenizers", name)
            cases_checks(tok_dir, tmp)
            bad_input_checks(tok_dir, os.path.join(tmp, name))
        generate_checks(os.path.join(shared, "models"), tmp)
    if failures:
        print(f"FAIL: {len(failures)} problem(s)")
        return 1
    print("tokenizer_cli: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

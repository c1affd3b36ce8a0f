#!/usr/bin/python3
"""bench/torch_decode.py - PyTorch baseline of bench/decode.sh: a Hugging Face transformers Qwen2
(or Llama) model with a random-init config of the bench preset's shape, float16 on the GPU, greedy
`generate` of MAX_NEW tokens, for each prompt length, in three modes:

  eager     dynamic KV cache, no compilation
  static    static KV cache, compilation off (generate(disable_compile=True))
  compiled  static KV cache compiled the way transformers does it for static caches (its automatic
            torch.compile of the decode forward; CUDA graphs)

Prompt of length P: token ids (1 + 7919 k) mod vocab, k = 0..P-1 (what `webnnc profile --prompt-len`
and bench/decode.sh use).  TTFT = wall time of generate(max_new_tokens=1) (prefill + first token);
decode tokens/s = (MAX_NEW - 1) / (time of generate(max_new_tokens=MAX_NEW) - TTFT), i.e. decoding
at contexts P .. P + MAX_NEW.  EOS is disabled so every run makes MAX_NEW tokens; each figure is the
median of REPEAT runs after warm-ups (every prompt length, longest first, so the static cache is
sized once; CUDA synchronized).  Prints one line per mode and length, then one JSON line:
{"device", "torch", "transformers", "cuda", "preset", "max_new", "modes": {MODE: {P: {"ttft_ms",
"total_ms", "decode_tokens_per_s"}}}} (a mode that fails: {"error": ...}).

usage: torch_decode.py (--prompt-lens 8,128,512 | --prompt-ids 1,17,42) [--max-new 64]
                       [--preset qwen2-0.5b] [--repeat 5] [--modes eager,static,compiled]
"""
import argparse
import json
import statistics
import sys
import time

# the shape of bench/make_genai_model.py's presets (kept to the fields a transformers config needs)
PRESETS = {
    "qwen2-0.5b": dict(arch="qwen2", layers=24, hidden=896, heads=14, kv_heads=2, inter=4864, vocab=151936,
                       max_pos=32768, theta=1e6, eps=1e-6, tie=True),
    "smollm-135m": dict(arch="llama", layers=30, hidden=576, heads=9, kv_heads=3, inter=1536, vocab=49152,
                        max_pos=2048, theta=1e4, eps=1e-5, tie=True),
}
MODES = ("eager", "static", "compiled")


def prompt_ids(n, vocab):
    return [(1 + 7919 * k) % vocab for k in range(n)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--prompt-lens", help="comma-separated prompt lengths")
    g.add_argument("--prompt-ids", help="one prompt, comma-separated token ids")
    p.add_argument("--max-new", type=int, default=64)
    p.add_argument("--preset", choices=sorted(PRESETS), default="qwen2-0.5b")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--modes", default=",".join(MODES))
    a = p.parse_args()
    modes = a.modes.split(",")
    if any(m not in MODES for m in modes):
        p.error(f"--modes: choose from {', '.join(MODES)}")
    import torch
    import transformers
    if not torch.cuda.is_available():
        print("torch_decode: no CUDA device", file=sys.stderr)
        return 77
    c = PRESETS[a.preset]
    kw = dict(vocab_size=c["vocab"], hidden_size=c["hidden"], intermediate_size=c["inter"],
              num_hidden_layers=c["layers"], num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"],
              max_position_embeddings=c["max_pos"], rope_theta=c["theta"], rms_norm_eps=c["eps"],
              tie_word_embeddings=c["tie"])
    cfg = (transformers.Qwen2Config if c["arch"] == "qwen2" else transformers.LlamaConfig)(**kw)
    torch.manual_seed(0)
    model_cls = transformers.Qwen2ForCausalLM if c["arch"] == "qwen2" else transformers.LlamaForCausalLM
    model = model_cls(cfg).to(device="cuda", dtype=torch.float16).eval()
    if a.prompt_ids:
        prompts = {str(len(a.prompt_ids.split(","))): [int(t) for t in a.prompt_ids.split(",")]}
    else:
        prompts = {str(n): prompt_ids(int(n), c["vocab"]) for n in a.prompt_lens.split(",")}
    order = sorted(prompts, key=lambda k: -len(prompts[k]))  # longest first: the static cache is sized once
    dev = torch.cuda.get_device_name(0)

    def gen(ids, n, mode):
        extra = {} if mode == "eager" else {"cache_implementation": "static"}
        if mode != "compiled":
            extra["disable_compile"] = True
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.inference_mode():
            model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n, do_sample=False,
                           eos_token_id=None, pad_token_id=0, **extra)
        torch.cuda.synchronize()
        return time.perf_counter() - t0

    results = {"device": dev, "torch": torch.__version__, "transformers": transformers.__version__,
               "cuda": torch.version.cuda, "preset": a.preset, "max_new": a.max_new, "modes": {}}
    for mode in modes:
        res = results["modes"][mode] = {}
        try:
            tensors = {k: torch.tensor([prompts[k]], device="cuda") for k in order}
            for k in order:  # warm-up: compilation, cache allocation
                gen(tensors[k], a.max_new, mode)
                gen(tensors[k], 1, mode)
            for k in order:
                ttft = statistics.median(gen(tensors[k], 1, mode) for _ in range(a.repeat))
                total = statistics.median(gen(tensors[k], a.max_new, mode) for _ in range(a.repeat))
                tps = (a.max_new - 1) / (total - ttft) if total > ttft else float("nan")
                res[k] = {"ttft_ms": ttft * 1e3, "total_ms": total * 1e3, "decode_tokens_per_s": tps}
                print(f"torch {dev} fp16 {mode}: prompt {k}: TTFT {ttft * 1e3:.1f} ms, {a.max_new} tokens "
                      f"{total * 1e3:.1f} ms, decode {a.max_new - 1} tokens = {tps:.1f} tokens/s", flush=True)
        except Exception as e:  # a mode this transformers version lacks
            results["modes"][mode] = {"error": f"{type(e).__name__}: {e}"[:300]}
            print(f"torch {mode}: failed: {type(e).__name__}: {e}"[:400], flush=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

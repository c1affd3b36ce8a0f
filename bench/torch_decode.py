#!/usr/bin/python3
"""bench/torch_decode.py - PyTorch baseline of bench/decode.sh: a Hugging Face transformers Qwen2
(or Llama) model with a random-init config of the bench preset's shape, float16 on the GPU, greedy
`generate` of MAX_NEW tokens from the same prompt ids, with the dynamic and the static KV cache.

TTFT = wall time of generate(max_new_tokens=1) (prefill + first token); decode tokens/s =
(MAX_NEW - 1) / (time of generate(max_new_tokens=MAX_NEW) - TTFT).  EOS is disabled so every run
makes MAX_NEW tokens; each figure is the median of REPEAT runs after one warm-up (CUDA synchronized).
Prints one line per cache kind and a JSON line.

usage: torch_decode.py --prompt-ids 1,17,42 [--max-new 64] [--preset qwen2-0.5b] [--repeat 5]
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--prompt-ids", required=True)
    p.add_argument("--max-new", type=int, default=64)
    p.add_argument("--preset", choices=sorted(PRESETS), default="qwen2-0.5b")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
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
    ids = torch.tensor([[int(t) for t in a.prompt_ids.split(",")]], device="cuda")
    mask = torch.ones_like(ids)
    dev = torch.cuda.get_device_name(0)

    def gen(n, cache):
        extra = {"cache_implementation": "static"} if cache == "static" else {}
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                                 eos_token_id=None, pad_token_id=0, **extra)
        torch.cuda.synchronize()
        return time.perf_counter() - t0, out[0, ids.shape[1]:].tolist()

    results = {"device": dev, "torch": torch.__version__, "transformers": transformers.__version__,
               "preset": a.preset, "prompt_tokens": ids.shape[1], "max_new": a.max_new}
    for cache in ("dynamic", "static"):
        try:
            gen(a.max_new, cache)  # warm-up
            ttft = statistics.median(gen(1, cache)[0] for _ in range(a.repeat))
            runs = [gen(a.max_new, cache) for _ in range(a.repeat)]
            total = statistics.median(r[0] for r in runs)
        except Exception as e:  # a cache kind this transformers version lacks
            print(f"torch {cache} cache: failed: {e}")
            continue
        tps = (a.max_new - 1) / (total - ttft) if total > ttft else float("nan")
        results[cache] = {"ttft_ms": ttft * 1e3, "total_ms": total * 1e3, "decode_tokens_per_s": tps,
                          "first_ids": runs[0][1][:8]}
        print(f"torch {dev} fp16 {cache} cache: TTFT {ttft * 1e3:.1f} ms, {a.max_new} tokens {total * 1e3:.1f} ms, "
              f"decode {a.max_new - 1} tokens = {tps:.1f} tokens/s")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

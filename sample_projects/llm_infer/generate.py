"""Batch text generation with a Hugging Face causal LM.

Usage: python generate.py --model Qwen/Qwen2-1.5B-Instruct --prompts prompts.txt
"""
import argparse
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda:0")
    elif torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def load(model_name: str, device: torch.device):
    tokenizer = AutoTokenizer.from_pretrained(model_name, padding_side="left")
    dtype = torch.bfloat16 if torch.cuda.get_device_capability()[0] >= 8 else torch.float16
    model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=dtype, device_map="cuda")
    model.eval()
    return tokenizer, model


@torch.inference_mode()
def generate(tokenizer, model, prompts, device, max_new_tokens=128):
    batch = tokenizer(prompts, return_tensors="pt", padding=True).to(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        output = model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    texts = tokenizer.batch_decode(output[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
    return texts, elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--prompts", required=True)
    args = parser.parse_args()
    device = pick_device()
    tokenizer, model = load(args.model, device)
    prompts = [line.strip() for line in open(args.prompts, encoding="utf-8") if line.strip()]
    texts, elapsed = generate(tokenizer, model, prompts, device)
    for prompt, text in zip(prompts, texts):
        print(f"{prompt!r} -> {text!r}")
    print(f"{len(prompts)} prompts in {elapsed:.2f}s, peak {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")


def serving_dtype() -> torch.dtype:
    from transformers.utils import is_torch_bf16_gpu_available

    return torch.bfloat16 if is_torch_bf16_gpu_available() else torch.float16


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Supervised fine-tuning of a causal LM on steptp's exported chat JSONL (TRL's SFTTrainer).

Each input line holds {"messages": [{"role", "content"}, ...]}; the tokenizer's chat template turns
it into one training sequence. The model is a Hugging Face model directory (--model) or a tiny,
randomly initialised Qwen3-architecture model (--tiny-qwen3) for smoke tests. Writes
OUT/metrics.json and, unless --no-save, the model and tokenizer to OUT/model.

This script is not the dataset builder: it reads what `steptp build-dataset` exported, unchanged.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

TINY_QWEN3 = "tiny-qwen3"


class UserError(Exception):
    """Bad input from the user: reported as one line and exit status 2, without a traceback."""


# ---------------------------------------------------------------- arguments


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="train_sft.py",
        description="Fine-tune a causal LM on steptp chat JSONL with TRL's SFTTrainer.",
    )
    p.add_argument("--data", action="append", required=True, metavar="FILE",
                   help="chat JSONL file(s) with a 'messages' list per line; repeat the flag or "
                        "give a comma-separated list")
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", metavar="DIR",
                       help="a local Hugging Face model directory (config.json and weights)")
    model.add_argument("--tiny-qwen3", action="store_true",
                       help="train a randomly initialised tiny Qwen3-architecture model instead "
                            "(for smoke tests; its vocabulary comes from the tokenizer)")
    p.add_argument("--tokenizer", metavar="PATH",
                   help="tokenizer directory or tokenizer.json file (default: the --model dir); "
                        "a lone file takes its chat template from a tokenizer_config.json beside it")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--max-steps", type=int, default=50, help="optimizer steps (default 50)")
    p.add_argument("--max-length", type=int, default=1024,
                   help="tokens per sequence; longer ones are truncated (default 1024)")
    p.add_argument("--batch-size", type=int, default=2, help="sequences per device step (default 2)")
    p.add_argument("--grad-accum", type=int, default=1, help="gradient accumulation steps (default 1)")
    p.add_argument("--lr", type=float, default=2e-5,
                   help="peak learning rate (default 2e-5; a tiny random model wants ~1e-3)")
    p.add_argument("--warmup-steps", type=int, default=0, help="linear warm-up steps (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed for init, data order and dropout")
    p.add_argument("--limit", type=int, default=0,
                   help="use at most this many samples (0: all) — after reading, before shuffling")
    p.add_argument("--cpu", action="store_true", help="train on the CPU even if a GPU exists")
    precision = p.add_mutually_exclusive_group()
    precision.add_argument("--bf16", action="store_true",
                           help="bfloat16 mixed precision (GPU, or CPU autocast)")
    precision.add_argument("--fp16", action="store_true", help="float16 mixed precision (GPU only)")
    p.add_argument("--no-save", action="store_true", help="write metrics only, not the model")
    p.add_argument("--tiny-layers", type=int, default=2, help="--tiny-qwen3: layers (default 2)")
    p.add_argument("--tiny-hidden", type=int, default=64, help="--tiny-qwen3: hidden size (default 64)")
    args = p.parse_args(argv)
    args.data = [f for item in args.data for f in item.split(",") if f]
    if not args.data:
        p.error("--data names no file")
    if args.tokenizer is None:
        if args.model is None:
            p.error("--tiny-qwen3 needs --tokenizer (a tokenizer directory or tokenizer.json)")
        args.tokenizer = args.model
    for name in ("max_steps", "max_length", "batch_size", "grad_accum"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if not args.lr > 0:
        p.error("--lr must be positive")
    return args


# ---------------------------------------------------------------- data


def check_messages(messages, where: str) -> list[dict]:
    if not isinstance(messages, list) or not messages:
        raise UserError(f"{where}: 'messages' must be a non-empty list")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str) \
                or not isinstance(m.get("content"), str):
            raise UserError(f"{where}: messages[{i}] needs string 'role' and 'content'")
        out.append({"role": m["role"], "content": m["content"]})
    if out[-1]["role"] != "assistant":
        raise UserError(f"{where}: the last message must be the assistant's (the training target)")
    return out


def read_chat_jsonl(paths: list[str]) -> list[dict]:
    """Rows of {"messages": [...]} only: extra export fields (id, original_program) are dropped
    so that the trainer never mistakes them for inputs."""
    rows = []
    for path in paths:
        if not os.path.isfile(path):
            raise UserError(f"no such data file: {path}")
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"{path}:{n}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise UserError(f"{where}: not JSON ({e.msg})") from None
                if not isinstance(obj, dict) or "messages" not in obj:
                    raise UserError(f"{where}: no 'messages' field (expected steptp's chat export)")
                rows.append({"messages": check_messages(obj["messages"], where)})
    if not rows:
        raise UserError(f"no samples in {', '.join(paths)}")
    return rows


# ---------------------------------------------------------------- tokenizer and model


def load_tokenizer(path: str):
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    p = Path(path)
    if not p.exists():
        raise UserError(f"no such tokenizer path: {path}")
    if p.is_dir() and not (p / "tokenizer.json").is_file():
        try:
            return finish_tokenizer(AutoTokenizer.from_pretrained(str(p)))
        except (OSError, ValueError) as e:
            raise UserError(f"cannot load a tokenizer from {path}: {e}") from None
    file = p / "tokenizer.json" if p.is_dir() else p
    # Build the fast tokenizer straight from tokenizer.json with the special tokens and chat
    # template of the config beside it: a tokenizer folder need not hold a model config.json.
    config = {}
    config_path = file.parent / "tokenizer_config.json"
    if config_path.is_file():
        config = json.loads(config_path.read_text(encoding="utf-8"))
    special = {k: token_text(config.get(k)) for k in ("bos_token", "eos_token", "pad_token", "unk_token")}
    try:
        tok = PreTrainedTokenizerFast(tokenizer_file=str(file),
                                      **{k: v for k, v in special.items() if v})
    except Exception as e:  # the tokenizers library raises its own exception types
        raise UserError(f"cannot read {file} as a tokenizer: {e}") from None
    if config.get("chat_template"):
        tok.chat_template = config["chat_template"]
    return finish_tokenizer(tok)


def token_text(value):
    # tokenizer_config.json spells a special token as a string or as {"content": ...}.
    return value.get("content") if isinstance(value, dict) else value


def finish_tokenizer(tok):
    if not tok.chat_template:
        raise UserError("the tokenizer has no chat template (put a tokenizer_config.json with "
                        "'chat_template' beside tokenizer.json)")
    if tok.eos_token is None:
        raise UserError("the tokenizer has no eos_token (tokenizer_config.json 'eos_token')")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token  # padding is masked out of the loss either way
    return tok


def tiny_qwen3(tokenizer, args):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=args.tiny_hidden,
        intermediate_size=2 * args.tiny_hidden,
        num_hidden_layers=args.tiny_layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=args.tiny_hidden // 2,
        max_position_embeddings=max(args.max_length, 512),
        # Tied embeddings halve the parameters: with Qwen3's ~152k vocabulary the embedding is
        # nearly all of a tiny model.
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return Qwen3ForCausalLM(config)


def load_model(args, tokenizer):
    import torch
    from transformers import AutoModelForCausalLM

    if args.tiny_qwen3:
        return tiny_qwen3(tokenizer, args)
    if not Path(args.model, "config.json").is_file():
        raise UserError(f"{args.model} is not a model directory (no config.json)")
    # float32 weights: --bf16/--fp16 are mixed precision (autocast over float32 master weights).
    return AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)


# ---------------------------------------------------------------- training


def check_device(args):
    import torch

    device = "cpu" if args.cpu or not torch.cuda.is_available() else "cuda"
    if args.fp16 and device != "cuda":
        raise UserError("--fp16 needs a CUDA GPU (on the CPU use --bf16 or the float32 default)")
    if args.bf16 and device == "cuda" and not torch.cuda.is_bf16_supported():
        raise UserError("this GPU does not support bfloat16; use --fp16")
    return device


def sft_config(args, device: str):
    from trl import SFTConfig

    return SFTConfig(
        output_dir=str(Path(args.out) / "trainer"),
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        gradient_accumulation_steps=args.grad_accum,
        learning_rate=args.lr,
        warmup_steps=args.warmup_steps,
        lr_scheduler_type="linear",
        max_length=args.max_length,
        packing=False,
        seed=args.seed,
        data_seed=args.seed,
        bf16=args.bf16,
        fp16=args.fp16,
        use_cpu=device == "cpu",
        logging_steps=1,
        logging_first_step=True,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
    )


def losses_from(log_history: list[dict]) -> list[float]:
    return [float(e["loss"]) for e in log_history if "loss" in e and math.isfinite(e["loss"])]


def train(args) -> dict:
    from datasets import Dataset
    from transformers import set_seed
    from trl import SFTTrainer

    rows = read_chat_jsonl(args.data)
    if args.limit:
        rows = rows[: args.limit]
    tokenizer = load_tokenizer(args.tokenizer)
    device = check_device(args)
    set_seed(args.seed)  # before the model exists: the tiny model's initial weights follow it
    model = load_model(args, tokenizer)
    trainer = SFTTrainer(model=model, args=sft_config(args, device),
                         train_dataset=Dataset.from_list(rows), processing_class=tokenizer)
    start = time.monotonic()
    result = trainer.train()
    wall = time.monotonic() - start
    losses = losses_from(trainer.state.log_history)
    if not losses:
        raise RuntimeError("the trainer logged no loss")
    metrics = {
        "model": TINY_QWEN3 if args.tiny_qwen3 else args.model,
        "tokenizer": args.tokenizer,
        "data": args.data,
        "samples": len(rows),
        "steps": int(trainer.state.global_step),
        "first_loss": losses[0],
        "last_loss": losses[-1],
        "min_loss": min(losses),
        "losses": losses,
        "train_loss": float(result.training_loss),
        "wall_seconds": round(wall, 3),
        "device": device,
        "precision": "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32",
        "parameters": sum(p.numel() for p in model.parameters()),
        "max_length": args.max_length,
        "batch_size": args.batch_size,
        "grad_accum": args.grad_accum,
        "lr": args.lr,
        "seed": args.seed,
    }
    if not args.no_save:
        trainer.save_model(str(Path(args.out) / "model"))
        tokenizer.save_pretrained(str(Path(args.out) / "model"))
    return metrics


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        metrics = train(args)
    except UserError as e:
        print(f"train_sft: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"train_sft: error: {e.name or e} is not installed; run "
              "scripts/setup-venv.sh model-loop and use .venv/bin/python", file=sys.stderr)
        return 2
    out = Path(args.out) / "metrics.json"
    out.write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    print(f"train_sft: {metrics['steps']} steps on {metrics['samples']} samples, loss "
          f"{metrics['first_loss']:.4f} -> {metrics['last_loss']:.4f}, "
          f"{metrics['wall_seconds']:.1f} s ({out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

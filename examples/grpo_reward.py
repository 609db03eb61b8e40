#!/usr/bin/env python3
"""GRPO with steptp's verifiable reward: TRL's GRPOTrainer on a tiny random Qwen3-architecture
model, for a few CPU steps, rewarded by `steptp.reward` (eval-single's rules, docs/python.md).

    .venv/bin/python examples/grpo_reward.py --data out/dataset/single_train.jsonl \\
        --tokenizer ../shared/data/qwen3 --max-steps 4

Each prompt is a chat record's system and user messages; each completion is scored against
that record (its program and its reference answer) with ``steptp.reward(record=...)``. Writes
OUT/metrics.json with the steps run and the rewards logged. Needs the `model-loop` venv group
(scripts/setup-venv.sh) and `pip install .`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import steptp
from steptp.dataset import read_chat

# python/train_sft.py (the tokenizer loader and the tiny model), after the installed steptp: the
# source folder python/steptp lacks the built extension.
sys.path.append(str(Path(__file__).resolve().parents[1] / "python"))


def steptp_reward(completions, record, **_):
    """TRL reward function: one float per completion; `record` is the dataset column."""
    rewards = []
    for completion, rec in zip(completions, record):
        text = completion[-1]["content"] if isinstance(completion, list) else completion
        rewards.append(steptp.reward(None, text, record=json.loads(rec)).reward)
    return rewards


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="chat JSONL of build-dataset")
    ap.add_argument("--tokenizer", required=True, help="tokenizer directory or tokenizer.json")
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--samples", type=int, default=8, help="prompts taken from --data")
    ap.add_argument("--max-completion-length", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="out/grpo-smoke")
    args = ap.parse_args()

    from datasets import Dataset
    from transformers import set_seed
    from trl import GRPOConfig, GRPOTrainer

    import train_sft  # python/train_sft.py: the tokenizer loader and the tiny model

    records = [r for _, r in zip(range(args.samples), read_chat(args.data))]
    if not records:
        sys.exit(f"grpo_reward: no records in {args.data}")
    dataset = Dataset.from_list([{"prompt": r.prompt, "record": json.dumps(r.raw)}
                                 for r in records])
    set_seed(args.seed)
    tokenizer = train_sft.load_tokenizer(args.tokenizer)
    tiny = argparse.Namespace(tiny_hidden=64, tiny_layers=2, max_length=4096)
    model = train_sft.tiny_qwen3(tokenizer, tiny)
    config = GRPOConfig(output_dir=args.out, max_steps=args.max_steps,
                        per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=args.max_completion_length, learning_rate=1e-4,
                        logging_steps=1, report_to="none", use_cpu=True, seed=args.seed,
                        save_strategy="no")
    trainer = GRPOTrainer(model=model, reward_funcs=steptp_reward, args=config,
                          train_dataset=dataset, processing_class=tokenizer)
    start = time.time()
    trainer.train()
    rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    metrics = {"steps": trainer.state.global_step, "rewards": rewards,
               "wall_seconds": round(time.time() - start, 1)}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    Path(args.out, "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"grpo_reward: {metrics['steps']} steps, rewards {rewards}")
    return 0 if metrics["steps"] == args.max_steps else 1


if __name__ == "__main__":
    sys.exit(main())

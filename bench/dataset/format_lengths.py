#!/usr/bin/env python3
"""bench/dataset/format_lengths.py — how long one program is, in tokens, as LEIR and as the TIR and
CUDA that steptp emits for it: the argument for training on LEIR under a 10,240-token budget.

For every catalog workload (levels 1 and 2, sorted names; --sample N takes random.Random(--seed)
.sample of them instead), the initial program at the KernelBench default shapes
(workloads/graphs/NAME.json) is imported, printed as LEIR and lowered with `steptp lower` to
`--target tir-llvm` (TVMScript for TVM's CPU target) and `--target cuda` (the whole file: math
helpers, kernels and the host harness that runs them; and the kernels with their launcher alone). Each text is
counted with `steptp tokens --plain` and the tokenizer given (Qwen3's in the docs' table).

Output: a Markdown table on stdout (docs/dataset.md, "Program lengths by language") and one JSON
line per program with --jsonl FILE.
Usage: bench/dataset/format_lengths.py --tokenizer ../shared/data/qwen3/tokenizer.json
         [--build build] [--sample N --seed S] [--jsonl FILE]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The CUDA file is the math helpers, the kernels with their launcher, then the host harness.
KERNELS_START, HARNESS_START = "__global__", "#define STP_CUDA_CHECK"
LANGUAGES = ("leir", "tir", "cuda", "cuda_kernels")


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [l for l in (done.stderr or done.stdout).splitlines() if l.strip()]
        return None, (lines[-1] if lines else f"exit {done.returncode}")
    return done.stdout, None


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jsonl", default="")
    args = ap.parse_args()
    steptp = os.path.join(args.build, "steptp")
    catalog = json.load(open(os.path.join(ROOT, "workloads", "catalog.json")))["workloads"]
    names = sorted(w["name"] for w in catalog)
    if args.sample:
        names = random.Random(args.seed).sample(names, min(args.sample, len(names)))
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as work:
        files = {}
        for i, name in enumerate(names):
            leir = os.path.join(work, f"{i}.leir")
            _, err = run([steptp, "import", os.path.join(ROOT, "workloads", "graphs", name + ".json"),
                          "-o", leir])
            if err:
                failures.append((name, "import", err))
                continue
            texts = {"leir": open(leir).read()}
            for lang, target in (("tir", "tir-llvm"), ("cuda", "cuda")):
                out, err = run([steptp, "lower", leir, "--target", target])
                if err:
                    failures.append((name, target, err))
                    break
                texts[lang] = out
            else:
                start = texts["cuda"].find(KERNELS_START)
                end = texts["cuda"].find(HARNESS_START)
                if start < 0 or end < start:
                    failures.append((name, "cuda", "no kernels or harness marker in the output"))
                    continue
                texts["cuda_kernels"] = texts["cuda"][start:end]
                paths = {}
                for lang, text in texts.items():
                    paths[lang] = os.path.join(work, f"{i}.{lang}.txt")
                    with open(paths[lang], "w") as f:
                        f.write(text)
                files[name] = paths
            if sys.stderr.isatty():
                print(f"\r{i + 1}/{len(names)} programs", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        every = [p for paths in files.values() for p in paths.values()]
        out, err = run([steptp, "tokens", "--plain", "--json", "--tokenizer", args.tokenizer, *every])
        if err:
            sys.exit(f"format_lengths: steptp tokens: {err}")
        counts = {k: v["tokens"] for k, v in json.loads(out)["files"].items()}
        for name, paths in files.items():
            rows.append({"workload": name, **{lang: counts[paths[lang]] for lang in LANGUAGES}})
    if args.jsonl:
        with open(args.jsonl, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    print(f"{len(rows)} programs (default shapes), {len(failures)} not lowered; tokenizer "
          f"`{os.path.basename(args.tokenizer)}`.\n")
    print("| language | mean | p50 | p90 | p99 | max | × LEIR (geomean) | > 4k | > 8k | > 10,240 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    labels = {"leir": "LEIR", "tir": "TIR (TVMScript, llvm)", "cuda": "CUDA (kernels + harness)",
              "cuda_kernels": "CUDA (kernels and launcher only)"}
    for lang in LANGUAGES:
        v = [r[lang] for r in rows]
        ratio = math.exp(sum(math.log(r[lang] / r["leir"]) for r in rows) / len(rows))
        share = lambda n: f"{100 * sum(x > n for x in v) / len(v):.1f}%"
        print(f"| {labels[lang]} | {round(sum(v) / len(v)):,} | {percentile(v, 50):,} | "
              f"{percentile(v, 90):,} | {percentile(v, 99):,} | {max(v):,} | {ratio:.2f}x | "
              f"{share(4096)} | {share(8192)} | {share(10240)} |")
    for name, stage, err in failures:
        print(f"\n- {name}: {stage}: {err}")


if __name__ == "__main__":
    main()

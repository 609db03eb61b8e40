#!/usr/bin/env python3
"""bench/search/replay_best.py — re-measure the best programs a search benchmark committed,
without searching again.

For every workload of a results file (run_search_cpu.sh's JSON lines), the naive program is
imported from the catalog's graph (the shapes the search used), the committed trace is replayed
step by step with `steptp apply`, and both programs are timed with `steptp bench` in alternating
rounds (the better median of the rounds counts). Prints one line per workload and the geometric
mean of the ratios; a workload whose trace is empty counts as 1.0.

Use it when the machine or the code generator changed: it answers "what do the programs we
already found gain here?" in minutes, where a new search takes most of an hour. It measures
fixed programs, so it is not a substitute for the search benchmark's figures.

Usage: bench/search/replay_best.py [--steptp BIN] [--results FILE] [--only REGEX]
         [--rounds N] [--repeats N] [--json OUT]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def graph_path(record):
    # The search's "source" reads "workloads/graphs/W.json (default shapes)" or "(small shapes)".
    source = record.get("source", "")
    path = source.split(" (")[0] if source else f"workloads/graphs/{record['workload']}.json"
    shapes = "small" if "small shapes" in source else "default"
    return os.path.join(ROOT, path), shapes


def bench_ms(steptp, program, repeats):
    report = json.loads(run([steptp, "bench", program, "--repeats", str(repeats), "--warmup", "1",
                             "--json"]))
    return float(report["median_ms"])


def replay(steptp, record, workdir, rounds, repeats):
    graph, shapes = graph_path(record)
    naive = os.path.join(workdir, "naive.leir")
    command = [steptp, "import", graph, "-o", naive]
    if shapes == "small":
        command += ["--shapes", "small"]
    run(command)
    current = naive
    for index, step in enumerate(record.get("trace", [])):
        following = os.path.join(workdir, f"step{index + 1}.leir")
        run([steptp, "apply", current, step, "-o", following])
        current = following
    if current == naive:
        return None, None
    naive_ms, best_ms = math.inf, math.inf
    for _ in range(rounds):
        naive_ms = min(naive_ms, bench_ms(steptp, naive, repeats))
        best_ms = min(best_ms, bench_ms(steptp, current, repeats))
    return naive_ms, best_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steptp", default=os.path.join(ROOT, "build", "steptp"))
    parser.add_argument("--results",
                        default=os.path.join(ROOT, "bench/search/results/search_cpu.jsonl"))
    parser.add_argument("--only", default="", help="only workloads whose name matches this regex")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per program")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per round")
    parser.add_argument("--json", default="", help="also write one JSON line per workload here")
    args = parser.parse_args()

    try:
        records = [json.loads(line) for line in open(args.results) if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        sys.exit(f"replay_best: cannot read {args.results}: {error}")
    records = [r for r in records if r.get("status", "ok") == "ok" and "workload" in r]
    if args.only:
        records = [r for r in records if re.search(args.only, r["workload"])]
    if not records:
        sys.exit("replay_best: no workload to replay")
    out = open(args.json, "w") if args.json else None
    log_sum, failures = 0.0, 0
    print(f"{'workload':56s} {'naive ms':>9s} {'best ms':>9s} {'ratio':>6s} {'searched':>8s}")
    for record in records:
        name = record["workload"]
        with tempfile.TemporaryDirectory(prefix="replay_") as workdir:
            try:
                naive_ms, best_ms = replay(args.steptp, record, workdir, args.rounds,
                                           args.repeats)
            except (RuntimeError, KeyError, ValueError) as error:
                failures += 1
                print(f"{name:56s} failed: {error}", flush=True)
                continue
        ratio = 1.0 if naive_ms is None else naive_ms / best_ms
        log_sum += math.log(ratio)
        searched = record.get("speedup", 1.0)
        shown = ("-", "-") if naive_ms is None else (f"{naive_ms:.2f}", f"{best_ms:.2f}")
        print(f"{name:56s} {shown[0]:>9s} {shown[1]:>9s} {ratio:6.2f} {searched:8.2f}",
              flush=True)
        if out:
            out.write(json.dumps({"workload": name, "naive_ms": naive_ms, "best_ms": best_ms,
                                  "ratio": ratio, "searched_speedup": searched}) + "\n")
    measured = len(records) - failures
    if measured:
        print(f"geometric mean over {measured}: {math.exp(log_sum / measured):.3f}")
    if failures:
        print(f"{failures} workload(s) failed to replay", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

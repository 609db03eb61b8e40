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

With --against OTHER_BIN it compares two builds instead: each replayed best program is timed
with --steptp's build and with OTHER_BIN's in alternating rounds, and the ratio is OTHER_BIN's
time over --steptp's (above 1: --steptp's code generator makes that program faster). Workloads
whose trace is empty are left out of that comparison. An A/B of a code-generator change on the
programs the benchmark found, without the noise of two searches.

Usage: bench/search/replay_best.py [--steptp BIN] [--results FILE] [--only REGEX]
         [--rounds N] [--repeats N] [--json OUT] [--against OTHER_BIN]
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
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as error:
        raise RuntimeError(f"cannot run {cmd[0]}: {error}") from error
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


def replayed_programs(steptp, record, workdir):
    """The naive program's path and the best one's (None when the trace is empty)."""
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
    return naive, (None if current == naive else current)


def alternating_ms(first, second, rounds, repeats):
    """The better median of `rounds` alternating timings of two (steptp, program) pairs."""
    first_ms, second_ms = math.inf, math.inf
    for _ in range(rounds):
        first_ms = min(first_ms, bench_ms(*first, repeats))
        second_ms = min(second_ms, bench_ms(*second, repeats))
    return first_ms, second_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steptp", default=os.path.join(ROOT, "build", "steptp"))
    parser.add_argument("--results",
                        default=os.path.join(ROOT, "bench/search/results/search_cpu.jsonl"))
    parser.add_argument("--only", default="", help="only workloads whose name matches this regex")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per program")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per round")
    parser.add_argument("--json", default="", help="also write one JSON line per workload here")
    parser.add_argument("--against", default="",
                        help="another steptp build: compare the best programs' times under both")
    args = parser.parse_args()

    try:
        records = [json.loads(line) for line in open(args.results) if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        sys.exit(f"replay_best: cannot read {args.results}: {error}")
    records = [r for r in records if r.get("status", "ok") == "ok" and "workload" in r]
    for binary in filter(None, (args.steptp, args.against)):
        if not os.access(binary, os.X_OK):
            sys.exit(f"replay_best: {binary} is not an executable steptp")
    if args.only:
        try:
            records = [r for r in records if re.search(args.only, r["workload"])]
        except re.error as error:
            sys.exit(f"replay_best: --only {args.only!r} is not a regular expression: {error}")
    if not records:
        sys.exit("replay_best: no workload to replay")
    out = open(args.json, "w") if args.json else None
    log_sum, measured, failures = 0.0, 0, 0
    columns = ("best ms", "other ms") if args.against else ("naive ms", "best ms")
    print(f"{'workload':56s} {columns[0]:>9s} {columns[1]:>9s} {'ratio':>6s} {'searched':>8s}")
    for record in records:
        name = record["workload"]
        searched = record.get("speedup", 1.0)
        with tempfile.TemporaryDirectory(prefix="replay_") as workdir:
            try:
                naive, best = replayed_programs(args.steptp, record, workdir)
                if args.against:
                    if best is None:
                        continue
                    first_ms, second_ms = alternating_ms((args.steptp, best), (args.against, best),
                                                         args.rounds, args.repeats)
                    ratio = second_ms / first_ms
                elif best is None:
                    first_ms, second_ms, ratio = None, None, 1.0
                else:
                    first_ms, second_ms = alternating_ms((args.steptp, naive), (args.steptp, best),
                                                         args.rounds, args.repeats)
                    ratio = first_ms / second_ms
            except (RuntimeError, KeyError, ValueError) as error:
                failures += 1
                print(f"{name:56s} failed: {error}", flush=True)
                continue
        log_sum += math.log(ratio)
        measured += 1
        shown = ("-", "-") if first_ms is None else (f"{first_ms:.2f}", f"{second_ms:.2f}")
        print(f"{name:56s} {shown[0]:>9s} {shown[1]:>9s} {ratio:6.2f} {searched:8.2f}",
              flush=True)
        if out:
            keys = ("best_ms", "other_ms") if args.against else ("naive_ms", "best_ms")
            out.write(json.dumps({"workload": name, keys[0]: first_ms, keys[1]: second_ms,
                                  "ratio": ratio, "searched_speedup": searched}) + "\n")
    if measured:
        print(f"geometric mean over {measured}: {math.exp(log_sum / measured):.3f}")
    if failures:
        print(f"{failures} workload(s) failed to replay", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench/peers/run_peers.py — steptp beside the compilers a user would pick instead, on the same
machine, threads (1) and dtype (f64), one workload at a time:

  naive C      steptp's compiled C of the imported program (optimize's baseline_ms)
  steptp       the best program of `steptp optimize --search beam --policy cost` with the search
               benchmark's flags (SEARCH_FLAGS), confirmed time
  eager        PyTorch 2 eager (python/torch_baseline.py in the project's .venv)
  inductor     torch.compile (Inductor, CPU); compile_s is the first, compiling call
  metaschedule TVM MetaSchedule on the initial TIR (`lower --target tir-llvm`, loops serial),
               --trials trials, xgb cost model; tune_s is the whole tuning
  halide       Halide 21 on the initial program (`lower --target halide`), Mullapudi2016
               autoscheduler, parallelism 1 (bench/peers/halide_peer.py, output checked
               against the interpreter); compile_s is autoscheduling plus JIT compilation

Workloads: --count names drawn with random.Random(--seed).sample from the catalog's sorted
names (the whole catalog, levels 1 and 2), never a hand-made list; --set FILE runs the names a
file lists instead (the search benchmark's set, reported apart: give it its own --out). Shapes: the ones the search
used (`--shapes auto`: default shapes unless over the work limit, then small), for every peer.
--shard K/N runs rows K, K+N, K+2N, ... of the sample, so a run can be split over sittings;
rows are appended to --out (JSONL), each with its commit, the machine's load and the failure
reason of any peer that failed. Rows already in --out are skipped (resume), except those
named by --only: they are run again and their new row replaces the old one.
--steptp-only re-measures only steptp's columns (naive C and the search's best) of the rows
already in --out and keeps the peers' columns: the peers do not depend on steptp's code, and
MetaSchedule's tuning is most of a row's time. Such a row records steptp's commit and load
apart (steptp_commit, steptp_load_start, steptp_load_end) beside the peers' ones; rows this
commit re-measured already are skipped unless named by --only.
--peer-only halide does the same for the Halide column alone (halide_commit, halide_load_start,
halide_load_end), at the row's shapes.
Usage: bench/peers/run_peers.py [--count 64] [--seed 2026] [--shard 0/1] [--trials 64]
         [--out bench/peers/results/peers_cpu.jsonl] [--only NAME,NAME] [--steptp-only]
         [--peer-only halide] [--set bench/search/benchmark_set.txt]
"""
import argparse
import fcntl
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STEPTP = os.path.join(ROOT, "build", "steptp")
VENV_PY = os.path.join(ROOT, ".venv", "bin", "python")
# The search benchmark's flags (docs/bench/search_cpu.md), but for --work-limit: 1e8 rather than
# 1e9 statement executions, so that the biggest default-shape programs fall back to their small
# instance, which MetaSchedule's tuning can afford.
SEARCH_FLAGS = ["--search", "beam", "--policy", "cost", "--budget", "48", "--max-depth", "12",
                "--beam-width", "2", "--proposals", "2", "--threads", "1", "--repeats", "7",
                "--warmup", "1", "--confirm-rounds", "3", "--finalists", "3", "--shapes", "auto",
                "--work-limit", "100000000", "--quiet"]


def run(cmd, timeout, env=None):
    """(stdout, None) or (None, a one-line reason)."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s"
    if done.returncode != 0:
        lines = [l for l in (done.stderr or done.stdout).splitlines() if l.strip()]
        return None, (lines[-1] if lines else f"exit {done.returncode}")[:300]
    return done.stdout, None


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def sample(seed, count, listed=None):
    """The catalog entries of the seeded sample, or of the names in the file `listed` (one per
    line, '#' comments) in its order."""
    catalog = json.load(open(os.path.join(ROOT, "workloads", "catalog.json")))["workloads"]
    by_name = {w["name"]: w for w in catalog}
    if listed:
        chosen = [l.split("#")[0].strip() for l in open(listed)]
        chosen = [n for n in chosen if n]
        unknown = [n for n in chosen if n not in by_name]
        if unknown:
            sys.exit(f"run_peers: {listed} names workloads not in the catalog: {unknown[:5]}")
        return [by_name[n] for n in chosen]
    names = sorted(by_name)
    chosen = random.Random(seed).sample(names, min(count, len(names)))
    return [by_name[n] for n in chosen]


def steptp_row(w, work):
    out, err = run([STEPTP, "optimize", w["name"], *SEARCH_FLAGS, "--out", work], 1800)
    if err:
        return None, err
    r = json.load(open(os.path.join(work, "report.json")))
    best = r["best"]["time_ms"]
    conf = r.get("confirmation", {})
    if conf.get("kept", True) and "best_ms" in conf:
        best = conf["best_ms"]
    return {"source": r["source"], "naive_ms": r["baseline_ms"], "steptp_ms": best,
            "steptp_trace": r["best"]["trace"]}, None


def torch_row(w, shapes, compile_):
    cmd = [VENV_PY, os.path.join(ROOT, "python", "torch_baseline.py"), "--problem",
           os.path.join(ROOT, "workloads", w["file"]), "--shapes-json", json.dumps(shapes),
           "--threads", "1", "--repeats", "10", "--warmup", "2", "--json"]
    if compile_:
        cmd.append("--compile")
    out, err = run(cmd, 1200)
    return (None, err) if err else (last_json(out), None)


def metaschedule_row(graph, trials, work):
    leir = os.path.join(work, "initial.leir")
    tir = os.path.join(work, "initial_tir.py")
    _, err = run([STEPTP, "import", graph, "-o", leir], 300)
    if err:
        return None, "import: " + err
    out, err = run([STEPTP, "lower", leir, "--target", "tir-llvm"], 300)
    if err:
        return None, "lower: " + err
    # MetaSchedule schedules from plain loops: its own rules add parallelism.
    with open(tir, "w") as f:
        f.write(out.replace("T.parallel(", "T.serial("))
    env = dict(os.environ, TVM_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out, err = run([VENV_PY, os.path.join(ROOT, "bench", "peers", "metaschedule_peer.py"), tir,
                    str(trials), os.path.join(work, "ms")], 3600, env)
    return (None, err) if err else (last_json(out), None)


def halide_row(graph, work):
    leir = os.path.join(work, "initial_halide.leir")
    module = os.path.join(work, "initial_halide.py")
    _, err = run([STEPTP, "import", graph, "-o", leir], 300)
    if err:
        return None, "import: " + err
    _, err = run([STEPTP, "lower", leir, "--target", "halide", "-o", module], 300)
    if err:
        return None, "lower: " + err
    env = dict(os.environ, HL_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out, err = run([VENV_PY, os.path.join(ROOT, "bench", "peers", "halide_peer.py"), STEPTP, leir,
                    module], 1800, env)
    return (None, err) if err else (last_json(out), None)


def add_halide(row, graph, work):
    for key in ("halide_ms", "halide_compile_s", "halide_scheduler"):
        row.pop(key, None)
    row["failures"].pop("halide", None)
    h, err = halide_row(graph, work)
    if err:
        row["failures"]["halide"] = err
    else:
        row.update({"halide_ms": h["median_ms"], "halide_compile_s": h["compile_s"],
                    "halide_scheduler": h["scheduler"]})


def remeasure_halide(row, commit):
    """row with its Halide column measured by this commit (--peer-only halide), at the shapes
    the other peers ran."""
    row = dict(row, failures=dict(row["failures"]), halide_commit=commit,
               halide_load_start=os.getloadavg()[0])
    suffix = ".small.json" if row["shapes_class"] == "small" else ".json"
    graph = os.path.join(ROOT, "workloads", "graphs", row["workload"] + suffix)
    with tempfile.TemporaryDirectory() as work:
        add_halide(row, graph, work)
    row["halide_load_end"] = os.getloadavg()[0]
    return row


def remeasure_rows(args, workloads, shard, only, commit):
    """--steptp-only and --peer-only: one column group of the rows already in --out measured
    again by this commit, the others kept."""
    k, n = shard
    rows = {}
    if os.path.exists(args.out):
        rows = {r["workload"]: r for r in map(json.loads, filter(str.strip, open(args.out)))}
    key = "halide_commit" if args.peer_only else "steptp_commit"
    for index, w in enumerate(workloads):
        if w["name"] not in rows or index % n != k or (only and w["name"] not in only):
            continue
        if not only and rows[w["name"]].get(key) == commit:
            continue  # re-measured by this commit already (resume)
        if args.peer_only:
            row = remeasure_halide(rows[w["name"]], commit)
            summary = f"halide={row.get('halide_ms', 'FAIL')} {row['failures'].get('halide', '')}"
        else:
            row = remeasure_steptp(rows[w["name"]], w, commit)
            summary = (f"naive={row.get('naive_ms', 'FAIL')} steptp={row.get('steptp_ms', 'FAIL')} "
                       f"metaschedule={row.get('metaschedule_ms', 'FAIL')}")
        write_row(args.out, row)
        print(f"{w['name']}: {summary}", flush=True)


def write_row(path, row):
    """Appends row, replacing an older row of the same workload (a rerun with --only); the file
    is rewritten through a temporary one so that an interrupted write loses nothing, under a
    lock so that shards running side by side do not lose each other's rows."""
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = []
        if os.path.exists(path):
            kept = [l for l in open(path)
                    if l.strip() and json.loads(l)["workload"] != row["workload"]]
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.writelines(kept)
            f.write(json.dumps(row) + "\n")
        os.replace(tmp, path)


def remeasure_steptp(row, w, commit):
    """row with its naive and steptp columns measured again by this commit (--steptp-only)."""
    row = dict(row)
    row["steptp_commit"] = commit
    row["steptp_load_start"] = os.getloadavg()[0]
    for key in ("naive_ms", "steptp_ms", "steptp_trace"):
        row.pop(key, None)
    for peer in ("steptp", "naive"):
        row["failures"].pop(peer, None)
    with tempfile.TemporaryDirectory() as work:
        t0 = time.time()
        s, err = steptp_row(w, os.path.join(work, "steptp"))
        row["steptp_search_s"] = round(time.time() - t0, 1)
    if err:
        row["failures"]["steptp"] = err
        row["failures"]["naive"] = "no baseline without the search's run"
    else:
        if ("small shapes" in s["source"]) != (row["shapes_class"] == "small"):
            row["failures"]["steptp"] = "the search chose other shapes than the peers were run at"
        else:
            row.update(s)
    row["steptp_load_end"] = os.getloadavg()[0]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--only", default="")
    ap.add_argument("--set", default="", help="run the workloads this file lists instead of the "
                    "seeded sample (bench/search/benchmark_set.txt: the search benchmark's set)")
    ap.add_argument("--steptp-only", action="store_true")
    ap.add_argument("--peer-only", choices=["halide"])
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "peers", "results",
                                                  "peers_cpu.jsonl"))
    args = ap.parse_args()
    k, n = (int(x) for x in args.shard.split("/"))
    if not (0 <= k < n):
        sys.exit("run_peers: --shard K/N needs 0 <= K < N")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    done = set()
    if os.path.exists(args.out):
        done = {json.loads(l)["workload"] for l in open(args.out) if l.strip()}
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    only = set(filter(None, args.only.split(",")))
    workloads = sample(args.seed, args.count, args.set or None)
    if args.peer_only or args.steptp_only:
        remeasure_rows(args, workloads, (k, n), only, commit)
        return
    for index, w in enumerate(workloads):
        if only:
            if w["name"] not in only:
                continue
        elif index % n != k or w["name"] in done:
            continue
        start = time.time()
        row = {"workload": w["name"], "level": w.get("level"), "sample_index": index,
               "seed": None if args.set else args.seed, "set": args.set or None, "commit": commit, "load_start": os.getloadavg()[0],
               "threads": 1, "dtype": "f64", "failures": {}}
        with tempfile.TemporaryDirectory() as work:
            t0 = time.time()
            s, err = steptp_row(w, os.path.join(work, "steptp"))
            row["steptp_search_s"] = round(time.time() - t0, 1)
            if err:
                row["failures"]["steptp"] = err
                row["failures"]["naive"] = "no baseline without the search's run"
                source = f"workloads/graphs/{w['name']}.json (default shapes)"
            else:
                row.update(s)
                source = s["source"]
            small = "small shapes" in source
            row["shapes_class"] = "small" if small else "default"
            shapes = w["small_shapes"] if small else w["default_shapes"]
            graph = os.path.join(ROOT, source.split(" (")[0])
            for peer, compile_ in (("eager", False), ("inductor", True)):
                t, err = torch_row(w, shapes, compile_)
                if err:
                    row["failures"][peer] = err
                else:
                    row[f"{peer}_ms"] = t["median_ms"]
                    if compile_:
                        row["inductor_compile_s"] = round(t["compile_s"], 2)
                    row["torch_version"] = t["torch_version"]
            m, err = metaschedule_row(graph, args.trials, work)
            if err:
                row["failures"]["metaschedule"] = err
            else:
                row.update({"metaschedule_ms": m["median_ms"], "metaschedule_tune_s": m["tune_s"],
                            "metaschedule_trials": m["trials"]})
            add_halide(row, graph, work)
        row["wall_s"] = round(time.time() - start, 1)
        row["load_end"] = os.getloadavg()[0]
        write_row(args.out, row)
        print(f"{w['name']}: " + " ".join(
            f"{p}={row.get(p + '_ms', 'FAIL')}" for p in
            ("naive", "steptp", "eager", "inductor", "metaschedule", "halide")), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""python/ray_build.py — a steptp dataset build spread over a Ray cluster.

Starts one Ray task per shard; each runs `steptp build-dataset --shard K/N` into its own part
folder, and once all have finished the driver runs `steptp merge-dataset` over the parts. The
result is byte-identical to a one-process `steptp build-dataset` with the same arguments: the
partition, the checks and the merge are steptp's own (docs/dataset.md, "Scale-out"); this file
only schedules processes.

    python/ray_build.py --steptp build/steptp --shards 8 --out ds -- --workloads '*Norm' --seed 3

Every argument the driver does not know (or everything after `--`) goes to build-dataset. The
steptp binary, the catalog and --work-dir must be reachable at the same paths on every node
(a shared filesystem); a task that fails is not retried by Ray, but rerunning the driver
resumes every shard from the checkpoints it already wrote.
"""

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time

import ray


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Build a steptp dataset as N Ray tasks (build-dataset --shard K/N), then "
        "merge-dataset. Unknown arguments are passed to build-dataset.")
    p.add_argument("--steptp", required=True, help="the steptp executable (same path on every node)")
    p.add_argument("--shards", type=int, required=True, help="number of shards N (Ray tasks)")
    p.add_argument("--out", required=True, help="folder of the merged dataset")
    p.add_argument("--work-dir",
                   help="folder of the part folders shard-K (default: OUT/parts); must be shared "
                   "by all nodes")
    p.add_argument("--address",
                   help="Ray cluster to connect to (host:port or ray://host:port); default: "
                   "$RAY_ADDRESS, else the cluster last started on this machine, else a new "
                   "local one; 'local' always starts a new local one")
    p.add_argument("--num-cpus", type=int,
                   help="CPUs of a new local Ray instance (default: all)")
    p.add_argument("--cpus-per-shard", type=int, default=1,
                   help="CPUs each task reserves and passes to build-dataset --jobs (default 1)")
    p.add_argument("--recheck", type=int, default=0,
                   help="merge-dataset --recheck: re-verify this many exported samples")
    p.add_argument("--json", action="store_true",
                   help="print a JSON summary (per shard and merged) instead of text")
    args, build_args = p.parse_known_args(argv)
    build_args = [a for a in build_args if a != "--"]
    if args.shards < 1:
        p.error("--shards must be at least 1")
    if args.cpus_per_shard < 1:
        p.error("--cpus-per-shard must be at least 1")
    for own in ("--shard", "--out", "--json"):
        if any(a == own or a.startswith(own + "=") for a in build_args):
            p.error(f"{own} is set by the driver; do not pass it to build-dataset")
    return args, build_args


@ray.remote(max_retries=0)
def run_shard(steptp, shard, part_dir, build_args, jobs, cwd):
    """One `build-dataset --shard` process; returns its exit code, JSON summary and stderr."""
    if not any(a == "--jobs" or a.startswith("--jobs=") for a in build_args):
        build_args = build_args + ["--jobs", str(jobs)]
    cmd = [steptp, "build-dataset", *build_args, "--shard", shard, "--out", part_dir, "--json",
           "--quiet"]
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = None
    if done.returncode == 0:
        summary = json.loads(done.stdout)
    return {"shard": shard, "returncode": done.returncode, "summary": summary,
            "stderr": done.stderr[-4000:], "host": socket.gethostname(),
            "seconds": time.monotonic() - start, "cpu_seconds": cpu}


def connect(args):
    if args.address:
        ray.init(address=args.address, num_cpus=args.num_cpus if args.address == "local" else None)
    else:
        ray.init(num_cpus=args.num_cpus)


def main(argv):
    args, build_args = parse_args(argv)
    steptp = os.path.abspath(args.steptp)
    out = os.path.abspath(args.out)
    work = os.path.abspath(args.work_dir or os.path.join(out, "parts"))
    parts = [os.path.join(work, f"shard-{k}") for k in range(args.shards)]
    os.makedirs(work, exist_ok=True)

    start = time.monotonic()
    connect(args)
    pending = {
        run_shard.options(num_cpus=args.cpus_per_shard).remote(
            steptp, f"{k}/{args.shards}", parts[k], build_args, args.cpus_per_shard,
            os.getcwd()): k
        for k in range(args.shards)
    }
    results = [None] * args.shards
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        k = pending.pop(ready[0])
        results[k] = ray.get(ready[0])
        r = results[k]
        if not args.json:
            state = "done" if r["returncode"] == 0 else f"failed (exit {r['returncode']})"
            print(f"ray_build: shard {r['shard']} {state} on {r['host']} in {r['seconds']:.1f} s "
                  f"({args.shards - len(pending)}/{args.shards})", file=sys.stderr)
    ray.shutdown()
    failed = [r for r in results if r["returncode"] != 0]
    for r in failed:
        sys.stderr.write(f"ray_build: shard {r['shard']} failed:\n{r['stderr']}")
    if failed:
        return max(r["returncode"] for r in failed)
    generated = time.monotonic() - start

    merge = [steptp, "merge-dataset", *parts, "--out", out, "--json"]
    if args.recheck:
        merge += ["--recheck", str(args.recheck)]
    done = subprocess.run(merge, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        sys.stderr.write(f"ray_build: merge-dataset failed (exit {done.returncode}):\n"
                         f"{done.stderr}")
        return done.returncode or 3
    merged = json.loads(done.stdout)
    wall = time.monotonic() - start
    verified = sum(r["summary"]["verified"] for r in results)
    cpu = sum(r["cpu_seconds"] for r in results)
    report = {"shards": [r["summary"] | {"host": r["host"], "cpu_seconds": r["cpu_seconds"]}
                         for r in results],
              "merged": merged, "generate_seconds": generated, "wall_seconds": wall,
              "shard_cpu_seconds": cpu, "verified": verified,
              "verified_per_second": verified / wall if wall else 0.0,
              "verified_per_cpu_second": verified / cpu if cpu else 0.0}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"ray_build: {args.shards} shards, {merged['units']} units, {verified} verified "
              f"steps in {wall:.1f} s ({report['verified_per_second']:.1f} verified/s); "
              f"{merged['unique']} unique, single {merged['single_train']}+"
              f"{merged['single_test']}, multi {merged['multi_train']}+{merged['multi_test']} "
              f"(train+test); wrote {out}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

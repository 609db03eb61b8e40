#!/usr/bin/env python3
"""merge_shards.py --set FILE --out RESULTS.jsonl [--doc DOC.md] SHARD.jsonl...

Joins the results of run_search_cpu.sh runs made with --shard K/N (one per core) into one
results file in the set's order, with one facts file (every shard's command, the earliest start,
the longest shard's elapsed time) and one reports directory, then renders the doc
(render_search_cpu.py). Refuses shards that overlap, miss a workload of the set, or ran
different per-workload settings, so a merged result always means one configuration."""
import argparse
import json
import os
import shutil
import subprocess
import sys


def read_facts(path):
    facts = {}
    for line in open(path):
        if "=" in line:
            key, value = line.rstrip("\n").split("=", 1)
            facts.setdefault(key, value)
    return facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True, help="the set file the shards ran (run_search_cpu.sh --set)")
    ap.add_argument("--out", required=True, help="merged results (JSON lines); .facts and .reports beside it")
    ap.add_argument("--doc", help="render the merged doc here (render_search_cpu.py)")
    ap.add_argument("shards", nargs="+", help="each shard's --results file")
    a = ap.parse_args()

    names = [l.strip() for l in open(a.set) if l.strip() and not l.startswith("#")]
    rows, facts = {}, []
    for shard in a.shards:
        if not os.path.exists(shard + ".facts"):
            sys.exit(f"merge_shards: {shard}.facts is missing (not a run_search_cpu.sh result?)")
        facts.append(read_facts(shard + ".facts"))
        for line in open(shard):
            if not line.strip():
                continue
            r = json.loads(line)
            if r["workload"] in rows:
                sys.exit(f"merge_shards: {r['workload']} is in more than one shard")
            rows[r["workload"]] = (r, shard)
    missing = [n for n in names if n not in rows]
    extra = [n for n in rows if n not in names]
    if missing or extra:
        sys.exit(f"merge_shards: the shards do not cover the set: missing {missing}, not in it {extra}")
    settings = {f.get("optimize") for f in facts}
    if len(settings) != 1:
        sys.exit(f"merge_shards: the shards ran different settings: {sorted(settings)}")

    reports = a.out + ".reports"
    shutil.rmtree(reports, ignore_errors=True)
    os.makedirs(reports)
    with open(a.out, "w") as out:
        for n in names:
            r, shard = rows[n]
            out.write(json.dumps(r) + "\n")
            src = os.path.join(shard + ".reports", n)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(reports, n))

    first = facts[0]
    with open(a.out + ".facts", "w") as f:
        f.write(f"date_utc={min(x.get('date_utc', '?') for x in facts)}\n")
        for key in ("cpu_model", "cpu_id", "cores", "compiler", "torch"):
            f.write(f"{key}={first.get(key, '?')}\n")
        f.write(f"load_start={'; '.join(x.get('load_start', '?') for x in facts)}\n")
        for x in facts:
            f.write(f"command={x.get('command', '?')}\n")
        f.write(f"optimize={first.get('optimize', '?')}\n")
        f.write(f"note={first.get('note', '')}\n")
        f.write(f"load_end={'; '.join(x.get('load_end', '?') for x in facts)}\n")
        elapsed = [int(x["elapsed_s"]) for x in facts if x.get("elapsed_s", "").isdigit()]
        longest = max(elapsed) if elapsed else "?"
        f.write(f"elapsed_s={longest} (the longest of {len(facts)} shards)\n")
    print(f"merge_shards: {len(names)} workloads from {len(a.shards)} shards -> {a.out}")
    if a.doc:
        here = os.path.dirname(os.path.abspath(__file__))
        doc = subprocess.run([sys.executable, os.path.join(here, "render_search_cpu.py"), a.out,
                              a.out + ".facts"], check=True, capture_output=True, text=True).stdout
        with open(a.doc, "w") as f:
            f.write(doc)
        print(f"merge_shards: wrote {a.doc}")


if __name__ == "__main__":
    main()

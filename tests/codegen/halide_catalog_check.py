#!/usr/bin/env python3
"""tests/codegen/halide_catalog_check.py SOURCE_DIR STEPTP [--sample N] [--seed S]
                                         [--min-pass F] [--jsonl OUT] [--autoschedule]

Does Halide build and run `steptp lower --target halide` for catalog workloads, with the
interpreter's results? For each workload's initial program (the traced graph at small shapes,
`steptp import`), it lowers to a Halide module and runs `python/halide_pipeline.py check`, which
compares every output element with `steptp run --harness-inputs --dump` within the verifier's
tolerance. Run it with the .venv's Python (scripts/setup-venv.sh halide).

The sample is random.Random(S).sample of the sorted names of workloads/graphs/*.small.json (all of
them with --sample 0). A program the emitter cannot express is not a failure: its typed reason
(the diagnostic's `unsupported: ...` line) is counted apart. Exit 1 when, over the programs that
lowered, the share Halide built and matched is below --min-pass, or when a lowering failed for
another reason than `unsupported`.
"""
import argparse
import collections
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile


def run(cmd, timeout=600):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timeout"
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return done.returncode, lines[-1] if lines else ""


def check_one(src, steptp, name, work, autoschedule):
    """One JSON-able row: {name, status: pass|mismatch|halide|unsupported|error, reason}."""
    graph = src / "workloads" / "graphs" / f"{name}.small.json"
    leir, module = work / f"{name}.leir", work / f"{name}.py"
    code, why = run([steptp, "import", str(graph), "-o", str(leir)])
    if code:
        return {"name": name, "status": "error", "reason": "import: " + why}
    code, why = run([steptp, "lower", str(leir), "--target", "halide", "-o", str(module)])
    if code:
        unsupported = "unsupported:" in why
        return {"name": name, "status": "unsupported" if unsupported else "error",
                "reason": why.split("unsupported:", 1)[-1].strip() if unsupported else why}
    cmd = [sys.executable, str(src / "python" / "halide_pipeline.py"), "check", steptp,
           str(leir), str(module)] + (["--autoschedule"] if autoschedule else [])
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                              env=dict(os.environ, HL_NUM_THREADS="1"))
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError) as exc:
        return {"name": name, "status": "halide", "reason": f"check: {type(exc).__name__}"}
    if verdict.get("ok"):
        return {"name": name, "status": "pass", "reason": None}
    status = "mismatch" if done.returncode == 1 else "halide"
    return {"name": name, "status": status, "reason": verdict.get("reason")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_dir", type=pathlib.Path)
    ap.add_argument("steptp")
    ap.add_argument("--sample", type=int, default=24, help="workloads to draw; 0: all")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--min-pass", type=float, default=0.95)
    ap.add_argument("--jsonl", type=pathlib.Path)
    ap.add_argument("--autoschedule", action="store_true")
    args = ap.parse_args()
    names = sorted(p.name[:-len(".small.json")]
                   for p in (args.source_dir / "workloads" / "graphs").glob("*.small.json"))
    if args.sample:
        names = random.Random(args.seed).sample(names, args.sample)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            row = check_one(args.source_dir, args.steptp, name, pathlib.Path(tmp),
                            args.autoschedule)
            rows.append(row)
            print(f"{row['status']:11} {name}" + (f": {row['reason']}" if row["reason"] else ""),
                  flush=True)
    if args.jsonl:
        args.jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts = collections.Counter(r["status"] for r in rows)
    lowered = len(rows) - counts["unsupported"] - counts["error"]
    reasons = collections.Counter(r["reason"] for r in rows if r["status"] == "unsupported")
    print(f"unsupported {counts['unsupported']}: " +
          "; ".join(f"{n}x {why}" for why, n in reasons.most_common()))
    share = counts["pass"] / lowered if lowered else 0.0
    print(f"passed {counts['pass']} of {lowered} lowered ({share:.1%}); "
          f"{counts['mismatch']} mismatched, {counts['halide']} failed in Halide, "
          f"{counts['error']} other errors, of {len(rows)} workloads")
    return 0 if share >= args.min_pass and not counts["error"] and lowered else 1


if __name__ == "__main__":
    sys.exit(main())

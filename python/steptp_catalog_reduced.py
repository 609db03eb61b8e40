#!/usr/bin/python3
"""steptp_catalog_reduced.py — traces, for every catalog workload whose default-shape program is
too expensive to verify directly, a REDUCED instance that keeps the default shapes' residues:
every integer size variable D >= 2M becomes M + (D mod M), the others stay, so every loop
extent that is an affine, unit-stride function of the sizes keeps its remainder modulo M (and
so the divisibility by, and the tail of, every factor that divides M). M is the largest of
32, 16, 8, 4 whose imported program needs at most --budget statement executions per run.
Kernel sizes, strides, paddings, dilations and group counts are never changed.

build-dataset verifies each default-shape step by replaying it on this instance and checking
that the replay is the same transformation (docs/dataset.md, "Default shapes"). Writes
workloads/graphs/<name>.reduced.json and catalog.json's reduced_shapes / reduced_modulus.
Usage: steptp_catalog_reduced.py [--steptp BUILD/steptp] [--budget N] [--only NAME,...]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steptp_trace as tr  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODULI = (32, 16, 8, 4)
# Names that are hyperparameters, not sizes: changing them changes the program's structure.
KEEP = re.compile(r"kernel|stride|pad|dilation|group", re.I)


def reduce_value(name, v, m):
    if isinstance(v, bool) or KEEP.search(name):
        return v
    if isinstance(v, int):
        return v if v < 2 * m else m + v % m
    if isinstance(v, (list, tuple)):
        return type(v)(reduce_value(name + "_size", x, m) for x in v)
    return v


def static_work(steptp, graph):
    """Statement executions per run of the graph's imported program, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        g = os.path.join(tmp, "g.json")
        leir = os.path.join(tmp, "p.leir")
        with open(g, "w") as f:
            json.dump(graph, f)
        done = subprocess.run([steptp, "import", g, "-o", leir], capture_output=True, text=True)
        if done.returncode != 0:
            return None
        done = subprocess.run([steptp, "check", leir, "--json"], capture_output=True, text=True)
        if done.returncode != 0:
            return None
        return json.loads(done.stdout).get("static_work")


def main(argv):
    steptp = os.path.join(ROOT, "build", "steptp")
    budget, only = 250_000, None
    i = 0
    while i < len(argv):
        if argv[i] == "--steptp":
            steptp = argv[i + 1]
        elif argv[i] == "--budget":
            budget = int(argv[i + 1])
        elif argv[i] == "--only":
            only = set(argv[i + 1].split(","))
        else:
            sys.exit(f"steptp_catalog_reduced: unknown argument {argv[i]}")
        i += 2
    workloads = os.path.join(ROOT, "workloads")
    cat_path = os.path.join(workloads, "catalog.json")
    cat = json.load(open(cat_path))
    t0, made, direct, failed = time.time(), 0, 0, []
    for w in cat["workloads"]:
        if only and w["name"] not in only:
            continue
        w.pop("reduced_shapes", None)
        w.pop("reduced_modulus", None)
        out = os.path.join(workloads, "graphs", w["name"] + ".reduced.json")
        default = json.load(open(os.path.join(workloads, "graphs", w["name"] + ".json")))
        work = static_work(steptp, default)
        if work is not None and work <= budget:
            direct += 1  # verified at its own shapes; no reduced instance needed
            if os.path.exists(out):
                os.remove(out)
            continue
        path = os.path.join(workloads, w["file"])
        chosen, last = None, "no size variable to reduce"
        for m in MODULI:
            shapes = {k: reduce_value(k, v, m) for k, v in w["default_shapes"].items()}
            if shapes == w["default_shapes"]:
                continue
            try:
                g, _, _ = tr.trace(path, shapes, "f64", False)
            except Exception as e:  # a shape combination the model rejects: try a smaller M
                last = f"M={m}: {type(e).__name__}: {e}"
                continue
            work = static_work(steptp, g)
            if work is None or work > budget:
                last = f"M={m}: {work} statement executions"
                continue
            g["source"] = w["file"]
            chosen = (m, shapes, g)
            break
        if chosen is None:
            failed.append((w["name"], last))
            if os.path.exists(out):
                os.remove(out)
            continue
        m, shapes, g = chosen
        w["reduced_shapes"], w["reduced_modulus"] = shapes, m
        with open(out, "w") as f:
            json.dump(g, f, separators=(",", ":"))
            f.write("\n")
        made += 1
    with open(cat_path, "w") as f:
        json.dump(cat, f, indent=1)
    for name, why in failed:
        print("NO REDUCED INSTANCE", name, why)
    print(f"{made} reduced instances, {direct} default instances verified directly, "
          f"{len(failed)} without; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/python3
"""steptp_catalog_build.py — traces every catalog workload into workloads/graphs/ (default
shapes, META, no values; small shapes with values) and writes float64 reference outputs at the
small shapes into workloads/reference/. Reports failures; never edits the problem files.
Usage: steptp_catalog_build.py [WORKLOADS_DIR] [--only NAME,...] [--max-values N]
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steptp_trace as tr  # noqa: E402


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


def candidates(w):
    """The declared small shapes, then progressively larger sizes until the model runs."""
    small, dflt = w["small_shapes"], w["default_shapes"]
    yield dict(small)
    for factor in (2, 4, 8):
        c = {}
        for k, v in small.items():
            d = dflt.get(k, v)
            if isinstance(v, int) and not isinstance(v, bool) and v != d and "batch" not in k:
                c[k] = min(d, v * factor)
            else:
                c[k] = v
        yield c


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads")
    only, max_values = None, 2500
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] == "--only":
            only = set(argv[i + 1].split(","))
            i += 2
        elif argv[i] == "--max-values":
            max_values = int(argv[i + 1])
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    if rest:
        root = rest[0]
    cat = json.load(open(os.path.join(root, "catalog.json")))
    os.makedirs(os.path.join(root, "graphs"), exist_ok=True)
    os.makedirs(os.path.join(root, "reference"), exist_ok=True)
    failures = []
    t0 = time.time()
    for w in cat["workloads"]:
        if only and w["name"] not in only:
            continue
        path = os.path.join(root, w["file"])
        try:
            g, _, _ = tr.trace(path, {}, "f64", False)
            g["source"] = w["file"]
            dump(os.path.join(root, "graphs", w["name"] + ".json"), g)
        except tr.TraceError as e:
            failures.append((w["name"], "default", str(e)))
        try:
            g = ns = ref = None
            last = None
            for small in candidates(w):
                try:
                    g, ns, gm = tr.trace(path, small, "f64", False, meta=False)
                    ref = tr.reference(ns, w["file"], "f64", 0, g, gm)
                    w["small_shapes"] = small
                    break
                except tr.TraceError as e:
                    last = e
            if ref is None:
                raise last
            g["source"] = w["file"]
            n = sum(len(x["values"]) for x in ref["inputs"] + ref["params"]) + len(
                ref["output"]["values"])
            dump(os.path.join(root, "graphs", w["name"] + ".small.json"), g)
            if n <= max_values:
                for x in ref["inputs"] + ref["params"] + [ref["output"]]:
                    x["values"] = [float(repr(v)) if isinstance(v, float) else v
                                   for v in x["values"]]
                dump(os.path.join(root, "reference", w["name"] + ".json"), ref)
            else:
                failures.append((w["name"], "reference", f"{n} values > {max_values}"))
        except tr.TraceError as e:
            failures.append((w["name"], "small", str(e)))
    with open(os.path.join(root, "catalog.json"), "w") as f:
        json.dump(cat, f, indent=1)
    for f in failures:
        print("FAIL", *f)
    print(f"traced in {time.time() - t0:.1f}s, {len(failures)} problems")


if __name__ == "__main__":
    main(sys.argv[1:])

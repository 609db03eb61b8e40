#!/usr/bin/env python3
"""A bounded load test of `steptp serve`'s reward endpoint on loopback.

    python3 bench/service/reward_load.py --url http://127.0.0.1:8080 --seconds 20 --clients 8

The mix is fixed: for every program in tests/data/programs, its first feasible steps (asked of
the service's /v1/sites and /v1/apply) become answers of three kinds in turn: the correct step,
the same program claimed under a wrong strategy, and text with no answer block. CLIENTS threads
each hold one keep-alive connection and send reward requests back to back for SECONDS.
Prints one JSON object: requests, seconds, requests_per_s, p50_ms, p99_ms, statuses (and
exits 1 on any 5xx or transport error). Standard library only.
"""

import argparse
import http.client
import json
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]


def post(conn, op, body):
    conn.request("POST", f"/v1/{op}", json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, json.loads(r.read())


def answer(strategy, ir):
    return ("<think>the step</think><answer>"
            + json.dumps({"applied_strategy": strategy, "transformed_IR": ir}) + "</answer>")


def build_mix(host, port, steps_per_program):
    conn = http.client.HTTPConnection(host, port, timeout=60)
    mix = []
    for path in sorted((ROOT / "tests" / "data" / "programs").glob("*.leir")):
        program = path.read_text()
        status, sites = post(conn, "sites", {"program": program})
        if status != 200:
            continue
        for site in sites["sites"][:steps_per_program]:
            status, applied = post(conn, "apply", {"program": program, "step": site["step"]})
            if status != 200:
                continue
            body = applied["body"]
            wrong = "loop_reorder" if site["strategy"] != "loop_reorder" else "loop_tiling"
            mix.append({"original": program, "answer": answer(site["strategy"], body)})
            mix.append({"original": program, "answer": answer(wrong, body)})
            mix.append({"original": program, "answer": "<think>no idea</think>"})
    conn.close()
    return mix


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--steps-per-program", type=int, default=4)
    args = ap.parse_args()
    u = urlparse(args.url)
    mix = build_mix(u.hostname, u.port, args.steps_per_program)
    if not mix:
        sys.exit("reward_load: no request could be built (is the service up?)")
    latencies, statuses, errors = [], {}, []
    lock = threading.Lock()
    stop_at = time.monotonic() + args.seconds

    def client(k):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        mine, seen = [], {}
        i = k
        while time.monotonic() < stop_at:
            body = mix[i % len(mix)]
            i += args.clients
            t0 = time.perf_counter()
            try:
                status, _ = post(conn, "reward", body)
            except (OSError, http.client.HTTPException, ValueError) as e:
                with lock:
                    errors.append(repr(e))
                conn.close()
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
                continue
            mine.append(time.perf_counter() - t0)
            seen[status] = seen.get(status, 0) + 1
        with lock:
            latencies.extend(mine)
            for s, n in seen.items():
                statuses[s] = statuses.get(s, 0) + n

    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    latencies.sort()

    def pct(q):
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0

    report = {"requests": len(latencies), "seconds": round(elapsed, 2),
              "requests_per_s": round(len(latencies) / elapsed, 1), "p50_ms": round(pct(0.50), 2),
              "p99_ms": round(pct(0.99), 2), "clients": args.clients, "mix": len(mix),
              "statuses": {str(k): v for k, v in sorted(statuses.items())},
              "transport_errors": len(errors)}
    print(json.dumps(report))
    bad = errors or any(s >= 500 for s in statuses)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

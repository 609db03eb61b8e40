#!/usr/bin/env python3
"""bench/peers/metaschedule_peer.py TIR_MODULE.py TRIALS WORK_DIR — tunes a TVMScript module (as
`steptp lower --target tir-llvm` writes it) with TVM MetaSchedule for the CPU (llvm, one core,
xgb cost model, evolutionary search, seed 0), builds the best measured schedule and times it
with TVM's `time_evaluator` (10 repeats, each long enough for ~10 ms), median. Prints one JSON
line {median_ms, tune_s, trials, records, tuned}. Run it with the project's .venv Python
(scripts/setup-venv.sh tvm).
"""
import importlib.util
import json
import re
import statistics
import sys
import time


def main(path, trials, work_dir):
    spec = importlib.util.spec_from_file_location("steptp_peer_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["steptp_peer_module"] = module
    spec.loader.exec_module(module)
    import numpy as np
    import tvm
    from tvm.s_tir import meta_schedule as ms

    target = tvm.target.Target({"kind": "llvm", "num-cores": 1})
    mod = module.Module
    start = time.perf_counter()
    database = ms.tune_tir(mod, target=target, work_dir=work_dir, max_trials_global=trials,
                           num_trials_per_iter=min(32, trials), num_tuning_cores=1, seed=0)
    tune_s = time.perf_counter() - start
    # The best measured record, applied by hand: compile_tir's lookup by structural equality
    # finds nothing for these modules in TVM 0.27.
    records = [r for r in database.get_all_tuning_records() if r.run_secs]
    tuned = bool(records)
    best = mod
    if records:
        record = min(records, key=lambda r: sum(float(x) for x in r.run_secs) / len(r.run_secs))
        schedule = tvm.s_tir.Schedule(record.workload.mod)
        record.trace.apply_to_schedule(schedule, remove_postproc=False)
        best = schedule.mod
    lib = tvm.compile(best, target=target)
    # main's parameters, as steptp writes them: `A: T.Buffer((32, 48), "float64")`.
    header = next(l for l in open(path) if l.strip().startswith("def main("))
    rng = np.random.default_rng(0)
    args = []
    for dims, dtype in re.findall(r'T\.Buffer\(\(([0-9, ]*)\), "(\w+)"\)', header):
        shape = [int(d) for d in dims.replace(" ", "").split(",") if d]
        args.append(tvm.runtime.tensor(rng.standard_normal(shape).astype(dtype)))
    lib["main"](*args)  # warm-up
    # TVM's own timer (C++ loop, no Python call in the measurement), number sized to ~10 ms.
    once = lib.mod.time_evaluator("main", tvm.cpu(), number=1, repeat=1)(*args).mean
    number = max(1, min(1000, int(0.01 / max(once, 1e-9))))
    result = lib.mod.time_evaluator("main", tvm.cpu(), number=number, repeat=10)(*args)
    median_ms = statistics.median(result.results) * 1e3
    print(json.dumps({"median_ms": median_ms, "tune_s": round(tune_s, 1),
                      "trials": trials, "records": len(records), "tuned": tuned}))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: metaschedule_peer.py TIR_MODULE.py TRIALS WORK_DIR")
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])

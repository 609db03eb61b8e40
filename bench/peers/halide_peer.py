#!/usr/bin/env python3
"""bench/peers/halide_peer.py STEPTP PROGRAM.leir MODULE.py — the Halide peer: builds the module
`steptp lower --target halide` wrote for PROGRAM, schedules it with Halide's Mullapudi2016
autoscheduler (parallelism 1, this machine's last-level cache; the wheel ships no weights for
Adams2019, whose cost model needs them), JIT-compiles it for the host, checks every output
against the interpreter (`steptp run --harness-inputs`) within the verifier's tolerance and
times it: 10 repeats, each a loop of calls lasting ~10 ms, median. One thread: HL_NUM_THREADS=1
and a schedule without parallel loops. Prints one JSON line {median_ms, compile_s, scheduler};
on failure exit 1 with the reason (typed by stage: build, autoschedule, compile, run, mismatch)
as the last line of stderr. Run it with the project's .venv Python (scripts/setup-venv.sh halide).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ["HL_NUM_THREADS"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import halide_pipeline as hp  # noqa: E402  (after the thread count, which Halide reads once)


# Times the ahead-of-time compiled pipeline in a C++ loop, as TVM's time_evaluator does for
# MetaSchedule: a Python call costs about a microsecond, more than many small rows take.
HARNESS = r"""
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "HalideBuffer.h"
#include "steptp_pipeline.h"

using Buf = Halide::Runtime::Buffer<void>;

static double seconds(std::vector<Buf>& b, int number) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < number; ++i)
    if (steptp_pipeline(ARGS) != 0) { std::fprintf(stderr, "run: pipeline failed\n"); return -1; }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / number;
}

int main(int argc, char** argv) {
  std::vector<Buf> b;
BUFFERS
  if (seconds(b, 1) < 0) return 1;
  double once = seconds(b, 1);
  int number = std::max(1, std::min(1000, static_cast<int>(0.01 / std::max(once, 1e-9))));
  std::vector<double> s;
  for (int r = 0; r < 10; ++r) s.push_back(seconds(b, number));
  std::sort(s.begin(), s.end());
  std::printf("%.9g\n", (s[4] + s[5]) / 2 * 1e3);
  return 0;
}
"""
TYPES = {"float64": "halide_type_of<double>()", "float32": "halide_type_of<float>()",
         "float16": "halide_type_t(halide_type_float, 16)", "int64": "halide_type_of<int64_t>()",
         "int32": "halide_type_of<int32_t>()", "int16": "halide_type_of<int16_t>()",
         "int8": "halide_type_of<int8_t>()", "uint8": "halide_type_of<uint8_t>()",
         "uint16": "halide_type_of<uint16_t>()", "uint32": "halide_type_of<uint32_t>()",
         "uint64": "halide_type_of<uint64_t>()", "bool": "halide_type_of<bool>()"}


def aot_median_ms(module, pipeline, params, outputs, inputs, work):
    """The median time of the pipeline compiled ahead of time, run by a C++ harness."""
    import halide as hl
    tensors = {t[0]: t for t in module.TENSORS}
    names = [p.name() for p in params] + [f.name() for f in outputs]
    try:
        pipeline.compile_to_static_library(os.path.join(work, "steptp_pipeline"), list(params),
                                           "steptp_pipeline", hp.host_target())
    except Exception as exc:  # noqa: BLE001
        raise hp.StageError("aot_compile", exc) from exc
    lines = []
    for i, name in enumerate(names):
        _, _, dtype, shape = tensors[name]
        sizes = ", ".join(str(e) for e in reversed(hp.halide_shape(shape)))
        lines.append(f"  b.emplace_back({TYPES[dtype]}, std::vector<int>{{{sizes}}});")
        if name in inputs:
            raw = os.path.join(work, f"in{i}.raw")
            inputs[name].tofile(raw)
            lines.append(f"  {{ FILE* f = std::fopen(\"{raw}\", \"rb\"); if (!f || std::fread("
                         f"b[{i}].data(), 1, b[{i}].size_in_bytes(), f) != b[{i}].size_in_bytes())"
                         " return 1; std::fclose(f); }")
    args = ", ".join(f"b[{i}]" for i in range(len(names)))
    source = HARNESS.replace("ARGS", args).replace("BUFFERS", "\n".join(lines))
    with open(os.path.join(work, "harness.cpp"), "w") as f:
        f.write(source)
    include = os.path.join(os.path.dirname(hl.__file__), "include")
    exe = os.path.join(work, "harness")
    done = subprocess.run(["c++", "-O2", "-std=c++17", "-I", include, "-I", work,
                           os.path.join(work, "harness.cpp"),
                           os.path.join(work, "steptp_pipeline.a"), "-o", exe, "-lpthread",
                           "-ldl"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("harness_build: " + (done.stderr.strip().splitlines() or ["?"])[-1])
    done = subprocess.run([exe], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("harness_run: " + (done.stderr.strip().splitlines() or ["?"])[-1])
    return float(done.stdout.strip())


def main(steptp, program, module_path):
    module = hp.load_module(module_path)
    start = time.perf_counter()
    call, params, outputs, pipeline = hp.compile_pipeline(module, autoschedule=True)
    compile_s = time.perf_counter() - start
    inputs = hp.harness_inputs(module)
    args, results = hp.make_buffers(module, params, outputs, inputs)
    hp.run_once(call, args)
    problem = hp.compare(module, hp.interpreter_dump(steptp, program), results)
    if problem:
        raise RuntimeError(f"mismatch: {problem}")
    with tempfile.TemporaryDirectory() as work:
        median_ms = aot_median_ms(module, pipeline, params, outputs, inputs, work)
    print(json.dumps({"median_ms": median_ms, "compile_s": round(compile_s, 2),
                      "scheduler": "Mullapudi2016"}))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: halide_peer.py STEPTP PROGRAM.leir MODULE.py")
    try:
        main(*sys.argv[1:])
    except (hp.StageError, RuntimeError) as exc:
        sys.exit(str(exc))

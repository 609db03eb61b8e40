#!/usr/bin/env python3
"""Time each top-level block of a LEIR program's compiled C on its own.

    bench/profile_blocks.py PROGRAM.leir [--steptp build/steptp] [--repeats 7] [--warmup 1]
                            [--threads 1] [--json]

`steptp bench` times a whole program; this says where the time goes. It lowers the program
with `steptp lower` (the same C the engine runs), inserts a clock read at each top-level block's
comment in `steptp_kernel` (so a block's time includes its identity initialisation and its
parallel regions), compiles that with the engine's flags (see src/codegen/compiler_driver.h)
and a small harness that fills every floating-point buffer with seeded values in [0.5, 1.5)
(integer ones with zeros, a valid index everywhere), and prints each
block's median time over the runs and its share of the whole. A developer tool: the numbers
are for finding a slow block, not for reports (`steptp bench` and `steptp optimize` are).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FLAGS = ["-O3", "-march=native", "-mno-avx512f", "-fopenmp", "-ffp-contract=off",
         "-fno-math-errno", "-fno-trapping-math"]
# The engine adds -DSTP_WIDE_VECTORS where the CPU has AVX-512 F, VL, DQ and BW
# (codegen::machine_has_wide_vectors); the same four flags here.
_CPU_FLAGS = set(next((line.split(":", 1)[1].split() for line in open("/proc/cpuinfo")
                       if line.startswith("flags")), []))
if {"avx512f", "avx512vl", "avx512dq", "avx512bw"} <= _CPU_FLAGS:
    FLAGS.append("-DSTP_WIDE_VECTORS")

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void steptp_kernel(void** buffers);
void steptp_set_threads(int n);
double stp_prof_ns[%(blocks)d + 1];
static int stp_prof_last = -1;
static struct timespec stp_prof_at;
void stp_prof_mark(int block) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (stp_prof_last >= 0)
    stp_prof_ns[stp_prof_last] += (now.tv_sec - stp_prof_at.tv_sec) * 1e9 +
                                  (now.tv_nsec - stp_prof_at.tv_nsec);
  stp_prof_last = block;
  stp_prof_at = now;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
int main(void) {
  static const int64_t sizes[] = {%(sizes)s};
  static const int elem[] = {%(elem)s};
  static const char kind[] = "%(kind)s";
  const int n = sizeof(sizes) / sizeof(sizes[0]);
  void* buffers[sizeof(sizes) / sizeof(sizes[0])];
  uint64_t state = 42;
  for (int i = 0; i < n; ++i) {
    // Integer tensors (gathered indices) and flags hold zeros: a valid index everywhere.
    buffers[i] = calloc((size_t)(sizes[i] > 0 ? sizes[i] : 1), (size_t)elem[i]);
    for (int64_t k = 0; k < sizes[i]; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      double v = 0.5 + (double)(state >> 11) / 9007199254740992.0;
      if (kind[i] == 'd') ((double*)buffers[i])[k] = v;
      else if (kind[i] == 'f') ((float*)buffers[i])[k] = (float)v;
    }
  }
  steptp_set_threads(%(threads)d);
  static double samples[%(blocks)d][%(repeats)d];
  for (int r = 0; r < %(warmup)d + %(repeats)d; ++r) {
    for (int b = 0; b <= %(blocks)d; ++b) stp_prof_ns[b] = 0;
    stp_prof_last = -1;
    steptp_kernel(buffers);
    stp_prof_mark(%(blocks)d);
    if (r >= %(warmup)d)
      for (int b = 0; b < %(blocks)d; ++b) samples[b][r - %(warmup)d] = stp_prof_ns[b];
  }
  for (int b = 0; b < %(blocks)d; ++b) {
    qsort(samples[b], %(repeats)d, sizeof(double), cmp);
    printf("%%d %%.6f\n", b, samples[b][%(repeats)d / 2] / 1e6);
  }
  return 0;
}
"""


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"profile_blocks: {' '.join(cmd[:2])} failed:\n{r.stderr.strip()}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program")
    ap.add_argument("--steptp", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "steptp"))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cc", default=os.environ.get("STEPTP_CC", "cc"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.repeats < 1 or a.warmup < 0 or a.threads < 1:
        sys.exit("profile_blocks: --repeats and --threads must be >= 1, --warmup >= 0")

    # The buffers in the order steptp_kernel takes them: the tensor table's order, which is
    # the order `steptp check` lists.
    tensors = []
    for line in run([a.steptp, "check", a.program]).splitlines()[1:]:
        m = re.match(r"\s+\w+ (\w+) (\w+)\[([\d,]*)\]", line)
        if m:
            count = 1
            for d in filter(None, m.group(3).split(",")):
                count *= int(d)
            elem = {"f64": 8, "f32": 4, "i64": 8, "i32": 4}.get(m.group(2), 8)
            kind = {"f64": "d", "f32": "f"}.get(m.group(2), "z")
            tensors.append((m.group(1), count, elem, kind))
    code = run([a.steptp, "lower", a.program])
    # One buffer per tensor of the table, locals included (the kernel leaves theirs unused);
    # written-flags are the kernel's own allocations.
    count_line = re.search(r"int steptp_num_buffers\(void\) \{ return (\d+); \}", code)
    if not count_line or int(count_line.group(1)) != len(tensors):
        sys.exit("profile_blocks: the kernel's buffers do not match `steptp check`'s tensors")
    sizes = [t[1] for t in tensors]
    elems = [t[2] for t in tensors]
    kinds = "".join(t[3] for t in tensors)

    kernel_at = code.index("void steptp_kernel(void** buffers) {")
    body = code[kernel_at:]
    blocks = len(re.findall(r"/\* block \d+:", body))
    body = re.sub(r"(/\* block (\d+):)", r"stp_prof_mark(\2); \1", body)
    code = ("void stp_prof_mark(int block);\n" + code[:kernel_at] + body)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "kernel.c"), "w") as f:
            f.write(code)
        with open(os.path.join(tmp, "main.c"), "w") as f:
            f.write(HARNESS % {"blocks": blocks, "sizes": ", ".join(map(str, sizes)),
                               "elem": ", ".join(map(str, elems)), "kind": kinds,
                               "threads": a.threads,
                               "repeats": a.repeats, "warmup": a.warmup})
        exe = os.path.join(tmp, "profile")
        include = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
        run([a.cc] + FLAGS + ["-I", include, os.path.join(tmp, "kernel.c"),
                              os.path.join(tmp, "main.c"), "-o", exe, "-lmvec", "-lm"])
        out = run([exe])
    times = [float(line.split()[1]) for line in out.splitlines()]
    total = sum(times) or 1.0
    headers = re.findall(r"/\* block (\d+): (.*?) \*/", body)
    if a.json:
        print(json.dumps({"program": a.program, "threads": a.threads, "repeats": a.repeats,
                          "blocks": [{"block": i, "median_ms": t, "share": t / total,
                                      "header": headers[i][1] if i < len(headers) else ""}
                                     for i, t in enumerate(times)]}, indent=2))
        return
    for i, t in enumerate(times):
        head = headers[i][1] if i < len(headers) else ""
        print(f"block {i:3d} {t:10.3f} ms {100 * t / total:5.1f}%  {head[:90]}")
    print(f"total     {total:10.3f} ms")


if __name__ == "__main__":
    main()

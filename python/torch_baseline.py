#!/usr/bin/python3
"""torch_baseline.py — times a KernelBench-format problem file's Model in PyTorch eager mode.

The problem file defines Model, get_inputs(), get_init_inputs() and module-level size variables;
--shapes k=v,... (or --shapes-json) overrides those assignments before the file runs, exactly as
the tracer does, so the model sees the shapes steptp imported. --dtype is the dtype the LEIR
program was traced with, --threads the thread count steptp measures with (torch intra-op threads
and OpenBLAS's own pool are both fixed to it). Timing: --warmup untimed calls, then --repeats
timed forward calls under torch.no_grad(); the median is the figure of merit.
Prints one JSON object (--json) or one line of text, including which BLAS is loaded and which
OpenBLAS kernel family it runs. Not a tracer and not a correctness check.
Run it with /usr/bin/python3 (Debian's python3-torch).

OpenBLAS note: Debian's OpenBLAS is a DYNAMIC_ARCH build that picks its kernels from the CPUID
model number. On virtual machines that hide the model ("Intel(R) Xeon(R) Processor") it falls
back to "Prescott" (SSE3) kernels, ~4x slower than the AVX-512 ones the CPU supports. Unless
OPENBLAS_CORETYPE is already set, this script asks OpenBLAS which core it detected and, when
that is such a fallback, sets OPENBLAS_CORETYPE from the CPU flags before torch loads.
"""
import argparse
import ast
import json
import os
import re
import statistics
import subprocess
import sys
import time

# Kernel families OpenBLAS falls back to when it does not recognise the CPU model.
LEGACY_CORES = {"prescott", "katmai", "coppermine", "northwood", "banias", "atom", "core2",
                "penryn", "dunnington", "nehalem", "opteron", "barcelona", "unknown"}


def parse_shapes(text):
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        if "=" not in item:
            raise SystemExit(f"torch_baseline: --shapes expects k=v pairs, got '{item}'")
        k, v = item.split("=", 1)
        out[k.strip()] = ast.literal_eval(v.strip())
    return out


def load_problem(path, overrides):
    with open(path) as f:
        tree = ast.parse(f.read(), filename=path)
    assigned = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            assigned[node.targets[0].id] = node
    for k, v in overrides.items():
        if k not in assigned:
            raise SystemExit(f"torch_baseline: unknown shape variable '{k}' in {path}")
        assigned[k].value = ast.copy_location(ast.Constant(value=v), assigned[k].value)
    ns = {"__name__": "steptp_problem", "__file__": path}
    exec(compile(tree, path, "exec"), ns)
    return ns


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def best_coretype(flags):
    if {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"} <= flags:
        return "Cooperlake"
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


def detected_openblas_core():
    """The core OpenBLAS picks on its own (in a child process, since the choice is made once,
    when the library loads); None when libblas.so.3 is not OpenBLAS."""
    probe = ("import ctypes\n"
             "l = ctypes.CDLL('libblas.so.3')\n"
             "f = l.openblas_get_corename\n"
             "f.restype = ctypes.c_char_p\n"
             "print(f().decode())\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    try:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def fix_openblas_coretype():
    """Sets OPENBLAS_CORETYPE when OpenBLAS would fall back to legacy kernels; returns a dict
    saying what was detected and what was chosen."""
    if os.environ.get("OPENBLAS_CORETYPE"):
        return {"detected": None, "forced": os.environ["OPENBLAS_CORETYPE"], "by": "environment"}
    detected = detected_openblas_core()
    chosen = best_coretype(cpu_flags())
    if detected and detected.lower() in LEGACY_CORES and chosen:
        os.environ["OPENBLAS_CORETYPE"] = chosen
        return {"detected": detected, "forced": chosen, "by": "torch_baseline.py"}
    return {"detected": detected, "forced": None, "by": None}


def blas_summary(torch, coretype):
    """The BLAS torch was built against (BLAS_INFO; Debian's 'generic' resolves libblas.so.3
    through alternatives: OpenBLAS or the slow reference), the libraries actually mapped, and
    OpenBLAS's kernel family and thread pool."""
    built = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    loaded = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "blas" in path.lower() or "lapack" in path.lower() or "mkl" in path.lower():
                    loaded.add(path)
    except OSError:
        pass
    kind = "unknown"
    if any("openblas" in p for p in loaded):
        kind = "OpenBLAS"
    elif any("mkl" in p for p in loaded):
        kind = "MKL"
    elif any(re.search(r"/blas/libblas\.so", p) for p in loaded):
        kind = "reference"
    out = {"kind": kind, "built_with": built.group(1) if built else "unknown",
           "loaded": sorted(loaded), "openblas_coretype": coretype}
    if kind == "OpenBLAS":
        try:
            import ctypes
            lib = ctypes.CDLL(next(p for p in sorted(loaded) if "openblas" in p))
            lib.openblas_get_corename.restype = ctypes.c_char_p
            out["openblas_core"] = lib.openblas_get_corename().decode()
            out["openblas_threads"] = lib.openblas_get_num_threads()
        except (OSError, AttributeError, StopIteration):
            pass
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, help="KernelBench-format .py file")
    ap.add_argument("--shapes", default="", help="overrides k=v,... of module-level variables")
    ap.add_argument("--shapes-json", default="",
                    help="overrides as a JSON object (lists become tuples), e.g. a graph's shapes")
    ap.add_argument("--dtype", default="f64", choices=["f64", "f32", "f16", "bf16"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compile", action="store_true",
                    help="time torch.compile(model) (Inductor, PyTorch 2) instead of eager; the "
                         "first call, which compiles, is reported as compile_s")
    args = ap.parse_args(argv)
    if args.threads < 1 or args.repeats < 1 or args.warmup < 0:
        raise SystemExit("torch_baseline: --threads and --repeats must be >= 1, --warmup >= 0")

    # Before torch (and OpenBLAS) load: both read these once.
    coretype = fix_openblas_coretype()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    torch.set_num_threads(args.threads)
    dtype = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16,
             "bf16": torch.bfloat16}[args.dtype]
    overrides = parse_shapes(args.shapes)
    if args.shapes_json:
        for k, v in json.loads(args.shapes_json).items():
            overrides[k] = tuple(v) if isinstance(v, list) else v
    ns = load_problem(args.problem, overrides)
    torch.manual_seed(args.seed)
    init = ns["get_init_inputs"]() if "get_init_inputs" in ns else []
    model = ns["Model"](*init).to(dtype=dtype).eval()
    torch.manual_seed(args.seed + 1)
    inputs = [x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x
              for x in ns["get_inputs"]()]
    samples = []
    compile_s = None
    if args.compile:
        if not hasattr(torch, "compile"):
            raise SystemExit(f"torch_baseline: --compile needs PyTorch 2 (this is {torch.__version__})")
        model = torch.compile(model)
        with torch.no_grad():
            t0 = time.perf_counter()
            model(*inputs)
            compile_s = time.perf_counter() - t0
    with torch.no_grad():
        for _ in range(args.warmup):
            model(*inputs)
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            model(*inputs)
            samples.append((time.perf_counter() - t0) * 1e3)
    ordered = sorted(samples)
    result = {
        "problem": args.problem,
        "shapes": {k: list(v) if isinstance(v, tuple) else v for k, v in overrides.items()},
        "dtype": args.dtype,
        "median_ms": statistics.median(samples),
        "min_ms": ordered[0],
        "max_ms": ordered[-1],
        "warmup": args.warmup,
        "repeats": args.repeats,
        "samples_ms": samples,
        "threads": torch.get_num_threads(),
        "blas": blas_summary(torch, coretype),
        "torch_version": torch.__version__,
        "mode": "inductor" if args.compile else "eager",
        "compile_s": compile_s,
    }
    if args.json:
        print(json.dumps(result))
    else:
        b = result["blas"]
        print(f"{args.problem}: PyTorch {result['mode']} {args.dtype}, {result['threads']} thread(s), "
              f"BLAS {b['kind']} ({b.get('openblas_core', '-')}): median "
              f"{result['median_ms']:.3f} ms over {args.repeats} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""python/gpu_lowering_check.py — helpers of scripts/gpu_check.sh for the GPU lowerings.

  gpu_lowering_check.py compare EXPECTED.dump GOT.dump
      Compares two dumps (one value per line, as `steptp run --harness-inputs --dump` and the CUDA
      harness write them) within the verifier's tolerance; exit 0 when they agree, 1 when not.
  gpu_lowering_check.py tvm-cuda PROGRAM.leir MODULE.py OUT.dump
      Builds MODULE.py (`steptp lower --target tir`) with TVM for target "cuda", runs it on GPU 0 on
      the harness's deterministic inputs and writes the outputs to OUT.dump. Exit 0 on success,
      1 on a TVM failure (named on stderr), 3 when this TVM or machine has no CUDA (a skip).

The inputs follow codegen::deterministic_input_value: element k of the i-th declared tensor is
0.5 + ((k * 2654435761 + i * 97 + 12345) mod 1000003) / 1000003 for floats, 1 for bools, else 0.
"""
import importlib.util
import math
import re
import sys

RTOL, ATOL = 1e-9, 1e-11  # the verifier's float64 tolerance (verify::tolerance_for)
DECL = re.compile(r"^\s*(input|output)\s+(\w+)\s+(\w+)\[([0-9,\s]*)\]")
TVM_DTYPES = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
              "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8",
              "bool": "bool"}


def read_dump(path):
    with open(path, encoding="utf-8") as f:
        return [float(line) for line in f if line.strip()]


def compare(expected_path, got_path):
    expected, got = read_dump(expected_path), read_dump(got_path)
    if len(expected) != len(got):
        print(f"{len(got)} values, expected {len(expected)}")
        return 1
    for k, (e, g) in enumerate(zip(expected, got)):
        if math.isnan(e) and math.isnan(g):
            continue
        if not abs(e - g) <= ATOL + RTOL * abs(e):  # also true when one side is NaN
            print(f"mismatch at element {k}: expected {e!r}, got {g!r}")
            return 1
    print(f"{len(got)} values agree (rtol {RTOL}, atol {ATOL})")
    return 0


def declarations(leir_path):
    decls = []
    with open(leir_path, encoding="utf-8") as f:
        for line in f:
            m = DECL.match(line)
            if m:
                shape = tuple(int(d) for d in m.group(4).split(",") if d.strip())
                decls.append((m.group(1), m.group(2), m.group(3), shape))
    return decls


def harness_value(dtype, ordinal, k):
    if dtype == "bool":
        return 1.0
    if not dtype.startswith(("f", "bf")):
        return 0.0
    return 0.5 + ((k * 2654435761 + ordinal * 97 + 12345) % 1000003) / 1000003


def tvm_cuda(leir_path, module_path, out_path):
    try:
        import numpy as np
        import tvm
    except Exception as exc:  # noqa: BLE001 — any import failure means no TVM here
        print(f"skip: cannot import TVM: {exc}", file=sys.stderr)
        return 3
    if not tvm.runtime.enabled("cuda") or not tvm.cuda(0).exist:
        print(f"skip: TVM {tvm.__version__} has no CUDA runtime or sees no GPU "
              "(the PyPI wheel is CPU-only; build TVM with USE_CUDA=ON)", file=sys.stderr)
        return 3
    spec = importlib.util.spec_from_file_location("steptp_tvm_cuda_module", module_path)
    py_module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = py_module
    try:
        spec.loader.exec_module(py_module)
        lib = tvm.compile(py_module.Module, target="cuda")
    except Exception as exc:  # noqa: BLE001 — report TVM's reason, typed by stage
        print(f"tvm_build: {str(exc).strip().splitlines()[-1][:400]}", file=sys.stderr)
        return 1
    dev = tvm.cuda(0)
    args, outputs = [], []
    for ordinal, (role, _name, dtype, shape) in enumerate(declarations(leir_path)):
        count = math.prod(shape) if shape else 1
        if role == "output":
            host = np.zeros(shape, dtype=TVM_DTYPES.get(dtype, "float64"))
        else:
            values = [harness_value(dtype, ordinal, k) for k in range(count)]
            host = np.array(values, dtype="float64").reshape(shape).astype(
                TVM_DTYPES.get(dtype, "float64"))
        arr = tvm.runtime.tensor(host, device=dev)
        args.append(arr)
        if role == "output":
            outputs.append(arr)
    try:
        lib["main"](*args)
        dev.sync()
    except Exception as exc:  # noqa: BLE001
        print(f"tvm_run: {str(exc).strip().splitlines()[-1][:400]}", file=sys.stderr)
        return 1
    with open(out_path, "w", encoding="utf-8") as f:
        for arr in outputs:
            for v in arr.numpy().astype("float64").reshape(-1):
                f.write(f"{v:.17g}\n")
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "tvm-cuda":
        return tvm_cuda(argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""python/halide_pipeline.py — builds and runs the Python modules `steptp lower --target halide`
writes, with the `halide` bindings of the project's .venv (scripts/setup-venv.sh halide).

  halide_pipeline.py check STEPTP PROGRAM.leir MODULE.py [--autoschedule]
      Runs the pipeline on the harness's deterministic inputs and compares every output element
      with `STEPTP run --harness-inputs --dump` (the interpreter) within the verifier's tolerance
      of the output's dtype. Prints one JSON line; exit 0 when they agree, 1 on a mismatch, 2
      when Halide cannot build or run the module (its reason on the line, typed by stage).

The inputs follow codegen::deterministic_input_value: element k of the i-th declared tensor is
0.5 + ((k * 2654435761 + i * 97 + 12345) mod 1000003) / 1000003 for floats, 1 for bools, else 0.
--autoschedule applies Halide's Mullapudi2016 autoscheduler (parallelism 1, this machine's last
level cache) before compiling; without it Halide's default schedule runs (everything inlined
but Funcs with updates), which is slow but checks the lowering alone.
"""
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

# The verifier's tolerances (verify::tolerance_for): dtype -> (rtol, atol).
TOLERANCE = {"float64": (1e-9, 1e-11), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-2)}


class StageError(Exception):
    """A failure of one stage (load, autoschedule, compile, run), its reason in one line."""

    def __init__(self, stage, exc):
        text = str(exc).strip().splitlines()
        super().__init__(f"{stage}: {(text[-1] if text else type(exc).__name__)[:300]}")


def load_module(path):
    spec = importlib.util.spec_from_file_location("steptp_halide_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def halide_shape(shape):
    """The numpy shape of a tensor's buffer: a 0-d tensor is one element of a 1-d buffer."""
    return tuple(shape) if shape else (1,)


def harness_inputs(module):
    """{name: numpy array} for every non-output declaration, as the C harness fills them."""
    import numpy as np
    arrays = {}
    for ordinal, (name, role, dtype, shape) in enumerate(module.TENSORS):
        if role == "output":
            continue
        count = math.prod(shape) if shape else 1
        if dtype == "bool":
            values = np.ones(count)
        elif dtype.startswith("float"):
            k = np.arange(count, dtype=np.int64)
            values = 0.5 + ((k * 2654435761 + ordinal * 97 + 12345) % 1000003) / 1000003
        else:
            values = np.zeros(count)
        arrays[name] = np.ascontiguousarray(values.reshape(halide_shape(shape)).astype(dtype))
    return arrays


def last_level_cache_bytes():
    """This machine's largest cache (Mullapudi2016's last_level_cache_size), or its default."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            size = open(os.path.join(base, entry, "size")).read().strip()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
        best = max(best, int(size.rstrip("KM")) * scale)
    return best or 16 * 1024 * 1024


def host_target():
    """The host with IEEE float semantics: without StrictFloat Halide may fold the NaN tests of
    nan_max/nan_min away, and the interpreter's NaN would come out as the other operand. steptp's
    C is compiled without -ffast-math, so both peers keep the same rules."""
    import halide as hl
    return hl.get_host_target().with_feature(hl.TargetFeature.StrictFloat)


def compile_pipeline(module, autoschedule):
    """(callable, params, outputs, pipeline): the JIT-compiled pipeline for the host, one thread."""
    import halide as hl
    try:
        params, outputs = module.build()
    except Exception as exc:  # noqa: BLE001 — Halide's reason, typed by stage
        raise StageError("build", exc) from exc
    tensors = {t[0]: t for t in module.TENSORS}
    target = host_target()
    pipeline = hl.Pipeline(outputs)
    if autoschedule:
        try:
            hl.load_plugin(os.path.join(os.path.dirname(hl.__file__), "lib64",
                                        "libautoschedule_mullapudi2016.so"))
            for p in params:
                p.set_estimates([(0, e) for e in reversed(halide_shape(tensors[p.name()][3]))])
            for f in outputs:
                f.set_estimates([hl.Range(0, e)
                                 for e in reversed(halide_shape(tensors[f.name()][3]))])
            pipeline.apply_autoscheduler(target, hl.AutoschedulerParams(
                "Mullapudi2016", {"parallelism": "1",
                                  "last_level_cache_size": str(last_level_cache_bytes())}))
        except Exception as exc:  # noqa: BLE001
            raise StageError("autoschedule", exc) from exc
    try:
        # The callable takes the params' buffers, then the outputs' ones.
        call = pipeline.compile_to_callable(list(params), target)
    except Exception as exc:  # noqa: BLE001
        raise StageError("compile", exc) from exc
    return call, params, outputs, pipeline


def make_buffers(module, params, outputs, inputs):
    """The argument list of the callable and the output arrays (numpy, LEIR shapes)."""
    import halide as hl
    import numpy as np
    tensors = {t[0]: t for t in module.TENSORS}
    args = [hl.Buffer(inputs[p.name()]) for p in params]
    results = []
    for f in outputs:
        _, _, dtype, shape = tensors[f.name()]
        results.append((f.name(), np.zeros(halide_shape(shape), dtype=dtype)))
    args += [hl.Buffer(a) for _, a in results]
    return args, results


def run_once(call, args):
    try:
        call(*args)
    except Exception as exc:  # noqa: BLE001
        raise StageError("run", exc) from exc


def interpreter_dump(steptp, program):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "expected.dump")
        subprocess.run([steptp, "run", program, "--harness-inputs", "--dump", path], check=True,
                       capture_output=True, text=True)
        return [float(l) for l in open(path) if l.strip()]


def compare(module, expected, results):
    """None when every element agrees within its output's tolerance, else the first mismatch."""
    got = [(dtype_of(module, name), float(v)) for name, a in results for v in a.reshape(-1)]
    if len(got) != len(expected):
        return f"{len(got)} values, expected {len(expected)}"
    for k, (e, (dtype, g)) in enumerate(zip(expected, got)):
        rtol, atol = TOLERANCE.get(dtype, TOLERANCE["float64"])
        if math.isnan(e) and math.isnan(g):
            continue
        if not abs(e - g) <= atol + rtol * abs(e):
            return f"mismatch at element {k}: expected {e!r}, got {g!r}"
    return None


def dtype_of(module, name):
    return next(t[2] for t in module.TENSORS if t[0] == name)


def check(steptp, program, module_path, autoschedule):
    module = load_module(module_path)
    call, params, outputs, _ = compile_pipeline(module, autoschedule)
    args, results = make_buffers(module, params, outputs, harness_inputs(module))
    run_once(call, args)
    return compare(module, interpreter_dump(steptp, program), results), len(results)


def main(argv):
    if len(argv) < 5 or argv[1] != "check":
        sys.exit(__doc__)
    try:
        import halide  # noqa: F401  (the module imports it too; this failure gets a clear reason)
    except ImportError:
        print(json.dumps({"ok": False, "reason": f"halide_unavailable: {sys.executable} has no "
                          "halide module; run scripts/setup-venv.sh halide and use .venv/bin/python"}))
        return 2
    try:
        problem, outputs = check(argv[2], argv[3], argv[4], "--autoschedule" in argv[5:])
    except StageError as exc:
        print(json.dumps({"ok": False, "reason": str(exc)}))
        return 2
    print(json.dumps({"ok": problem is None, "reason": problem, "outputs": outputs}))
    return 0 if problem is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""python/steptp_tvm.py — steptp's TVM engine: builds the TVMScript that `steptp lower --target
tir-llvm` writes with apache-tvm (target "llvm") and runs it on the inputs steptp gives.

Started by steptp (codegen/tvm_engine.cpp) as a long-lived worker, one JSON object per line:

  worker -> steptp, once:  {"ok": true, "tvm": "0.27.0.post1"}
                       or  {"ok": false, "category": "tvm_unavailable", "message": "..."}
  steptp -> worker:        {"module": "m.py", "args": [T...]}, one T per parameter of main
                           in order: {"name", "dtype" (TVM's name), "shape", "file", "output"}
  worker -> steptp:        {"ok": true, "build_s": 0.8, "run_s": 0.001, "cached": false}
                       or  {"ok": false, "category": "tvm_parse" | "tvm_build" | "tvm_run" |
                            "bad_request", "message": "..."}

Tensor files hold row-major little-endian float64 values; the worker reads the inputs' files,
converts them to each buffer's dtype and writes the outputs' files back as float64. Built
modules are kept by their text, so the same program run on several input seeds is built once.
Outputs start zeroed. Nothing here reaches the network. Standalone use, for one file:
`steptp_tvm.py check MODULE.py` parses and builds it and prints the result line.
"""
import hashlib
import importlib.util
import json
import sys
import time
import traceback

MAX_CACHED_MODULES = 64


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def last_line(exc):
    text = str(exc).strip() or type(exc).__name__
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    # TVM's messages end with the useful line; keep it and the first one, bounded.
    picked = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
    return f"{type(exc).__name__}: {picked}"[:600]


class Engine:
    def __init__(self):
        import numpy  # noqa: F401  (fail early, as tvm_unavailable, if numpy is missing)
        import tvm
        from tvm.script import ir as I  # noqa: F401
        from tvm.script import tirx as T  # noqa: F401

        self.tvm = tvm
        self.cache = {}

    def build(self, text, path):
        key = hashlib.sha256(text.encode()).hexdigest()
        if key in self.cache:
            return self.cache[key], 0.0, True
        start = time.perf_counter()
        # TVMScript's parser reads the class's source back through inspect: the text is loaded
        # as a real module from its file.
        name = f"steptp_tvm_module_{key[:16]}"
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            py_module = importlib.util.module_from_spec(spec)
            sys.modules[name] = py_module
            spec.loader.exec_module(py_module)
            module = py_module.Module
        except Exception as exc:  # the text is untrusted: any failure is a typed answer
            raise Failure("tvm_parse", last_line(exc)) from None
        finally:
            sys.modules.pop(name, None)
        try:
            lib = self.tvm.compile(module, target="llvm")
        except Exception as exc:
            raise Failure("tvm_build", last_line(exc)) from None
        if len(self.cache) >= MAX_CACHED_MODULES:
            self.cache.pop(next(iter(self.cache)))
        self.cache[key] = lib
        return lib, time.perf_counter() - start, False

    def run(self, request):
        import numpy as np

        path = request["module"]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lib, build_s, cached = self.build(text, path)
        args = []
        for t in request["args"]:
            shape = tuple(int(d) for d in t["shape"])
            values = (np.zeros(shape, dtype="<f8") if t["output"]
                      else np.fromfile(t["file"], dtype="<f8").reshape(shape))
            args.append(self.tvm.runtime.tensor(values.astype(numpy_dtype(t["dtype"]))))
        start = time.perf_counter()
        try:
            lib["main"](*args)
        except Exception as exc:
            raise Failure("tvm_run", last_line(exc)) from None
        run_s = time.perf_counter() - start
        for t, arr in zip(request["args"], args):
            if t["output"]:
                arr.numpy().astype("<f8").tofile(t["file"])
        return {"ok": True, "build_s": round(build_s, 4), "run_s": round(run_s, 6),
                "cached": cached}


class Failure(Exception):
    def __init__(self, category, message):
        super().__init__(message)
        self.category = category
        self.message = message


def numpy_dtype(name):
    if name == "bfloat16" or name.startswith("float8"):
        import ml_dtypes

        return getattr(ml_dtypes, name)
    return name


def serve():
    try:
        engine = Engine()
    except Exception as exc:
        reply({"ok": False, "category": "tvm_unavailable",
               "message": f"cannot import TVM in {sys.executable}: {last_line(exc)} "
                          "(install it with scripts/setup-venv.sh tvm)"})
        return 1
    reply({"ok": True, "tvm": engine.tvm.__version__})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            reply(engine.run(request))
        except Failure as f:
            reply({"ok": False, "category": f.category, "message": f.message})
        except (KeyError, TypeError, ValueError, OSError) as exc:
            reply({"ok": False, "category": "bad_request", "message": last_line(exc)})
        except Exception as exc:  # never die on one request
            reply({"ok": False, "category": "tvm_run",
                   "message": last_line(exc) + " | " + traceback.format_exc(limit=1)[-200:]})
    return 0


def check(path):
    try:
        engine = Engine()
        with open(path, encoding="utf-8") as f:
            _, build_s, _ = engine.build(f.read(), path)
        reply({"ok": True, "build_s": round(build_s, 4)})
        return 0
    except Failure as f:
        reply({"ok": False, "category": f.category, "message": f.message})
        return 1


def main(argv):
    if len(argv) == 2 and argv[1] == "serve":
        return serve()
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    sys.stderr.write("usage: steptp_tvm.py serve | check MODULE.py\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""steptp_trace.py — KernelBench problem file → steptp graph JSON (torch.fx + shape propagation).

Traces `Model(*get_init_inputs())` on META tensors (no arithmetic, so default sizes are cheap),
and writes the op graph the C++ importer lowers to LEIR. With --reference-out it also runs the
model for real (float64, seeded) at the given shapes and writes inputs, params and the output.
It knows nothing about LEIR. Bad input → one line on stderr, exit 2.
"""
import argparse
import ast
import dis
import inspect
import json
import math
import operator
import sys
import types

try:
    import torch
    import torch.fx
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    sys.stderr.write("steptp_trace: PyTorch is not importable (run with /usr/bin/python3)\n")
    sys.exit(2)

DTYPES = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16}
DTYPE_NAMES = {
    torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8",
    torch.uint8: "u8", torch.bool: "bool",
}


def _attention_from_primitives(query, key, value, attn_mask=None, dropout_p=0.0,
                               is_causal=False, scale=None):
    """torch 2's F.scaled_dot_product_attention written with ops torch 1.13 has (and that the
    importer lowers), so KernelBench files that call it trace here too. Dropout is an identity
    in eval mode, which is how problems are traced."""
    if scale is None:
        scale = query.size(-1) ** -0.5
    scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        keep = torch.tril(torch.ones_like(scores))
        scores = scores.masked_fill(keep == 0, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(attn_mask == 0, float("-inf"))
        else:
            scores = scores + attn_mask
    return torch.matmul(torch.softmax(scores, dim=-1), value)


# Debian's torch is 1.13; the function arrived in 2.0.
if not hasattr(F, "scaled_dot_product_attention"):
    F.scaled_dot_product_attention = _attention_from_primitives


def _proxy_iter(self):
    """torch.fx's Proxy.__iter__ lets `a, b = proxy` trace by looking at the caller's next
    instruction; torch 1.13 finds it as the (f_lasti // 2)-th instruction, which is wrong on
    Python 3.11 (inline cache entries shift the offsets), so tuple unpacking of e.g.
    `values, indices = torch.max(x, 1)` failed to trace. Look the instruction up by offset."""
    caller = inspect.currentframe().f_back
    for instruction in dis.get_instructions(caller.f_code):
        if instruction.offset == caller.f_lasti:
            if instruction.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(instruction.argval))
            break
    return self.tracer.iter(self)


torch.fx.proxy.Proxy.__iter__ = _proxy_iter


class TraceError(Exception):
    pass


# ------------------------------------------------------------------------------------------
# Loading a problem file, with --shapes overrides applied to its module-level assignments
# ------------------------------------------------------------------------------------------

def _split_top_level(text):
    """Splits on the commas that are not inside (), [] or {}: 'a=2,s=(3, 4)' -> two items."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def parse_shapes(text):
    """k=v pairs; a value is a Python literal: a number, or a tuple/list such as (4096,)."""
    out = {}
    if not text:
        return out
    for item in _split_top_level(text):
        if not item.strip():
            continue
        if "=" not in item:
            raise TraceError(f"--shapes expects k=v pairs, got '{item}'")
        k, v = item.split("=", 1)
        k, v = k.strip(), v.strip()
        try:
            out[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            raise TraceError(f"--shapes value for '{k}' is not a number or a tuple: '{v}'")
    return out


def load_problem(path, overrides):
    try:
        with open(path) as f:
            source = f.read()
    except OSError as e:
        raise TraceError(f"cannot read {path}: {e.strerror}")
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise TraceError(f"{path}:{e.lineno}: syntax error: {e.msg}")
    # Module-level names and the statement that binds each: `n = 4`, `h = w = 128`,
    # `D, H, W = 24, 32, 32`, `n: int = 4`. An override is assigned right after the binding
    # statement, so later module-level code (and get_inputs) sees the new value.
    assigned = {}

    def bound_names(target):
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for t in target.elts for n in bound_names(t)]
        return []

    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        for t in targets:
            for name in bound_names(t):
                assigned[name] = node
    for k in overrides:
        if k not in assigned:
            known = ", ".join(sorted(n for n in assigned if not n.isupper())) or "none"
            raise TraceError(f"unknown shape variable '{k}' in {path} (known: {known})")
    body = []
    for node in tree.body:
        body.append(node)
        for k, v in overrides.items():
            if assigned[k] is node:
                body.append(ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=k, ctx=ast.Store())],
                               value=ast.Constant(value=v)), node))
    tree.body = body
    ast.fix_missing_locations(tree)
    ns = {"__name__": "steptp_problem", "__file__": path}
    try:
        exec(compile(tree, path, "exec"), ns)
    except Exception as e:  # the problem file itself is broken
        raise TraceError(f"{path}: executing the problem file failed: {type(e).__name__}: {e}")
    for required in ("Model", "get_inputs"):
        if required not in ns:
            raise TraceError(f"{path} defines no '{required}'")
    shapes = {}
    for k in assigned:
        v = ns.get(k)
        if isinstance(v, (int, float, bool, tuple, list)) and not k.isupper():
            shapes[k] = v
    return ns, shapes


# ------------------------------------------------------------------------------------------
# Building model and inputs, on META (trace) or for real (reference)
# ------------------------------------------------------------------------------------------

_FACTORIES = ("randn", "rand", "randint", "empty", "zeros", "ones", "full", "randn_like",
              "rand_like", "tensor", "arange")


class _FactoriesOn:
    """Makes torch's tensor factories produce tensors on one device while get_inputs() runs:
    META for tracing, the CPU for reference values (KernelBench files often ask for 'cuda')."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        self.saved = {}
        for name in _FACTORIES:
            orig = getattr(torch, name)
            self.saved[name] = orig

            def wrapped(*a, _orig=orig, _device=self.device, **kw):
                kw["device"] = _device
                return _orig(*a, **kw)
            setattr(torch, name, wrapped)
        return self

    def __exit__(self, *exc):
        for name, orig in self.saved.items():
            setattr(torch, name, orig)


def _no_init(tensor, *a, **kw):
    return tensor


class _SkipInit:
    """Skips weight initialisation (random fill) while a META-bound model is constructed."""

    NAMES = ("kaiming_uniform_", "kaiming_normal_", "uniform_", "normal_", "xavier_uniform_",
             "xavier_normal_", "zeros_", "ones_", "constant_", "trunc_normal_")

    def __enter__(self):
        self.saved = {n: getattr(nn.init, n) for n in self.NAMES if hasattr(nn.init, n)}
        for n in self.saved:
            setattr(nn.init, n, _no_init)
        return self

    def __exit__(self, *exc):
        for n, f in self.saved.items():
            setattr(nn.init, n, f)


def build(ns, dtype, meta, seed=0):
    torch.manual_seed(seed)
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype if dtype != torch.float16 else torch.float32)
    try:
        init = ns["get_init_inputs"]() if "get_init_inputs" in ns else []
        if meta:
            with _SkipInit():
                model = ns["Model"](*init)
            model = model.to(device="meta")
        else:
            model = ns["Model"](*init)
        model = model.to(dtype=dtype)
        model.eval()
        torch.manual_seed(seed + 1)
        # Distributions (KernelBench samples some inputs from them) check their parameters'
        # VALUES on construction, which META tensors do not have.
        validate = torch.distributions.Distribution._validate_args
        torch.distributions.Distribution.set_default_validate_args(not meta and validate)
        try:
            with _FactoriesOn("meta" if meta else "cpu"):
                inputs = ns["get_inputs"]()
        finally:
            torch.distributions.Distribution.set_default_validate_args(validate)
    except TraceError:
        raise
    except Exception as e:
        first_line = (str(e).strip().splitlines() or [""])[0]
        hint = ""
        if meta and "Meta" in str(e):
            hint = (" (get_inputs() or the model reads a tensor's VALUE, which tracing on META "
                    "tensors cannot give)")
        raise TraceError(f"building the model or its inputs failed: {type(e).__name__}: "
                         f"{first_line}{hint}")
    finally:
        torch.set_default_dtype(old)
    inputs = list(inputs)
    conv = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            x = x.to(dtype)
        conv.append(x)
    return model, conv


# ------------------------------------------------------------------------------------------
# Tracing
# ------------------------------------------------------------------------------------------

def _function_names():
    names = {}
    for mod, prefix in ((operator, "operator"), (torch, "torch"), (F, "F"),
                        (torch.special, "torch"), (torch.linalg, "torch")):
        for n in dir(mod):
            if n.startswith("_"):
                continue
            obj = getattr(mod, n, None)
            if callable(obj):
                # Prefer the object's own name: module-level aliases (torch 1.13 leaves a
                # stray `torch.obj` bound to zeros_like) must not rename the op.
                if getattr(obj, "__name__", None) == n:
                    names[id(obj)] = (prefix, n)
                else:
                    names.setdefault(id(obj), (prefix, n))
    return names


_FN_NAMES = None

# Python operator spellings → the torch name the importer uses.
_OPERATOR_ALIASES = {"truediv": "div", "floordiv": "floor_divide", "invert": "logical_not",
                     "and_": "logical_and", "or_": "logical_or", "iadd": "add", "imul": "mul",
                     "isub": "sub", "itruediv": "div", "neg": "neg", "matmul": "matmul"}


def normalize_target(node):
    global _FN_NAMES
    if node.op == "call_method":
        return "method", str(node.target)
    if node.op == "call_function":
        if _FN_NAMES is None:
            _FN_NAMES = _function_names()
        t = node.target
        if id(t) in _FN_NAMES:
            prefix, name = _FN_NAMES[id(t)]
            if prefix == "operator":
                name = _OPERATOR_ALIASES.get(name, name)
            return prefix, name
        name = getattr(t, "__name__", str(t))
        return "other", name
    return node.op, str(node.target)


def encode_value(v, names):
    if isinstance(v, torch.fx.Node):
        return {"node": v.name}
    if isinstance(v, (list, tuple)):
        return [encode_value(x, names) for x in v]
    if isinstance(v, dict):
        return {"dict": {str(k): encode_value(x, names) for k, x in v.items()}}
    if isinstance(v, slice):
        return {"slice": [encode_value(v.start, names), encode_value(v.stop, names),
                          encode_value(v.step, names)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, bool) or v is None or isinstance(v, int) or isinstance(v, str):
        return v
    if isinstance(v, float):
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        if math.isnan(v):
            return {"float": "nan"}
        return v
    if isinstance(v, torch.dtype):
        return {"dtype": DTYPE_NAMES.get(v, str(v))}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v)}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.Size):
        return [int(x) for x in v]
    raise TraceError(f"cannot encode argument of type {type(v).__name__}")


def module_hparams(m):
    out = {}
    for k in getattr(type(m), "__constants__", []):
        if hasattr(m, k):
            v = getattr(m, k)
            if isinstance(v, (int, float, bool, str, type(None))):
                out[k] = v if not (isinstance(v, float) and math.isinf(v)) else str(v)
            elif isinstance(v, (tuple, list)) and all(isinstance(x, (int, float)) for x in v):
                out[k] = list(v)
    for k in ("approximate", "negative_slope", "min_val", "max_val", "alpha", "beta",
              "threshold", "dim", "p", "margin", "eps", "reduction", "swap", "inplace",
              "ceil_mode", "count_include_pad", "divisor_override", "return_indices",
              "output_size", "start_dim", "end_dim", "lambd", "value"):
        if k not in out and hasattr(m, k):
            v = getattr(m, k)
            if isinstance(v, (int, float, bool, str, type(None))):
                out[k] = v if not (isinstance(v, float) and math.isinf(v)) else str(v)
            elif isinstance(v, (tuple, list)) and all(isinstance(x, (int, float)) for x in v):
                out[k] = list(v)
    if isinstance(m, (nn.Linear, nn.modules.conv._ConvNd)):
        out["has_bias"] = m.bias is not None
    if isinstance(m, (nn.modules.batchnorm._NormBase, nn.GroupNorm, nn.LayerNorm)):
        out["has_weight"] = getattr(m, "weight", None) is not None
    return out


class _ShapeRecorder(torch.fx.Interpreter):
    """Runs the graph on META tensors and records each node's output type."""

    def __init__(self, gm):
        super().__init__(gm)
        self.meta = {}

    def run_node(self, n):
        try:
            result = super().run_node(n)
        except Exception as e:
            result = self._fallback(n, e)
        self.meta[n.name] = result
        return result

    def _fallback(self, n, err):
        # PyTorch 1.13 lacks META kernels for a few ops; compute their shape by formula.
        if n.op == "call_module":
            m = self.module.get_submodule(n.target)
            x = self.env[n.args[0]] if isinstance(n.args[0], torch.fx.Node) else None
            if isinstance(m, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)) and x is not None:
                return _pool_meta(x, m)
        raise TraceError(f"shape propagation failed at node '{n.name}' ({n.op} {n.target}): "
                         f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")


def _pool_meta(x, m):
    nd = {nn.MaxPool1d: 1, nn.MaxPool2d: 2, nn.MaxPool3d: 3}[type(m)]

    def tup(v):
        return list(v) if isinstance(v, (tuple, list)) else [v] * nd
    k, s, p, d = tup(m.kernel_size), tup(m.stride or m.kernel_size), tup(m.padding), tup(
        m.dilation)
    shape = list(x.shape[:-nd])
    for i in range(nd):
        L = x.shape[x.dim() - nd + i]
        num = L + 2 * p[i] - d[i] * (k[i] - 1) - 1
        o = (num + (s[i] - 1 if m.ceil_mode else 0)) // s[i] + 1
        if m.ceil_mode and (o - 1) * s[i] >= L + p[i]:
            o -= 1
        shape.append(o)
    return torch.empty(shape, dtype=x.dtype, device="meta")


def _type_of(v):
    if isinstance(v, torch.Tensor):
        return {"shape": [int(s) for s in v.shape], "dtype": DTYPE_NAMES.get(v.dtype, str(v.dtype))}
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, torch.Tensor) for x in v):
        return {"tuple": [_type_of(x) for x in v]}
    if isinstance(v, (tuple, list, torch.Size)) and all(isinstance(x, int) for x in v):
        return {"value": [int(x) for x in v]}
    if isinstance(v, bool) or isinstance(v, int) or isinstance(v, float):
        return {"value": v if not (isinstance(v, float) and not math.isfinite(v)) else str(v)}
    return {"opaque": type(v).__name__}


def symbolic_trace(model, inputs):
    try:
        return torch.fx.symbolic_trace(model)
    except Exception as first:
        concrete = {}
        try:
            params = list(inspect.signature(model.forward).parameters)
        except (TypeError, ValueError):
            params = []
        for name, x in zip(params, inputs):
            if not isinstance(x, torch.Tensor):
                concrete[name] = x
        if not concrete:
            raise TraceError(f"torch.fx cannot trace the model (data-dependent control flow?): "
                             f"{type(first).__name__}: {str(first).splitlines()[0]}")
        try:
            return torch.fx.symbolic_trace(model, concrete_args=concrete)
        except Exception as e:
            raise TraceError(f"torch.fx cannot trace the model: {type(e).__name__}: "
                             f"{str(e).splitlines()[0]}")


def tensor_values(t):
    return [float(v) if t.is_floating_point() else int(v) for v in t.detach().reshape(-1).tolist()]


def graph_json(gm, model, inputs, meta_map, with_values, const_values=None):
    nodes, placeholders, params, output = [], [], [], None
    named = dict(model.named_parameters())
    named_buffers = dict(model.named_buffers())
    used = []

    def use_param(qualname):
        if qualname in used:
            return
        used.append(qualname)

    input_iter = iter(inputs)
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            x = next(input_iter, None)
            if isinstance(x, torch.Tensor):
                placeholders.append({"name": n.name, **_type_of(x)})
            else:
                placeholders.append({"name": n.name, "value": encode_value(x, None)})
            continue
        if n.op == "output":
            output = encode_value(n.args[0], None)
            continue
        rec = {"name": n.name, "op": n.op}
        if n.op == "get_attr":
            rec["target"] = str(n.target)
            use_param(str(n.target))
        elif n.op == "call_module":
            m = gm.get_submodule(n.target)
            rec["target"] = type(m).__name__
            rec["module"] = {"path": str(n.target), "type": type(m).__name__,
                             "hparams": module_hparams(m)}
            pnames = {}
            for pn, _ in list(m.named_parameters(recurse=False)) + list(
                    m.named_buffers(recurse=False)):
                q = f"{n.target}.{pn}"
                pnames[pn] = q
                use_param(q)
            rec["module"]["params"] = pnames
        else:
            ns, name = normalize_target(n)
            rec["namespace"] = ns
            rec["target"] = name
        rec["args"] = encode_value(list(n.args), None)
        rec["kwargs"] = {k: encode_value(v, None) for k, v in n.kwargs.items()}
        rec.update(_type_of(meta_map.get(n.name)))
        nodes.append(rec)
    for q in used:
        t = None
        kind = "param"
        if q in named:
            t = named[q]
        elif q in named_buffers:
            t, kind = named_buffers[q], "buffer"
        else:
            obj = gm
            for part in q.split("."):
                obj = getattr(obj, part, None)
            t, kind = obj, "const"
        if not isinstance(t, torch.Tensor):
            continue
        entry = {"name": q, "kind": kind, **_type_of(t)}
        if with_values:
            entry["values"] = tensor_values(t)
        params.append(entry)
    return {"format": "steptp-graph-1", "inputs": placeholders, "params": params,
            "nodes": nodes, "output": output}


def trace(path, overrides, dtype_name, with_values, meta=None):
    ns, shapes = load_problem(path, overrides)
    dtype = DTYPES[dtype_name]
    model, inputs = build(ns, dtype, meta=(not with_values) if meta is None else meta)
    gm = symbolic_trace(model, inputs)
    rec = _ShapeRecorder(gm)
    tensor_inputs = [x for x in inputs]
    try:
        rec.run(*tensor_inputs)
    except TraceError:
        raise
    except Exception as e:
        raise TraceError(f"running the traced graph failed: {type(e).__name__}: {e}")
    g = graph_json(gm, model, inputs, rec.meta, with_values)
    g["source"] = path
    g["dtype"] = dtype_name
    g["shapes"] = shapes
    return g, ns, gm


def reference(ns, path, dtype_name, seed, graph, gm=None):
    """Real values at the current shapes (float64 unless told otherwise), seeded."""
    dtype = DTYPES[dtype_name]
    model, inputs = build(ns, dtype, meta=False, seed=seed)
    try:
        with torch.no_grad():
            out = model(*inputs)
    except Exception as e:
        raise TraceError(f"running the model failed: {type(e).__name__}: {e}")
    if isinstance(out, (tuple, list)):
        out = out[0]
    ins = []
    for spec, x in zip(graph["inputs"], inputs):
        if isinstance(x, torch.Tensor):
            ins.append({"name": spec["name"], **_type_of(x), "values": tensor_values(x)})
    named = dict(model.named_parameters())
    named.update(dict(model.named_buffers()))
    params = []
    for p in graph["params"]:
        t = named.get(p["name"])
        if t is None:
            for root in (model, gm):
                obj = root
                for part in p["name"].split("."):
                    obj = getattr(obj, part, None)
                if isinstance(obj, torch.Tensor) and obj.device.type != "meta":
                    t = obj
                    break
        if isinstance(t, torch.Tensor):
            params.append({"name": p["name"], **_type_of(t), "values": tensor_values(t)})
    return {"format": "steptp-reference-1", "source": path, "seed": seed, "dtype": dtype_name,
            "shapes": graph["shapes"], "inputs": ins, "params": params,
            "output": {**_type_of(out), "values": tensor_values(out)}}


def main(argv):
    ap = argparse.ArgumentParser(description="Trace a KernelBench problem file to graph JSON")
    ap.add_argument("file")
    ap.add_argument("--shapes", default="")
    ap.add_argument("--dtype", default="f64", choices=sorted(DTYPES))
    ap.add_argument("--values", action="store_true", help="include parameter values")
    ap.add_argument("--reference-out", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args(argv)
    try:
        overrides = parse_shapes(args.shapes)
        ref_dtype = args.dtype if args.reference_out else None
        graph, ns, gm = trace(args.file, overrides, args.dtype, args.values,
                              meta=False if args.reference_out else None)
        if args.reference_out:
            ref = reference(ns, args.file, ref_dtype, args.seed, graph, gm)
            with open(args.reference_out, "w") as f:
                json.dump(ref, f, separators=(",", ":"))
        text = json.dumps(graph, indent=None, separators=(",", ":"))
        if args.output == "-":
            sys.stdout.write(text + "\n")
        else:
            with open(args.output, "w") as f:
                f.write(text + "\n")
    except TraceError as e:
        sys.stderr.write(f"steptp_trace: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

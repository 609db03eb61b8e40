#!/usr/bin/env python3
"""check_layering.py — fails when a module's source includes a module it may not use.

The allowed edges are written once, in the top-level CMakeLists.txt: each
`steptp_module(NAME DEPS ...)` links NAME to the modules it may use, and a module may use the
modules it links, directly or through them. This script checks that
  1. every module dependency is a module declared earlier (the layering order of DESIGN §2), and
  2. every `#include "other/..."` of src/NAME/ names NAME or a module NAME may use, so that
     a header-only use of a higher module (which linking alone would not catch) fails too;
  3. no file outside a strategy category folder includes a concrete strategy
     (src/strategy/{graph,loop,memory,math}/): callers see the interface and the registry only.
Usage: check_layering.py [ROOT]   (ROOT holds CMakeLists.txt and src/; default: the checkout)
"""
import os
import re
import sys

MODULE_CALL = re.compile(r"^\s*steptp_module\((\w+)((?:\s+DEPS)?[^)]*)\)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)
CATEGORIES = ("graph", "loop", "memory", "math")


def read_modules(cmake_text):
    """The modules in declaration order, each with its direct module dependencies."""
    order, deps = [], {}
    for name, rest in MODULE_CALL.findall(cmake_text):
        words = rest.split()
        if words and words[0] == "DEPS":
            words = words[1:]
        order.append(name)
        deps[name] = [w[len("steptp_"):] for w in words if w.startswith("steptp_")]
    return order, deps


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        order, deps = read_modules(f.read())
    problems = []
    if not order:
        problems.append("CMakeLists.txt declares no steptp_module")
    position = {m: i for i, m in enumerate(order)}
    for m in order:
        for d in deps[m]:
            if d not in position:
                problems.append(f"CMakeLists.txt: module {m} links steptp_{d}, which is not a module")
            elif position[d] >= position[m]:
                problems.append(f"CMakeLists.txt: module {m} links {d}, declared after it (a back edge)")
    allowed = {}
    for m in order:  # declaration order: every dependency's closure is known already
        allowed[m] = {m}
        for d in deps[m]:
            allowed[m] |= allowed.get(d, {d})
    src = os.path.join(root, "src")
    for m in order:
        for dirpath, _, files in os.walk(os.path.join(src, m)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                in_category = any(rel.startswith(f"src/strategy/{c}/") for c in CATEGORIES)
                for match in INCLUDE.finditer(text):
                    target, rest = match.group(1), match.group(2)
                    line = text.count("\n", 0, match.start()) + 1
                    if target in position and target not in allowed[m]:
                        may = ", ".join(sorted(allowed[m]))
                        problems.append(f"{rel}:{line}: module {m} includes {target}/{rest}; "
                                        f"{m} may use only: {may}")
                    if (target == "strategy" and rest.split("/")[0] in CATEGORIES
                            and not in_category):
                        problems.append(f"{rel}:{line}: includes the concrete strategy "
                                        f"strategy/{rest}; use strategy/registry.h")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layering: {len(problems)} layering violation(s)")
        return 1
    print(f"check_layering: {len(order)} modules, includes follow the link edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""long_functions.py — lists the functions of src/ longer than N lines (default 120), and with
--max-file M the source files longer than M lines.

A function is a brace-delimited body whose header (the text since the previous `;`, `{` or `}`)
has a parameter list and which is not inside another function: free functions, member functions
defined in a class, TESTs, lambdas at namespace scope. Its length runs from the first line of the
header to the closing brace. Comments, string and character literals and preprocessor lines are
blanked first, so braces inside them do not count. The layout is clang-format's (the style gate
enforces it), which this brace matching relies on for nothing but line numbers.

Usage: long_functions.py [--max N] [--max-file M] [--skip FILE]... [PATH...]   (default: src/)
Exit 1 when a function is longer than N lines (listed as `file:line: name (L lines)`) or a file
longer than M lines (`file: L lines`).
"""
import argparse
import os
import re
import sys

SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            while i < n and text[i] != "\n":
                # a continued preprocessor line
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            at_line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            # a digit separator (1'000) is not a character literal
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j, n - 1) - i + 1))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(start line, end line, name) of every outermost function body."""
    code = blank(text)
    found = []
    stack = []  # "scope", "function" or "other"
    header_start = 0
    for i, c in enumerate(code):
        if c in ";":
            header_start = i + 1
        elif c == "{":
            header = code[header_start:i]
            in_function = "function" in stack
            if not in_function and ")" in header and not SCOPE.search(header.split("(")[0]):
                stack.append("function")
                start = header_start + len(header) - len(header.lstrip())
                m = re.search(r"([~\w:<>]+)\s*\(", header)
                found.append([code.count("\n", 0, start) + 1, None, m.group(1) if m else "?", i])
            elif not in_function and SCOPE.search(header):
                stack.append("scope")
            else:
                stack.append("other")
            header_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function":
                for f in reversed(found):
                    if f[1] is None:
                        f[1] = code.count("\n", 0, i) + 1
                        break
            header_start = i + 1
    return [(s, e, name) for s, e, name, _ in found if e is not None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=120)
    ap.add_argument("--max-file", type=int, default=0, help="most lines of a file (0: no limit)")
    ap.add_argument("--skip", action="append", default=[], help="a file to leave out")
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = args.paths or [os.path.join(root, "src")]
    skip = {os.path.normpath(os.path.join(root, s)) for s in args.skip}
    files = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
        for dirpath, _, names in os.walk(p):
            files += [os.path.join(dirpath, f) for f in names if f.endswith((".cpp", ".h"))]
    long = []
    for path in sorted(files):
        if os.path.normpath(os.path.abspath(path)) in skip:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n")
        if args.max_file and lines > args.max_file:
            long.append(f"{os.path.relpath(path, root)}: {lines} lines")
        for start, end, name in functions(text):
            if end - start + 1 > args.max:
                long.append(f"{os.path.relpath(path, root)}:{start}: {name} ({end - start + 1} lines)")
    for line in long:
        print(line)
    if long:
        print(f"long_functions: {len(long)} function(s) over {args.max} lines or file(s) over "
              f"{args.max_file or 'any'} lines")
        return 1
    print(f"long_functions: no function over {args.max} lines in {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Size rules of docs/DESIGN.md, checked on the sources (CI runs it): no source
file over 500 lines and no function over 60 lines, except the ones listed
under "Size exceptions" in docs/DESIGN.md, each with its reason.

C functions are measured from the line of their name to their closing brace;
Python functions from `def` to their last line. Exit status 1 with one line
per finding, 0 when clean.
"""
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ("src", "python", "tests", "bench", "include", "examples", "scripts")
MAX_FILE, MAX_FUNC = 500, 60
C_FUNC = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)


def exceptions():
    """Names (path, or path:function) listed in DESIGN.md's exception section."""
    text = (ROOT / "docs" / "DESIGN.md").read_text()
    m = re.search(r"^#+ Size exceptions\n(.*?)(?=^#)", text + "\n#", re.S | re.M)
    return set(re.findall(r"`([^`]+)`", m.group(1))) if m else set()


def c_functions(text):
    for m in C_FUNC.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        start = text.count("\n", 0, m.start()) + 1
        yield m.group(1), start, text.count("\n", 0, i) + 1


def py_functions(text):
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno


def main():
    allowed, findings, nfiles = exceptions(), [], 0
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".c", ".h", ".cu", ".py") or "build" in path.parts:
                continue
            nfiles += 1
            rel, text = path.relative_to(ROOT).as_posix(), path.read_text()
            lines = text.count("\n")
            if lines > MAX_FILE and rel not in allowed:
                findings.append(f"{rel}: {lines} lines (at most {MAX_FILE})")
            funcs = py_functions(text) if path.suffix == ".py" else c_functions(text)
            for name, a, b in funcs:
                if b - a + 1 > MAX_FUNC and f"{rel}:{name}" not in allowed:
                    findings.append(f"{rel}:{a}: {name} is {b - a + 1} lines (at most {MAX_FUNC})")
    for f in findings:
        print(f)
    print(f"check_sizes: {len(findings)} finding(s) in {nfiles} files")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

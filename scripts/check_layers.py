#!/usr/bin/env python3
"""The layer rule of docs/DESIGN.md, checked on the sources (CI runs it).

1. Includes: each layer includes only the layers below it or beside it:
       base <- plan <- ops -> dispatch -> backend table <- cpu (and cuda)
   and x86 intrinsic headers appear only under src/cpu/arch/.
2. Calls: no function calls into a layer that may not include it, and there
   is no call cycle between functions of different files (validate -> plan ->
   run never loops back).
Exit status 1 with one line per finding, 0 when clean.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

# layer -> the include prefixes it may use ("" = the public header)
ALLOWED = {
    "base": ("base/",),
    "plan": ("base/", "plan/"),
    "ops": ("base/", "plan/", "ops/", "dispatch.h", "backend.h"),
    "dispatch": ("base/", "plan/", "backend.h", "dispatch.h"),
    "cpu": ("base/", "plan/", "backend.h", "cpu/"),
    "cuda": ("base/", "plan/", "backend.h", "cuda/", "cpu/arch/"),
    "ref": ("ref", "base/scalar.h", "base/base.h"),
}
PUBLIC = {"scatterkit.h", "scatterkit_ops.def", "scatterkit_dlpack.h"}
INTRINSICS = re.compile(r"^(x86|imm|emm|xmm|pmm|tmm|smm|nmm|wmm|avx|ia32)intrin\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(path):
    rel = path.relative_to(SRC).as_posix()
    if rel.startswith(("dispatch.", "backend.")):
        return "dispatch"
    return rel.split("/", 1)[0]


def sources():
    return sorted(p for p in SRC.rglob("*") if p.suffix in (".c", ".h", ".cu", ".cuh"))


def check_includes(findings):
    for path in sources():
        layer, rel = layer_of(path), path.relative_to(ROOT).as_posix()
        text = path.read_text()
        for kind, name in INCLUDE.findall(text):
            base = name.rsplit("/", 1)[-1]
            if INTRINSICS.match(base) and "src/cpu/arch/" not in rel:
                findings.append(f"{rel}: includes <{name}>: intrinsics belong in src/cpu/arch/")
            if kind == "<" or name in PUBLIC:
                continue
            allowed = ALLOWED.get(layer, ())
            if not any(name.startswith(a) for a in allowed):
                findings.append(f"{rel}: layer '{layer}' includes \"{name}\"")


FUNC_DEF = re.compile(
    r"^(?P<static>static\s+)?(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b(?P<name>sk_\w+)\s*\([^;{]*\)\s*\{",
    re.M)
CALL = re.compile(r"\b(sk_\w+)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def function_bodies(text):
    """(name, is_static, body) of each top-level function definition."""
    for m in FUNC_DEF.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        yield m.group("name"), bool(m.group("static")), text[m.end():i]


def find_cycles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(findings):
    defs, calls = {}, {}  # name -> file; (file, name) -> callee names
    statics = {}
    for path in sources():
        if path.suffix not in (".c", ".cu"):
            continue
        rel = path.relative_to(ROOT).as_posix()
        text = COMMENT.sub("", path.read_text())
        for name, is_static, body in function_bodies(text):
            key = (rel, name)
            if is_static:
                statics[key] = True
            else:
                defs.setdefault(name, rel)
            calls[key] = set(CALL.findall(body)) - {name}

    def resolve(rel, callee):
        if (rel, callee) in statics:
            return (rel, callee)
        if callee in defs:
            return (defs[callee], callee)
        return None

    graph = {k: {t for c in v if (t := resolve(k[0], c))} for k, v in calls.items()}
    for (rel, name), targets in graph.items():
        src_layer = layer_of(ROOT / rel)
        for trel, tname in targets:
            tl = layer_of(ROOT / trel)
            allowed = ALLOWED.get(src_layer, ())
            prefix = "dispatch.h" if tl == "dispatch" else tl + "/"
            if tl != src_layer and not any(prefix.startswith(a) or a.startswith(prefix)
                                           for a in allowed):
                findings.append(f"{rel}: {name} calls {tname} ({trel}) in layer '{tl}'")
    # files calling each other in a loop (execute -> engine -> execute) are a
    # cycle even when no single function recurses
    files = {}
    for (rel, _), targets in graph.items():
        files.setdefault(rel, set()).update(t for t, _ in targets if t != rel)
    for comp in find_cycles(files):
        findings.append("call cycle between files: " + " -> ".join(sorted(comp)))


def main():
    findings = []
    check_includes(findings)
    check_calls(findings)
    for f in findings:
        print(f)
    print(f"check_layers: {len(findings)} finding(s) in {len(sources())} files")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

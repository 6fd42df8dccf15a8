"""The documentation a user reads is true and complete: every public function
has a docstring with an example that runs (doctest), docs/api.md is what
scripts/gen_api_docs.py writes from them, the type stubs have the runtime
signatures, the installed package carries its stubs and py.typed and no C
sources or private headers, the version is the header's, and every link of
the Markdown pages resolves to a file inside the repository."""
import ast
import doctest
import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import scatterkit as sk
import scatterkit._backward as sk_backward

REPO = Path(__file__).resolve().parents[2]
PUBLIC = list(sk.__all__)


def _load_script(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", PUBLIC)
def test_docstring_example_runs(name):
    fn = getattr(sk, name)
    assert ">>>" in (fn.__doc__ or ""), f"scatterkit.{name} has no example in its docstring"
    tests = doctest.DocTestFinder(recurse=False).find(fn, name, globs={"np": np, "sk": sk})
    assert tests and tests[0].examples, name
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of scatterkit.{name} failed"


def test_module_docstring_example_runs():
    result = doctest.testmod(sk, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
    result = doctest.testmod(sk_backward, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


def test_api_reference_is_up_to_date():
    gen = _load_script("gen_api_docs")
    want = gen.render(sk)
    got = gen.API_MD.read_text()
    assert got == want, "docs/api.md is out of date: run python scripts/gen_api_docs.py"
    for name in PUBLIC:
        assert f"### `{name}(" in got, name


def _stub_defs():
    tree = ast.parse((REPO / "python" / "scatterkit" / "__init__.pyi").read_text())
    defs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, []).append(node)
    return defs


def _stub_params(fn):
    a = fn.args
    out = [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.args]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL"))
    out += [(p.arg, "KEYWORD_ONLY") for p in a.kwonlyargs]
    defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
    return [(n, k, d is not None) for (n, k), d in zip(out, defaults)]


@pytest.mark.parametrize("name", PUBLIC)
def test_stub_signature_matches(name):
    defs = _stub_defs()
    assert name in defs, f"python/scatterkit/__init__.pyi has no stub for {name}"
    sig = inspect.signature(getattr(sk, name))
    want = [(p.name, p.kind.name, p.default is not p.empty) for p in sig.parameters.values()]
    for fn in defs[name]:
        assert _stub_params(fn) == want, (name, ast.dump(fn.args))


def test_installed_package_files():
    pkg = Path(sk.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "__init__.pyi").is_file()
    sources = sorted(p.name for p in pkg.iterdir() if p.suffix in (".c", ".h"))
    assert sources == [], f"C sources or private headers installed: {sources}"


def test_version_is_the_header_version():
    header = (REPO / "include" / "scatterkit.h").read_text()
    parts = [re.search(rf"#define SK_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert sk.__version__ == ".".join(parts)
    assert f"## {sk.__version__}" in (REPO / "CHANGELOG.md").read_text()


def _markdown_pages():
    pages = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "bench" / "README.md"]
    return pages + sorted((REPO / "docs").glob("*.md"))


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", _markdown_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_markdown_links_resolve_inside_the_repository(page):
    text = page.read_text()
    assert "../shared" not in text, f"{page.name} refers to a folder outside the repository"
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page.name}: link {target} does not resolve"
        assert REPO in path.parents or path == REPO, f"{page.name}: {target} leaves the repository"

"""No package but the engine names a variant: a variant's facts are asked of it (`Variant`, its table
row), so the next variant cannot be special-cased by id.

Read in every Python and JavaScript file of the packages (cli/, protocol/, players/, tournaments/,
web/, research/): a string literal that is a variant id (`"standard"`, `'great-cross'`) or that
starts a position text with one (`"standard geese=13,sideways=0 fox d4 ..."`) fails. Allowed: the
engine (it defines them), docstrings, comments and prose that mentions a variant inside a sentence
(a help text, an example command), and the files that are not the packages' code: tests/, docs,
benchmarks/, examples/ (other programs, which must know the variants they play) and YAML configs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from foxgeese.engine import VARIANT_IDS

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "protocol", "players", "tournaments", "web", "research")
IDS = "|".join(re.escape(variant_id) for variant_id in VARIANT_IDS)
POSITION_TEXT = re.compile(rf"^({IDS}) (-|[a-z]+=\S*) ")
JS_STRING = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1""")
JS_COMMENT = re.compile(r"/\*.*?\*/|^\s*//.*?$", re.DOTALL | re.MULTILINE)


def named_variant(text: str) -> bool:
    return text.strip() in VARIANT_IDS or bool(POSITION_TEXT.match(text.strip()))


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes (a module's, class's or function's first statement)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def python_literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
            and named_variant(node.value)]


def js_literals(path: Path) -> list[str]:
    text = JS_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
            for m in JS_STRING.finditer(text) if named_variant(m.group(2))]


def package_files(suffix: str) -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob(f"*{suffix}")
                  if "node_modules" not in p.parts and "__pycache__" not in p.parts)


def variant_literals() -> list[str]:
    return ([hit for path in package_files(".py") for hit in python_literals(path)]
            + [hit for path in package_files(".js") for hit in js_literals(path)])


def test_no_package_but_the_engine_names_a_variant():
    assert variant_literals() == []


def test_the_scanner_finds_what_it_forbids(tmp_path):
    """The test above could not pass by reading nothing: each kind of literal it forbids is found."""
    source = tmp_path / "sample.py"
    source.write_text('"""Prose may say standard."""\nif variant.id == "standard":\n    start = '
                      '"great-cross - fox e7 d1 0 0 0"\nhint = "a standard game"\n', encoding="utf-8")
    script = tmp_path / "sample.js"
    script.write_text('// "standard" in a comment\nvar sides = { "hare-and-hounds": 1 };\n'
                      "var t = 'standard geese=13,sideways=0 fox d4 c1 0 0 0';\n", encoding="utf-8")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [hit.split(": ")[0] for hit in python_literals(source)] == ["sample.py:2", "sample.py:3"]
        assert [hit.split(": ")[0] for hit in js_literals(script)] == ["sample.js:2", "sample.js:3"]
    finally:
        ROOT = saved
    assert len(package_files(".py")) > 100 and len(package_files(".js")) > 5

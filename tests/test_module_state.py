"""No module-level mutable state: every cache belongs to an object (DEVELOPERS.md, style.md).

Each module of the packages is read with `ast` (nothing is imported) and these are errors:

- a container bound at module level or in a class body (a dict, list, set, deque, ... literal,
  comprehension or constructor call) that a function or method changes: an item stored or deleted,
  `+=`, or a changing method (`append`, `update`, `setdefault`, `clear`, ...);
- `functools.cache` / `lru_cache`, anywhere: at module level it is a process-wide cache, on a method
  one shared by every instance;
- a `global` statement.

Containers that are never changed after import are constants and pass. A name that must be changed
at run time anyway goes in ALLOWED with its reason (keep it empty: give the state an owner instead).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("cli", "engine", "protocol", "players", "tournaments", "web", "research")
CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "ChainMap", "bytearray",
              "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "array"}
CHANGING = {"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault", "add",
            "discard", "difference_update", "intersection_update", "symmetric_difference_update", "sort",
            "reverse", "appendleft", "extendleft", "popleft", "rotate", "move_to_end", "__setitem__", "__delitem__"}
CACHES = {"cache", "lru_cache"}
# (file, name) -> why it may change at run time. Keep this empty.
ALLOWED: dict[tuple[str, str], str] = {}


def _container(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in CONTAINERS
    return False


def _bound(body: list[ast.stmt]) -> dict[str, int]:
    """Names bound to a container by these statements (and by `if`/`try` blocks among them)."""
    names = {}
    for node in body:
        if isinstance(node, (ast.If, ast.Try)):
            inner = [child for child in ast.walk(node) if isinstance(child, ast.stmt) and child is not node]
            names.update(_bound(inner))
        if isinstance(node, ast.Assign) and _container(node.value):
            names.update({target.id: node.lineno for target in node.targets if isinstance(target, ast.Name)})
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _container(node.value):
            names[node.target.id] = node.lineno
    return names


def _changed(node: ast.AST) -> ast.expr | None:
    """The expression `node` changes in place, if it is a change of one."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                return target.value
    if isinstance(node, ast.AugAssign):
        return node.target.value if isinstance(node.target, ast.Subscript) else node.target
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CHANGING:
        return node.func.value
    return None


def problems(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    where = path.relative_to(root).as_posix()
    module_names = _bound(tree.body)
    class_names = {node.name: _bound(node.body) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for decorator in getattr(function, "decorator_list", []):
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            if name in CACHES:
                found.append(f"{where}:{function.lineno}: @{ast.unparse(decorator)} on {function.name}: "
                             "a process-wide cache; give it an owner (an object, bounded, injectable)")
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"{where}:{node.lineno}: global {', '.join(node.names)}: module-level state "
                             "changed at run time")
            target = _changed(node)
            name = None
            if isinstance(target, ast.Name) and target.id in module_names:
                name = target.id
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                owner, attribute = target.value.id, target.attr
                shared = {attr for names in class_names.values() for attr in names} if owner in ("cls", "self") \
                    else set(class_names.get(owner, {}))
                if attribute in shared and not _assigned_on_instances(tree, attribute):
                    name = f"{owner}.{attribute}"
            if name and (where, name.rpartition(".")[2]) not in ALLOWED:
                found.append(f"{where}:{node.lineno}: changes {name}, bound at module or class level: "
                             "state shared by the whole process; give it an owner (an object, bounded, injectable)")
    decorators = {id(d) for f in ast.walk(tree) for d in getattr(f, "decorator_list", [])}
    for node in ast.walk(tree):  # cache(function), lru_cache(maxsize=...)(function): no decorator
        if isinstance(node, ast.Call) and id(node) not in decorators and not isinstance(node.func, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in CACHES:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}: a process-wide cache")
    return found


def _assigned_on_instances(tree: ast.Module, attribute: str) -> bool:
    """Whether some method sets `self.<attribute>`, so that each instance has its own."""
    return any(isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr == attribute
               and isinstance(node.value, ast.Name) and node.value.id == "self" for node in ast.walk(tree))


def package_files(root: Path = ROOT) -> list[Path]:
    return [path for folder in FOLDERS for path in sorted((root / folder).rglob("*.py"))]


def test_no_module_level_mutable_state():
    found = [problem for path in package_files() for problem in problems(path)]
    assert not found, "\n".join(found)


def test_the_check_sees_each_kind(tmp_path):
    """Each form the check names is found in a small module, and constants pass."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import functools\n"
        "from functools import lru_cache\n"
        "_MEMO: dict[int, str] = {}\n"
        "_SEEN = set()\n"
        "CONSTANT = {'a': 1}\n"
        "_COUNT = 0\n"
        "class Registry:\n"
        "    known = []\n"
        "    def add(self, x):\n"
        "        self.known.append(x)\n"
        "def remember(key):\n"
        "    _MEMO[key] = str(key)\n"
        "    _SEEN.add(key)\n"
        "    return CONSTANT['a']\n"
        "def count():\n"
        "    global _COUNT\n"
        "    _COUNT += 1\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def slow(x):\n"
        "    return x\n"
        "@lru_cache\n"
        "def slower(x):\n"
        "    return x\n"
        "kept = functools.cache(len)\n"
    )
    found = "\n".join(problems(sample, tmp_path))
    for expected in ("changes _MEMO", "changes _SEEN", "changes self.known", "global _COUNT", "on slow",
                     "on slower", "functools.cache(len)"):
        assert expected in found, (expected, found)
    assert "CONSTANT" not in found
    assert len(found.splitlines()) == 7, found

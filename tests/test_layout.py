"""The layout enforces its own arrows (docs/architecture.md): every module's imports are read with
`ast` and checked against what its package may use, and imports sit at the top of files.

    engine       -> engine only, and the standard library only (no click, no ZeroMQ)
    players      -> engine, the root helpers
    protocol     -> engine, players.registry (to resolve a built-in player SPEC), the root helpers
    tournaments  -> engine, protocol, players.registry (a SPEC; the book maker plays in-process)
    web          -> engine, protocol, players, tournaments, the root helpers
    research     -> engine, players, protocol, tournaments, the root helpers; nothing imports research
                    (the player registry names `learned` by its module path, as text)
    root (cli/)  -> the helpers import only the engine; main and the command modules may import
                    everything

The root helpers are the package root's small modules below every package but the engine:
`foxgeese` (`__version__`), `foxgeese.files` (atomic writes), `foxgeese.usage` (how a user mistake
ends a command), `foxgeese.params` (click parameter types with the engine's number rules) and
`foxgeese.terminal` (rich tables that fit the console, a console a closed pipe cannot break).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"cli": "foxgeese", "engine": "foxgeese.engine", "protocol": "foxgeese.protocol",
           "players": "foxgeese.players", "tournaments": "foxgeese.tournaments", "web": "foxgeese.web",
           "research": "foxgeese.research"}
ROOT_HELPERS = {"foxgeese", "foxgeese.files", "foxgeese.usage", "foxgeese.params", "foxgeese.terminal",
                "foxgeese.numba_cache"}
ALLOWED = {
    "engine": {"engine"},
    "players": {"engine", "players", "helpers"},
    "protocol": {"engine", "protocol", "foxgeese.players.registry", "helpers"},
    # tournaments also ask the solved tables: books of known value, accuracy in reports, adjudication
    "tournaments": {"engine", "protocol", "tournaments", "foxgeese.players.registry", "foxgeese.players.solver.analyse",
                    "foxgeese.players.solver.adjudicate", "helpers"},
    "web": {"engine", "protocol", "players", "tournaments", "web", "helpers"},
    "research": {"engine", "players", "protocol", "tournaments", "research", "helpers"},
    "helpers": {"helpers", "engine"},
}
# Imports inside functions, each with its reason. Keep this short: an import belongs at the top.
LATE_IMPORTS: dict[tuple[str, str], str] = {
    ("foxgeese.engine.variants", "foxgeese.engine.position"):
        "Variant.start_position builds a Position and Variant.texts its PieceTexts, and position.py imports "
        "variants (a cycle)",
    ("foxgeese.engine.variants", "foxgeese.engine.rules"):
        "a Variant owns its rules core (Variant.rules), and rules.py imports variants (a cycle)",
    ("foxgeese.tournaments.runner", "foxgeese.tournaments.ray_executor"):
        "Ray is an optional extra (pip install 'foxgeese[ray]'): loaded only for executor: ray",
    ("foxgeese.web.arena.service", "foxgeese.tournaments.ray_executor"):
        "Ray is an optional extra: the arena loads it only for serve --arena --ray",
    ("foxgeese.protocol.bot_cli", "foxgeese.protocol.conformance"):
        "`bot check` runs a referee; a built-in bot process (`foxgeese bot NAME`) starts without one",
    ("foxgeese.tournaments.worker", "foxgeese.players.solver.adjudicate"):
        "the tables bring numpy and numba (a second of start-up): a worker loads them for adjudicate: tables only",
}
# Command modules whose commands load their package's machinery when they run. cli/main.py loads
# a command module only when one of its commands runs, so a `foxgeese bot` process never loads
# these; inside them, each subcommand loads only what it needs (`tournament report` no runner,
# `tournament --help` nothing).
LATE_IMPORTING_COMMANDS: dict[str, str] = {
    "foxgeese.players.cli": "`foxgeese solve` loads numpy and the tables",
    "foxgeese.players.solver.report": "`foxgeese solve hare-and-hounds` starts without the fox variants' "
                                      "modules (numpy, the tables); each other branch loads its own",
    "foxgeese.tournaments.cli": "`foxgeese tournament ...` loads the runner, reports, books and Ray",
}


def modules() -> list[tuple[str, Path]]:
    found = []
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append((".".join((package, *parts)), path))
    return found


def layer(module: str) -> str:
    """The arrow rules a module answers to: its package, or `helpers`/`commands` in the root."""
    if module in ROOT_HELPERS:
        return "helpers"
    parts = module.split(".")
    if len(parts) == 1 or parts[1] not in ALLOWED:
        return "commands"  # foxgeese.main, foxgeese.__main__ and the other root command modules
    return parts[1]


def allowed(importer: str, imported: str) -> bool:
    if layer(importer) == "commands":
        return True
    rules = ALLOWED[layer(importer)]
    if "helpers" in rules and imported in ROOT_HELPERS:
        return True
    if imported in rules or any(imported.startswith(rule + ".") for rule in rules if "." in rule):
        return True
    parts = imported.split(".")
    return len(parts) > 1 and parts[1] in rules


def imports(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported foxgeese module, line, at the top of the file) for every import of `path`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top_level = {id(node) for node in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` and `try: ... except ImportError:` at the top count as top
        if isinstance(node, (ast.If, ast.Try)):
            top_level.update(id(child) for child in ast.walk(node))
    found = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `from . import x` in package a.b is a.b.x
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            # `from package import module` imports the module; `from module import name`, the module
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in KNOWN else base for alias in node.names]
        for name in names:
            found.append((name, node.lineno, id(node) in top_level))
    return found


MODULES = modules()
KNOWN = {name for name, _ in MODULES}


def test_every_package_imports_only_what_its_arrows_allow():
    wrong = []
    for module, path in MODULES:
        for name, line, _ in imports(module, path):
            if name.split(".")[0] != "foxgeese" or name not in KNOWN:
                continue  # third-party, standard library, or `from module import function`
            if not allowed(module, name):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {layer(module)} may not import {name}")
    wrong = sorted(set(wrong))
    assert not wrong, "\n".join(wrong)


def test_the_engine_uses_the_standard_library_only():
    foreign = []
    for module, path in MODULES:
        if layer(module) != "engine":
            continue
        for name, line, _ in imports(module, path):
            top = name.split(".")[0]
            if top and top != "foxgeese" and top not in sys.stdlib_module_names:
                foreign.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not foreign, "\n".join(foreign)


def test_imports_sit_at_the_top_of_files():
    late = []
    for module, path in MODULES:
        for name, line, at_top in imports(module, path):
            if at_top or name.split(".")[0] != "foxgeese" or name not in KNOWN:
                continue
            if (module, name) not in LATE_IMPORTS and module not in LATE_IMPORTING_COMMANDS:
                late.append(f"{path.relative_to(ROOT)}:{line}: import of {name} inside a function")
    late = sorted(set(late))
    assert not late, "\n".join(late)


@pytest.mark.parametrize("importer, imported, ok", [
    ("foxgeese.engine.game", "foxgeese.engine.position", True),
    ("foxgeese.engine.position", "foxgeese.files", False),
    ("foxgeese.engine.cli", "foxgeese.usage", False),
    ("foxgeese.players.mcts", "foxgeese.protocol.codec", False),
    ("foxgeese.protocol.botconfig", "foxgeese.players.registry", True),
    ("foxgeese.protocol.referee", "foxgeese.players.mcts", False),
    ("foxgeese.tournaments.runner", "foxgeese.protocol.referee", True),
    ("foxgeese.tournaments.runner", "foxgeese.web.app", False),
    ("foxgeese.files", "foxgeese.tournaments.runner", False),
    ("foxgeese.params", "foxgeese.engine.userinput", True),
    ("foxgeese.main", "foxgeese.tournaments.cli", True),
    ("foxgeese.research.gym_env", "foxgeese.protocol.referee", True),
    ("foxgeese.research.learn", "foxgeese.players.base", True),
    ("foxgeese.players.registry", "foxgeese.research.learn", False),
    ("foxgeese.tournaments.runner", "foxgeese.research.learn", False),
    ("foxgeese.web.app", "foxgeese.research.gym_env", False),
])
def test_the_arrow_rules_themselves(importer, imported, ok):
    assert allowed(importer, imported) is ok

"""Lint and types are part of the suite: `ruff check .` on everything and mypy on every package
(`MYPY_PACKAGES`) and on the root package's own modules, the command line (`MYPY_MODULES`, cli/),
must report nothing. Both are configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# cli/ is the package `foxgeese` itself: its modules one by one (-p foxgeese would take every subpackage).
MYPY_MODULES = tuple(sorted("foxgeese" if path.stem == "__init__" else f"foxgeese.{path.stem}"
                            for path in (ROOT / "cli").glob("*.py")))
# The install maps folders to names (cli/ is `foxgeese`, engine/ is `foxgeese.engine`, ...) through
# an import hook mypy cannot follow, so mypy reads a folder of links laid out the way Python sees it.
PACKAGE_FOLDERS = {"engine": "engine", "protocol": "protocol", "players": "players", "tournaments": "tournaments",
                   "web": "web", "research": "research"}
MYPY_PACKAGES = tuple(f"foxgeese.{name}" for name in PACKAGE_FOLDERS)


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    done = run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def package_links() -> Path:
    """`.mypy_cache/tree/foxgeese/...`: links to cli/'s modules and to each package folder."""
    tree = ROOT / ".mypy_cache" / "tree"
    root = tree / "foxgeese"
    root.mkdir(parents=True, exist_ok=True)
    wanted = {path.name: path for path in (ROOT / "cli").glob("*.py")}
    wanted.update({name: ROOT / folder for name, folder in PACKAGE_FOLDERS.items() if (ROOT / folder).is_dir()})
    for link in root.iterdir():
        if link.name not in wanted or link.resolve() != wanted[link.name]:
            link.unlink()
    for name, target in wanted.items():
        if not (root / name).exists():
            (root / name).symlink_to(target)
    return tree


def test_mypy_finds_nothing():
    tree = package_links()
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(ROOT / ".mypy_cache")]
    for package in MYPY_PACKAGES:
        command += ["-p", package]
    for module in MYPY_MODULES:
        command += ["-m", module]
    done = run(command, tree)
    assert done.returncode == 0, done.stdout + done.stderr

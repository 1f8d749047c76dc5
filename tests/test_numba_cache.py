"""numba's cache dropped when a module it compiles in changes (foxgeese.numba_cache)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from foxgeese.numba_cache import drop_stale_cache


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"numba_cache_case_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_an_edit_to_a_module_compiled_in_drops_the_cache_of_the_module_that_compiles_it(tmp_path: Path) -> None:
    (tmp_path / "rules.py").write_text("STEP = 1\n")
    (tmp_path / "deeper.py").write_text("WEIGHT = 3\n")
    rules, deeper = _load(tmp_path / "rules.py"), _load(tmp_path / "deeper.py")
    rules.NUMBA_DEPENDS = (deeper,)  # type: ignore[attr-defined]  # transitively: search -> rules -> deeper
    (tmp_path / "search.py").write_text("X = 0\n")
    search = _load(tmp_path / "search.py")
    search.NUMBA_DEPENDS = (rules,)  # type: ignore[attr-defined]
    cache = tmp_path / "__pycache__"
    cache.mkdir()

    def cached() -> list[str]:
        for name in ("search.run-10.py311.nbi", "search.run-10.py311.1.nbc"):
            (cache / name).touch(exist_ok=True)
        (cache / "rules.step-3.py311.nbi").touch(exist_ok=True)
        drop_stale_cache(search)
        return sorted(path.name for path in cache.iterdir() if path.suffix in (".nbi", ".nbc"))

    kept = ["rules.step-3.py311.nbi", "search.run-10.py311.1.nbc", "search.run-10.py311.nbi"]
    assert cached() == ["rules.step-3.py311.nbi"]  # no stamp yet: what was there may be stale
    assert cached() == kept  # nothing changed
    (tmp_path / "deeper.py").write_text("WEIGHT = 4\n")  # two modules down
    assert cached() == ["rules.step-3.py311.nbi"]  # only search's own files go
    assert cached() == kept
    (tmp_path / "search.py").write_text("X = 1\n")  # its own source too (numba would see that itself)
    assert cached() == ["rules.step-3.py311.nbi"]

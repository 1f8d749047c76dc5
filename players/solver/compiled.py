"""The numba kernels, imported only when a build needs them.

Importing numba costs about a second; a small solve (Hare and Hounds), a look-up in tables already on
disk or a `solver` bot that plays from its tables never pays it (tests/test_solver_cold_start.py).
numba is an optional extra (`foxgeese[solver]`): without it only the builds fail, with one line.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from foxgeese.players.solver.tables import TableError


def kernels(name: str, what: str) -> ModuleType:
    """`foxgeese.players.solver.{name}` (a module of numba kernels); TableError naming `what` without numba."""
    try:
        import numba  # noqa: F401  (the kernels' compiler: present or not)
    except ImportError:
        raise TableError(f"{what} needs numba: pip install 'foxgeese[solver]'") from None
    return importlib.import_module(f"foxgeese.players.solver.{name}")

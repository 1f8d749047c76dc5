"""A small solve, a table look-up and a `solver` bot do not load numba (a second of import): only builds do.
Hare and Hounds, solved in plain Python, does not load numpy either (a tenth of a second), nor hashlib
(OpenSSL: a few milliseconds; its cache is keyed by a CRC-32 of the rules)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("numba", "llvmlite")


def loaded_after(script: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `script`."""
    done = subprocess.run([sys.executable, "-c", script + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_solving_hare_and_hounds_from_nothing_loads_no_numba_numpy_or_hashlib(tmp_path: Path):
    script = ("from foxgeese.main import main\n"
              "try:\n"
              f"    main(['solve', 'hare-and-hounds', '--tables', {str(tmp_path)!r}])\n"
              "except SystemExit as end:\n"
              "    assert not end.code, end.code\n")
    loaded = loaded_after(script)
    assert "foxgeese.players.solver.hare_hounds_solution" in loaded  # it did solve
    assert (tmp_path / "hare-and-hounds.fgt").exists()
    assert not {m for m in loaded if m.split(".")[0] in HEAVY + ("numpy", "hashlib", "_hashlib")}


def test_python_m_foxgeese_loads_the_bot_start_only_for_a_bot(tmp_path: Path):
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "foxgeese", "solve", "hare-and-hounds",
                           "--tables", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "hounds win in 23 plies" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "foxgeese.players.solver.hare_hounds_solution" in imported
    assert not imported & {"foxgeese.protocol.bot_start", "zmq", "msgspec", "numpy"}


def test_the_solver_entry_points_and_player_do_not_load_numba():
    script = ("from foxgeese.engine import get_variant, Side\n"
              "from foxgeese.players.registry import make_player\n"
              "from foxgeese.players.solver import report, strong, wdl, strategy, analyse  # noqa\n"
              "player = make_player('solver')\n"
              "player.new_game(get_variant('standard'), Side.PREDATOR)\n")
    loaded = loaded_after(script)
    assert "foxgeese.players.solver.player" in loaded
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}

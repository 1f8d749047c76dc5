"""The command line loads a command's module only when that command runs (cli/main.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click

from foxgeese.main import COMMAND_MODULES, COMMANDS


def test_the_command_table_names_what_each_module_registers():
    registered = {}
    for module_name in COMMAND_MODULES:
        group = click.Group()
        importlib.import_module(module_name).register(group)
        registered.update(dict.fromkeys(group.commands, module_name))
    assert registered == COMMANDS


def test_a_bot_process_loads_neither_the_web_app_nor_the_tournaments_nor_numpy():
    # What `python -m foxgeese bot NAME` imports before it plays (here up to its --help).
    script = ("import sys\nfrom foxgeese.main import main\ntry:\n    main(['bot', 'random', '--help'])\n"
              "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    loaded = set(done.stdout.split())
    assert "foxgeese.protocol.bot_cli" in loaded
    heavy = {"numpy", "numba", "foxgeese.web", "foxgeese.tournaments", "foxgeese.players.solver", "rich"}
    assert not heavy & loaded, heavy & loaded

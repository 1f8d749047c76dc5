"""The two-bit tables' builds out of core and stopped anywhere: killed (-9) inside a level, a full disk."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("numba")

from foxgeese.main import main  # noqa: E402
from foxgeese.players.solver import wdl_store  # noqa: E402
from foxgeese.players.solver.strong import HEADER_BYTES, read_bits_header  # noqa: E402
from foxgeese.players.solver.tables import TableError  # noqa: E402
from foxgeese.players.solver.wdl import WDL, WDL_CHAINS, WdlBuilder, WdlTables, wdl_path, wdl_variant  # noqa: E402

VARIANT = wdl_variant("standard")
TOP = 5
IN_MEMORY, OUT_OF_CORE = 20.0, 0.0001  # --max-memory in GB: every level fits / none does

# Builds 4..5 geese checkpointing after every chunk of the rounds (a few goose sets each); at the third
# chunk of a level of 5 geese with sets still waiting (two checkpoints on disk, the third chunk's work
# not), it says where it is and waits to be killed.
KILLED_INSIDE_A_LEVEL = """
import sys
from pathlib import Path
from foxgeese.players.solver.wdl import WdlBuilder, wdl_variant

chunks = {}

def hook(event, facts):
    if event != "chunk" or facts["geese"] != 5 or not facts["waiting"]:
        return
    chunks[facts["row_sum"]] = chunks.get(facts["row_sum"], 0) + 1
    if chunks[facts["row_sum"]] == 3:
        print(facts["row_sum"], facts["checkpoints"], flush=True)
        sys.stdin.readline()

WdlBuilder(wdl_variant("standard"), sys.argv[1], max_memory_gb=float(sys.argv[2]), checkpoint_seconds=0,
           chunk_pops=8, hook=hook).build(5)
print("finished", flush=True)
"""


def _words(directory, geese: int, array: str = WDL) -> bytes:
    return wdl_path(directory, VARIANT, geese, array).read_bytes()[HEADER_BYTES:]


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    """4..5 geese built in one go, in memory (the chains of 5 kept, to compare them too)."""
    directory = tmp_path_factory.mktemp("wdl-unbroken")
    WdlBuilder(VARIANT, directory, keep_chains=True, max_memory_gb=IN_MEMORY).build(TOP)
    return directory


@pytest.mark.parametrize("memory", [IN_MEMORY, OUT_OF_CORE], ids=["in-memory", "out-of-core"])
def test_a_build_killed_inside_a_level_resumes_to_the_same_bytes(memory, unbroken, tmp_path):
    process = subprocess.Popen([sys.executable, "-c", KILLED_INSIDE_A_LEVEL, str(tmp_path), str(memory)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline().split()
        assert len(line) == 2, (line, process.stderr.read() if process.poll() is not None else "")
        row_sum, checkpoints = (int(word) for word in line)
        process.kill()  # SIGKILL: no handler runs, nothing is flushed by the process
    finally:
        process.wait(timeout=60)
    assert checkpoints == 2
    record = json.loads((tmp_path / "standard-sideways1-5geese.progress.json").read_text())
    assert (record["row_sum"], record["checkpoints"]) == (row_sum, 2)
    part = wdl_path(tmp_path, VARIANT, TOP, WDL, partial=True)
    assert part.exists() and not wdl_path(tmp_path, VARIANT, TOP, WDL).exists()  # nothing looks finished
    assert row_sum not in read_bits_header(part)["levels_done"]
    assert WdlTables(VARIANT, tmp_path).available() == 4

    WdlBuilder(VARIANT, tmp_path, max_memory_gb=memory).build(TOP)  # the same build, run again
    tables = WdlTables(VARIANT, tmp_path)
    assert tables.available() == TOP
    header = tables.headers[TOP]
    figures = header["figures"][str(row_sum)]
    assert figures["resumed_after_checkpoints"] == 2 and figures["in_memory"] == (memory == IN_MEMORY)
    for geese in range(4, TOP + 1):
        assert _words(tmp_path, geese) == _words(unbroken, geese), geese
    assert _words(tmp_path, TOP, WDL_CHAINS) == _words(unbroken, TOP, WDL_CHAINS)
    assert all(f["in_memory"] == (memory == IN_MEMORY) for f in header["figures"].values())
    assert header["data_sha256"] == wdl_store.data_sha256(wdl_path(unbroken, VARIANT, TOP, WDL))
    left = sorted(p.name for p in tmp_path.iterdir())  # no state, scratch, progress or .part file
    assert left == sorted([wdl_path(tmp_path, VARIANT, 4, WDL).name, wdl_path(tmp_path, VARIANT, 5, WDL).name,
                           wdl_path(tmp_path, VARIANT, 5, WDL_CHAINS).name])


def test_a_full_disk_is_one_line_and_the_same_command_then_resumes(unbroken, tmp_path, monkeypatch):
    """ENOSPC from the scratch files of an out-of-core level (what a full disk gives there)."""
    real = os.posix_fallocate
    calls = []

    def full_after_a_while(fd: int, offset: int, size: int) -> None:
        calls.append(size)
        if len(calls) > 40:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, offset, size)

    monkeypatch.setattr(wdl_store.os, "posix_fallocate", full_after_a_while)
    args = ["solve", "standard", "--sideways", "--geese", "4", "--max-memory", str(OUT_OF_CORE),
            "--tables", str(tmp_path)]
    result = CliRunner().invoke(main, args, prog_name="foxgeese")
    assert result.exit_code != 0
    lines = result.stderr.splitlines()
    assert lines[-1].startswith("foxgeese: the disk of ") and "is full" in lines[-1], result.stderr
    assert "run the same command again" in lines[-1] and "Traceback" not in result.output
    monkeypatch.setattr(wdl_store.os, "posix_fallocate", real)
    result = CliRunner().invoke(main, args, prog_name="foxgeese")
    assert result.exit_code == 0, result.output
    assert _words(tmp_path, 4) == _words(unbroken, 4)


def test_a_cut_short_table_is_refused_not_read(unbroken, tmp_path):
    path = wdl_path(tmp_path, VARIANT, 4, WDL)
    path.write_bytes(wdl_path(unbroken, VARIANT, 4, WDL).read_bytes()[:-8])
    with pytest.raises(TableError, match="delete it and build again"):
        WdlTables(VARIANT, tmp_path).available()


def test_the_estimate_is_printed_before_any_work(tmp_path):
    result = CliRunner().invoke(main, ["solve", "great-cross", "--geese", "7", "--estimate", "--max-memory", "1",
                                       "--tables", str(tmp_path)], prog_name="foxgeese")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and lines[-1].startswith("great-cross 7 geese: 3,448,851,120 positions")
    assert "out of core" in lines[-1] and "in memory" in lines[-2]
    assert list(tmp_path.iterdir()) == []


VERIFIER = Path(__file__).resolve().parent.parent / "scripts" / "verify_wdl.py"


def _verify(path, *args: str) -> subprocess.CompletedProcess:
    """scripts/verify_wdl.py as anyone runs it: its own interpreter, no foxgeese on its path."""
    return subprocess.run([sys.executable, "-I", str(VERIFIER), str(path), *args], capture_output=True, text=True,
                          timeout=120, cwd=path.parent)


def test_the_standalone_verifier_agrees_with_a_table_and_catches_a_wiped_plane(unbroken, tmp_path):
    assert "foxgeese" not in VERIFIER.read_text().split('"""', 2)[2].split("def board")[0]  # imports nothing of it
    table = wdl_path(unbroken, VARIANT, TOP, WDL)
    done = _verify(table, "--sample", "300", "--seed", "3", "--sha256")
    assert done.returncode == 0, done.stdout + done.stderr
    assert wdl_store.data_sha256(table) in done.stdout
    last = done.stdout.splitlines()[-1]
    assert last.startswith("checked 300 random positions (seed 3; the side to move wins ")
    assert last.endswith(": 0 disagree")
    decided = _verify(table, "--sample", "100", "--decided")
    assert decided.returncode == 0 and ", draws 0, " in decided.stdout, decided.stdout + decided.stderr
    for geese in (4, 5):  # a copy whose fox-to-move wins are all wiped out (geese 5's captures read 4's table)
        (tmp_path / table.name.replace("-5geese", f"-{geese}geese")).write_bytes(
            wdl_path(unbroken, VARIANT, geese, WDL).read_bytes())
    wiped = tmp_path / table.name
    header = read_bits_header(wiped)
    with open(wiped, "r+b") as stream:
        stream.seek(HEADER_BYTES + 2 * header["plane_words"] * 8)
        stream.write(bytes(header["plane_words"] * 8))
    done = _verify(wiped, "--sample", "300", "--seed", "3")
    assert done.returncode == 1, done.stdout + done.stderr
    wrong = int(done.stdout.splitlines()[-1].split("): ")[1].split()[0])
    assert wrong > 5 and "the table says" in done.stdout

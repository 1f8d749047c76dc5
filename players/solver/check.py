"""`foxgeese solve check`: a finished table re-derived, position by position, from the engine's rules core.

A build's kernels write a table; this reads it back and checks each position against its children,
which come from `engine.rules` (the referee's move generator: steps, sideways steps, capture
chains, the endings), never from the kernels. The children's values are looked up in the tables
through the layouts' plain-Python index (the file format), so the two passes share nothing but it.

- Two-bit tables (`*.wdl.fgb`: `standard --sideways`, `great-cross`): a position is won iff some
  move reaches a position its opponent loses, lost iff every move reaches one its opponent wins (no
  move: lost), a draw otherwise; captures read the table of one goose fewer (fewer than four geese:
  the fox has won).
- One-bit tables (`*.wins.fgb`, `standard` forward only): geese to move only; the fox-to-move
  children are worked out from their own children (the same table, or fewer geese).

What a local check proves: in the forward-only game every line ends (each goose step raises the
row sum), so a table that agrees with its children everywhere, over correct tables below, is
correct. With sideways steps a local check catches every wrong draw and every win or loss that
its children contradict; a ring of wins and losses that only support each other would pass
(ruling that out needs distances, which these tables do not keep).

The checksum is the sha256 of the words after the 64 KiB header (the header carries build times),
so two machines that built the same table print the same one.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import numpy as np

from foxgeese.engine import Side, Variant
from foxgeese.engine.position import MIN_GEESE, Position
from foxgeese.engine.rules import State, rules_for
from foxgeese.engine.variants import Tables, every_variant
from foxgeese.players.solver.bitlayout import grid_bit, mask_of
from foxgeese.players.solver.strong import (
    HEADER_BYTES,
    bits_path,
    complete_header,
    map_words,
    read_bits_header,
    standard_layout,
)
from foxgeese.players.solver.strong import WINS as STRONG_WINS
from foxgeese.players.solver.tables import TableError
from foxgeese.players.solver.wdl import FOX_WINS, GEESE_WIN, WDL, wdl_layout, wdl_path
from foxgeese.usage import fail

WIN, DRAW, LOSS = 1, 0, -1
SHOWN = 10  # disagreements printed in full


@dataclass
class Disagreement:
    position: str
    table: int
    derived: int


@dataclass
class CheckResult:
    path: Path
    geese: int
    rules: str
    size: int
    sha256: str
    checked: int = 0
    sample: int | None = None
    seed: int | None = None
    seconds: float = 0.0
    disagreements: int = 0
    shown: list[Disagreement] = field(default_factory=list)


def data_sha256(path: Path) -> str:
    """sha256 of a table's words (everything after the header)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        stream.seek(HEADER_BYTES)
        while block := stream.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def _variant_of(header: dict[str, Any], kind: Tables, path: Path) -> Variant:
    """The variant whose rules a table's header names (its `variant` field: `Variant.table_key`)."""
    key = header.get("variant")
    found = next((v for v in every_variant() if v.tables is kind and v.table_key == key), None)
    if found is None:
        raise TableError(f"{path}: no rules called {key!r}")
    return found


class TableValues:
    """The value (+1 win / 0 draw / -1 loss, for the side to move) of a rules state, from the tables on disk."""

    def __init__(self, path: Path) -> None:
        header = read_bits_header(path)
        if not header.get("complete"):
            raise TableError(f"{path} is not a finished table (a build stopped in the middle?)")
        self.header = header
        self.directory = path.parent
        self.geese = int(header["geese"])
        self.two_bits = header.get("array") == WDL
        if self.two_bits:
            variant = _variant_of(header, Tables.WDL, path)
            self.variant = variant
            self.wdl = wdl_layout(variant)
            for geese in range(MIN_GEESE, self.geese + 1):  # a capture chain can end at any count below
                self.wdl.add_count(geese)
        elif header.get("array") == STRONG_WINS:
            self.variant = _variant_of(header, Tables.BITS, path)
            self.strong = standard_layout(self.variant)
        else:
            raise TableError(f"{path} holds {header.get('array')!r}: check a .wdl.fgb or a .wins.fgb table")
        self.rules = rules_for(self.variant)
        self._words: dict[int, tuple[np.ndarray, dict[str, Any]]] = {self.geese: (map_words(path, header), header)}
        self._fox_memo: dict[tuple[int, int], int] = {}

    def words(self, geese: int) -> tuple[np.ndarray, dict[str, Any]]:
        if geese not in self._words:
            path = (wdl_path(self.directory, self.variant, geese, WDL) if self.two_bits
                    else bits_path(self.directory, geese, STRONG_WINS, key=self.variant.table_key))
            layout = self.wdl if self.two_bits else self.strong
            header = complete_header(path, layout)
            if header is None:
                raise TableError(f"checking the {self.geese}-geese table needs {path.name} (captures) in "
                                 f"{self.directory}")
            self._words[geese] = (map_words(path, header), header)
        return self._words[geese]

    def terminal(self, state: State) -> int | None:
        ended = self.rules.outcome(state)
        if ended is None:
            return None
        return WIN if ended.winner == state[2] else LOSS if ended.winner is not None else DRAW

    def stored(self, state: State) -> int:
        """The table's value of a state with at least four geese (the one-bit tables: geese to move only)."""
        fox, prey, turn = state[0], state[1], state[2]
        words, header = self.words(prey.bit_count())
        if self.two_bits:
            bit = self.wdl.bit_of(self.wdl.dense_mask(prey), self.wdl.geometry.dense[fox])
            first = GEESE_WIN if turn == Side.PREY else FOX_WINS
            plane = header["plane_words"]
            win = (int(words[first * plane + (bit >> 6)]) >> (bit & 63)) & 1
            lose = (int(words[(first + 1) * plane + (bit >> 6)]) >> (bit & 63)) & 1
            return WIN if win else LOSS if lose else DRAW
        assert turn == Side.PREY
        bit = self.strong.bit_of(mask_of(prey), grid_bit(fox))
        return WIN if (int(words[bit >> 6]) >> (bit & 63)) & 1 else LOSS

    def value(self, state: State) -> int:
        """A child's value: the table's, or the ending's; a one-bit table's fox to move from its children."""
        ended = self.terminal(state)
        if ended is not None:
            return ended
        if self.two_bits or state[2] == Side.PREY:
            return self.stored(state)
        key = (state[0], state[1])
        if key not in self._fox_memo:
            if len(self._fox_memo) > 1 << 20:
                self._fox_memo.clear()
            self._fox_memo[key] = self.derive(state)
        return self._fox_memo[key]

    def derive(self, state: State) -> int:
        """The value of a state from its children's values (the minimax equations)."""
        ended = self.terminal(state)
        if ended is not None:
            return ended
        values = [self.value(child) for child in self.rules.children(state)]
        if LOSS in values:
            return WIN
        return LOSS if all(v == WIN for v in values) else DRAW


def states_to_check(values: TableValues, sample: int | None, seed: int | None) -> Iterator[State]:
    """Every position of the table's goose count (both sides to move; one-bit tables: geese to move), or a sample."""
    points = [int(p) for p in values.variant.board.points]
    sides = (Side.PREY, Side.PREDATOR) if values.two_bits else (Side.PREY,)
    k = values.geese
    if sample is None:
        for geese in itertools.combinations(points, k):
            prey = sum(1 << p for p in geese)
            for fox in points:
                if not prey >> fox & 1:
                    for side in sides:
                        yield (fox, prey, side, 0, 0)
        return
    rng = random.Random(seed)
    for _ in range(sample):  # uniform over positions: a goose set, then the fox on one of its empty points
        chosen = rng.sample(points, k + 1)
        yield (chosen[0], sum(1 << p for p in chosen[1:]), rng.choice(sides), 0, 0)


def check_table(path: Path, sample: int | None = None, seed: int | None = None,
                progress: Callable[[str], None] | None = None) -> CheckResult:
    """Re-derives every position (or `sample` random ones, drawn from `seed`) of the table at `path`."""
    started = time.perf_counter()
    values = TableValues(path)
    result = CheckResult(path, values.geese, str(values.variant), path.stat().st_size, data_sha256(path),
                         sample=sample, seed=seed)
    last = time.monotonic()
    for state in states_to_check(values, sample, seed):
        table = values.stored(state)
        derived = values.derive(state)
        result.checked += 1
        if table != derived:
            result.disagreements += 1
            if len(result.shown) < SHOWN:
                text = Position(values.variant, state[0], state[1], state[2]).text()
                result.shown.append(Disagreement(text, table, derived))
        if progress is not None and time.monotonic() - last > 10:
            last = time.monotonic()
            progress(f"checked {result.checked:,} positions, {result.disagreements} disagreements")
    result.seconds = time.perf_counter() - started
    return result


def check_command(table: str | None, sample: int | None, seed: int | None) -> None:
    """The body of `foxgeese solve check --table FILE [--sample N --seed S]`: prints, exits 1 on a disagreement."""
    if table is None:
        fail("solve check needs --table FILE: a finished .wdl.fgb or .wins.fgb table "
             "(e.g. ~/.cache/foxgeese/tables/standard-sideways1-8geese.wdl.fgb)")
    if sample is not None and sample < 1:
        fail(f"--sample must be at least 1, not {sample}")
    if seed is not None and sample is None:
        fail("--seed draws a sample: give --sample N too")
    path = Path(table).expanduser()
    if not path.is_file():
        fail(f"no table file {path}")
    try:
        result = check_table(path, sample, 0 if sample is not None and seed is None else seed,
                             progress=lambda text: click.echo(text, err=True))
    except TableError as error:
        fail(str(error))
    click.echo(f"{path.name}: {result.rules}, {result.geese} geese, {result.size:,} bytes, "
               f"sha256 {result.sha256} (the words after the {HEADER_BYTES // 1024} KiB header)")
    which = ("every position" if result.sample is None
             else f"a random sample (--sample {result.sample} --seed {result.seed})")
    click.echo(f"checked {result.checked:,} positions, {which}, against their children under the engine's rules in "
               f"{result.seconds:.1f} s: {result.disagreements:,} disagreements")
    for d in result.shown:
        click.echo(f"  {d.position}: table {_WORDS[d.table]}, children say {_WORDS[d.derived]}")
    if result.disagreements:
        click.echo(f"foxgeese: {result.disagreements:,} positions of {path.name} disagree with their children; "
                   "the table is wrong: build it again", err=True)
        raise SystemExit(1)


_WORDS = {WIN: "win", DRAW: "draw", LOSS: "loss"}

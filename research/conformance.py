"""Conformance vectors for other implementations (OpenSpiel's, Ludii's, anyone's): perft counts,
positions with their legal moves and endings, and solved values, in one JSON file.

    python -m foxgeese.research.conformance generate research/conformance/vectors.json
    python -m foxgeese.research.conformance check research/conformance/vectors.json

Positions and moves are foxgeese text (docs/rules.md: `VARIANT OPTIONS TURN PREDATOR PREY QUIET
STALL PLY`; `d4-d5`, `d4xd6xf6`). `check` compares every entry with the engine and the solved
tables (the fox values need the 4-geese `standard` tables: it builds them in a temporary folder).
The file's `about` field documents each section.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from foxgeese.engine import Game, Position, get_variant, perft
from foxgeese.engine.sampling import played_position, scattered_position
from foxgeese.engine.variants import VARIANT_TABLE, Options, Tables, Variant
from foxgeese.files import write_json_atomic
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.research.labels import Labeller

FORMAT = "foxgeese-conformance-1"
# Variant, options, start perft depth: every row's conformance cases (`VariantSpec.conformance_cases`).
VARIANTS: tuple[tuple[str, Options, int], ...] = tuple(
    (variant.id, dict(variant.options), depth) for row in VARIANT_TABLE for variant, depth in row.conformance_cases())
ABOUT = {
    "perft": "leaf count of the move tree to `depth` plies from `position` (a capture chain is one move; "
             "every prefix of a chain is a move; a game over ends its branch: no moves)",
    "positions": "the legal moves of `position` (sorted text) and its ending from the pieces and counters alone "
                 "(`outcome`: winner and termination, or null; repetition needs history and is not included)",
    "values": "the value for the side to move with perfect play: win/loss/draw and plies to the end (fastest win, "
              "slowest loss), from the Hare and Hounds solution and the 4-geese tables of the fox variants without "
              "draws (standard, on each of its boards); counters ignored",
    "notation": "foxgeese docs/rules.md: position text, move text and the rules of each variant",
}


def _variant(entry: dict[str, Any]) -> Any:
    return get_variant(entry["variant"], **entry["options"])


def generate(seed: int = 28) -> dict[str, Any]:
    rng = random.Random(seed)
    vectors: dict[str, Any] = {"format": FORMAT, "about": ABOUT, "perft": [], "positions": [], "values": []}
    for variant_id, options, depth in VARIANTS:
        variant = get_variant(variant_id, **options)
        start = variant.start_position()
        for d in range(1, depth + 1):
            vectors["perft"].append({"variant": variant_id, "options": options, "position": start.text(),
                                     "depth": d, "nodes": perft(Game(variant), d)})
        found = 0
        while found < 3:  # positions of running games, captures preferred: chains show up
            position = played_position(variant, rng, (6, 40), capture_bias=0.8)
            if position is not None:
                vectors["perft"].append({"variant": variant_id, "options": options, "position": position.text(),
                                         "depth": 3, "nodes": perft(position, 3)})
                found += 1
        samples = [start] + [p for p in (played_position(variant, rng, (2, 60), capture_bias=0.5) for _ in range(12))
                             if p is not None]
        samples += [scattered_position(variant, rng, counters=True) for _ in range(12)]
        for position in samples:
            vectors["positions"].append(_position_entry(variant_id, options, position))
    vectors["values"] = _values(rng)
    return vectors


def _position_entry(variant_id: str, options: dict[str, Any], position: Position) -> dict[str, Any]:
    ended = position.outcome()
    outcome = None if ended is None else {"winner": ended.winner.value, "termination": ended.termination.value}
    return {"variant": variant_id, "options": options, "position": position.text(),
            "legal_moves": sorted(str(m) for m in position.legal_moves()), "outcome": outcome}


def solved_variants() -> list[Variant]:
    """The variants the values come from, one per solved rules: solved whole, or by 4-geese tables."""
    found: dict[str, Variant] = {}
    for row in VARIANT_TABLE:
        for variant, _ in row.conformance_cases():
            if variant.tables in (Tables.SOLUTION, Tables.BITS):
                found.setdefault(variant.table_key, variant)
    return list(found.values())


def build_small_tables(folder: str) -> None:
    """The 4-geese tables the values need, in `folder`."""
    for variant in solved_variants():
        if variant.tables is Tables.BITS:
            build_tables(variant, 4, folder)


def _values(rng: random.Random) -> list[dict[str, Any]]:
    values = []
    with tempfile.TemporaryDirectory(prefix="fg-conformance-") as folder:
        build_small_tables(folder)
        labeller = Labeller(folder)
        positions = []
        for variant in solved_variants():
            if variant.tables is Tables.SOLUTION:
                positions += [variant.start_position()]
                positions += [p for p in (played_position(variant, rng, (1, 30)) for _ in range(40)) if p is not None]
            else:
                positions += [scattered_position(variant, rng, prey_count=4) for _ in range(40)]
        for position in positions:
            if position.outcome() is not None:
                continue
            label = labeller.value(position)
            values.append({"variant": position.variant.id, "options": position.variant.option_dict,
                           "position": position.text(), "value": label.value, "plies": label.plies})
    return values


def check(vectors: dict[str, Any], tables: str | Path | None = None) -> list[str]:
    """Every disagreement between the vectors and this engine (and tables), as one line each."""
    if vectors.get("format") != FORMAT:
        return [f"format {vectors.get('format')!r}, expected {FORMAT!r}"]
    wrong = []
    for entry in vectors["perft"]:
        position = Position.from_text(entry["position"])
        if position.variant is not _variant(entry):
            wrong.append(f"perft {entry['position']}: not of {entry['variant']} {entry['options']}")
        elif perft(position, entry["depth"]) != entry["nodes"]:
            wrong.append(f"perft {entry['position']} depth {entry['depth']}: engine {perft(position, entry['depth'])}, "
                         f"vectors {entry['nodes']}")
    for entry in vectors["positions"]:
        position = Position.from_text(entry["position"])
        if _position_entry(entry["variant"], entry["options"], position) != entry:
            wrong.append(f"position {entry['position']}: the engine's moves or ending differ")
    with tempfile.TemporaryDirectory(prefix="fg-conformance-") as folder:
        if tables is None:
            build_small_tables(folder)
        labeller = Labeller(tables or folder)
        for entry in vectors["values"]:
            label = labeller.value(Position.from_text(entry["position"]))
            if (label.value, label.plies) != (entry["value"], entry["plies"]):
                wrong.append(f"value {entry['position']}: tables {label.value} {label.plies}, "
                             f"vectors {entry['value']} {entry['plies']}")
    return wrong


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("generate", "check"):
        print("foxgeese: usage: python -m foxgeese.research.conformance generate|check PATH", file=sys.stderr)
        return 2
    path = Path(argv[1])
    if argv[0] == "generate":
        write_json_atomic(path, generate())
        return 0
    try:
        vectors = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"foxgeese: cannot read {path}: {error}", file=sys.stderr)
        return 2
    wrong = check(vectors)
    for line in wrong:
        print(line)
    print(f"{len(wrong)} disagreements in {sum(len(vectors[k]) for k in ('perft', 'positions', 'values'))} vectors")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

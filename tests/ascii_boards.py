"""Build positions from ASCII diagrams, so tests show the board they mean.

    7     . . .
    4 . . . F . . .      F/H: fox or hare   G/D: goose or hound   .: empty point
    1     G G G          a blank where the grid has no point

Each line is a row number and then one character per column, two characters apart.
"""

from __future__ import annotations

from foxgeese.engine import Position, get_variant, point_name
from foxgeese.engine.board import point_index


def position_from_ascii(diagram: str, variant_id: str = "standard", turn: str | None = None,
                        quiet: int = 0, stall: int = 0, ply: int = 0, **options) -> Position:
    variant = get_variant(variant_id, **options)
    predator, prey = None, []
    for line in diagram.strip("\n").splitlines():
        if not line.strip() or not line.split()[0].isdigit():
            continue
        label, _, cells = line.strip().partition(" ")
        row = int(label) - 1
        cells = line[line.index(label) + len(label) + 1:]
        for column, char in enumerate(cells[::2]):
            point = point_index(column, row)
            if char in "FH":
                predator = point
            elif char in "GD":
                prey.append(point)
    assert predator is not None, "diagram has no fox or hare"
    turn = turn or variant.side_name(variant.first_to_move)
    options_text = variant.options_text()
    prey_text = ",".join(point_name(p) for p in sorted(prey)) or "-"
    return Position.from_text(
        f"{variant.id} {options_text} {turn} {point_name(predator)} {prey_text} {quiet} {stall} {ply}"
    )

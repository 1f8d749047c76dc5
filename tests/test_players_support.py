"""Shared helpers for the player tests: ASCII diagrams to positions, and a reference solver.

A diagram has one line per row, top row first: the row number, a space, then one character per
column two characters apart (`F`/`H` fox or hare, `G`/`D` goose or hound, `.` empty point, blank
where the board has no point):

    7     . . .
    4 . . . F . . .
    1     G G G

The reference solver is a plain depth-limited AND-OR search over the engine's public `Position`
API (its own `outcome()`), independent of the searches' fast rules, so it can judge them.
"""

from __future__ import annotations

from foxgeese.engine import Game, Position, get_variant, play_game, point_name
from foxgeese.engine.board import point_index


def diagram(text: str, variant_id: str = "standard", turn: str | None = None, **options) -> Position:
    """The position an ASCII diagram shows; `turn` is a side name (default: the first mover)."""
    variant = get_variant(variant_id, **options)
    predator, prey = None, []
    for line in text.strip("\n").splitlines():
        stripped = line.lstrip()
        if not stripped or not stripped.split()[0].isdigit():
            continue
        label = stripped.split()[0]
        row = int(label) - 1
        cells = line[line.index(label) + len(label) + 1:]
        for column, char in enumerate(cells[::2]):
            point = point_index(column, row)
            if char in "FH":
                assert predator is None, "two predators in the diagram"
                predator = point
            elif char in "GD":
                prey.append(point)
            elif char not in ". ":
                raise AssertionError(f"unexpected {char!r} in row {label}")
            if char != " ":
                assert point in variant.board.points, f"{point_name(point)} is not on the board"
    assert predator is not None, "the diagram has no fox or hare"
    turn = turn or variant.side_name(variant.first_to_move)
    prey_text = ",".join(point_name(p) for p in sorted(prey)) or "-"
    return Position.from_text(
        f"{variant.id} {variant.options_text()} {turn} {point_name(predator)} {prey_text} 0 0 0"
    )


def _mover_wins(position: Position, mover: str) -> bool | None:
    outcome = position.outcome()
    if outcome is None:
        return None
    return outcome.winner.value == mover


def wins_within(position: Position, plies: int) -> bool:
    """Whether the side to move can force a win within `plies` plies (odd numbers make sense)."""
    mover = position.variant.side_name(position.turn)
    moves = position.legal_moves()
    children = [position.play(m) for m in moves]
    if any(_mover_wins(child, mover) for child in children):
        return True
    if plies < 3:
        return False
    for child in children:
        if child.outcome() is not None:
            continue
        if all(
            _mover_wins(reply, mover) if reply.outcome() is not None else wins_within(reply, plies - 2)
            for reply in (child.play(r) for r in child.legal_moves())
        ):
            return True
    return False


def play_out(position: Position, attacker, defender, max_plies: int = 40) -> Game:
    """Plays `attacker` (to move) against `defender` from `position` until the game ends."""
    players = {position.turn: attacker, position.turn.other: defender}
    return play_game(Game.from_position(position), players, max_plies=max_plies)


class BudgetRecorder:
    """Stands in for a search module's `Deadline` and keeps every budget (ms) a player gave it, so a
    test checks the time a search was allowed, not the wall clock. The deadline itself is real."""

    def __init__(self, monkeypatch, module) -> None:
        self.budgets: list[float | None] = []
        real = module.Deadline

        def record(budget_ms: float | None):
            self.budgets.append(budget_ms)
            return real(budget_ms)

        monkeypatch.setattr(module, "Deadline", record)

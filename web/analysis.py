"""The solver as coach: the value of a position and of each of its moves, and a game's review.

`Coach` asks the solver's one `Oracle` (players/solver/oracle.py), which knows a position exactly
from whatever tables it picks for the variant: the Hare and Hounds solution (solved in memory in
about half a second, cached on disk), the int16 endgame tables of the fox variants (win or loss
with the distance in plies, or a draw), the strong solve of `standard` without sideways (win or
loss, no distance) and the two-bit win/draw/loss tables of the sideways rules. A position none
of them holds is `unknown`, and `missing` says which
`foxgeese solve ...` command builds the tables for it and what the build costs (the figures
of docs/solver.md). Values are always for the side to move, like GAMESMAN's value moves.
"""

from __future__ import annotations

from typing import Any

from foxgeese.engine import Game, Position, words
from foxgeese.engine.position import MIN_GEESE
from foxgeese.engine.variants import Tables
from foxgeese.players.solver.analyse import wdl_builds, wdl_cost
from foxgeese.players.solver.oracle import DRAW, LOSS, RANK, UNKNOWN, WIN, Oracle, Solved
from foxgeese.players.solver.strong import KEY as STRONG_KEY
from foxgeese.players.solver.table_files import solve_command

__all__ = ["DRAW", "LOSS", "REVIEW_FORMAT", "UNKNOWN", "WIN", "Coach", "Value", "material", "unfinished"]

REVIEW_FORMAT = 2  # a stored review of another format is made again (2: `best` only where strictly better)
Value = Solved  # a position's value for its side to move (the oracle's)


class Coach:
    """Exact values from the solver's one `Oracle` (which picks the tables and loads them, under its lock)."""

    def __init__(self, tables: str | None = None, oracle: Oracle | None = None) -> None:
        self.tables = tables
        self.oracle = oracle or Oracle(tables)

    # -- values -----------------------------------------------------------------------------------

    def value(self, position: Position) -> Value:
        """The value for the side to move (a finished position: its winner, 0 plies)."""
        return self.oracle.value(position)

    def moves(self, position: Position) -> list[dict[str, Any]]:
        """Every legal move with its value for the mover, best first (unknown ones last)."""
        scored = sorted(self.oracle.move_values(position), key=lambda item: item[1].order())
        return [{"move": str(move), "after": position.play(move).text()} | value.as_dict() for move, value in scored]

    def best_move(self, position: Position) -> tuple[str, Value] | None:
        """The move a perfect player makes (fastest win, else draw, else slowest loss), if the tables know."""
        moves = self.moves(position)
        if not moves or moves[0]["result"] == UNKNOWN:
            return None
        first = moves[0]
        return first["move"], Value(first["result"], first["plies"], first["source"])

    # -- what is missing --------------------------------------------------------------------------

    def missing(self, position: Position) -> str:
        """Which command builds the tables that would know `position`, and what that build costs."""
        variant = position.variant
        geese = position.prey.bit_count()
        where = f" --tables {self.tables}" if self.tables else ""
        command = solve_command(variant)
        if variant.tables is Tables.SOLUTION:
            return ""
        if variant.tables is Tables.BITS:
            lines = []
            if geese <= 6:
                lines.append(f"`{command} --build --max-geese {max(geese, MIN_GEESE)}{where}` builds "
                             "the tables with distances (4 to 6 geese: about half a minute, 0.9 GB of memory, "
                             "270 MB of disk)")
            strong = variant.table_key == STRONG_KEY  # the coach reads the bit tables of the default rules only
            if strong and geese <= 13:
                lines.append(f"`{command} --geese 13{where}` solves every position with up to 13 "
                             "geese, win or loss without distances (about 4½ minutes on 2 cores, 1.5 GB of memory, "
                             "3.3 GB of disk)")
            elif strong:
                lines.append(f"`{command} --geese {geese}{where}` solves every position with up to "
                             f"{geese} geese, win or loss (all 17: about 19 minutes on 2 cores, 3.2 GB of memory, "
                             "12.4 GB of disk)")
            return "; ".join(lines) or f"no table of {variant} reaches {geese} geese"
        measured = wdl_builds(variant)
        if measured is None:
            return f"`{command} --geese {geese}{where}` builds the win/draw/loss tables"
        builds, out_of_reach = measured
        if geese > max(builds):
            return f"no table of {variant} reaches {geese} geese: {out_of_reach} (docs/solver.md)"
        return (f"`{command} --geese {geese}{where}` builds the win/draw/loss tables "
                f"({wdl_cost(variant, max(geese, MIN_GEESE))})")

    # -- a position for the analysis board, a game's review ----------------------------------------

    def analyse(self, position: Position) -> dict[str, Any]:
        """What the analysis board shows: the position's value, each move's value, what is missing;
        for a position being set up that no game can reach yet, what is wrong with it (`problem`)."""
        wrong = unfinished(position)
        if wrong:
            return {"position": position.text(), "turn": position.variant.side_name(position.turn),
                    "value": Value(UNKNOWN).as_dict(), "moves": [], "missing": "", "problem": wrong,
                    "material": material(position)}
        value = self.value(position)
        moves = self.moves(position)
        unknown = value.result == UNKNOWN or any(m["result"] == UNKNOWN for m in moves)
        return {"position": position.text(), "turn": position.variant.side_name(position.turn),
                "value": value.as_dict(), "moves": moves, "missing": self.missing(position) if unknown else "",
                "material": material(position)}

    def review(self, start: Position, moves: list[str], sides: dict[str, str]) -> dict[str, Any]:
        """Every move judged against perfect play: a mistake turns the mover's value worse (a win
        into a draw or a loss, a draw into a loss). Accuracy is the share of judged moves that kept it."""
        game = Game.from_position(start)
        variant = start.variant
        plies: list[dict[str, Any]] = []
        tally: dict[str, dict[str, Any]] = {
            side: {"name": sides.get(side, side), "judged": 0, "mistakes": 0, "first_mistake": None}
            for side in (variant.predator_name, variant.prey_name)}
        before = self.value(game.position)
        for ply, text in enumerate(moves, 1):
            mover = variant.side_name(game.position.turn)
            best = self.best_move(game.position)
            move = game.parse_move(text)
            game.push(move)
            after = self.value(game.position).for_parent()
            judged = before.result != UNKNOWN and after.result != UNKNOWN
            mistake = judged and RANK[after.result] < RANK[before.result]
            if judged:
                tally[mover]["judged"] += 1
            if mistake:
                tally[mover]["mistakes"] += 1
                if tally[mover]["first_mistake"] is None:
                    tally[mover]["first_mistake"] = ply
            better = best is not None and best[0] != text and best[1].better_than(after)
            plies.append({"ply": ply, "side": mover, "move": text, "before": before.as_dict(),
                          "after": after.as_dict(), "mistake": mistake,
                          # another move only where it was strictly better than the one played
                          "best": best[0] if better and best else None,
                          "best_value": best[1].as_dict() if better and best else None,
                          "position": game.position.text()})
            before = self.value(game.position)
        for line in tally.values():
            line["accuracy"] = (round(100 * (line["judged"] - line["mistakes"]) / line["judged"])
                                if line["judged"] else None)
        return {"format": REVIEW_FORMAT, "start": start.text(), "plies": plies, "sides": tally,
                "missing": "" if all(p["before"]["result"] != UNKNOWN for p in plies) else self.missing(start)}


def unfinished(position: Position) -> str:
    """What keeps a position being set up from being one a game can reach ('' when it can be one):
    Hare and Hounds has its three hounds, a fox variant no more geese than its largest start."""
    variant = position.variant
    count = position.prey.bit_count()
    most = max(variant.row.prey_starts)  # the prey counts a start may have
    if not variant.captures and count != most:  # nothing takes a hound off: a start's count, always
        change = f"put {most - count} more on" if count < most else f"take {count - most} off"
        return (f"a Hare and Hounds position has {most} hounds, this one has {count}: {change} "
                "(while setting up by clicking, a hound moves by taking it off and putting it on again)")
    if count > most:
        return (f"a {variant.id} position has at most {most} geese (its largest start), this one has {count}: "
                f"take {count - most} off")
    return ""


def material(position: Position) -> str:
    """`9 geese left; the fox needs 6 more captures` (the fox wins when fewer than four remain)."""
    variant = position.variant
    count = position.prey.bit_count()
    if not variant.captures:
        return (f"{words.counted(count, 'hound', 'hounds')}; the hare wins by getting below every hound, "
                "or when the hounds stall "
                f"({position.stall} of 10 moves without going forward)")
    needed = max(0, count - (MIN_GEESE - 1))
    geese = "goose" if count == 1 else "geese"
    captures = "capture" if needed == 1 else "captures"
    return f"{count} {geese} left; the fox needs {needed} more {captures}"

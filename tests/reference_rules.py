"""A deliberately simple second opinion on the rules, written straight from the spec.

It shares no code with the engine: points are (column, row) pairs, lines a set of pairs, and
moves are found by trying every piece in every direction. Slow and obviously right is the point.
"""

from __future__ import annotations

STEPS = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]


def board(variant_id, diagonals="all"):
    """`diagonals` (standard's option): "all", both in every square; "alternating", the one through
    the square's corner with c + r even, so that diagonals pass through every other point."""
    if variant_id == "standard":
        points = {(c, r) for c in range(7) for r in range(7) if 2 <= c <= 4 or 2 <= r <= 4}

        def diagonal(c, r):
            if diagonals == "alternating":
                return ["up"] if (c + r) % 2 == 0 else ["down"]
            return ["up", "down"]
    elif variant_id == "great-cross":
        points = {(c, r) for c in range(9) for r in range(9) if 3 <= c <= 5 or 3 <= r <= 5}

        def diagonal(c, r):
            return ["up"] if (c + r) % 2 == 1 else ["down"]
    else:
        points = {(c, r) for c in range(3) for r in range(1, 4)} | {(1, 0), (1, 4)}
        lines = set()
        for (c, r) in points:
            for other in ((c + 1, r), (c, r + 1)):
                if other in points and r in (1, 2, 3) and other[1] in (1, 2, 3):
                    lines.add(frozenset([(c, r), other]))
        for end in ((0, 1), (2, 3), (2, 1), (0, 3)):
            lines.add(frozenset([end, (1, 2)]))
        for p in ((0, 1), (1, 1), (2, 1)):
            lines.add(frozenset([(1, 0), p]))
        for p in ((0, 3), (1, 3), (2, 3)):
            lines.add(frozenset([(1, 4), p]))
        return points, lines
    lines = set()
    for (c, r) in points:
        if (c + 1, r) in points:
            lines.add(frozenset([(c, r), (c + 1, r)]))
        if (c, r + 1) in points:
            lines.add(frozenset([(c, r), (c, r + 1)]))
        if {(c + 1, r), (c, r + 1), (c + 1, r + 1)} <= points:
            if "up" in diagonal(c, r):
                lines.add(frozenset([(c, r), (c + 1, r + 1)]))
            if "down" in diagonal(c, r):
                lines.add(frozenset([(c, r + 1), (c + 1, r)]))
    return points, lines


def name(p):
    return "abcdefghi"[p[0]] + str(p[1] + 1)


def legal_moves(variant_id, sideways, predator, prey, predator_to_move, diagonals="all"):
    """Move texts for a position given as (column, row) points; no ending is checked here."""
    points, lines = board(variant_id, diagonals)
    occupied = set(prey) | {predator}
    moves = []
    if predator_to_move:
        for d in STEPS:
            to = (predator[0] + d[0], predator[1] + d[1])
            if frozenset([predator, to]) in lines and to not in occupied:
                moves.append(name(predator) + "-" + name(to))
        if variant_id != "hare-and-hounds":
            def chains(at, geese, path):
                for d in STEPS:
                    over = (at[0] + d[0], at[1] + d[1])
                    land = (over[0] + d[0], over[1] + d[1])
                    if (frozenset([at, over]) in lines and frozenset([over, land]) in lines
                            and over in geese and land not in geese):
                        moves.append("x".join(name(p) for p in path + [land]))
                        chains(land, geese - {over}, path + [land])
            chains(predator, frozenset(prey), [predator])
    else:
        allow_sideways = variant_id != "standard" or sideways
        for goose in prey:
            for d in STEPS:
                if d[1] < 0 or (d[1] == 0 and not allow_sideways):
                    continue
                to = (goose[0] + d[0], goose[1] + d[1])
                if frozenset([goose, to]) in lines and to not in occupied:
                    moves.append(name(goose) + "-" + name(to))
    return sorted(moves)


def parse_name(text):
    return ("abcdefghi".index(text[0]), int(text[1:]) - 1)


def draws_apply(variant_id, sideways):
    """The fifty-move and repetition rules: great-cross, and standard with sideways moves."""
    return variant_id == "great-cross" or (variant_id == "standard" and sideways)


def after_move(variant_id, predator, prey, predator_to_move, quiet, stall, move_text):
    """(predator, prey, predator_to_move, quiet, stall) after a legal move given as text.

    quiet: 0 after a capture or a forward prey step, else one more. stall (hare-and-hounds only):
    0 after a forward hound step, one more after a sideways one, unchanged by the hare.
    """
    prey = set(prey)
    if predator_to_move:
        path = [parse_name(part) for part in move_text.replace("x", "-").split("-")]
        captures = "x" in move_text
        for a, b in zip(path, path[1:]):
            if captures:
                prey.discard(((a[0] + b[0]) // 2, (a[1] + b[1]) // 2))
        return path[-1], prey, False, 0 if captures else quiet + 1, stall
    origin, target = (parse_name(part) for part in move_text.split("-"))
    prey.discard(origin)
    prey.add(target)
    forward = target[1] > origin[1]
    if variant_id == "hare-and-hounds":
        stall = 0 if forward else stall + 1
    return predator, prey, True, 0 if forward else quiet + 1, stall


def ending(variant_id, sideways, predator, prey, predator_to_move, quiet, stall, diagonals="all"):
    """The termination name of a position ended without looking at its history, else None."""
    if variant_id != "hare-and-hounds" and len(prey) < 4:
        return "captured"
    if variant_id == "hare-and-hounds" and predator[1] < min(p[1] for p in prey):
        return "escaped"
    if variant_id == "hare-and-hounds" and stall >= 10:
        return "stalling"
    if draws_apply(variant_id, sideways) and quiet >= 100:
        return "fifty-moves"
    if not legal_moves(variant_id, sideways, predator, prey, predator_to_move, diagonals):
        return "trapped" if predator_to_move else "immobilized"
    return None

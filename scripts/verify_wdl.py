#!/usr/bin/env python3
"""Re-derives a random sample of a foxgeese win/draw/loss table's positions from their children.

Standalone on purpose: Python 3.9+ and nothing else (no foxgeese import, no numpy), so anyone can
read it in one sitting and check a published table rather than believe it. The board, the moves and
the endings are written here from the rules (../shared/spec/rules.md of the project: `standard` with
sideways goose steps, and `great-cross`); the file format and the index of a position from
docs/solver.md ("The file format of the win/draw/loss tables").

For each sampled position (a uniformly random goose set of the table's count, the fox on a random
empty point, a random side to move) it generates every legal move, looks the resulting positions up
(the same table, or the table of fewer geese beside it after a capture; fewer than four geese: the
fox has won) and derives the value: won iff some move reaches a position the opponent loses, lost iff
every move reaches one the opponent wins (no move: lost), a draw otherwise. It compares that with
the table's two bits. Like the tables it ignores the fifty-move counter and repetition.

    python scripts/verify_wdl.py TABLE.wdl.fgb [--sample N] [--seed S] [--sha256] [--decided]

Exit status 0: every sampled position agrees; 1: some do not (each printed); 2: the file is not a
finished table of a known variant, or its layout is not the one described here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import struct
import sys
from math import comb
from pathlib import Path

MAGIC = b"FOXGEESE-BITS\n"
HEADER_BYTES = 1 << 16
GEESE_WIN, GEESE_LOSE, FOX_WINS, FOX_LOSES = range(4)
FEWEST = 4  # fewer geese: the fox has won
DIRECTIONS = [(dc, dr) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dc, dr) != (0, 0)]


# -- the board, from the rules -----------------------------------------------------------------------


def board(variant: str) -> tuple[list[tuple[int, int]], set[frozenset[tuple[int, int]]]]:
    """The points (column, row, counted from 0) in the tables' order (row by row, then column) and the lines."""
    if variant == "standard-sideways1":
        size, low, high, diagonal = 7, 2, 4, "both"
    elif variant == "great-cross":
        size, low, high, diagonal = 9, 3, 5, "odd"
    else:
        raise SystemExit(f"verify_wdl: no rules for {variant!r} (standard-sideways1 or great-cross)")
    points = [(c, r) for r in range(size) for c in range(size) if low <= c <= high or low <= r <= high]
    on = set(points)
    segments: set[frozenset[tuple[int, int]]] = set()
    for c, r in points:
        for q in ((c + 1, r), (c, r + 1)):
            if q in on:
                segments.add(frozenset({(c, r), q}))
        square = [(c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)]
        if all(p in on for p in square):  # a unit square whose four corners are points
            main, anti = frozenset({(c, r), (c + 1, r + 1)}), frozenset({(c + 1, r), (c, r + 1)})
            if diagonal == "both":
                segments |= {main, anti}
            else:  # great-cross: the diagonal through the corner with c + r odd
                segments.add(main if (c + r) % 2 else anti)
    return points, segments


class Rules:
    """Moves of one variant on dense point numbers (the tables' order)."""

    def __init__(self, variant: str) -> None:
        self.coords, segments = board(variant)
        self.size = len(self.coords)
        number = {p: i for i, p in enumerate(self.coords)}
        self.names = [f"{'abcdefghi'[c]}{r + 1}" for c, r in self.coords]
        self.rows = [r for _, r in self.coords]
        self.steps: list[list[tuple[int, int]]] = [[] for _ in self.coords]  # (direction, neighbour)
        self.jumps: list[list[tuple[int, int]]] = [[] for _ in self.coords]  # (over, landing)
        for i, (c, r) in enumerate(self.coords):
            for d, (dc, dr) in enumerate(DIRECTIONS):
                q, t = (c + dc, r + dr), (c + 2 * dc, r + 2 * dr)
                if frozenset({(c, r), q}) in segments:
                    self.steps[i].append((d, number[q]))
                    if frozenset({q, t}) in segments:  # straight on along the same line
                        self.jumps[i].append((number[q], number[t]))

    def goose_moves(self, geese: int, fox: int) -> list[int]:
        """The goose sets after each goose move: forward, diagonally forward or sideways, onto an empty point."""
        out = []
        for p in range(self.size):
            if geese >> p & 1:
                for _, q in self.steps[p]:
                    if self.rows[q] >= self.rows[p] and q != fox and not geese >> q & 1:
                        out.append(geese ^ (1 << p) ^ (1 << q))
        return out

    def fox_moves(self, geese: int, fox: int) -> list[tuple[int, int]]:
        """(goose set, fox point) after each fox move: a step, or any non-empty chain of jumps."""
        out = [(geese, q) for _, q in self.steps[fox] if not geese >> q & 1]
        stack = [(geese, fox)]
        while stack:
            left, at = stack.pop()
            for over, land in self.jumps[at]:
                if left >> over & 1 and not left >> land & 1:
                    after = (left ^ (1 << over), land)
                    out.append(after)
                    stack.append(after)
        return out


# -- the file and the index of a position ---------------------------------------------------------------


class Layout:
    """Where a position's bits are in a table of one goose count (docs/solver.md, the file format)."""

    def __init__(self, rules: Rules, geese: int) -> None:
        rows = sorted(set(rules.rows))
        self.start = [rules.rows.index(r) for r in rows]
        self.width = [rules.rows.count(r) for r in rows]
        self.points, self.geese = rules.size, geese
        self.rank: list[dict[int, int]] = []  # per row: a row's subset (bits from the row's first point) -> rank
        for w in self.width:
            ranks: dict[int, int] = {}
            for n in range(w + 1):
                subsets = sorted((s for s in range(1 << w) if bin(s).count("1") == n),
                                 key=lambda s, w=w: [b for b in range(w - 1, -1, -1) if s >> b & 1])
                ranks.update({s: i for i, s in enumerate(subsets)})
            self.rank.append(ranks)
        radix = [1]
        for w in self.width[:-1]:
            radix.append(radix[-1] * (w + 1))
        blocks = []
        for counts in self._compositions(self.width, geese):
            code = sum(n * x for n, x in zip(counts, radix))
            row_sum = sum(n * r for r, n in enumerate(counts))
            sets = 1
            for w, n in zip(self.width, counts):
                sets *= comb(w, n)
            blocks.append((row_sum, code, sets))
        blocks.sort()
        self.base: dict[int, int] = {}
        base, level_sets, level = 0, 0, None
        for row_sum, code, sets in blocks:
            if row_sum != level:  # a new level starts on a multiple of 64 goose sets
                base += -(-level_sets // 64) * 64
                level, level_sets = row_sum, 0
            self.base[code] = base + level_sets
            level_sets += sets
        self.sets = base + -(-level_sets // 64) * 64
        self.radix = radix
        self.plane_words = self.sets * (self.points - geese) // 64

    @staticmethod
    def _compositions(widths: list[int], geese: int) -> list[tuple[int, ...]]:
        if not widths:
            return [()] if geese == 0 else []
        return [(n, *rest) for n in range(min(widths[0], geese) + 1)
                for rest in Layout._compositions(widths[1:], geese - n)]

    def bit(self, geese: int, fox: int) -> int:
        index, stride, code = 0, 1, 0
        for r, (s, w) in enumerate(zip(self.start, self.width)):
            value = geese >> s & ((1 << w) - 1)
            n = bin(value).count("1")
            code += n * self.radix[r]
            index += self.rank[r][value] * stride
            stride *= comb(w, n)
        empty_below = bin(~geese & ((1 << fox) - 1)).count("1")
        return (self.base[code] + index) * (self.points - self.geese) + empty_below


class Table:
    """A finished table file: its header and its bits, read with seek (nothing is loaded whole)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stream = open(path, "rb")
        if self.stream.read(len(MAGIC)) != MAGIC:
            raise SystemExit(f"verify_wdl: {path} is not a foxgeese bit table")
        (length,) = struct.unpack("<I", self.stream.read(4))
        self.header = json.loads(self.stream.read(length))
        if self.header.get("array") != "wdl" or not self.header.get("complete"):
            raise SystemExit(f"verify_wdl: {path} is not a finished win/draw/loss table")
        self.geese = int(self.header["geese"])

    def two_bits(self, layout: Layout, planes: tuple[int, int], geese: int, fox: int) -> tuple[int, int]:
        bit = layout.bit(geese, fox)
        out = []
        for p in planes:
            self.stream.seek(HEADER_BYTES + (p * layout.plane_words + (bit >> 6)) * 8)
            (word,) = struct.unpack("<Q", self.stream.read(8))
            out.append(word >> (bit & 63) & 1)
        return out[0], out[1]


class Tables:
    """The table checked and the ones of fewer geese beside it (a capture's positions), with their layouts."""

    def __init__(self, path: Path) -> None:
        first = Table(path)
        self.variant = first.header["variant"]
        self.rules = Rules(self.variant)
        if first.header.get("points") != self.rules.names:
            raise SystemExit(f"verify_wdl: {path} numbers its points {first.header.get('points')}, "
                             f"not {self.rules.names} as the rules here do")
        self.top = first.geese
        self.tables = {self.top: first}
        self.layouts = {}
        for geese in range(FEWEST, self.top + 1):
            self.layouts[geese] = Layout(self.rules, geese)
            if geese < self.top:
                self.tables[geese] = Table(path.with_name(path.name.replace(f"-{self.top}geese.", f"-{geese}geese.")))
        if first.header.get("plane_words") != self.layouts[self.top].plane_words:
            raise SystemExit(f"verify_wdl: {path} has {first.header.get('plane_words')} words a plane, "
                             f"the layout here gives {self.layouts[self.top].plane_words}")

    def value(self, geese: int, fox: int, geese_to_move: bool) -> int:
        """+1 the side to move wins, -1 it loses, 0 a draw, as the tables say; fewer than four geese: fox won."""
        k = bin(geese).count("1")
        if k < FEWEST:
            return -1 if geese_to_move else 1
        planes = (GEESE_WIN, GEESE_LOSE) if geese_to_move else (FOX_WINS, FOX_LOSES)
        win, lose = self.tables[k].two_bits(self.layouts[k], planes, geese, fox)
        if win and lose:
            raise SystemExit(f"verify_wdl: both a win and a loss at {self.text(geese, fox, geese_to_move)}")
        return 1 if win else -1 if lose else 0

    def derived(self, geese: int, fox: int, geese_to_move: bool) -> int:
        """The value from the children's values (the side to move picks the best for itself)."""
        if geese_to_move:
            children = [-self.value(after, fox, False) for after in self.rules.goose_moves(geese, fox)]
        else:
            children = [-self.value(after, at, True) for after, at in self.rules.fox_moves(geese, fox)]
        return max(children, default=-1)  # no move: lost (trapped, immobilized)

    def text(self, geese: int, fox: int, geese_to_move: bool) -> str:
        names = ",".join(self.rules.names[p] for p in range(self.rules.size) if geese >> p & 1)
        return f"fox {self.rules.names[fox]} geese {names}, {'geese' if geese_to_move else 'fox'} to move"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("table", type=Path)
    parser.add_argument("--sample", type=int, default=10000, help="positions to check (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sha256", action="store_true", help="also hash the words after the 64 KiB header")
    parser.add_argument("--decided", action="store_true",
                        help="sample only positions the table says are won or lost (most positions are draws)")
    args = parser.parse_args()
    tables = Tables(args.table)
    rng = random.Random(args.seed)
    size, k = tables.rules.size, tables.top
    digest = sha256(args.table) if args.sha256 else None
    words = "" if digest is None else f", sha256 of the words {digest}"
    print(f"{args.table.name}: {tables.variant}, {k} geese, {comb(size, k) * (size - k) * 2:,} positions{words}")
    if digest is not None and tables.tables[k].header.get("data_sha256") not in (None, digest):
        print("the header's data_sha256 differs: the file is damaged")
        return 1
    wrong = 0
    names = {0: "draw", 1: "win", -1: "loss"}
    seen = {1: 0, 0: 0, -1: 0}
    for _ in range(args.sample):
        while True:
            geese = sum(1 << p for p in rng.sample(range(size), k))
            fox = rng.choice([p for p in range(size) if not geese >> p & 1])
            geese_to_move = rng.random() < 0.5
            table = tables.value(geese, fox, geese_to_move)
            if table or not args.decided:
                break
        derived = tables.derived(geese, fox, geese_to_move)
        seen[table] += 1
        if table != derived:
            wrong += 1
            print(f"  {tables.text(geese, fox, geese_to_move)}: the table says {names[table]}, "
                  f"its moves give {names[derived]}")
    kind = "won or lost" if args.decided else "random"
    print(f"checked {args.sample:,} {kind} positions (seed {args.seed}; the side to move wins {seen[1]:,}, "
          f"draws {seen[0]:,}, loses {seen[-1]:,}): {wrong} disagree")
    return 1 if wrong else 0


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        stream.seek(HEADER_BYTES)
        while block := stream.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


if __name__ == "__main__":
    sys.exit(main())

"""Opening books: files of move lists that games start from, and a way to make one.

A book is what engine testers (cutechess-cli, fastchess) use when the start position decides the
game: in `standard` with 13 geese every searching fox beats every one of our geese, so matches from
the start measure nothing but the roles. A book of positions near the balance point lets the
stronger player show. Each opening is played twice, once in each role, like a random opening.

The format is plain text, one opening per line: moves in the engine's notation separated by spaces
(or commas); `#` starts a comment; blank lines are skipped. Every line is replayed on the variant
when the book is loaded, so a bad move is reported with its file and line before any game starts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from foxgeese.engine import Clock, Game, Side, play_game
from foxgeese.engine.selfplay import Mover, Picked
from foxgeese.engine.userinput import shown
from foxgeese.engine.variants import Variant
from foxgeese.players.registry import make_player
from foxgeese.players.solver.analyse import Judge
from foxgeese.tournaments.bundled import bundled_names, resolve


class BookError(ValueError):
    """A book that cannot be used; the message names the file, the line and the fix."""


def bundled_books() -> list[str]:
    """Names of the books shipped in `foxgeese/tournaments/books` (usable instead of a path)."""
    return bundled_names("books", ".txt")


def resolve_book_path(name_or_path: str, base_dir: Path | None = None) -> Path:
    """A path (relative ones against `base_dir`), or the name of a bundled book."""
    return resolve(name_or_path, "books", (".txt",), base_dir)


def load_book(name_or_path: str, variant: Variant, base_dir: Path | None = None) -> list[tuple[str, ...]]:
    """The openings of a book, each checked on `variant`: legal, and not a finished game."""
    path = resolve_book_path(name_or_path, base_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        known = ", ".join(bundled_books()) or "none"
        missing = f"no such file {shown(str(path), 200)} (bundled books: {known})"
        raise BookError(f"book {shown(name_or_path, 200)}: {missing}") from None
    except OSError as error:
        unreadable = f"cannot read {shown(str(path), 200)}: {error.strerror}"
        raise BookError(f"book {shown(name_or_path, 200)}: {unreadable}") from None
    except UnicodeDecodeError as error:
        raise BookError(f"book {shown(name_or_path, 200)}: not UTF-8 text (byte {error.start})") from None
    openings = parse_book(text, variant, label=name_or_path)  # errors name the book as its user wrote it
    if not openings:
        raise BookError(
            f"book {shown(name_or_path, 200)}: holds no openings (one line of moves each, e.g. 'd4-d5 c3-c4')"
        )
    return openings


def parse_book(text: str, variant: Variant, label: str = "book") -> list[tuple[str, ...]]:
    """Parses book text; moves are returned in canonical notation (lower case)."""
    openings = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].replace(",", " ").split()
        if not words:
            continue
        game = Game(variant)
        for ply, word in enumerate(words, start=1):
            try:
                move = game.parse_move(word)
            except ValueError as error:
                raise BookError(f"{label}:{number}: ply {ply}: {error}") from None
            game.push(move)
        outcome = game.outcome()
        if outcome is not None:
            raise BookError(f"{label}:{number}: the game is over after this opening "
                            f"({outcome.termination.value}); a book line must leave a game to play")
        openings.append(tuple(str(move) for move in game.moves))
    return openings


def make_book(
    variant: Variant, count: int, plies: int, random_side: Side, player_spec: str, seed: int = 0,
    known: bool = False, tables: str | None = None, progress: Callable[[int, int], None] | None = None,
) -> list[tuple[str, ...]]:
    """`count` distinct openings of `plies` plies: `random_side` moves at random, the other side
    plays `player_spec` (a handicap that pushes the start towards the other side's game).

    Unfinished games only, at most 20 tries per opening; the same seed gives the same book.
    `known`: keep only openings whose end position a solved table knows the value of, half of them
    won by each side with best play (at most 200 tries per opening), so a match from the book
    asks each player to win won positions and to hold the others.
    `progress(found, count)` is called after each opening found.
    """
    rng = random.Random(seed)
    book: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    judge = None
    won_by: list[Side] = []
    if known:
        judge = Judge(tables)
        quota = {Side.PREDATOR: (count + 1) // 2, Side.PREY: count // 2}
    for _ in range((200 if known else 20) * count):
        if len(book) == count:
            break
        players: dict[Side, Mover] = {random_side: _TextOrderRandom(rng), random_side.other: make_player(player_spec)}
        game = play_game(Game(variant), players, max_plies=plies)
        opening = tuple(str(move) for move in game.moves)
        if game.outcome() is not None or opening in seen:
            continue
        if judge is not None:
            value = judge.value(game.position)
            if not value:  # unknown, or a draw
                continue
            winner = game.position.turn if value > 0 else game.position.turn.other
            if quota[winner] == 0:
                continue
            quota[winner] -= 1
            won_by.append(winner)
        seen.add(opening)
        book.append(opening)
        if progress is not None:
            progress(len(book), count)
    if known:  # alternate the winners, so that the first 2n openings of the book are balanced too
        fox_won = [o for o, w in zip(book, won_by) if w == Side.PREDATOR]
        geese_won = [o for o, w in zip(book, won_by) if w == Side.PREY]
        book = [o for pair in zip(fox_won, geese_won) for o in pair] + fox_won[len(geese_won):] + \
            geese_won[len(fox_won):]
    return book


def format_book(openings: list[tuple[str, ...]], header: list[str] | None = None) -> str:
    """Book text: optional `# ` comment lines, then one opening per line."""
    lines = [f"# {line}" if line else "#" for line in header or []]
    lines += [" ".join(opening) for opening in openings]
    return "\n".join(lines) + "\n"



class _TextOrderRandom:
    """The handicapped side of `make_book`: a uniform pick among the legal moves in text order,
    from the book's own generator (so a seed gives one book)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        """Nothing to forget: the generator runs on across the book's games."""

    def choose(self, game: Game, clock: Clock) -> Picked:
        return Picked(self.rng.choice(sorted(game.legal_moves(), key=str)))

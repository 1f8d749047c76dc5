"""Opening books: the file format, every mistake named by file and line, books in tournament
configs and schedules, the bundled book, and `foxgeese tournament book`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from foxgeese.engine import Game, Side, get_variant
from foxgeese.tournaments.book import BookError, bundled_books, format_book, load_book, make_book, parse_book
from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.errors import ConfigError
from foxgeese.tournaments.schedule import make_schedule

STANDARD = get_variant("standard")

BOOK = """\
# two openings
d4-d5 c3-c4      # a comment after the moves
  D4-E4, E3-F4   # any case, commas

d4-c4
"""


def test_book_lines_parse_to_canonical_moves() -> None:
    assert parse_book(BOOK, STANDARD) == [("d4-d5", "c3-c4"), ("d4-e4", "e3-f4"), ("d4-c4",)]


def test_a_bad_move_names_the_file_line_and_ply() -> None:
    with pytest.raises(BookError) as caught:
        parse_book("d4-d5\nd4-d5 c3-c9\n", STANDARD, label="my.txt")
    assert str(caught.value).startswith("my.txt:2: ply 2: c3-c9: c9 is not a point")
    with pytest.raises(BookError, match=r"my.txt:1: ply 1: .*no fox on c3"):
        parse_book("c3-c4\n", STANDARD, label="my.txt")


def test_a_line_that_finishes_the_game_is_refused() -> None:
    hare = get_variant("hare-and-hounds")
    game = Game(hare)  # the first legal move in text order, until the game ends
    moves = []
    while game.outcome() is None:
        move = sorted(game.legal_moves(), key=str)[0]
        moves.append(str(move))
        game.push(move)
    with pytest.raises(BookError, match=r"book:1: the game is over after this opening \((\w|-)+\)"):
        parse_book(" ".join(moves), hare)
    assert parse_book(" ".join(moves[:-1]), hare) == [tuple(moves[:-1])]


def test_missing_book_lists_the_bundled_ones(tmp_path: Path) -> None:
    message = r"book 'nope.txt': no such file '.*nope.txt' \(bundled books: standard-balanced, standard-known\)"
    with pytest.raises(BookError, match=message):
        load_book("nope.txt", STANDARD, base_dir=tmp_path)
    (tmp_path / "empty.txt").write_text("# nothing\n\n")
    with pytest.raises(BookError, match="holds no openings"):
        load_book("empty.txt", STANDARD, base_dir=tmp_path)


def test_bundled_book_loads_by_name_and_every_line_is_a_live_game() -> None:
    assert bundled_books() == ["standard-balanced", "standard-known"]
    openings = load_book("standard-balanced", STANDARD)
    assert len(openings) >= 100 and len(set(openings)) == len(openings)
    assert {len(opening) for opening in openings} == {44}
    known = load_book("standard-known", STANDARD)  # the quick tournament's: solved, winners alternate
    assert len(known) == 8 and {len(opening) for opening in known} == {30}


def test_make_book_is_seeded_distinct_and_lets_one_side_move_at_random() -> None:
    book = make_book(STANDARD, count=4, plies=6, random_side=Side.PREDATOR, player_spec="minimax:depth=1", seed=3)
    assert book == make_book(STANDARD, count=4, plies=6, random_side=Side.PREDATOR,
                             player_spec="minimax:depth=1", seed=3)
    assert len(book) == 4 and len(set(book)) == 4 and {len(opening) for opening in book} == {6}
    assert len({opening[0] for opening in book}) > 1  # the fox's first moves differ: it moves at random
    geese_moves = {opening[1::2] for opening in book if opening[0] == book[0][0]}
    assert len({moves[0] for moves in geese_moves}) == 1  # after the same fox move, the same goose reply
    other = make_book(STANDARD, count=4, plies=6, random_side=Side.PREDATOR, player_spec="minimax:depth=1", seed=4)
    assert other != book


def test_a_made_book_reads_back_the_same_in_every_variant() -> None:
    for variant in (STANDARD, get_variant("great-cross"), get_variant("hare-and-hounds")):
        book = make_book(variant, count=5, plies=8, random_side=Side.PREY, player_spec="random:seed=2", seed=1)
        text = format_book(book, header=["a header", ""])
        assert text.startswith("# a header\n#\n")
        assert parse_book(text, variant) == book


def config_with_book(tmp_path: Path, book_line: str, book_text: str, games: int = 6) -> Path:
    (tmp_path / "books").mkdir(exist_ok=True)
    (tmp_path / "books" / "mine.txt").write_text(book_text)
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: t
        variants:
          - id: standard
            {book_line}
          - id: hare-and-hounds
        players:
          - name: a
            spec: random:seed=1
          - name: b
            spec: random:seed=2
        games_per_pairing: {games}
        opening_plies: 1
        """))
    return path


def test_schedule_takes_book_lines_in_order_and_wraps(tmp_path: Path) -> None:
    path = config_with_book(tmp_path, "book: books/mine.txt", "d4-d5 c3-c4\nd4-c4\n")
    schedule = make_schedule(load_config(path).config)
    standard = [game.opening for game in schedule if game.variant_id == "standard"]
    assert standard == [("d4-d5", "c3-c4")] * 2 + [("d4-c4",)] * 2 + [("d4-d5", "c3-c4")] * 2
    others = [game.opening for game in schedule if game.variant_id == "hare-and-hounds"]
    assert {len(opening) for opening in others} == {1}  # opening_plies still applies without a book


def test_bad_book_in_a_config_is_one_line_with_the_key_path(tmp_path: Path) -> None:
    path = config_with_book(tmp_path, "book: books/mine.txt", "d4-d5\nd4-d5 c3-c9\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    (problem,) = caught.value.problems
    assert problem == (f"{path}:3: variants[0]: books/mine.txt:2: ply 2: c3-c9: "
                       "c9 is not a point of the standard board")
    missing = config_with_book(tmp_path, "book: books/other.txt", "d4-d5\n")
    with pytest.raises(ConfigError, match=r"variants\[0\]: book 'books/other.txt': no such file '.*/books/other.txt'"):
        load_config(missing)


def test_bundled_config_names_the_bundled_book(tmp_path: Path) -> None:
    path = config_with_book(tmp_path, "book: standard-balanced", "")
    config = load_config(path).config
    assert config.variants[0].openings == tuple(load_book("standard-balanced", STANDARD))


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "book", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=60)


def test_book_command_writes_a_book_that_loads(tmp_path: Path) -> None:
    done = run_cli("standard", "--random", "fox", "--plies", "4", "--count", "3", "--player", "minimax:depth=1",
                   "--out", "b.txt", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "3 openings written to b.txt"  # after the progress lines
    text = (tmp_path / "b.txt").read_text()
    assert text.startswith(
        "# 3 openings of standard (geese=13,sideways=0): fox at random, the other side minimax:depth=1\n"
        "# made by: foxgeese tournament book standard --random fox --plies 4 --count 3 --seed 0 "
        "--player minimax:depth=1\n")
    assert len(load_book(str(tmp_path / "b.txt"), STANDARD)) == 3


@pytest.mark.parametrize("args, message", [
    (["standard", "--random", "wolf", "--plies", "4"],
     "foxgeese: --random: 'wolf' is not a side of standard; use fox or geese"),
    (["standrd", "--random", "fox", "--plies", "4"], "foxgeese: unknown variant 'standrd'"),
    (["standard", "--random", "fox", "--plies", "4", "--player", "minimax:dep=3"],
     "foxgeese: unknown option 'dep' for minimax"),
    (["standard", "--random", "fox", "--plies", "4", "--out", "no/such/folder/b.txt"],
     "foxgeese: --out no/such/folder/b.txt: no such folder"),
])
def test_book_command_mistakes_are_one_line_with_status_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1


def test_a_tournament_plays_its_games_from_the_book(tmp_path: Path) -> None:
    from foxgeese.tournaments.journal import read_journal
    from foxgeese.tournaments.report import game_entries

    lines = ["d4-d5 c3-c4 d5-d6", "d4-c4 e3-f4"]
    path = config_with_book(tmp_path, "book: books/mine.txt", "\n".join(lines) + "\n", games=4)
    path.write_text(path.read_text().replace("  - id: hare-and-hounds\n", "") + "time_control: move=0.2\n")
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out", "out",
                           "--quiet"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    games = sorted(game_entries(read_journal(tmp_path / "out")), key=lambda game: game.id)
    assert [" ".join(game.opening) for game in games] == [lines[0], lines[0], lines[1], lines[1]]
    for game in games:
        moves = game.record.moves
        assert [(move.move, move.book) for move in moves[: len(game.opening)]] == [
            (text, True) for text in game.opening]
        assert len(moves) > len(game.opening) and not moves[len(game.opening)].book

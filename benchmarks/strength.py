"""Strength evidence: in-process matches, win rates per pairing (prints figures, not a test).

    python benchmarks/strength.py [--games 20] [--variants standard,great-cross,hare-and-hounds]
                                  [--pairings search-vs-random,depth] [--referee 1+0.1] [--opening 2]
                                  [--workers 2] [--players minimax,mcts] [--roles predator,prey]

Pairings: minimax and MCTS against random in both roles on each variant (target: >= 95% wins),
and minimax at depth d+2 against depth d in both roles. Each game starts with two random plies
(`--opening`) so that deterministic players do not repeat one game; seeds make the whole run
replayable. The second of them is a random goose step, and in `standard` about half of those move
b3 or f3 (or a wing goose), a point no goose can ever fill again: `--opening 0` measures the players
from the start position (the random player still varies every game). `--players mcts --roles prey`
plays only the games you name; `--referee move=1` gives every move one second. `--book NAME|FILE`
starts the games from an opening book instead (`standard-balanced`: in `standard` the fox wins from
the start whoever searches deeper), each line once in each role, and counts the pairs.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from foxgeese.engine import Game, Side, Termination, get_variant, play_game
from foxgeese.engine.variants import parse_options
from foxgeese.players.registry import make_player
from foxgeese.tournaments.book import BookError, load_book

OPENING_PLIES = 2
Opening = int | tuple[str, ...]  # random plies from the game's seed, or a book line
MAX_PLIES = 400  # standard without sideways always ends; the others end by fifty moves/stalling


def start(variant, seed: int, opening: Opening) -> Game:
    """The game after the opening: that many random plies from `seed`, or a book line's moves."""
    game = Game(variant)
    if isinstance(opening, int):
        rng = random.Random(seed)
        for _ in range(opening):
            if game.outcome() is None:
                game.push(rng.choice(game.legal_moves()))
    else:
        for text in opening:
            game.push(game.parse_move(text))
    return game


def play(
    variant, predator_spec: str, prey_spec: str, seed: int, opening: Opening = OPENING_PLIES
) -> tuple[str, str, int]:
    """One game: (winner value, termination, plies), after the opening (see `start`)."""
    players = {Side.PREDATOR: make_player(predator_spec), Side.PREY: make_player(prey_spec)}
    game = play_game(start(variant, seed, opening), players, max_plies=MAX_PLIES)
    outcome = game.outcome()
    if outcome is None:
        return "unfinished", "max-plies", len(game.moves)
    return outcome.winner.value, outcome.termination.value, len(game.moves)


def play_refereed(
    variant, predator_spec: str, prey_spec: str, seed: int, time_control: str, opening: Opening = OPENING_PLIES
) -> tuple[str, str, int]:
    """One game through the real referee: bot processes, ZeroMQ, clocks (the same opening)."""
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee
    from foxgeese.protocol.timecontrol import TimeControl

    game = start(variant, seed, opening)
    seats = {Side.PREDATOR: BotConfig.from_spec(predator_spec), Side.PREY: BotConfig.from_spec(prey_spec)}
    with Referee() as referee:
        record = referee.play_game(
            variant, seats, TimeControl.parse(time_control), opening=[str(m) for m in game.moves],
            max_plies=MAX_PLIES, game_id=f"strength-{seed}",
        )
    winner = record.winner if isinstance(record.winner, str) else record.winner.value
    if record.termination not in {t.value for t in Termination}:
        print(f"    referee ending: {record.termination} ({record.reason})", flush=True)
    return winner, record.termination, len(record.moves)


def _one_game(
    variant, specs: tuple[str, str], seed: int, referee_tc: str | None, opening: Opening
) -> tuple[str, str, int]:
    """(winner, termination, plies) of one game, in-process or through the referee."""
    if referee_tc:
        return play_refereed(variant, *specs, seed=seed, time_control=referee_tc, opening=opening)
    return play(variant, *specs, seed=seed, opening=opening)


def match(
    variant, strong: str, weak: str, games: int, seed: int, referee_tc: str | None = None,
    opening: int = OPENING_PLIES, workers: int = 1, roles: tuple[Side, ...] = (Side.PREDATOR, Side.PREY),
    book: list[tuple[str, ...]] | None = None,
) -> None:
    """`strong` plays each role `games` times; prints its score (wins + draws/2) per role and how
    the games it did not win ended. Games are independent, so `workers` processes share them.

    With a `book`, game i of each role starts from book line i (wrapping around), so the games of
    both roles form pairs on the same opening, and a last line counts the pairs by score.
    """
    scores: dict[Side, list[float]] = {}
    for role in roles:
        started = time.perf_counter()
        jobs = []
        for index in range(games):
            weak_spec = weak.replace("SEED", str(seed + index))
            strong_spec = strong.replace("SEED", str(seed + 1000 + index))
            specs = (strong_spec, weak_spec) if role == Side.PREDATOR else (weak_spec, strong_spec)
            game_opening = book[index % len(book)] if book else opening
            jobs.append((variant, specs, seed + index, referee_tc, game_opening))
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                results = list(pool.map(_one_game, *zip(*jobs)))
        else:
            results = [_one_game(*job) for job in jobs]
        wins = sum(winner == variant.side_name(role) for winner, _, _ in results)
        draws = sum(winner in ("draw", "unfinished") for winner, _, _ in results)
        plies = sum(length for _, _, length in results)
        others = Counter(end for winner, end, _ in results if winner != variant.side_name(role))
        elapsed = time.perf_counter() - started
        rate = (wins + draws / 2) / games
        not_won = ", ".join(f"{end} {count}" for end, count in others.most_common()) or "-"
        print(
            f"{str(variant):<30} {_label(strong):<22} as {variant.side_name(role):<6} vs {_label(weak):<18} "
            f"won {wins:>3}/{games} drawn {draws:>3}  score {rate:6.1%}  "
            f"({plies / games:5.1f} plies/game, {elapsed / games:5.2f} s/game; not won: {not_won})",
            flush=True,
        )
        mine = variant.side_name(role)
        scores[role] = [1.0 if winner == mine else 0.5 if winner in ("draw", "unfinished") else 0.0
                        for winner, _, _ in results]
    if book and len(scores) == 2:
        pairs = Counter(a + b for a, b in zip(*scores.values()))
        counts = "  ".join(f"{score:g}: {pairs[score]}" for score in (2, 1.5, 1, 0.5, 0))
        print(f"{'':<30} {_label(strong):<22} pairs by its score (both roles, one book line): {counts}", flush=True)


def _label(spec: str) -> str:
    """The SPEC without its per-game seed."""
    return spec.replace(",seed=SEED", "").replace(":seed=SEED", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per pairing and role")
    parser.add_argument(
        "--variants",
        default="standard,great-cross,hare-and-hounds",
        help="comma-separated; options after a colon, joined by +: standard:geese=17",
    )
    parser.add_argument("--pairings", default="search-vs-random,depth")
    parser.add_argument("--minimax", default="minimax:depth=3,seed=SEED")
    parser.add_argument("--mcts", default="mcts:playouts=400,seed=SEED")
    parser.add_argument("--players", default="minimax,mcts", help="which searches play search-vs-random")
    parser.add_argument("--roles", default="predator,prey", help="which roles the named player takes")
    parser.add_argument("--depth", type=int, default=2, help="d in 'depth d+2 vs depth d'")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--opening", type=int, default=OPENING_PLIES,
        help="random plies before the players start (the 2nd is a random goose step: b3 or f3 moved never refills)",
    )
    parser.add_argument(
        "--book", metavar="NAME|FILE",
        help="start game i of each role from line i of this opening book instead (e.g. standard-balanced)",
    )
    parser.add_argument("--referee", metavar="TC", help="play through the referee with this time control")
    parser.add_argument("--workers", type=int, default=1, help="games played at once, one process each")
    args = parser.parse_args()
    try:
        roles = tuple(Side[role.strip().upper()] for role in args.roles.split(","))
    except KeyError:
        parser.error(f"--roles: {args.roles!r}; use predator, prey or predator,prey")
    searches = {"minimax": args.minimax, "mcts": args.mcts}
    chosen = [name.strip() for name in args.players.split(",")]
    unknown = [name for name in chosen if name not in searches]
    if unknown:
        parser.error(f"--players: unknown search {unknown[0]!r}; choose from minimax, mcts")
    common = (args.games, args.seed, args.referee, args.opening, args.workers, roles)
    for variant_text in args.variants.split(","):
        variant_id, _, options = variant_text.strip().partition(":")
        try:
            variant = get_variant(variant_id, **parse_options(options.replace("+", ",") or "-"))
        except ValueError as error:
            parser.error(f"--variants: {error}")
        book = None
        if args.book:
            try:
                book = load_book(args.book, variant)
            except BookError as error:
                parser.error(f"--book: {error}")
        if "search-vs-random" in args.pairings:
            for name in chosen:
                match(variant, searches[name], "random:seed=SEED", *common, book=book)
        if "depth" in args.pairings:
            deep = f"minimax:depth={args.depth + 2},seed=SEED"
            shallow = f"minimax:depth={args.depth},seed=SEED"
            match(variant, deep, shallow, *common, book=book)


if __name__ == "__main__":
    main()

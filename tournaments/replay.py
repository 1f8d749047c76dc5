"""The replay viewer: a game record turned into what a page steps through, and the viewer itself.

`replay_data(record)` replays a `GameRecord` with the engine and keeps, for every ply, the board's
overlay (engine/svg.py), the move, both clocks, the think time and the bot's `info`. The board's
fixed layers are stored once per variant (`boards`), so a report of many games stays small. The
viewer's script and style (assets/) are the same in the HTML report and in `foxgeese serve`.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

from foxgeese.engine import Game, Position, words
from foxgeese.engine.svg import board_parts, overlay_svg
from foxgeese.protocol.record import DRAW, GameRecord
from foxgeese.protocol.timecontrol import TimeControl, TimeControlError

ASSETS = "assets"


class ReplayError(ValueError):
    """A record whose moves do not replay from its start position."""


def board_key(position: Position) -> str:
    """Which fixed board layers a position needs: its variant and options (`standard geese=13,...`)."""
    return f"{position.variant.id} {position.variant.options_text()}"


def replay_data(record: GameRecord, boards: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The viewer's data for one record; adds its board to `boards`."""
    try:
        start = Position.from_text(record.start)
    except ValueError as error:
        raise ReplayError(str(error)) from None
    boards = {} if boards is None else boards
    key = board_key(start)
    if key not in boards:
        boards[key] = list(board_parts(start.variant))
    variant = start.variant
    seats = {side: seat.name for side, seat in record.bots.items()}
    clocks = _start_clocks(record.time_control, [variant.predator_name, variant.prey_name], record.start_clocks)
    game = Game.from_position(start)
    plies: list[dict[str, Any]] = [{"overlay": overlay_svg(start), "position": start.text(), "clocks": dict(clocks)}]
    for number, entry in enumerate(record.moves, 1):
        side = variant.side_name(game.position.turn)
        try:
            move = game.parse_move(entry.move)
        except ValueError as error:
            raise ReplayError(f"ply {number}: {error}") from None
        game.push(move)
        if not entry.book and clocks:
            clocks[side] = entry.clock_ms
        plies.append({
            "overlay": overlay_svg(game.position, last_move=move),
            "position": game.position.text(),
            "move": str(move),
            "side": side,
            "think_ms": entry.think_ms,
            "book": entry.book,
            "info": _shown_info(entry.info),
            "clocks": dict(clocks),
        })
    return {
        "id": record.game_id,
        "board": key,
        "variant": str(variant),
        "sides": [variant.predator_name, variant.prey_name],
        "seats": seats,
        "time_control": record.time_control,
        "result": result_words(record.winner, record.termination, record.plies, record.reason),
        "plies": plies,
    }


def _shown_info(info: Any) -> dict[str, Any]:
    """The part of a bot's `info` the viewer shows, of the types it expects (a record is any file)."""
    if not isinstance(info, dict):
        return {}
    shown = {key: info[key] for key in ("score", "mate", "depth", "nodes")
             if isinstance(info.get(key), int | float) and not isinstance(info.get(key), bool)}
    pv = info.get("pv")
    if isinstance(pv, list):
        shown["pv"] = [str(move) for move in pv[:10]]
    return shown


def result_words(winner: str, termination: str, plies: int, reason: str = "") -> str:
    """`fox wins by captured after 40 plies: reason` (a record's own result line)."""
    verdict = "draw" if winner == DRAW else words.side_verb(winner, "wins", "win")
    line = f"{verdict} by {termination or '?'} after {words.plies(plies)}"
    return f"{line}: {reason}" if reason else line


def result_text(record: dict[str, Any]) -> str:
    """`result_words` of a record given as plain JSON (a web game's, a file `foxgeese show` reads),
    whatever of it is there."""
    winner = record.get("winner", "draw")
    verdict = "draw" if winner == "draw" else words.side_verb(str(winner), "wins", "win")
    count = record.get("plies", len(record.get("moves", [])))
    length = words.plies(count) if isinstance(count, int) else f"{count} plies"
    line = f"{verdict} by {record.get('termination', '?')} after {length}"
    return f"{line}: {record['reason']}" if record.get("reason") else line


def _start_clocks(time_control: str, sides: list[str], given: dict[str, int]) -> dict[str, int]:
    """Both clocks at the start: the record's `start_clocks` where it has them (a game played on
    from a kept position), else from its time control text; {} when that does not read."""
    try:
        control = TimeControl.parse(time_control)
    except (TimeControlError, TypeError, ValueError):
        return {}
    start = control.per_move_ms if control.is_per_move else control.base_ms
    return {side: given.get(side, start) for side in sides}


def asset(name: str) -> str:
    """The text of one of the viewer's files (replay.js, replay.css, ...)."""
    return resources.files("foxgeese.tournaments").joinpath(ASSETS, name).read_text(encoding="utf-8")


_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                  "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(data: Any) -> str:
    """JSON safe inside `<script type="application/json">`: no `<`, `>` or `&` (so no `</script>` or
    `<!--` can end or bend the element) and no line separators, each written as its \\u escape."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True).translate(_SCRIPT_ESCAPES)


def replay_page(record: GameRecord, title: str = "", back_link: str = "", nonce: str = "",
                head: str = "", links: tuple[tuple[str, str], ...] = ()) -> str:
    """One self-contained HTML page replaying one game. A server gives its response's CSP `nonce`
    (the page's two scripts are inline), any `head` markup of its own pages, and `links` (address,
    text) shown beside the back link (a server's review of the game)."""
    boards: dict[str, list[str]] = {}
    game = replay_data(record, boards)
    heading = title or f"game {game['id']}"
    shown_links = ([f'<a href="{escape(back_link)}">&larr; back</a>'] if back_link else []) + [
        f'<a href="{escape(href)}">{escape(text)}</a>' for href, text in links]
    back = f"<p class=fg-links>{' · '.join(shown_links)}</p>" if shown_links else ""
    script = f'<script nonce="{escape(nonce)}">' if nonce else "<script>"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(heading)}</title><link rel=icon href='data:,'>"
        f"<meta name=viewport content='width=device-width,initial-scale=1'>{head}"
        f"<style>{asset('replay.css')}</style></head><body>{back}<h1>{escape(heading)}</h1>"
        '<div id="fg-viewer" class="fg-viewer"></div>'
        f'<script type="application/json" id="fg-data">{script_json({"boards": boards, "games": [game]})}</script>'
        f"{script}{asset('replay.js')}</script>"
        f"{script}FoxgeeseReplay.mountFromData('fg-viewer','fg-data',0);</script></body></html>"
    )


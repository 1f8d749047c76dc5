"""A config mistake in foxgeese's words: what a key got and what the file should hold there.

The schema (config.py) is pydantic's; its error messages ("Input should be a valid list") are
not shown to a user. Each error is reported as `FILE:LINE: key.path: got X; give SHAPE`, where
SHAPE is the key's own description from `SHAPES` (as docs/tournaments.md writes the file). Every
error type the schema can raise is named in `ERROR_TYPES` (tests/test_tournament_config.py
checks that each one a broken config produces is there, and that no pydantic wording leaks).
"""

from __future__ import annotations

import re
from typing import Any

from foxgeese.engine import DEFAULT_VARIANT, VARIANT_IDS
from foxgeese.engine.userinput import did_you_mean, shown

# What each key holds, in the file's own terms (`[]` is an item of a list).
SHAPES = {
    "name": "a name of letters, digits and _ . - only (it names the output folder), e.g. `name: my-match`",
    "variants": "a list of variants, one `- id: VARIANT` item each, e.g. `variants: [{id: standard}]`",
    "variants[]": "a variant: a mapping with `id` and optionally `options` and `book`, e.g. `- id: standard`",
    "variants[].id": f"a variant id: {', '.join(VARIANT_IDS[:-1])} or {VARIANT_IDS[-1]}, e.g. `id: {DEFAULT_VARIANT}`",
    "variants[].options": "a mapping of the variant's options, e.g. `options: {geese: 15, sideways: true}` or "
                          "`options: {diagonals: alternating}`",
    "variants[].book": "an opening book: a bundled book's name or a file relative to this file's folder, "
                       "e.g. `book: standard-balanced`",
    "players": "a list of two or more players, e.g. `players: [{name: mm3, spec: 'minimax:depth=3'}, "
               "{name: rnd, spec: random}]`",
    "players[]": "a player: a mapping with `name` and either `spec` (a built-in player) or `command` (an "
                 "external bot), e.g. `- {name: mm3, spec: 'minimax:depth=3'}`",
    "players[].name": "the player's name in the tables, e.g. `name: mm3`",
    "players[].spec": "a player SPEC, e.g. `spec: minimax:depth=3` or `spec: cmd:./mybot`",
    "players[].command": "the bot's program and its arguments as a list of texts, e.g. `command: [node, bot.js]`",
    "players[].command[]": "one word of the bot's command line, as text",
    "players[].cwd": "the folder the bot runs in, relative to this file's folder, e.g. `cwd: bots`",
    "players[].env": "a mapping of environment variables to texts, e.g. `env: {MYBOT_LEVEL: \"3\"}`",
    "players[].env.*": "text (quote a number: \"3\")",
    "players[].sandbox": "true or false",
    "players[].transport": "how the bot reaches the referee: `auto`, `ipc` or `tcp` (loopback), e.g. `transport: tcp`",
    "games_per_pairing": "an even number of games per pair and variant, from 2 to 1000000, e.g. "
                         "`games_per_pairing: 4`",
    "time_control": "a time control: base seconds + increment, e.g. `time_control: 10+0.1`, or a fixed time "
                    "per move, `move=0.5`",
    "format": "round-robin or gauntlet",
    "gauntlet_player": "one of the player names",
    "concurrency": "a number of game slots from 1 to 64, or auto",
    "seed": "a whole number from 0 to 9223372036854775807, e.g. `seed: 1`",
    "opening_plies": "a number of random opening plies from 0 to 40, e.g. `opening_plies: 4`",
    "max_plies": "a ply limit from 1 to 100000 (the game is a draw after it), e.g. `max_plies: 300`",
    "adjudicate": "tables (end a game once a solved table proves its result), or leave the key out",
    "adjudicate_from_ply": "a ply from 1 to 100000, e.g. `adjudicate_from_ply: 60`",
    "output_dir": "a folder for the results, e.g. `output_dir: runs/my-match`",
    "sprt": "a mapping like `sprt: {elo0: 0, elo1: 20}` (optionally alpha and beta)",
    "sprt.elo0": "an Elo difference in pair-score Elo (the head to head's unit), a number, e.g. `elo0: 0`",
    "sprt.elo1": "a pair-score Elo difference larger than elo0, a number, e.g. `elo1: 20`",
    "sprt.alpha": "a probability above 0 and below 0.5, e.g. `alpha: 0.05`",
    "sprt.beta": "a probability above 0 and below 0.5, e.g. `beta: 0.05`",
    "executor": "local or ray",
    "affinity": "auto or off",
    "ray": "a mapping like `ray: {address: HEAD:6379}` (optionally working_dir, excludes, num_cpus)",
    "ray.address": "a Ray head's address, e.g. `address: HEAD:6379`",
    "ray.working_dir": "the folder shipped to the workers, e.g. `working_dir: .`",
    "ray.excludes": "a list of paths not to ship, e.g. `excludes: [runs]`",
    "ray.excludes[]": "a path, as text",
    "ray.num_cpus": "the CPUs a game slot reserves, above 0 and at most 64, e.g. `num_cpus: 1`",
    "events": "a mapping like `events: {pub: \"tcp://127.0.0.1:5599\"}`",
    "events.pub": "a ZeroMQ address, tcp://HOST:PORT or ipc://PATH",
}

# Every error type the schema raises, and how its message starts (before `give SHAPE`).
ERROR_TYPES = {
    "missing": "required key is missing",
    "extra_forbidden": "unknown key",
    "invalid_key": "a key that is not text",  # e.g. `3: x` in a player
    "value_error": "",  # the schema's own validators: already in foxgeese's words
    "model_type": "got {got}",  # a mapping expected (a variant, a player, sprt, ray, events)
    "dict_type": "got {got}",
    "list_type": "got {got}",
    "string_type": "got {got}",
    "int_type": "got {got}",
    "int_parsing": "got {got}",
    "int_from_float": "got {got}, not a whole number",
    "float_type": "got {got}",
    "float_parsing": "got {got}",
    "finite_number": "got {got}, not a finite number",
    "bool_type": "got {got}",
    "bool_parsing": "got {got}",
    "literal_error": "got {got}",
    "string_pattern_mismatch": "got {got}",
    "string_too_short": "got empty text",
    "string_too_long": "got text of {length} characters (at most {max_length})",
    "too_short": "got {got}",
    "greater_than_equal": "got {got}, below {ge}",
    "greater_than": "got {got}, which is not above {gt}",
    "less_than_equal": "got {got}, above {le}",
    "less_than": "got {got}, which is not below {lt}",
}


def got(value: Any) -> str:
    """What a key was given, in YAML's terms: `a list of 2 items`, `the text 'x'`, `nothing`."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value:g}" if isinstance(value, float) else f"the number {value}"
    if isinstance(value, str):
        return f"the text {shown(value)}" if value else "empty text"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping (key: value)" if value else "an empty mapping"
    return shown(value)


def shape_of(loc: tuple[Any, ...]) -> str | None:
    """The description of the key at `loc` (list indices as `[]`, a mapping's own keys as `*`)."""
    path = ""
    for index, part in enumerate(loc):
        if isinstance(part, int):
            path += "[]"
        elif index and path in ("players[].env", "variants[].options"):
            path += ".*"
        else:
            path += ("." if path else "") + str(part)
    return SHAPES.get(path)


def describe(kind: str, loc: tuple[Any, ...], given: Any, context: dict[str, Any] | None, message: str,
             allowed: list[str]) -> str:
    """`key.path: got X; give SHAPE` for one schema error (`message`: pydantic's, used only for a
    value_error, whose text is our own validators')."""
    context = dict(context or {})
    if kind == "value_error":
        return re.sub(r"^(Value|Assertion) error, ", "", message)
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else ""
        return f"unknown key{did_you_mean(name, allowed)}; allowed keys: {', '.join(allowed)}"
    if kind == "missing":
        shape = shape_of(loc)
        return "required key is missing" + (f"; give {shape}" if shape else "")
    if kind == "invalid_key":
        return "a key that is not text; keys are words like `name`, `spec`"
    if loc and loc[-1] == "[key]":
        return f"got {got(given)} as a key; keys are texts"
    lead = ERROR_TYPES.get(kind, "got {got}")
    bounds = {key: f"{value:g}" if isinstance(value, float) else value for key, value in context.items()}
    fields = {"got": got(given), "length": len(given) if isinstance(given, str) else 0, **bounds}
    try:
        head = lead.format(**fields)
    except (KeyError, IndexError, ValueError):
        head = f"got {got(given)}"
    if kind == "too_short" and "min_length" in context:
        head += f", fewer than {context['min_length']}"
    shape = shape_of(loc)
    return f"{head}; give {shape}" if shape else f"{head}; {_fallback(kind)}"


def _fallback(kind: str) -> str:
    """For a key with no entry in SHAPES (none today): the kind of value it needs."""
    for prefix, need in (("int", "a whole number"), ("float", "a number"), ("bool", "true or false"),
                         ("string", "text"), ("list", "a list"), ("dict", "a mapping"), ("model", "a mapping")):
        if kind.startswith(prefix):
            return f"give {need}"
    return "see docs/tournaments.md for what the key holds"

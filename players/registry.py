"""Player SPEC registry: `NAME[:key=value,...]` -> a `Player`.

Players are imported lazily so that `make_player("random")` does not pay for the search modules,
and so that the solver (another module, possibly heavy) loads only when asked for.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from foxgeese.players.base import Player

# name -> "module:Class"; the constructor's keyword parameters are the player's options.
_PLAYERS: dict[str, str] = {
    "random": "foxgeese.players.random_player:RandomPlayer",
    "human": "foxgeese.players.human:HumanPlayer",
    "minimax": "foxgeese.players.minimax:MinimaxPlayer",
    "mcts": "foxgeese.players.mcts:MctsPlayer",
    "solver": "foxgeese.players.solver:SolverPlayer",
}

PLAYER_NAMES: tuple[str, ...] = tuple(_PLAYERS)


class PlayerSpecError(ValueError):
    """A player SPEC that names no player, or gives it an option it does not have."""


def parse_value(text: str) -> Any:
    """'3' -> 3, '1.5' -> 1.5, 'true'/'false'/'yes'/'no' -> bool, anything else stays a string."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split `NAME[:key=value,...]` into the name and its options (values converted)."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    options: dict[str, Any] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise PlayerSpecError(f"bad option {item.strip()!r} in {spec!r}; expected key=value")
            if key in options:
                raise PlayerSpecError(f"option {key!r} given twice in {spec!r}")
            options[key] = parse_value(value)
    return name, options


def player_class(name: str) -> type[Player]:
    """The class behind a player name (imports its module)."""
    try:
        target = _PLAYERS[name]
    except KeyError:
        raise PlayerSpecError(
            f"unknown player {name!r}; valid: {', '.join(PLAYER_NAMES)}"
        ) from None
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise PlayerSpecError(f"player {name!r} is not available in this build") from None
    return getattr(module, class_name)


def player_options(name: str) -> list[str]:
    """The option names a player accepts: its constructor's keyword parameters, or the class's
    `spec_options` when some parameters are for code only (the human player's streams)."""
    cls = player_class(name)
    if getattr(cls, "spec_options", None) is not None:
        return list(cls.spec_options)
    signature = inspect.signature(cls.__init__)
    return [
        p.name
        for p in signature.parameters.values()
        if p.name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def make_player(spec: str) -> Player:
    """Build a player from its SPEC, e.g. `minimax:depth=4` or `mcts:playouts=2000,seed=1`."""
    if spec.strip().startswith("cmd:"):
        raise PlayerSpecError(f"{spec!r} is an external bot command, not a built-in player")
    name, options = parse_spec(spec)
    cls = player_class(name)
    valid = player_options(name)
    for key in options:
        if key not in valid:
            listed = ", ".join(valid) if valid else "none"
            raise PlayerSpecError(f"unknown option {key!r} for {name}; valid: {listed}")
    try:
        return cls(**options)
    except (TypeError, ValueError) as error:
        raise PlayerSpecError(f"bad options for {name}: {error}") from None

"""Player SPEC registry: `NAME[:key=value,...]` -> a `Player`.

Players are imported lazily so that `make_player("random")` does not pay for the search modules,
and so that the solver (another module, possibly heavy) loads only when asked for.
"""

from __future__ import annotations

import importlib
import inspect
import typing
from typing import Any

from foxgeese.engine.userinput import NumberError, looks_like_float, looks_like_int, parse_float, parse_int, shown
from foxgeese.players.base import Player

# name -> "module:Class"; the constructor's keyword parameters are the player's options.
_PLAYERS: dict[str, str] = {
    "random": "foxgeese.players.random_player:RandomPlayer",
    "human": "foxgeese.players.human:HumanPlayer",
    "minimax": "foxgeese.players.compiled.player:CompiledMinimaxPlayer",
    # The Python alpha-beta: the reference the compiled one is checked against (same options).
    "minimax-py": "foxgeese.players.minimax:MinimaxPlayer",
    "mcts": "foxgeese.players.compiled.mcts:MctsPlayer",
    # The Python MCTS: the reference the compiled one is checked against (same options, less the new ones).
    "mcts-py": "foxgeese.players.mcts:MctsPlayer",
    "solver": "foxgeese.players.solver.player:SolverPlayer",
    # A value table trained by foxgeese.research.learn (`learned:weights=PATH`). Named by its module
    # path, not imported: the research package sits above players, and loads only when asked for.
    "learned": "foxgeese.research.learn:LearnedPlayer",
}

PLAYER_NAMES: tuple[str, ...] = tuple(_PLAYERS)


class PlayerSpecError(ValueError):
    """A player SPEC that names no player, or gives it an option it does not have."""


def parse_value(text: str, name: str = "option value") -> Any:
    """'3' -> 3, '1.5' -> 1.5, 'true'/'false'/'yes'/'no' -> bool, anything else stays a string.

    Numbers are ASCII decimals only (`nan`, `inf`, `1_0` and `٣` stay text); one that does not fit
    (19 digits, `1e400`) is a PlayerSpecError rather than a silent infinity.
    """
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    try:
        if looks_like_int(text):
            return parse_int(text, name)
        if looks_like_float(text):
            return parse_float(text, name)
    except NumberError as error:
        raise PlayerSpecError(str(error)) from None
    return text.strip()


def check_option(player: str, key: str, value: Any, annotation: Any) -> Any:
    """`value` if it is of the type the player's constructor declares for `key` (int, float, bool,
    str, optionally None), else a PlayerSpecError naming the option and the type it takes."""
    kinds = set(typing.get_args(annotation)) or {annotation}
    kinds.discard(type(None))
    if value is None or not kinds or object in kinds or Any in kinds or isinstance(annotation, str):
        return value
    if bool in kinds and isinstance(value, bool) or str in kinds and isinstance(value, str):
        return value
    if kinds == {str}:  # a text option (a folder) given something that read as a number
        return str(value)
    if int in kinds and isinstance(value, int) and not isinstance(value, bool):
        return value
    if float in kinds and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return parse_float(value, key)
        except NumberError as error:
            raise PlayerSpecError(f"{error} (player {player})") from None
    wanted = " or ".join(sorted({int: "a whole number", float: "a number", bool: "true or false",
                                 str: "text"}.get(kind, getattr(kind, "__name__", str(kind))) for kind in kinds))
    raise PlayerSpecError(f"option {key} of {player} must be {wanted}, not {shown(value)}")


def option_types(cls: type[Player]) -> dict[str, Any]:
    """The declared types of a player's constructor parameters (empty where undeclared)."""
    try:
        return typing.get_type_hints(cls.__init__)
    except Exception:  # an annotation that does not resolve: the constructor checks its values
        return {}


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
                raise PlayerSpecError(f"bad option {shown(item.strip())} in {shown(spec)}; expected key=value")
            if key in options:
                raise PlayerSpecError(f"option {shown(key)} given twice in {shown(spec)}")
            options[key] = parse_value(value, f"option {key}")
    return name, options


def player_class(name: str) -> type[Player]:
    """The class behind a player name (imports its module)."""
    try:
        target = _PLAYERS[name]
    except KeyError:
        raise PlayerSpecError(
            f"unknown player {shown(name)}; valid: {', '.join(PLAYER_NAMES)}"
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
    spec_options = getattr(cls, "spec_options", None)
    if spec_options is not None:
        return list(spec_options)
    signature = inspect.signature(cls.__init__)
    return [
        p.name
        for p in signature.parameters.values()
        if p.name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def make_player(spec: str) -> Player:
    """Build a player from its SPEC, e.g. `minimax:depth=4` or `mcts:playouts=2000,seed=1`."""
    if spec.strip().startswith("cmd:"):
        raise PlayerSpecError(f"{shown(spec)} is an external bot command, not a built-in player")
    name, options = parse_spec(spec)
    cls = player_class(name)
    valid = player_options(name)
    types = option_types(cls)
    for key in options:
        if key not in valid:
            listed = ", ".join(valid) if valid else "none"
            raise PlayerSpecError(f"unknown option {shown(key)} for {name}; valid: {listed}")
        options[key] = check_option(name, key, options[key], types.get(key))
    try:
        return cls(**options)
    except (TypeError, ValueError) as error:
        raise PlayerSpecError(f"bad options for {name}: {error}") from None


def warm(spec: str) -> None:
    """Readies a built-in player's compiled code before any game: compiled and cached the first time
    on a machine (half a minute for the compiled searches), loaded from numba's cache after that.
    Whoever launches built-in bots calls it first (the tournament workers, `foxgeese play`, the web
    server), so compiling never falls inside a bot's `ready` window or on its clock. Players with
    nothing to compile have no `warm`; `cmd:` bots are their own business."""
    if spec.strip().startswith("cmd:"):
        return
    name, _ = parse_spec(spec)
    ready = getattr(player_class(name), "warm", None)
    if callable(ready):
        ready()

"""The hunt games as an OpenSpiel Python game, registered as `python_foxgeese` (pip install 'foxgeese[openspiel]').

    import pyspiel, foxgeese.research.openspiel_game
    game = pyspiel.load_game("python_foxgeese", {"variant": "hare-and-hounds"})
    game = pyspiel.load_game("python_foxgeese(variant=standard,geese=15,sideways=true)")

Player 0 is the predator (fox, hare), player 1 the prey (geese, hounds). Actions are the segments
of actions.py (a capture chain is several actions by the same player). Returns are +1/-1 at the
end, 0 for a draw and for a game cut at `max_game_length` (`hunt.max_actions`, which the rules
never reach). `str(state)` is the position text (plus ` chain=...` mid-chain);
`state_from_text(game, text)` reads it back (without the action history), `load_state(text)` reads
it into the game of its own variant (`game_string(variant)`). `state.outcome()` is the outcome in
the schema of every environment (`{"winner": ..., "termination": ...}`). The observation tensor is
the planes of actions.py from the observing player's side.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from foxgeese.engine import DEFAULT_VARIANT, Position, Side, get_variant
from foxgeese.engine.variants import VARIANT_TABLE, Options, Variant, variant_spec
from foxgeese.research.actions import PLANES, action_space, observation_shape
from foxgeese.research.hunt import TRUNCATED, HuntGame, max_actions, outcome_info

SHORT_NAME = "python_foxgeese"
# Every option of every variant, at its default (OpenSpiel takes only the parameters declared here).
_DEFAULTS: Options = {"variant": DEFAULT_VARIANT} | {
    option.name: option.default for row in VARIANT_TABLE for option in row.options}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Fox and Geese, Hare and Hounds and the Great Cross (foxgeese)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


def _variant(params: dict[str, Any]) -> Any:
    variant_id = str(params.get("variant", DEFAULT_VARIANT))
    names = variant_spec(variant_id).option_names  # the other variants' options come at their defaults
    return get_variant(variant_id, **{name: params[name] for name in names if name in params})


class HuntGame_(pyspiel.Game):
    """One variant and its options as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        self.variant = _variant(params)
        self.actions = action_space(self.variant)  # shared by this game's states
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.size,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_actions(self.variant),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> HuntState:
        return HuntState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> PlanesObserver:
        return PlanesObserver(self.variant, bool(iig_obs_type is not None and iig_obs_type.perfect_recall))


class HuntState(pyspiel.State):
    """A game in progress: the shared `HuntGame` of the environments."""

    def __init__(self, game: HuntGame_, hunt: HuntGame | None = None) -> None:
        super().__init__(game)
        self.hunt = hunt or HuntGame(game.variant, actions=game.actions)
        self.limit = game.max_game_length()

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self.hunt.to_move)

    def _legal_actions(self, player: int) -> list[int]:
        return [] if self.is_terminal() else self.hunt.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.hunt.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.hunt.actions.name(action)

    def is_terminal(self) -> bool:
        return self.hunt.outcome() is not None or self.hunt.steps >= self.limit

    def returns(self) -> list[float]:
        ended = self.hunt.outcome()
        if ended is None or ended.termination.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if ended.termination.winner == Side.PREDATOR else [-1.0, 1.0]

    def outcome(self) -> dict[str, Any] | None:
        """How the game ended, in every environment's schema (hunt.outcome_info); None while it goes on."""
        ended = self.hunt.outcome()
        if ended is not None:
            return outcome_info(ended)
        return dict(TRUNCATED) if self.is_terminal() else None

    def position_text(self) -> str:
        return self.hunt.text()

    def __str__(self) -> str:
        return self.hunt.text()


class PlanesObserver:
    """The planes of actions.py for the observing player (OpenSpiel's PyObserver shape). Its string is
    the position text; with perfect recall (the information state) the start and the moves too,
    since repetition makes the history part of the state."""

    def __init__(self, variant: Variant, perfect_recall: bool = False) -> None:
        self.perfect_recall = perfect_recall
        shape = observation_shape(variant)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: HuntState, player: int) -> None:
        self.dict["observation"][:] = state.hunt.observation(Side(player))

    def string_from(self, state: HuntState, player: int) -> str:
        if not self.perfect_recall:
            return state.hunt.text()
        game = state.hunt.game
        return " | ".join([game.start.text(), *map(str, game.moves), state.hunt.text()])


def move_perft(state: pyspiel.State, depth: int) -> int:
    """Perft in whole moves on OpenSpiel's own API (legal_actions, child, current_player): an action
    that leaves the same player to move is part of a capture chain, so it does not use up a ply.
    Comparable with `foxgeese.engine.perft`."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    player = state.current_player()
    total = 0
    for action in state.legal_actions():
        child = state.child(action)
        if not child.is_terminal() and child.current_player() == player:
            total += move_perft(child, depth)  # the chain goes on: still this ply
        else:
            total += move_perft(child, depth - 1)
    return total


def state_from_text(game: HuntGame_, text: str | Position) -> HuntState:
    """The state of a position text (as `str(state)` writes it) or `Position`; it must be of the
    game's variant (`load_state` loads the game of the text's own variant)."""
    hunt = HuntGame.from_text(text if isinstance(text, str) else text.text())
    if hunt.variant is not game.variant:
        raise ValueError(f"{hunt.text()!r} is a position of {hunt.variant}, not of {game.variant}; "
                         f"load_state(text) loads {game_string(hunt.variant)} for it")
    return HuntState(game, hunt)


def game_string(variant: Variant) -> str:
    """The `pyspiel.load_game` string of a variant: `python_foxgeese(variant=standard,geese=13,sideways=false)`."""
    shown = "".join(f",{name}={str(value).lower()}" for name, value in variant.options)
    return f"{SHORT_NAME}(variant={variant.id}{shown})"


def load_state(text: str | Position) -> HuntState:
    """The state of a position text (or `Position`) in the game of its own variant."""
    base = text if isinstance(text, Position) else Position.from_text(text.strip().partition(" chain=")[0])
    return state_from_text(pyspiel.load_game(game_string(base.variant)), text)


pyspiel.register_game(GAME_TYPE, HuntGame_)

__all__ = ["GAME_TYPE", "PLANES", "SHORT_NAME", "HuntGame_", "HuntState", "game_string", "load_state", "move_perft",
           "state_from_text"]

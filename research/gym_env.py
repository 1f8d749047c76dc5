"""One role of a hunt game as a Gymnasium environment, against any player SPEC.

    env = HuntGymEnv("hare-and-hounds", role="hare", opponent="minimax:depth=2")
    observation, info = env.reset(seed=1)      # observation: {"observation", "action_mask"}
    observation, reward, terminated, truncated, info = env.step(action)

The opponent is a built-in player called in-process, or (a `cmd:` SPEC, or `referee=True`) a bot
playing through the real referee (opponents.py). Actions, planes and labels are the PettingZoo
environment's (actions.py, labels.py). An action outside the mask ends the game as a loss for the
agent (`info["illegal_action"]`), so a masked policy never meets it and an unmasked one learns it.
At the end `info["outcome"]` is the schema of every environment (hunt.outcome_info):
`{"winner": "hounds", "termination": "trapped"}`, with the referee's endings where it decided
(`"illegal-move"`, `"time-forfeit"`, `"crash"`, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from foxgeese.engine import DEFAULT_VARIANT, Move, Position, Side, Variant
from foxgeese.protocol.record import RefereeTermination
from foxgeese.research.actions import action_space, observation_shape
from foxgeese.research.hunt import TRUNCATED, HuntGame, Rewards, max_actions, position_of, variant_of
from foxgeese.research.labels import Labeller
from foxgeese.research.opponents import RefereeOpponent, make_opponent

SEED_LIMIT = 2**53  # the referee's game seeds are below this


class HuntGymEnv(gymnasium.Env):
    """See the module docstring. `close()` ends the opponent's processes (a referee's bots)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, variant: str | Variant = DEFAULT_VARIANT, *, role: str | None = None, opponent: str = "random",
                 geese: int | None = None, sideways: bool | None = None, options: Mapping[str, Any] | None = None,
                 referee: bool | None = None,
                 time_control: str = "move=60", sandbox: bool = False, transport: str = "auto",
                 rewards: Rewards | None = None,
                 max_steps: int | None = None, labels: bool = True, labeller: Labeller | None = None,
                 start: str | Position | None = None, render_mode: str | None = None) -> None:
        self.variant = variant_of(variant, options, geese=geese, sideways=sideways)
        self.role = self.variant.side_by_name(role or self.variant.predator_name)
        self.role_name = self.variant.side_name(self.role)
        self.start = None if start is None else position_of(start, self.variant)
        self.actions = action_space(self.variant)
        self.reward_values = rewards or Rewards()
        self.max_steps = max_steps if max_steps is not None else max_actions(self.variant)
        self.labeller = (labeller or Labeller()) if labels else None
        self.render_mode = render_mode
        through_referee = opponent.strip().startswith("cmd:") or bool(referee)
        options = {"time_control": time_control, "sandbox": sandbox, "transport": transport} if through_referee else {}
        self.opponent = make_opponent(opponent, referee=referee, **options)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, observation_shape(self.variant), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.actions.size,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(self.actions.size)
        self.hunt = HuntGame(self.variant, self.start, self.actions)
        self.verdict: str | None = None  # the winner's name or "draw" once the game is over
        self.ending = ""  # the termination: the engine's, the referee's (e.g. "illegal-move"), "truncated"

    # -- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if isinstance(self.opponent, RefereeOpponent) and self.start is not None:
            raise ValueError("a referee game starts from the variant's start position (no start=)")
        self.hunt = HuntGame(self.variant, self.start, self.actions)
        self.verdict, self.ending = None, ""
        game_seed = int(self.np_random.integers(0, SEED_LIMIT))
        self.opponent.start(self.variant, self.role.other, game_seed)
        self._advance()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.verdict is not None:
            raise RuntimeError("the game is over: call reset()")
        action = int(action)
        if action not in self.hunt.legal_actions():
            self._end(self.variant.side_name(self.role.other), RefereeTermination.ILLEGAL_MOVE.value)
            if isinstance(self.opponent, RefereeOpponent):
                self.opponent.abandon()
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self.reward_values.loss, True, False, info
        move = self.hunt.apply(action)
        if move is not None:
            self._agent_moved(move)
        terminated = self.verdict is not None
        truncated = not terminated and self.hunt.steps >= self.max_steps
        if truncated and isinstance(self.opponent, RefereeOpponent):
            self.opponent.abandon()
        if truncated:
            self._end(TRUNCATED["winner"], TRUNCATED["termination"])
        return self._observation(), self._reward(), terminated, truncated, self._info()

    def render(self) -> str | None:
        return None if self.render_mode is None else self.hunt.text()

    def close(self) -> None:
        self.opponent.close()

    # -- the game ----------------------------------------------------------------------------------

    def _agent_moved(self, move: Move) -> None:
        if isinstance(self.opponent, RefereeOpponent):
            self.opponent.answer(move)
        self._advance()

    def _advance(self) -> None:
        """Lets the opponent move until it is the agent's turn or the game is over."""
        if isinstance(self.opponent, RefereeOpponent):
            self._advance_by_referee(self.opponent)
            return
        while self._check_over() is None and self.hunt.to_move != self.role:
            move = self.opponent.move(self.hunt.game)
            if move is None:
                self._end(self.role_name, RefereeTermination.RESIGNATION.value)
                return
            self.hunt.play_move(move)

    def _advance_by_referee(self, opponent: RefereeOpponent) -> None:
        while True:
            event = opponent.next_event()
            if event[0] == "move" and event[1] != self.role_name:
                self.hunt.play_move(Move.parse(event[2]))
            elif event[0] == "turn":
                if event[1] != self.hunt.position.text():
                    raise RuntimeError(f"the referee's position {event[1]} is not the environment's "
                                       f"{self.hunt.position.text()}")
                return
            elif event[0] == "end":
                record = event[1]
                self._end(record.winner, record.termination)
                return

    def _check_over(self) -> str | None:
        ended = self.hunt.outcome()
        if ended is not None and self.verdict is None:
            self._end(ended.winner.value, ended.termination.value)
        return self.verdict

    def _end(self, verdict: str, ending: str) -> None:
        self.verdict, self.ending = verdict, ending

    def _reward(self) -> float:
        if self.verdict is None and self._check_over() is None:
            return 0.0
        if self.verdict == self.role_name:
            return self.reward_values.win
        return self.reward_values.draw if self.verdict == "draw" else self.reward_values.loss

    def _observation(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self.actions.size, dtype=np.int8)
        if self.verdict is None and self.hunt.outcome() is None and self.hunt.to_move == self.role:
            mask = self.hunt.mask()
        return {"observation": self.hunt.observation(self.role), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        hunt = self.hunt
        info: dict[str, Any] = {"position": hunt.text(), "to_move": self.variant.side_name(hunt.to_move)}
        if self.verdict is not None:
            info["outcome"] = {"winner": self.verdict, "termination": self.ending}
        if self.labeller is not None:
            label = (self.labeller.chain_value(hunt.position, hunt.chain) if hunt.chain
                     else self.labeller.value(hunt.position))
            info["label"] = label.as_dict()
        return info


__all__ = ["HuntGymEnv", "Side"]

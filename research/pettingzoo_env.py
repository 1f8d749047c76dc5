"""The hunt games as a PettingZoo AEC environment: two agents named by their roles (`fox`/`geese`,
`hare`/`hounds`), one action segment per `step` (actions.py), masks in the observation.

    env = HuntAECEnv("standard", geese=13, sideways=False)
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)  # or a masked sample
        env.step(action)

An agent keeps the turn through a capture chain (it is the next agent again). Rewards come at the
end: `Rewards` (win 1, draw 0, loss -1 by default), one for both roles or one per role
(`rewards={"fox": Rewards(1, -0.5, -1), "geese": Rewards()}`). The game ends by the variant's rules
(fifty moves, repetition, stalling); `max_steps` (default: `max_actions`, a bound the rules never
exceed) truncates it. `info` holds the position text, the side to move and, with `labels`, the
exact value of the position for the side to move (labels.py), and at the end `outcome`, the one
schema of every environment (hunt.outcome_info): `{"winner": "geese", "termination": "trapped"}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from foxgeese.engine import DEFAULT_VARIANT, Position, Side, Variant, draw_board
from foxgeese.research.actions import PLANES, action_space, observation_shape
from foxgeese.research.hunt import TRUNCATED, HuntGame, Rewards, max_actions, outcome_info, position_of, variant_of
from foxgeese.research.labels import Labeller


class HuntAECEnv(AECEnv):
    """Every variant and option of foxgeese as an AEC game; see the module docstring."""

    metadata = {"name": "foxgeese_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, variant: str | Variant = DEFAULT_VARIANT, *, geese: int | None = None,
                 sideways: bool | None = None, options: Mapping[str, Any] | None = None,
                 rewards: Rewards | dict[str, Rewards] | None = None, max_steps: int | None = None, labels: bool = True,
                 labeller: Labeller | None = None, start: str | Position | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.variant = variant_of(variant, options, geese=geese, sideways=sideways)
        self.start = None if start is None else position_of(start, self.variant)
        self.actions = action_space(self.variant)
        given = rewards or Rewards()
        self.max_steps = max_steps if max_steps is not None else max_actions(self.variant)
        self.labeller = (labeller or Labeller()) if labels else None
        self.render_mode = render_mode
        self.roles = {self.variant.predator_name: Side.PREDATOR, self.variant.prey_name: Side.PREY}
        self.possible_agents = list(self.roles)
        unknown = sorted(set(given) - set(self.roles)) if isinstance(given, dict) else []
        if unknown:
            raise ValueError(f"rewards for {unknown}: the roles are {self.possible_agents}")
        self.reward_values = {side: given.get(name, Rewards()) if isinstance(given, dict) else given
                              for name, side in self.roles.items()}
        shape = observation_shape(self.variant)
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.actions.size,), dtype=np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.actions.size) for agent in self.possible_agents}
        self.hunt = HuntGame(self.variant, self.start, self.actions)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _agent_of(self, side: Side) -> str:
        return self.variant.side_name(side)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game from the start (or `options["start"]`, a position text); `seed` seeds the spaces."""
        if seed is not None:
            for number, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + number)
                self.observation_spaces[agent].seed(seed + number)
        start = self.start
        if options and options.get("start"):
            start = position_of(options["start"], self.variant)
        self.hunt = HuntGame(self.variant, start, self.actions)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.agent_selection = self._agent_of(self.hunt.to_move)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._update_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        role = self.roles[agent]
        mask = np.zeros(self.actions.size, dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = self.hunt.mask()
        return {"observation": self.hunt.observation(role), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: only a finished agent steps with None")
        self._cumulative_rewards[agent] = 0.0
        self.hunt.apply(int(action))
        self.rewards = {name: 0.0 for name in self.agents}
        ended = self.hunt.outcome()
        if ended is not None:
            by_side = self.hunt.rewards(self.reward_values)
            self.rewards = {name: by_side[self.roles[name]] for name in self.agents}
            self.terminations = {name: True for name in self.agents}
        elif self.hunt.steps >= self.max_steps:
            self.rewards = {name: self.reward_values[self.roles[name]].draw for name in self.agents}
            self.truncations = {name: True for name in self.agents}
        self._update_infos()
        self.agent_selection = self._agent_of(self.hunt.to_move)
        self._accumulate_rewards()

    def _update_infos(self) -> None:
        hunt = self.hunt
        shared: dict[str, Any] = {"position": hunt.text(), "to_move": self._agent_of(hunt.to_move)}
        ended = hunt.outcome()
        if ended is not None:
            shared["outcome"] = outcome_info(ended)
        elif any(self.truncations.values()):
            shared["outcome"] = dict(TRUNCATED)
        if self.labeller is not None:
            if hunt.chain:
                label = self.labeller.chain_value(hunt.position, hunt.chain)
            else:
                label = self.labeller.value(hunt.position)
            shared["label"] = label.as_dict()
        self.infos = {agent: dict(shared) for agent in self.agents}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return f"{draw_board(self.hunt.position)}\n{self.hunt.text()}"

    def close(self) -> None:
        pass

    @property
    def planes(self) -> tuple[str, ...]:
        return PLANES


def env(**kwargs: Any) -> HuntAECEnv:
    """PettingZoo's factory convention."""
    return HuntAECEnv(**kwargs)

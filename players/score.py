"""Scores that say whose point of view they are (python-chess `PovScore`), shared by the searches.

Every search reports what it thinks of a move as a `Score`: centi-points or a proven result,
from the point of view of one `Side`. `Choice.info` gets it through `Score.info()`, always from
the mover's point of view, so minimax, MCTS and the solver report the same way:

    score = Score.proven_win(Side.PREY, plies=7)   # the geese win in 7 plies
    score.pov_of(Side.PREDATOR).mate                # -7: the fox loses in 7
    score.info()                                    # {"score": 100000, "mate": 7}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from foxgeese.engine import Side

# The centi-points `info["score"]` carries for a proven win (minus for a loss): beyond any evaluation.
PROVEN_CP = 100_000


@dataclass(frozen=True)
class Score:
    """A search's verdict from `pov`'s point of view.

    `result` is +1 when `pov` wins with best play, -1 when it loses, 0 when nothing is proven (a
    proven draw is `cp=0` with `drawn=True`). `plies` is the distance to a proven end when the
    search knows it (MCTS proves without counting); `cp` is the estimate when unproven.
    """

    pov: Side
    cp: int = 0
    result: int = 0
    plies: int | None = None
    drawn: bool = False

    @classmethod
    def proven_win(cls, pov: Side, plies: int | None = None) -> Score:
        return cls(pov, PROVEN_CP, 1, plies)

    @classmethod
    def proven_loss(cls, pov: Side, plies: int | None = None) -> Score:
        return cls(pov, -PROVEN_CP, -1, plies)

    @classmethod
    def proven_draw(cls, pov: Side) -> Score:
        return cls(pov, 0, 0, None, True)

    @property
    def mate(self) -> int | None:
        """Plies to a proven end, negative when `pov` loses; None when unproven or the distance is unknown."""
        if not self.result or self.plies is None:
            return None
        return self.plies * self.result

    def pov_of(self, side: Side) -> Score:
        """The same verdict from `side`'s point of view."""
        if side == self.pov:
            return self
        return Score(side, -self.cp, -self.result, self.plies, self.drawn)

    def info(self) -> dict[str, Any]:
        """`score` (centi-points), `mate` when the distance is known, `proven` when the result is."""
        info: dict[str, Any] = {"score": self.cp}
        if self.mate is not None:
            info["mate"] = self.mate
        if self.result:
            info["proven"] = "win" if self.result > 0 else "loss"
        return info

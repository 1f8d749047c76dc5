"""Solved games: Hare and Hounds whole, the fox variants by tables per goose count, and the `solver` player.

`foxgeese.players.solver:SolverPlayer` is the player SPEC `solver`; the heavy parts (numpy tables,
numba kernels) load only when a module that needs them is imported.
"""

from foxgeese.players.solver.player import SolverPlayer

__all__ = ["SolverPlayer"]

"""Solved games: Hare and Hounds whole, the fox variants by tables per goose count, and the `solver` player.

`foxgeese.players.solver.player:SolverPlayer` is the player SPEC `solver`. The package itself imports
nothing, so that each entry point loads only what it uses: a Hare and Hounds solve does not load the
player, the fox tables or numba (tests/test_solver_cold_start.py).
"""

"""Research interfaces: the hunt games as PettingZoo, Gymnasium and OpenSpiel environments, exact
labels from the solved tables, a batched numba environment, a learned player and conformance
vectors for other implementations (docs/research.md).

Everything here is built on the engine's rules core; nothing in foxgeese imports this package
(the player registry names `learned` by its module path, resolved only when asked for).
"""

"""Compiled (numba) rules core and searches: one compiled copy of the engine's rules, checked against it."""

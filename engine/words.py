"""Counts and sides in English: `1 ply` / `2 plies`, `the fox offers` / `the geese offer`.

Whether a side's name is singular (fox, hare) or plural (geese, hounds) is a fact of the variants'
table (`predator_plural`, `prey_plural`), so every message that names a side agrees with it; a
message with its variant at hand asks `Variant.side_verb`.
"""

from __future__ import annotations

from foxgeese.engine.variants import VARIANT_TABLE

PLURAL_SIDES = frozenset(name for spec in VARIANT_TABLE for name, plural in
                         ((spec.predator_name, spec.predator_plural), (spec.prey_name, spec.prey_plural)) if plural)


def counted(count: int, singular: str, plural: str) -> str:
    """`1 ply`, `0 plies`, `2 plies`: the count with its word."""
    return f"{count} {singular if count == 1 else plural}"


def plies(count: int) -> str:
    return counted(count, "ply", "plies")


def is_plural(side_name: str) -> bool:
    """Whether a side's name takes a plural verb (`the geese win`, `the hounds are to move`)."""
    return side_name in PLURAL_SIDES


def side_verb(side_name: str, singular: str, plural: str) -> str:
    """`fox wins` / `geese win`: the side's name with the verb form that agrees with it."""
    return f"{side_name} {plural if is_plural(side_name) else singular}"

"""What every page knows of the variants, from the engine's table: one JSON element the server puts
into each page (`<script type=application/json id=fg-variants>`), read by static/variants.js.

The pages copy no variant fact: their variant menus, option controls, side names (and whether a
side's name takes a plural verb), start positions and whether draws can be offered all come from
here, so a variant (or an option) added to `engine/variants.py` shows on every page as it is.
"""

from __future__ import annotations

import msgspec

from foxgeese.engine import DEFAULT_VARIANT, Side, Variant
from foxgeese.engine.variants import VARIANT_TABLE, OptionValue, VariantSpec
from foxgeese.tournaments.replay import script_json

ELEMENT_ID = "fg-variants"
PAGE_SCRIPTS = ("/static/api.js", "/static/variants.js")  # every page: postJson, then the variants' facts


class OptionFacts(msgspec.Struct):
    """One option of a variant, as its controls are drawn: `OptionSpec.schema()` and each value's text."""

    name: str
    kind: str
    values: list[OptionValue]
    default: OptionValue
    help: str
    texts: list[str]


class StartFacts(msgspec.Struct):
    """One combination of a row's options: every option's value (as position text writes it), the
    start position's text, and whether a game of it can end drawn."""

    options: dict[str, str]
    text: str
    draws: bool


class VariantFacts(msgspec.Struct):
    """A variant as the pages know it: sides, their grammar and pieces, options, starts."""

    id: str
    sides: list[str]
    plural: dict[str, bool]
    pieces: dict[str, str]
    options: list[OptionFacts]
    starts: list[StartFacts]


class PageConfig(msgspec.Struct):
    default: str
    variants: list[VariantFacts]


def _start(variant: Variant) -> StartFacts:
    by_name = {option.name: option for option in variant.row.options}
    return StartFacts({name: by_name[name].text(value) for name, value in variant.values},
                      variant.start_position().text(), variant.can_draw)


def _row(row: VariantSpec) -> VariantFacts:
    first = row.variants()[0]
    sides = (Side.PREDATOR, Side.PREY)
    return VariantFacts(
        id=row.id,
        sides=[first.side_name(side) for side in sides],
        plural={first.side_name(side): first.plural(side) for side in sides},
        pieces={first.side_name(side): first.piece_name(side) for side in sides},
        options=[OptionFacts(**option.schema(), texts=[option.text(value) for value in option.values])
                 for option in row.options],
        starts=[_start(variant) for variant in row.variants()],
    )


def variants_config() -> PageConfig:
    """Every variant's facts, in table order, and the default variant."""
    return PageConfig(DEFAULT_VARIANT, [_row(row) for row in VARIANT_TABLE])


def variants_element() -> str:
    """The page config element every page carries (escaped for a script element by `script_json`)."""
    facts = script_json(msgspec.to_builtins(variants_config()))
    return f"<script type=application/json id={ELEMENT_ID}>{facts}</script>"

"""What every page knows of the variants, from the engine's table: one JSON element the server puts
into each page (`<script type=application/json id=fg-variants>`), read by static/variants.js.

The pages copy no variant fact: their variant menus, option controls, side names (and whether a
side's name takes a plural verb), start positions and whether draws can be offered all come from
here, so a variant (or an option) added to `engine/variants.py` shows on every page as it is.
"""

from __future__ import annotations

from typing import Any

from foxgeese.engine import DEFAULT_VARIANT, Side, Variant
from foxgeese.engine.variants import VARIANT_TABLE, VariantSpec
from foxgeese.tournaments.replay import script_json

ELEMENT_ID = "fg-variants"
PAGE_SCRIPTS = ("/static/api.js", "/static/variants.js")  # every page: postJson, then the variants' facts


def _start(variant: Variant) -> dict[str, Any]:
    """One combination of a row's options: every option's value (as position text writes it), the
    start position's text, and whether a game of it can end drawn."""
    by_name = {option.name: option for option in variant.row.options}
    return {"options": {name: by_name[name].text(value) for name, value in variant.values},
            "text": variant.start_position().text(), "draws": variant.can_draw}


def _row(row: VariantSpec) -> dict[str, Any]:
    first = row.variants()[0]
    return {
        "id": row.id,
        "sides": [first.side_name(Side.PREDATOR), first.side_name(Side.PREY)],
        "plural": {first.side_name(side): first.plural(side) for side in (Side.PREDATOR, Side.PREY)},
        "pieces": {first.side_name(side): first.piece_name(side) for side in (Side.PREDATOR, Side.PREY)},
        "options": [option.schema() | {"texts": [option.text(value) for value in option.values]}
                    for option in row.options],
        "starts": [_start(variant) for variant in row.variants()],
    }


def variants_config() -> dict[str, Any]:
    """Every variant's facts, in table order, and the default variant."""
    return {"default": DEFAULT_VARIANT, "variants": [_row(row) for row in VARIANT_TABLE]}


def variants_element() -> str:
    """The page config element every page carries (escaped for a script element by `script_json`)."""
    return f"<script type=application/json id={ELEMENT_ID}>{script_json(variants_config())}</script>"

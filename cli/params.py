"""Click parameter types for numbers, read by the engine's one bounded parser (`userinput`):
ASCII digits only, finite values, stated bounds, so `--geese ٤`, `--heartbeat nan` and
`--heartbeat 1e12` are one-line usage errors that name the option."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from foxgeese.engine.userinput import NumberError, parse_float, parse_int
from foxgeese.engine.variants import VARIANT_TABLE, Options


class _Bounded(click.ParamType):
    """A number in [minimum, maximum], read by `parse` (the engine's bounded parser)."""

    parse: Callable[..., Any]

    def __init__(self, minimum: float | None = None, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = value if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
        try:
            return type(self).parse(text, _label(param), self.minimum, self.maximum)
        except NumberError as error:
            raise click.UsageError(str(error), ctx) from None


class Integer(_Bounded):
    """A whole number in [minimum, maximum]."""

    name = "integer"
    parse = staticmethod(parse_int)


class Number(_Bounded):
    """A finite decimal number in [minimum, maximum] (seconds, weights)."""

    name = "number"
    parse = staticmethod(parse_float)


def _label(param: click.Parameter | None) -> str:
    if param is None:
        return "the value"
    opts = getattr(param, "opts", None)
    return opts[0] if opts and isinstance(param, click.Option) else (param.human_readable_name or "the value")


def _options_help() -> str:
    """The options of every variant, from the variants' table: `standard: geese 13|15|17, ...`."""
    def values(option: Any) -> str:
        return "|".join(option.text(value) for value in option.values)

    rows = [f"{row.id}: " + ", ".join(f"{option.name}={values(option)}" for option in row.options)
            for row in VARIANT_TABLE if row.options]
    return "a variant option NAME=VALUE, repeatable (" + "; ".join(rows) + ")"


def variant_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """`--option NAME=VALUE` (repeatable): any option of the variant, as its table row names it, so a
    new option needs no flag of its own (`--option diagonals=alternating`); read by `option_values`."""
    return click.option("--option", "variant_options", multiple=True, metavar="NAME=VALUE",
                        help=_options_help())(function)


def option_values(items: tuple[str, ...] | list[str], **flags: Any) -> Options:
    """The options of `--option` items and of the older flags (`geese=`, `sideways=`; None: not
    given) as keyword arguments for `get_variant`; a malformed item is a usage error."""
    options: Options = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise click.UsageError(f"--option takes NAME=VALUE, like diagonals=alternating, not {item!r}")
        options[name.strip().lower()] = value.strip()
    options.update({key: value for key, value in flags.items() if value is not None})
    return options

"""Click parameter types for numbers, read by the engine's one bounded parser (`userinput`):
ASCII digits only, finite values, stated bounds, so `--geese ٤`, `--heartbeat nan` and
`--heartbeat 1e12` are one-line usage errors that name the option."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from foxgeese.engine.userinput import NumberError, parse_float, parse_int


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

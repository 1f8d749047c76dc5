"""Click parameter types for numbers, read by the engine's one bounded parser (`userinput`):
ASCII digits only, finite values, stated bounds, so `--geese ٤`, `--heartbeat nan` and
`--heartbeat 1e12` are one-line usage errors that name the option."""

from __future__ import annotations

from typing import Any

import click

from foxgeese.engine.userinput import NumberError, parse_float, parse_int


class Integer(click.ParamType):
    """A whole number in [minimum, maximum]."""

    name = "integer"

    def __init__(self, minimum: int | None = None, maximum: int | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            text: Any = value
        else:
            text = str(value)
        try:
            return parse_int(text, _label(param), self.minimum, self.maximum)
        except NumberError as error:
            raise click.UsageError(str(error), ctx) from None


class Number(click.ParamType):
    """A finite decimal number in [minimum, maximum] (seconds, weights)."""

    name = "number"

    def __init__(self, minimum: float | None = None, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        text = value if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
        try:
            return parse_float(text, _label(param), self.minimum, self.maximum)
        except NumberError as error:
            raise click.UsageError(str(error), ctx) from None


def _label(param: click.Parameter | None) -> str:
    if param is None:
        return "the value"
    opts = getattr(param, "opts", None)
    return opts[0] if opts and isinstance(param, click.Option) else (param.human_readable_name or "the value")

"""Text from users and bots, read and echoed safely: the one place numbers are parsed with bounds
and the one escaping of quoted text.

Python's own `int()` and `float()` accept far more than a user means (`int('٤')` is 4, `'1_0'` is
10, `float('nan')`, `'1e400'` is infinity, 5000 digits raise an unrelated ValueError), so every
number a user or a bot writes goes through `parse_int` or `parse_float`: ASCII digits only, a length
cap, finite values inside stated bounds. Every piece of user text that goes back into a message goes
through `shown`, so a message stays one printable line whatever was typed.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable
from typing import Any

# A whole number: optional sign, ASCII digits. A decimal: also a fraction and an exponent.
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?", re.ASCII)
MAX_DIGITS = 18  # every whole number fits a signed 64-bit integer, in any bot's language
MAX_NUMBER_TEXT = 40
SHOWN_LIMIT = 60  # characters of user text quoted back in a message


class NumberError(ValueError):
    """Text that is not a number inside the allowed bounds; the message says what would be right."""


def shown(text: object, limit: int = SHOWN_LIMIT) -> str:
    """`text` quoted for a message: control characters escaped (`\\n`, `\\x1b`), cut after `limit`
    characters with the full length said, so one bad input cannot break or flood the line."""
    if not isinstance(text, str):  # a number or other value: its repr, unquoted
        text = repr(text)
        return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
    cut = text[:limit]
    body = repr(cut)  # repr escapes every control and non-printable character, quotes included
    if len(text) > limit:
        body = f"{body[:-1]}...{body[-1]} ({len(text)} characters)"
    return body


def named(text: str, limit: int = 200) -> str:
    """A file name or similar as typed when it is plain (printable, short), else `shown`."""
    return text if text.isprintable() and 0 < len(text) <= limit and text.strip() == text else shown(text, limit)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'minimax'?)` for the choice closest to a mistyped `word` (difflib), or ""."""
    if not isinstance(word, str):
        return ""
    found = difflib.get_close_matches(word.strip().lower(), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def one_line(message: str) -> str:
    """`message` with any control character escaped, so it prints as exactly one line."""
    if message.isprintable():
        return message
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)


def parse_int(text: object, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Reads a whole number written in ASCII digits (at most MAX_DIGITS) inside [minimum, maximum]."""
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise NumberError(f"{name} must be a whole number, not {shown(text)}")
    if isinstance(text, str):
        cleaned = text.strip()
        if not _INT.fullmatch(cleaned) or len(cleaned.lstrip("+-")) > MAX_DIGITS:
            raise NumberError(f"{name} must be a whole number of at most {MAX_DIGITS} digits, not {shown(text)}")
        value = int(cleaned)
    else:
        value = text
    return _bounded(value, name, minimum, maximum)


def parse_float(text: object, name: str, minimum: float | None = None, maximum: float | None = None) -> float:
    """Reads a finite decimal number (`0.5`, `10`, `1e-3`; no nan, inf or `_`) inside the bounds."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise NumberError(f"{name} must be a number, not {shown(text)}")
    if isinstance(text, str):
        cleaned = text.strip()
        if len(cleaned) > MAX_NUMBER_TEXT or not _FLOAT.fullmatch(cleaned):
            raise NumberError(f"{name} must be a decimal number like 0.5, not {shown(text)}")
        value = float(cleaned)
    else:
        value = float(text) if abs(text) < 1e300 else math.inf
    if not math.isfinite(value):
        raise NumberError(f"{name} must be a finite number, not {shown(text)}")
    return _bounded(value, name, minimum, maximum)


def looks_like_int(text: str) -> bool:
    return bool(_INT.fullmatch(text.strip()))


def looks_like_float(text: str) -> bool:
    return bool(_FLOAT.fullmatch(text.strip()))


def _bounded(value: Any, name: str, minimum: Any, maximum: Any) -> Any:
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if minimum is not None and maximum is not None:
            allowed = f"from {_plain(minimum)} to {_plain(maximum)}"
        elif minimum is not None:
            allowed = f"at least {_plain(minimum)}"
        else:
            allowed = f"at most {_plain(maximum)}"
        raise NumberError(f"{name} must be {allowed}, not {_plain(value)}")
    return value


def _plain(number: float) -> str:
    """`3`, `0.01`, `2147483647`: a bound as a person writes it (long ones shortened)."""
    text = str(number) if isinstance(number, int) else f"{number:.10g}"
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


MAX_JSON_BYTES = 64 * 1024 * 1024  # far above any game record or tournament file


class JsonInputError(ValueError):
    """A file or text that is not JSON this program reads (too big, too deep, not JSON at all)."""


def load_json(text: str | bytes) -> object:
    """`json.loads` for untrusted text: bounded size, one named error for every failure (a list
    nested 100,000 deep would otherwise end in RecursionError, 5000 digits in an int() limit)."""
    if len(text) > MAX_JSON_BYTES:
        raise JsonInputError(f"more than {MAX_JSON_BYTES // (1024 * 1024)} MB of JSON")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_json_int)
    except JsonInputError:
        raise
    except RecursionError:
        raise JsonInputError("JSON nested too deep") from None
    except UnicodeDecodeError as error:
        raise JsonInputError(f"not UTF-8 text (byte {error.start})") from None
    except ValueError as error:  # JSONDecodeError, and int() limits on 5000-digit numbers
        raise JsonInputError(f"not valid JSON: {one_line(str(error))}") from None


def _no_constant(name: str) -> float:
    raise JsonInputError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonInputError(f"number {shown(text)} is out of range")
    return value


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 2 * MAX_DIGITS:
        raise JsonInputError(f"number {shown(text)} has more than {2 * MAX_DIGITS} digits")
    return int(text)


class Mismatch:
    """A msgspec `ValidationError` taken apart, so a caller can say it in its own words.

    `path` is where it was (field names, list indexes, `...` for a dict's key, which msgspec does
    not name); `missing` the required key that is absent, else ""; `expected` msgspec's type
    text in plain words (`int or null`, `dict`, `list`), else ""; `words` msgspec's own sentence."""

    _PLAIN = {"object": "dict", "array": "list"}

    def __init__(self, error: Exception) -> None:
        text = str(error)
        self.words, _, at = text.partition(" - at `")
        steps = (name or index for name, index in re.findall(r"\.([^.\[]+)|\[([^\]]*)\]", at.rstrip("`")))
        self.path: list[str | int] = [int(step) if step.isdigit() else step for step in steps]
        missing = re.fullmatch(r"Object missing required field `(.*)`", self.words)
        self.missing = missing.group(1) if missing else ""
        expected = re.fullmatch(r"Expected `([^`]*)`, got `[^`]*`", self.words)
        self.expected = " or ".join(self._PLAIN.get(name, name) for name in expected.group(1).split(" | ")) \
            if expected else ""

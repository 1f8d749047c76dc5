"""Reading a tournament YAML file that anyone may have written: the limits come before the schema.

PyYAML's `safe_load` is safe from code execution but not from size: an alias bomb ("billion
laughs") expands nine anchors into a billion strings, a mapping of 50,000 keys makes every later
step slow, and a 5000-digit number raises an error that is not YAML's. So the document is composed
first (nodes, aliases shared), its expanded size is counted without expanding it, and only a
document inside the limits is turned into Python values.
"""

from __future__ import annotations

from typing import Any

import yaml

from foxgeese.engine.userinput import MAX_DIGITS, shown
from foxgeese.tournaments.errors import ConfigError

MAX_YAML_BYTES = 256 * 1024  # a config is a few hundred lines
MAX_VALUES = 20_000  # scalars, lists and mappings, every alias counted as often as it is used
MAX_KEYS = 1_000  # keys of one mapping
MAX_ALIASES = 100
MAX_FLOW_DEPTH = 100  # [ and { nested in one another; a config nests a few levels


class _LimitError(yaml.constructor.ConstructorError):
    """Valid YAML past one of the limits (the message says which)."""


# The pure-Python loader, not libyaml's: libyaml's composer recurses in C without a depth limit,
# so `[` nested 50,000 deep overflows the stack and kills the process (seen with PyYAML 6.0.3),
# where the Python one raises RecursionError. A config is short; the speed does not matter.
_BASE_LOADER = yaml.SafeLoader


class _LimitedLoader(_BASE_LOADER):
    """SafeLoader whose integers are ASCII digits of bounded length (YAML's own int() would take
    any number of digits, then fail with Python's 4300-digit limit)."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(node.value).replace("_", "")
        if len(text.lstrip("+-").removeprefix("0x").removeprefix("0o")) > MAX_DIGITS:
            raise _LimitError(
                None, None, f"the number {shown(node.value, 24)} has more than {MAX_DIGITS} digits", node.start_mark)
        return super().construct_yaml_int(node)


_LimitedLoader.add_constructor("tag:yaml.org,2002:int", _LimitedLoader.construct_yaml_int)


def load_yaml(data: bytes | str, label: str) -> tuple[Any, yaml.Node | None]:
    """The document's Python value and its node tree (for line numbers); ConfigError otherwise."""
    if len(data) > MAX_YAML_BYTES:
        raise ConfigError([f"{label}: larger than {MAX_YAML_BYTES // 1024} KB; a config is a short YAML file"])
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigError([f"{label}: not UTF-8 text (byte {error.start}); save the file as UTF-8"]) from None
    if _flow_depth(data) > MAX_FLOW_DEPTH:  # refused before the composer recurses that deep
        raise ConfigError([f"{label}: nested too deep (more than {MAX_FLOW_DEPTH} levels of [ and {{)"])
    try:
        root = yaml.compose(data, Loader=_LimitedLoader)
        if root is not None:
            _check_size(root, label)
        loader = _LimitedLoader(data)
        try:
            value = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{label}:{mark.line + 1}" if mark is not None else label
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        kind = "" if isinstance(error, _LimitError) else "not valid YAML: "
        raise ConfigError([f"{where}: {kind}{problem}"]) from None
    except RecursionError:
        raise ConfigError([f"{label}: nested too deep"]) from None
    return value, root


def _check_size(root: yaml.Node, label: str) -> None:
    """Counts the values the document expands to, each shared (aliased) node once per use, and
    refuses a document past the limits, or one that contains itself (`&a [*a]`)."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    aliases = 0

    def size(node: yaml.Node) -> int:
        nonlocal aliases
        key = id(node)
        if key in sizes:
            aliases += 1
            if aliases > MAX_ALIASES:
                raise ConfigError([f"{label}:{node.start_mark.line + 1}: more than {MAX_ALIASES} uses of "
                                   "YAML aliases (*name); write the values out"])
            return sizes[key]
        if key in active:
            raise ConfigError([f"{label}:{node.start_mark.line + 1}: a YAML alias refers to a value that "
                               "contains it; a config cannot be recursive"])
        active.add(key)
        total = 1
        if isinstance(node, yaml.MappingNode):
            if len(node.value) > MAX_KEYS:
                raise ConfigError([f"{label}:{node.start_mark.line + 1}: a mapping of {len(node.value)} keys "
                                   f"(at most {MAX_KEYS})"])
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        for child in children:
            total += size(child)
            if total > MAX_VALUES:
                raise ConfigError([f"{label}: the file expands to more than {MAX_VALUES} values "
                                   "(YAML aliases repeat what they name); a config is much smaller"])
        active.discard(key)
        sizes[key] = total
        return total

    size(root)


def _flow_depth(text: str) -> int:
    """How deep `[` and `{` nest outside quoted text (counting stops past the limit)."""
    depth = deepest = 0
    quote = ""
    for char in text:
        if char == "\n":
            quote = ""  # an apostrophe in plain text (`it's`) must not hide the rest of the file
        elif quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_FLOW_DEPTH:
                break
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest

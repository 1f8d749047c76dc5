"""The tournament YAML file: pydantic models, one-line errors with key paths, the canonical hash.

Every problem of a config is collected before anything runs, and each is reported as
`FILE:LINE: key.path: what is wrong (what is allowed)` so a user fixes them all in one go.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from foxgeese.engine import get_variant
from foxgeese.engine.userinput import did_you_mean, named, shown
from foxgeese.engine.variants import Tables, every_variant
from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.protocol.sandbox import check_available
from foxgeese.protocol.timecontrol import TimeControl, TimeControlError
from foxgeese.tournaments.book import BookError, load_book
from foxgeese.tournaments.bundled import bundled_names, resolve
from foxgeese.tournaments.config_errors import describe
from foxgeese.tournaments.errors import ConfigError
from foxgeese.tournaments.yamlload import load_yaml

# Keys that do not change which games are played or how: excluded from the hash, so that a
# tournament can be resumed with more workers or into a directory given on the command line.
UNHASHED_KEYS = ("concurrency", "output_dir", "executor", "ray", "events", "affinity")

DEFAULT_OUTPUT_ROOT = "tournament-out"
MAX_GAMES = 1_000_000  # games one config may schedule (a tournament of more is a typo)
MAX_SEED = 2**63 - 1
MAX_PROBLEMS = 20  # problems listed; the rest are counted
# Variants whose start the shipped solver always knows (the variants' table solves them whole):
# adjudication by tables would decide every game at its first move. (`standard` is too when its
# tables are on disk: the runner warns then.)
SOLVED_FROM_THE_START = tuple(variant.id for variant in every_variant() if variant.tables is Tables.SOLUTION)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=10_000)


class VariantConfig(_Strict):
    """One variant to play: an engine variant id, its options (e.g. `geese: 15`) and an optional
    opening book (a bundled book's name, or a path relative to the config file's folder)."""

    id: str
    options: dict[str, Any] = Field(default_factory=dict)
    book: str | None = Field(None, min_length=1)
    _openings: tuple[tuple[str, ...], ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _known_to_engine(self, info: ValidationInfo) -> VariantConfig:
        try:
            variant = get_variant(self.id, **self.options)
        except Exception as error:  # UnknownVariantError lists the ids; bad options raise others
            raise ValueError(str(error)) from None
        if self.book is not None:
            base = Path((info.context or {}).get("base_dir", "."))
            try:
                self._openings = tuple(load_book(self.book, variant, base_dir=base))
            except BookError as error:
                raise ValueError(str(error)) from None
        return self

    @property
    def openings(self) -> tuple[tuple[str, ...], ...]:
        """The book's openings, checked on this variant; empty without a book."""
        return self._openings


class PlayerConfig(_Strict):
    """A built-in player (`spec`) or an external bot (`command`, optional `cwd` and `env`; a `cmd:`
    spec may have a `cwd` too). Relative paths start in `cwd`, else in the config file's folder."""

    name: str = Field(min_length=1)
    spec: str | None = None
    command: list[str] | None = None
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    sandbox: bool = False  # run the bot inside bubblewrap (for bots you do not trust)
    # How a launched bot reaches the referee: auto (ipc:// for built-in players and sandboxed bots,
    # loopback TCP for programs), ipc, or tcp (ZeroMQ libraries without ipc://: JeroMQ, NetMQ).
    transport: Literal["auto", "ipc", "tcp"] = "auto"

    @model_validator(mode="after")
    def _one_kind(self, info: ValidationInfo) -> PlayerConfig:
        if (self.spec is None) == (self.command is None):
            raise ValueError("give exactly one of 'spec' (a built-in player) or 'command' (an external bot)")
        if self.spec is not None:
            if self.env or (self.cwd is not None and not self.spec.strip().startswith(CMD_PREFIX)):
                raise ValueError("'cwd' applies only to a 'command' player or a 'cmd:' spec, 'env' only to a "
                                 "'command' player")
            _check_spec(self.name, self.spec, self.cwd, info)
        else:
            _check_command(self.command or [], self.cwd, info)
        if self.sandbox:
            _check_sandbox()
            if self.transport == "tcp":
                raise ValueError("a sandboxed bot has no network: it reaches the referee over ipc:// "
                                 "(transport ipc or auto), not tcp")
        if self.transport != "auto" and self.spec is not None and self.spec.strip() == "remote":
            raise ValueError("a remote bot connects by itself: it has no transport to choose")
        return self

    def working_dir(self, base_dir: Path) -> Path:
        """Where the bot runs: `cwd` resolved against the config file's folder (default: that folder)."""
        return (base_dir / self.cwd).resolve() if self.cwd else base_dir.resolve()


def _check_spec(name: str, spec: str, cwd: str | None, info: ValidationInfo) -> None:
    """Checks the player name and its options, or a `cmd:` program where it will run: in `cwd`,
    else the config file's folder (as every executor starts it)."""
    workdir = _workdir(cwd, info)
    if spec.strip().startswith(CMD_PREFIX) and not workdir.is_dir():
        raise ValueError(f"cwd {str(workdir)!r} is not a directory")
    try:
        BotConfig.from_spec(spec, name=name, cwd=workdir).check_script()
    except ValueError as error:
        raise ValueError(str(error)) from None


def _workdir(cwd: str | None, info: ValidationInfo) -> Path:
    """Where a bot runs: `cwd` resolved against the config file's folder (default: that folder)."""
    base = Path((info.context or {}).get("base_dir", "."))
    return (base / cwd) if cwd else base


def _check_sandbox() -> None:
    try:
        check_available()
    except OSError as error:
        raise ValueError(f"sandbox: {error}") from None


def _check_command(command: list[str], cwd: str | None, info: ValidationInfo) -> None:
    if not command or not command[0]:
        raise ValueError("'command' must be a non-empty list: the program, then its arguments")
    workdir = _workdir(cwd, info)
    if not workdir.is_dir():
        raise ValueError(f"cwd {str(workdir)!r} is not a directory")
    try:
        bot = BotConfig("bot", command, cwd=workdir)
        bot.check()
        bot.check_script()
    except ValueError as error:
        raise ValueError(str(error).removeprefix("bot 'bot': ")) from None


class SprtConfig(_Strict):
    """Sequential probability ratio test for a two-player match: stop as soon as H0 or H1 wins.
    elo0 and elo1 are pair-score Elo (the Elo of the first player's expected score over a twin pair,
    the head to head's unit, fishtest's), not the standings' Elo: see "SPRT" in docs/tournaments.md."""

    elo0: float
    elo1: float
    alpha: float = Field(0.05, gt=0, lt=0.5)
    beta: float = Field(0.05, gt=0, lt=0.5)

    @model_validator(mode="after")
    def _ordered(self) -> SprtConfig:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be smaller than elo1 ({self.elo1})")
        return self


class RayConfig(_Strict):
    """Where the `ray` executor plays (see "Ray" in docs/tournaments.md)."""

    address: str | None = Field(None, min_length=1)  # default: RAY_ADDRESS, else a local cluster
    working_dir: str | None = Field(None, min_length=1)  # shipped to the workers; default: this file's folder
    excludes: list[str] = Field(default_factory=list)  # paths in working_dir not to ship (gitignore style)
    num_cpus: float = Field(1.0, gt=0, le=64)  # CPUs reserved per game slot


class EventsConfig(_Strict):
    """The live event stream: always DIR/events.jsonl; `pub` adds a ZeroMQ PUB socket."""

    pub: str | None = Field(None, pattern=r"^(tcp|ipc)://.+")


class TournamentConfig(_Strict):
    """A whole tournament; see docs/tournaments.md for every key."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    variants: list[VariantConfig] = Field(min_length=1)
    players: list[PlayerConfig] = Field(min_length=2)
    games_per_pairing: int = Field(2, ge=2, le=MAX_GAMES)
    time_control: str = "10+0.1"
    format: Literal["round-robin", "gauntlet"] = "round-robin"
    gauntlet_player: str | None = None
    concurrency: int | Literal["auto"] = 1  # or auto: one slot per CPU (of the Ray cluster, growing with it)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    opening_plies: int = Field(0, ge=0, le=40)
    max_plies: int | None = Field(None, ge=1, le=100_000)
    adjudicate: Literal["tables"] | None = None  # end a game once a solved table proves its result
    adjudicate_from_ply: int | None = Field(None, ge=1, le=100_000)  # ... but not before this ply
    output_dir: str | None = None
    sprt: SprtConfig | None = None
    executor: Literal["local", "ray"] = "local"
    affinity: Literal["auto", "off"] = "auto"  # local: each slot on a CPU of its own when they fit
    ray: RayConfig | None = None
    events: EventsConfig | None = None

    @field_validator("games_per_pairing")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError(
                f"must be even (got {value}): each pair plays every opening twice, once in each role"
            )
        return value

    @field_validator("concurrency", mode="before")
    @classmethod
    def _concurrency(cls, value: Any) -> Any:
        """A number of game slots from 1 to 64, or auto (one message for either mistake)."""
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 64):
            return value
        raise ValueError(f"{shown(value)} is not allowed; give a number of game slots from 1 to 64, or auto")

    @field_validator("affinity", mode="before")
    @classmethod
    def _affinity(cls, value: Any) -> Any:
        """YAML reads a bare `off` as false: take it as meant."""
        return "off" if value is False else value

    @field_validator("time_control", mode="before")
    @classmethod
    def _bare_seconds(cls, value: Any) -> Any:
        """`time_control: 10` (a YAML number) is 10 seconds a game, no increment: `10+0`."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{value:g}+0"
        return value

    @field_validator("time_control")
    @classmethod
    def _time_control(cls, value: str) -> str:
        """The referee's own parser decides, and its canonical text is what gets hashed."""
        try:
            return TimeControl.parse(value).text()
        except TimeControlError as error:
            raise ValueError(str(error)) from None

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> TournamentConfig:
        if (info.context or {}).get("cross_checked"):
            return self  # parse_config checked these on the raw YAML, beside every other problem
        problems = cross_problems(self.model_dump())
        if problems:
            raise ValueError(problems[0][1])
        return self

    def canonical(self) -> dict[str, Any]:
        """The keys that decide the games, in a stable form: what the hash and the resume check see."""
        data = self.model_dump(mode="json")
        for key in UNHASHED_KEYS:
            data.pop(key, None)
        if data.get("adjudicate") is None:
            data.pop("adjudicate", None)  # configs from before the key keep their hash
        if data.get("adjudicate_from_ply") is None:
            data.pop("adjudicate_from_ply", None)
        for player in data["players"]:
            player.pop("sandbox", None)  # how a bot is confined, not which games it plays
            player.pop("transport", None)  # how it reaches the referee: neither
        return data

    def config_hash(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


class LoadedConfig(BaseModel):
    """A validated config plus where it came from (relative bot folders are resolved from there)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)
    config: TournamentConfig
    path: Path
    base_dir: Path

    def output_dir(self, override: str | os.PathLike[str] | None = None) -> Path:
        if override is not None:
            return Path(override)
        if self.config.output_dir is not None:
            return Path(self.config.output_dir)
        return Path(DEFAULT_OUTPUT_ROOT) / self.config.name


def bundled_configs() -> list[str]:
    """Names of the configs shipped in `foxgeese/tournaments/configs` (usable as `run NAME`)."""
    return bundled_names("configs", ".yaml")


def resolve_config_path(name_or_path: str) -> Path:
    """A path to a YAML file, or the name of a bundled config (`quick`)."""
    return resolve(name_or_path, "configs", (".yaml", ".yml"))


def load_config(name_or_path: str | os.PathLike[str]) -> LoadedConfig:
    """Reads and validates a config file; raises ConfigError with every problem, one per line."""
    path = resolve_config_path(str(name_or_path))
    label = named(str(path))
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        known = ", ".join(bundled_configs()) or "none"
        guess = did_you_mean(str(name_or_path), bundled_configs())
        raise ConfigError([f"{label}: no such file{guess} (bundled configs: {known})"]) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise ConfigError([f"{label}: cannot read: {getattr(error, 'strerror', None) or error}"]) from None
    return parse_config(text, path, label=label)


def parse_config(text: str | bytes, path: Path, label: str | None = None) -> LoadedConfig:
    label = label or str(path)
    data, root = load_yaml(text, label)  # size, alias and number limits before the schema
    if not isinstance(data, dict):
        raise ConfigError([f"{label}: the file must hold a mapping of keys (name, variants, players, ...)"])
    base_dir = path.resolve().parent
    crossed = [_where(label, root, loc) + f"{key_path(loc)}: {message}" for loc, message in cross_problems(data)]
    try:
        config = TournamentConfig.model_validate(data, context={"base_dir": str(base_dir), "cross_checked": True})
    except ValidationError as error:
        items = error.errors()
        problems = sorted([_describe(item, label, root) for item in items] + crossed, key=_line_order)
        raise ConfigError(_capped(problems, label)) from None
    if crossed:
        raise ConfigError(_capped(crossed, label))
    return LoadedConfig(config=config, path=path, base_dir=base_dir)


def _capped(problems: list[str], label: str) -> list[str]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [f"{label}: and {len(problems) - MAX_PROBLEMS} more problems"]


def _line_order(problem: str) -> int:
    """Problems in the order of their lines in the file (those without a line last)."""
    head = problem.split(": ", 1)[0]
    number = head.rsplit(":", 1)[-1]
    return int(number) if number.isdigit() else 1 << 30


def _where(label: str, root: yaml.Node | None, loc: tuple[Any, ...]) -> str:
    line = _line_of(root, loc)
    return f"{label}:{line}: " if line else f"{label}: "


def cross_problems(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """Problems between keys (player names, format, gauntlet_player, sprt, the number of games), each
    with the key path it belongs to. Read from the raw YAML mapping, so they come with the other
    problems in one go; a key of the wrong type is left to the schema's own error."""
    out: list[tuple[tuple[Any, ...], str]] = []
    players = data.get("players")
    players = players if isinstance(players, list) else []
    names = [player.get("name") if isinstance(player, dict) else None for player in players]
    seen: dict[Any, int] = {}
    for index, name in enumerate(names):
        if isinstance(name, str) and name in seen:
            out.append((("players", index, "name"), f"player name {shown(name)} is used twice "
                        f"(first by players[{seen[name]}]); player names must be unique"))
        elif isinstance(name, str):
            seen[name] = index
    fmt = data.get("format", "round-robin")
    gauntlet = data.get("gauntlet_player")
    if fmt == "gauntlet":
        if gauntlet is None:
            out.append((("format",), "format 'gauntlet' needs 'gauntlet_player' (one of the player names)"))
        elif isinstance(gauntlet, str) and names and gauntlet not in names:
            allowed = ", ".join(str(name) for name in names if isinstance(name, str))
            out.append((("gauntlet_player",), f"{shown(gauntlet)} is not a player; allowed: {allowed}"))
    elif gauntlet is not None and fmt in ("round-robin", None):
        out.append((("gauntlet_player",), "'gauntlet_player' applies only to format 'gauntlet'"))
    variants = data.get("variants")
    variants_raw = variants if isinstance(variants, list) else []
    solved = [v.get("id") for v in variants_raw if isinstance(v, dict) and v.get("id") in SOLVED_FROM_THE_START]
    if data.get("adjudicate") == "tables" and data.get("adjudicate_from_ply") is None and solved:
        out.append((("adjudicate",), f"tables would end every {solved[0]} game after its first move (the variant "
                    "is solved from the start); set adjudicate_from_ply: N (tables end no game before ply N) "
                    "or drop adjudicate"))
    if data.get("adjudicate_from_ply") is not None and data.get("adjudicate") != "tables":
        out.append((("adjudicate_from_ply",), "applies only with adjudicate: tables"))
    if data.get("sprt") is not None and players and len(players) != 2:
        out.append((("sprt",), f"'sprt' is for a match of exactly two players (got {len(players)})"))
    variants = data.get("variants")
    per_pair = data.get("games_per_pairing", 2)
    if isinstance(variants, list) and isinstance(per_pair, int) and not isinstance(per_pair, bool) \
            and 2 <= per_pair <= MAX_GAMES:  # else the key's own error says it
        count = len(players)
        pairings = count - 1 if fmt == "gauntlet" else count * (count - 1) // 2
        games = pairings * len(variants) * per_pair
        if games > MAX_GAMES:
            out.append(((), f"this config schedules {games} games (at most {MAX_GAMES}); "
                            "lower games_per_pairing or the number of players"))
    return out


def key_path(loc: tuple[Any, ...]) -> str:
    """('players', 2, 'spec') -> 'players[2].spec'"""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            out += ("." if out else "") + (text if text.isidentifier() and len(text) <= 40 else shown(text))
    return out or "(top level)"


def _describe(item: ErrorDetails, label: str, root: yaml.Node | None) -> str:
    loc = tuple(part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-")))
    allowed = _allowed_keys(loc[:-1]) if item["type"] == "extra_forbidden" else []
    message = describe(item["type"], loc, item.get("input"), item.get("ctx"), item["msg"], allowed)
    line = _line_of(root, loc)
    where = f"{label}:{line}" if line else label
    return f"{where}: {key_path(loc)}: {message}"


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    model: type[BaseModel] = TournamentConfig
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        inner = [arg for arg in getattr(annotation, "__args__", (annotation,)) if isinstance(arg, type)]
        models = [arg for arg in inner if issubclass(arg, BaseModel)]
        if not models:
            return []
        model = models[0]
    return list(model.model_fields)


def _line_of(root: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """The 1-based line of the deepest YAML node on the key path, for the error's FILE:LINE."""
    node = root
    line = None
    for part in loc:
        if node is None:
            break
        if isinstance(node, yaml.MappingNode):
            match = next((pair for pair in node.value if pair[0].value == part), None)
            if match is None:
                break
            line = match[0].start_mark.line + 1
            node = match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def changed_keys(old: object, new: object, prefix: tuple[Any, ...] = ()) -> list[str]:
    """Key paths whose values differ between two canonical configs (for the refusal to resume)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            out += changed_keys(old.get(key), new.get(key), prefix + (key,))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for index, (a, b) in enumerate(zip(old, new)):
            out += changed_keys(a, b, prefix + (index,))
        return out
    return [] if old == new else [key_path(prefix)]

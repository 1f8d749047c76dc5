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

from foxgeese.engine import get_variant
from foxgeese.engine.userinput import named, shown
from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.protocol.sandbox import check_available
from foxgeese.protocol.timecontrol import TimeControl, TimeControlError
from foxgeese.tournaments.book import BookError, load_book
from foxgeese.tournaments.bundled import bundled_names, resolve
from foxgeese.tournaments.errors import ConfigError
from foxgeese.tournaments.yamlload import load_yaml

# Keys that do not change which games are played or how: excluded from the hash, so that a
# tournament can be resumed with more workers or into a directory given on the command line.
UNHASHED_KEYS = ("concurrency", "output_dir", "executor", "ray", "events", "affinity")

DEFAULT_OUTPUT_ROOT = "tournament-out"
MAX_GAMES = 1_000_000  # games one config may schedule (a tournament of more is a typo)
MAX_SEED = 2**63 - 1
MAX_PROBLEMS = 20  # problems listed; the rest are counted


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
    """Sequential probability ratio test for a two-player match: stop as soon as H0 or H1 wins."""

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

    @field_validator("time_control")
    @classmethod
    def _time_control(cls, value: str) -> str:
        """The referee's own parser decides, and its canonical text is what gets hashed."""
        try:
            return TimeControl.parse(value).text()
        except TimeControlError as error:
            raise ValueError(str(error)) from None

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        names = [player.name for player in self.players]
        doubles = sorted({name for name in names if names.count(name) > 1})
        if doubles:
            raise ValueError(f"player names must be unique; repeated: {', '.join(doubles)}")
        if self.format == "gauntlet":
            if self.gauntlet_player is None:
                raise ValueError("format 'gauntlet' needs 'gauntlet_player' (one of the player names)")
            if self.gauntlet_player not in names:
                raise ValueError(
                    f"gauntlet_player {self.gauntlet_player!r} is not a player; allowed: {', '.join(names)}"
                )
        elif self.gauntlet_player is not None:
            raise ValueError("'gauntlet_player' applies only to format 'gauntlet'")
        if self.sprt is not None and len(self.players) != 2:
            raise ValueError(f"'sprt' is for a match of exactly two players (got {len(self.players)})")
        count = len(self.players)
        pairings = count - 1 if self.format == "gauntlet" else count * (count - 1) // 2
        games = pairings * len(self.variants) * self.games_per_pairing
        if games > MAX_GAMES:
            raise ValueError(f"this config schedules {games} games (at most {MAX_GAMES}); "
                             "lower games_per_pairing or the number of players")
        return self

    def canonical(self) -> dict[str, Any]:
        """The keys that decide the games, in a stable form: what the hash and the resume check see."""
        data = self.model_dump(mode="json")
        for key in UNHASHED_KEYS:
            data.pop(key, None)
        if data.get("adjudicate") is None:
            data.pop("adjudicate", None)  # configs from before the key keep their hash
        for player in data["players"]:
            player.pop("sandbox", None)  # how a bot is confined, not which games it plays
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
        raise ConfigError([f"{label}: no such file (bundled configs: {known})"]) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise ConfigError([f"{label}: cannot read: {getattr(error, 'strerror', None) or error}"]) from None
    return parse_config(text, path, label=label)


def parse_config(text: str | bytes, path: Path, label: str | None = None) -> LoadedConfig:
    label = label or str(path)
    data, root = load_yaml(text, label)  # size, alias and number limits before the schema
    if not isinstance(data, dict):
        raise ConfigError([f"{label}: the file must hold a mapping of keys (name, variants, players, ...)"])
    base_dir = path.resolve().parent
    try:
        config = TournamentConfig.model_validate(data, context={"base_dir": str(base_dir)})
    except ValidationError as error:
        items = error.errors()
        problems = [_describe(item, label, root) for item in items[:MAX_PROBLEMS]]
        if len(items) > MAX_PROBLEMS:
            problems.append(f"{label}: and {len(items) - MAX_PROBLEMS} more problems")
        raise ConfigError(problems) from None
    return LoadedConfig(config=config, path=path, base_dir=base_dir)


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


def _describe(item: dict[str, Any], label: str, root: yaml.Node | None) -> str:
    loc = tuple(part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-")))
    kind = item["type"]
    message = item["msg"]
    if kind == "extra_forbidden":
        allowed = ", ".join(_allowed_keys(loc[:-1]))
        message = f"unknown key; allowed keys: {allowed}"
    elif kind == "missing":
        message = "required key is missing"
    elif kind == "literal_error":
        message = f"{shown(item.get('input'))} is not allowed; {message[0].lower()}{message[1:]}"
    elif message.startswith("Value error, "):
        message = message[len("Value error, "):]
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


def changed_keys(old: dict[str, Any], new: dict[str, Any], prefix: tuple[Any, ...] = ()) -> list[str]:
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

"""Tournament configs: every mistake is one line naming the file, the key path and what is allowed;
the schedule is a function of the config; the journal survives torn writes; one runner per folder."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from foxgeese.tournaments.config import changed_keys, load_config, parse_config
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import ConfigError, JournalError, OutputDirBusyError
from foxgeese.tournaments.journal import DirectoryLock, JournalWriter, read_journal
from foxgeese.tournaments.schedule import make_schedule

GOOD = """\
name: t
variants:
  - id: standard
  - id: hare-and-hounds
players:
  - name: r1
    spec: random:seed=1
  - name: r2
    spec: random:seed=2
  - name: r3
    spec: random:seed=3
games_per_pairing: 4
time_control: 2+0.1
seed: 11
opening_plies: 3
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    return caught.value.problems


def test_good_config_loads(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, GOOD))
    assert loaded.config.games_per_pairing == 4
    assert loaded.output_dir() == Path("tournament-out/t")
    assert loaded.output_dir(tmp_path / "x") == tmp_path / "x"


def test_bad_yaml_names_file_and_line(tmp_path: Path) -> None:
    lines = problems(tmp_path, "name: t\nplayers: [a, b\n")
    assert len(lines) == 1
    assert lines[0].startswith(f"{tmp_path / 't.yaml'}:") and "not valid YAML" in lines[0]


def test_unknown_key_lists_the_allowed_ones(tmp_path: Path) -> None:
    lines = problems(tmp_path, GOOD + "concurency: 2\n")
    assert lines == [f"{tmp_path / 't.yaml'}:16: concurency: unknown key (did you mean 'concurrency'?); "
                     "allowed keys: name, variants, players, "
                     "games_per_pairing, time_control, format, gauntlet_player, concurrency, seed, "
                     "opening_plies, max_plies, adjudicate, adjudicate_from_ply, output_dir, sprt, executor, "
                     "affinity, ray, events"]
    nested = problems(tmp_path, GOOD.replace("    spec: random:seed=2", "    spec: random:seed=2\n    colour: red"))
    assert nested == [f"{tmp_path / 't.yaml'}:10: players[1].colour: unknown key; allowed keys: "
                      "name, spec, command, cwd, env, sandbox, transport"]


def test_odd_games_per_pairing_says_why(tmp_path: Path) -> None:
    lines = problems(tmp_path, GOOD.replace("games_per_pairing: 4", "games_per_pairing: 3"))
    assert len(lines) == 1
    assert "games_per_pairing: must be even (got 3)" in lines[0] and "once in each role" in lines[0]


def test_unknown_variant_lists_the_variants(tmp_path: Path) -> None:
    lines = problems(tmp_path, GOOD.replace("id: hare-and-hounds", "id: hare-and-hound"))
    assert len(lines) == 1 and ":4: variants[1]:" in lines[0]
    assert "standard" in lines[0] and "great-cross" in lines[0]


def test_missing_bot_binary_fails_before_anything_runs(tmp_path: Path) -> None:
    text = GOOD.replace("    spec: random:seed=3", "    command: [./no-such-bot, --fast]")
    lines = problems(tmp_path, text)
    assert len(lines) == 1 and "players[2]" in lines[0] and "./no-such-bot" in lines[0]
    lines = problems(tmp_path, GOOD.replace("    spec: random:seed=3", "    command: [no-such-program-xyz]"))
    assert "not found on PATH" in lines[0]


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("games_per_pairing: 4", "games_per_pairing: 5").replace(
        "time_control: 2+0.1", "time_control: fast").replace("spec: random:seed=1", "spec: randomm")
    lines = problems(tmp_path, text)
    assert len(lines) == 3
    assert any("time_control" in line and "'BASE+INC'" in line for line in lines)
    assert any("players[0]" in line and "unknown player 'randomm'" in line for line in lines)


def test_gauntlet_and_names_are_checked(tmp_path: Path) -> None:
    lines = problems(tmp_path, GOOD + "format: gauntlet\ngauntlet_player: nobody\n")
    assert lines[0].endswith(":17: gauntlet_player: 'nobody' is not a player; allowed: r1, r2, r3")
    lines = problems(tmp_path, GOOD.replace("name: r2", "name: r1"))
    assert lines == [f"{tmp_path / 't.yaml'}:8: players[1].name: player name 'r1' is used twice (first by "
                     "players[0]); player names must be unique"]


def test_every_problem_comes_at_once_each_with_its_line(tmp_path: Path) -> None:
    """A duplicate name and a gauntlet without its player used to wait until every other problem
    was fixed, and came without a line."""
    text = GOOD.replace("name: r2", "name: r1").replace("spec: random:seed=3", "spec: randomm")
    lines = problems(tmp_path, text + "format: gauntlet\nbogus: 1\n")
    assert [line.split(": ", 2)[1] for line in lines] == ["players[1].name", "players[2]", "format", "bogus"]
    assert [int(line.split(": ", 1)[0].rsplit(":", 1)[1]) for line in lines] == [8, 10, 16, 17]
    assert "needs 'gauntlet_player'" in lines[2]


def test_the_model_checks_names_without_the_file_too() -> None:
    from foxgeese.tournaments.config import TournamentConfig

    with pytest.raises(ValueError, match="used twice"):
        TournamentConfig.model_validate({"name": "t", "variants": [{"id": "standard"}],
                                         "players": [{"name": "a", "spec": "random"}, {"name": "a", "spec": "random"}]})


def test_tables_adjudication_of_a_variant_solved_from_the_start_needs_a_first_ply(tmp_path: Path) -> None:
    """Hare and Hounds is solved from the start: tables would end every game at its first move."""
    text = GOOD + "adjudicate: tables\n"
    lines = problems(tmp_path, text)
    assert lines == [f"{tmp_path / 't.yaml'}:16: adjudicate: tables would end every hare-and-hounds game after its "
                     "first move (the variant is solved from the start); set adjudicate_from_ply: N (tables end no "
                     "game before ply N) or drop adjudicate"]
    assert load_config(write(tmp_path, text + "adjudicate_from_ply: 30\n")).config.adjudicate_from_ply == 30
    assert "applies only with adjudicate" in problems(tmp_path, GOOD + "adjudicate_from_ply: 30\n")[0]


def test_a_folder_named_like_a_bundled_config_does_not_hide_it(tmp_path: Path, monkeypatch) -> None:
    """`foxgeese tournament run ladder --out ladder`, run again from the same folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ladder").mkdir()
    assert load_config("ladder").config.name == "ladder"


def test_a_bare_number_of_seconds_is_a_time_control(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, GOOD.replace("time_control: 2+0.1", "time_control: 10")))
    assert loaded.config.time_control == "10+0"


def test_cli_prints_one_line_per_problem_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("games_per_pairing: 4", "games_per_pairing: 3") + "bogus: 1\n")
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 2
    assert not (tmp_path / "out").exists()


def test_bundled_config_is_found_by_name() -> None:
    loaded = load_config("quick")
    assert loaded.config.name == "quick" and loaded.path.name == "quick.yaml"
    assert loaded.config.concurrency == 2


def test_hash_ignores_concurrency_and_changed_keys_are_named(tmp_path: Path) -> None:
    base = parse_config(GOOD, tmp_path / "a.yaml").config
    more_workers = parse_config(GOOD + "concurrency: 4\n", tmp_path / "a.yaml").config
    assert base.config_hash() == more_workers.config_hash()
    other = parse_config(GOOD.replace("seed: 11", "seed: 12").replace("random:seed=2", "random:seed=5"),
                         tmp_path / "a.yaml").config
    assert other.config_hash() != base.config_hash()
    assert changed_keys(base.canonical(), other.canonical()) == ["players[1].spec", "seed"]


def test_schedule_is_deterministic_balanced_and_twinned(tmp_path: Path) -> None:
    config = parse_config(GOOD, tmp_path / "a.yaml").config
    schedule = make_schedule(config)
    assert schedule == make_schedule(config)
    assert len(schedule) == 3 * 4 * 2  # pairs x games_per_pairing x variants
    assert [game.id for game in schedule[:3]] == ["r0001", "r0002", "r0003"]
    roles = Counter((game.variant_id, game.predator, game.prey) for game in schedule)
    assert set(roles.values()) == {2}  # every ordered pair, each role, per variant: 4 / 2 games
    by_id = {game.id: game for game in schedule}
    for game in schedule:
        twin = by_id[game.twin]
        assert (twin.predator, twin.prey) == (game.prey, game.predator) and twin.opening == game.opening
        assert len(game.opening) == 3
    openings = {game.opening for game in schedule if game.variant_id == "standard"}
    assert len(openings) == 2  # one opening per round, shared by all pairs
    reseeded = make_schedule(parse_config(GOOD.replace("seed: 11", "seed: 12"), tmp_path / "a.yaml").config)
    assert [g.opening for g in reseeded] != [g.opening for g in schedule]


def test_gauntlet_pairs_only_the_gauntlet_player(tmp_path: Path) -> None:
    config = parse_config(GOOD + "format: gauntlet\ngauntlet_player: r2\n", tmp_path / "a.yaml").config
    schedule = make_schedule(config)
    assert len(schedule) == 2 * 4 * 2
    assert all("r2" in game.players for game in schedule)
    assert {frozenset(game.players) for game in schedule} == {frozenset({"r2", "r1"}), frozenset({"r2", "r3"})}


def game_line(game_id: str) -> GameEntry:
    """A journal game line with every field a reader needs (the record left out)."""
    return GameEntry(id=game_id, twin=game_id, variant="standard", options={}, predator="a", prey="b", opening=[],
                     winner="fox", predator_score=1.0, termination="captured", reason="", plies=9)


def test_journal_repairs_a_torn_last_line_and_refuses_damage(tmp_path: Path) -> None:
    with JournalWriter(tmp_path) as journal:
        journal.append(game_line("r0001"))
        journal.append(game_line("r0002"))
    path = tmp_path / "journal.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type": "game", "id": "r00')
    assert [e.id for e in read_journal(tmp_path)] == ["r0001", "r0002"]
    assert path.read_bytes() != whole  # reading alone does not touch the file
    read_journal(tmp_path, repair=True)
    assert path.read_bytes() == whole
    path.write_bytes(whole.replace(b'"r0001"', b'"r0001'))
    with pytest.raises(JournalError, match=r"line 1 is damaged \(not a JSON object\)"):
        read_journal(tmp_path)


def test_second_runner_on_a_directory_is_refused(tmp_path: Path) -> None:
    with DirectoryLock(tmp_path):
        with pytest.raises(OutputDirBusyError, match="another runner"):
            DirectoryLock(tmp_path).acquire()
    with DirectoryLock(tmp_path):  # released on exit
        pass


@pytest.mark.parametrize("text,canonical", [("2+0.1", "2+0.1"), ("2.0 + 0.10", "2+0.1"), ("MOVE=0.5", "move=0.5")])
def test_time_control_is_read_by_the_referee_parser_and_kept_canonical(
    tmp_path: Path, text: str, canonical: str
) -> None:
    loaded = load_config(write(tmp_path, GOOD.replace("time_control: 2+0.1", f"time_control: {text}")))
    assert loaded.config.time_control == canonical


@pytest.mark.parametrize("text", ["0+0", "move=0", "fast"])
def test_time_controls_the_referee_refuses_are_config_errors(tmp_path: Path, text: str) -> None:
    lines = problems(tmp_path, GOOD.replace("time_control: 2+0.1", f"time_control: {text}"))
    assert any("time_control" in line and "accepted forms" in line for line in lines), lines


def test_a_player_chooses_its_transport(tmp_path: Path) -> None:
    """`transport` reaches the bot's config, is not hashed (how a bot is reached decides no game), and
    a wrong value or tcp for a sandboxed bot is one named problem."""
    from foxgeese.tournaments.runner import bot_configs

    plain = load_config(write(tmp_path, GOOD))
    chosen = load_config(write(tmp_path, GOOD.replace("    spec: random:seed=2", "    spec: random:seed=2\n"
                                                      "    transport: tcp"), "chosen.yaml"))
    assert bot_configs(chosen)["r2"].transport == "tcp" and bot_configs(chosen)["r1"].transport == "auto"
    assert chosen.config.config_hash() == plain.config.config_hash()
    wrong = problems(tmp_path, GOOD.replace("    spec: random:seed=2", "    spec: random:seed=2\n    transport: udp"))
    assert len(wrong) == 1 and "players[1].transport" in wrong[0] and "`auto`, `ipc` or `tcp`" in wrong[0], wrong
    boxed = problems(tmp_path, GOOD.replace("    spec: random:seed=2", "    spec: random:seed=2\n    sandbox: true\n"
                                            "    transport: tcp"))
    assert len(boxed) == 1 and "a sandboxed bot has no network" in boxed[0], boxed


# Words of the validation library that a user must never read (tournaments/config_errors.py).
PYDANTIC_WORDS = ("Input should", "String should", "valid dictionary", "instance of", "Field required",
                  "Extra inputs", "Value error", "List should", "Dictionary should", "pydantic", "errors.pydantic")
KINDS = [None, True, 3, 3.5, -1, 10**12, ".nan", "x y", "", "a" * 10_001, [], ["x"], [3], {}, {"a": 1}, {3: "x"}]


def _key_paths() -> list[tuple[object, ...]]:
    """Every key of the schema that SHAPES describes, as a path with index 0 for a list item."""
    from foxgeese.tournaments.config_errors import SHAPES

    out = []
    for path in SHAPES:
        parts: list[object] = []
        for part in path.replace("[]", ".[]").split("."):
            parts.extend([0] if part == "[]" else [] if part == "" else ["A" if part == "*" else part])
        out.append(tuple(parts))
    return out


def _put(data: object, path: tuple[object, ...], value: object) -> object:
    """`data` with the value at `path` replaced (missing mappings and list items made on the way)."""
    import copy

    data = copy.deepcopy(data)
    node = data
    for part in path[:-1]:
        if isinstance(part, int):
            node = node[part]  # type: ignore[index]
        else:
            node = node.setdefault(part, {})  # type: ignore[union-attr]
            if not isinstance(node, (dict, list)):
                return data
    node[path[-1]] = value  # type: ignore[index]
    return data


def test_no_config_mistake_reads_in_the_validation_librarys_words(tmp_path: Path) -> None:
    """Every key of the schema given every kind of YAML value, every required key dropped and an
    unknown key added: each problem is `FILE:LINE: key.path: ...` in foxgeese's words, and each
    pydantic error type seen is one config_errors.ERROR_TYPES names."""
    import json

    import yaml
    from pydantic import ValidationError

    from foxgeese.tournaments.config import TournamentConfig
    from foxgeese.tournaments.config_errors import ERROR_TYPES

    base = {"name": "t", "variants": [{"id": "standard"}],
            "players": [{"name": "a", "spec": "random"}, {"name": "b", "spec": "random"}],
            "sprt": {"elo0": 0, "elo1": 10}, "ray": {"address": "h:1"}, "events": {"pub": "tcp://127.0.0.1:1"}}
    cases = [_put(base, path, value) for path in _key_paths() for value in KINDS]
    cases += [{key: value for key, value in base.items() if key != drop} for drop in ("name", "variants", "players")]
    cases += [_put(base, ("players", 0), {"spec": "random"}), _put(base, ("sprt",), {"elo1": 3}), {**base, "x": 1},
              _put(base, ("players", 0, "nmae"), "x"), _put(base, ("variants",), [{"id": "standard", "book": None}])]
    seen: set[str] = set()
    lines = 0
    for data in cases:
        # libyaml's dumper and loader for the test's own round trip (the config loader under test
        # is the pure-Python one): half this test's time was PyYAML in Python.
        text = yaml.dump(data, Dumper=yaml.CSafeDumper, allow_unicode=True).replace("'.nan'", ".nan")
        try:
            TournamentConfig.model_validate(yaml.load(text, Loader=yaml.CSafeLoader),
                                            context={"base_dir": str(tmp_path)})
        except ValidationError as error:
            seen |= {item["type"] for item in error.errors()}
        path = tmp_path / "c.yaml"
        path.write_text(text)
        try:
            load_config(path)
        except ConfigError as error:
            for problem in error.problems:
                lines += 1
                assert problem.startswith(f"{path}:") and "\n" not in problem, problem
                assert not any(word in problem for word in PYDANTIC_WORDS), (json.dumps(data), problem)
    assert seen == set(ERROR_TYPES), (seen - set(ERROR_TYPES), set(ERROR_TYPES) - seen)
    assert lines > 200


def test_a_shape_mistake_says_what_the_file_should_hold_with_its_line(tmp_path: Path) -> None:
    lines = problems(tmp_path, "name: my match\nvariants: {id: standard}\nplayers:\n  - mm3\n"
                               "  - {name: b, spec: random}\n")
    assert lines == [
        f"{tmp_path / 't.yaml'}:1: name: got the text 'my match'; give a name of letters, digits and _ . - only "
        "(it names the output folder), e.g. `name: my-match`",
        f"{tmp_path / 't.yaml'}:2: variants: got a mapping (key: value); give a list of variants, one `- id: VARIANT` "
        "item each, e.g. `variants: [{id: standard}]`",
        f"{tmp_path / 't.yaml'}:4: players[0]: got the text 'mm3'; give a player: a mapping with `name` and either "
        "`spec` (a built-in player) or `command` (an external bot), e.g. `- {name: mm3, spec: 'minimax:depth=3'}`",
    ]

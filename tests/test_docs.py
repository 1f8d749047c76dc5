"""Every command and code block of README.md, PROTOCOL.md, DEVELOPERS.md and docs/*.md, run as a
reader would run it, so the docs cannot drift from the code.

A fenced block is, by its tag:
- untagged, `sh`, `bash`, `console`: commands, one a line (`# ...` comments dropped), run in a
  folder of its own for each page (blocks of a page share it, in order: a record one block writes
  is there for the next). A `foxgeese ...` line without shell syntax runs in this process (click's
  runner, as tests/tournament_support.py's `foxgeese_here`: a Python start-up saved a line); any
  other line runs in bash. Each must exit 0 (within `LIMIT_S`).
- `python`: executed (DEVELOPERS.md's API reference is parsed and its imports run: its lines name
  calls with placeholders), `yaml`: loaded as a tournament config, `text`/`json`/...: not code.
A comment `<!-- doc-test: ... -->` right above a block says how to run it; each needs a reason:
- `skip: REASON` (the block is not run), `skip-line "WORDS": REASON` (lines holding WORDS are not),
- `file NAME` (the block is written to NAME in the page's folder instead of being run),
- `then COMMAND` (run after the block, e.g. the command the text gives for a file),
- `given PYTHON` (run before a python block: the objects its text assumes, e.g. a position).
The skipped blocks and lines are counted and listed (`test_every_skip_names_its_reason`).
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from foxgeese.main import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", "PROTOCOL.md", "DEVELOPERS.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
SHELL_TAGS = ("", "sh", "bash", "console", "shell")
TEXT_TAGS = ("text", "json", "c", "js", "javascript", "html", "toml", "ini", "diff", "output")
LIMIT_S = 120  # one command; the whole file runs in well under a minute
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
SHELL_SYNTAX = re.compile(r"&&|\|\||[|;<>`$]|\bcd\b")


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    tag: str
    text: str
    directives: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def option(self, name: str) -> list[str]:
        return [d[len(name):].strip() for d in self.directives if d == name or d.startswith(name + " ")
                or d.startswith(name + ":")]


def blocks(page: str) -> list[Block]:
    """The fenced blocks of a page, with the doc-test comments right above each."""
    lines = (ROOT / page).read_text().splitlines()
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        directives, back = [], index - 1
        while back >= 0 and (matched := DIRECTIVE.match(lines[back])):
            directives.insert(0, matched.group(1))
            back -= 1
        end = next(i for i in range(index + 1, len(lines)) if FENCE.match(lines[i]) and not FENCE.match(
            lines[i]).group(2))
        body = textwrap.dedent("\n".join(lines[index + 1:end]))
        found.append(Block(page, index + 1, opening.group(2).lower(), body, directives))
        index = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]


def commands(block: Block) -> list[tuple[str, str | None]]:
    """(command, why it is skipped or None) for each command line of a shell block."""
    skips = []
    for directive in block.option("skip-line"):
        matched = re.match(r'"([^"]+)"\s*:\s*(\S.*)$', directive)
        assert matched, f"{block.where}: skip-line needs \"WORDS\": REASON, not {directive!r}"
        skips.append((matched.group(1), matched.group(2)))
    out = []
    for raw in block.text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        command = shlex.join(words) if not SHELL_SYNTAX.search(_code(line)) else _code(line)
        why = next((reason for words_, reason in skips if words_ in line), None)
        out.append((command, why))
    return out


def _code(line: str) -> str:
    """The line without its trailing `# comment` (a `#` inside quotes stays)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split, lexer.commenters = True, "#"
    quote, out = None, []
    for char in line:
        if quote is None and char == "#" and (not out or out[-1].isspace()):
            break
        if char in "'\"":
            quote = None if quote == char else quote or char
        out.append(char)
    return "".join(out).strip()


def _skip_reason(block: Block) -> str | None:
    reasons = block.option("skip")
    for reason in reasons:
        assert reason.startswith(":") and reason[1:].strip(), f"{block.where}: `skip: REASON` needs its reason"
    return reasons[0][1:].strip() if reasons else None


def _setup(folder: Path) -> None:
    """What the pages' commands take as given: a tournament config `my.yaml` of the reader's own
    (small: two quick players), the example bots (by relative path, from the page's folder)."""
    (folder / "my.yaml").write_text(
        "name: my\nvariants: [{id: hare-and-hounds}]\nplayers:\n  - {name: a, spec: 'random:seed=1'}\n"
        "  - {name: b, spec: 'minimax:depth=2'}\ngames_per_pairing: 8\nmax_plies: 30\ntime_control: move=0.5\n")
    for name in ("examples", "research", "benchmarks", "scripts"):
        if not (folder / name).exists():
            (folder / name).symlink_to(ROOT / name)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for page in PAGES:
        folder = tmp_path_factory.mktemp(page.replace("/", "-").removesuffix(".md"))
        _setup(folder)
        out[page] = folder
    return out


def run_command(command: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Runs one command line in `folder`: `foxgeese ...` in this process, anything else in bash."""
    words = shlex.split(command)
    # A seat for a person reads the real terminal: such a command runs in its own process (stdin empty).
    if words[:1] == ["foxgeese"] and not SHELL_SYNTAX.search(command) and "human" not in command:
        monkeypatch.chdir(folder)
        result = CliRunner().invoke(main, words[1:])
        code = result.exit_code
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return 1, f"{result.output}\n{result.exception!r}"
        return code, result.output
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=LIMIT_S, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def isolated(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """Tables and the web store of the docs' commands go to folders of their own."""
    tables = tmp_path_factory.getbasetemp() / "doc-tables"
    tables.mkdir(exist_ok=True)
    monkeypatch.setenv("FOXGEESE_TABLES", str(tables))
    monkeypatch.setenv("COLUMNS", "80")
    return folders


@pytest.mark.parametrize("block", ALL, ids=[block.where for block in ALL])
def test_each_block_runs_as_written(block: Block, isolated: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = isolated[block.page]
    if _skip_reason(block) is not None:
        return  # counted and listed by test_every_skip_names_its_reason
    for name in block.option("file"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(block.text + "\n")
    if block.tag in SHELL_TAGS and not block.option("file"):
        for command in block.option("given"):
            code, output = run_command(command, folder, monkeypatch)
            assert code == 0, f"{block.where}: given `{command}` exited {code}:\n{output[-3000:]}"
        for command, why in commands(block):
            if why is None:
                code, output = run_command(command, folder, monkeypatch)
                assert code == 0, f"{block.where}: `{command}` exited {code}:\n{output[-3000:]}"
    elif block.tag == "python" and not block.option("file"):
        _run_python(block, folder, monkeypatch)
    elif block.tag == "yaml":
        from foxgeese.tournaments.config import parse_config

        parse_config(block.text, folder / (block.option("file") or ["docs.yaml"])[0])
    else:
        assert block.tag in TEXT_TAGS + SHELL_TAGS + ("python", "yaml"), f"{block.where}: unknown tag {block.tag!r}"
    for command in block.option("then"):
        code, output = run_command(command, folder, monkeypatch)
        assert code == 0, f"{block.where}: `{command}` exited {code}:\n{output[-3000:]}"


def _run_python(block: Block, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(block.text, filename=block.where)  # every page's Python parses
    if block.page == "DEVELOPERS.md":  # API reference: names calls with placeholders; its imports run
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module([node], []), block.where, "exec"), {})
        return
    skips = [re.match(r'"([^"]+)"', d).group(1) for d in block.option("skip-line")]  # type: ignore[union-attr]
    source = "\n".join(line for line in block.text.splitlines() if not any(words in line for words in skips))
    monkeypatch.chdir(folder)
    namespace: dict[str, object] = {"__name__": "__doc__"}
    for given in block.option("given"):
        exec(given, namespace)
    exec(compile(source, block.where, "exec"), namespace)
    closing = namespace.get("env")
    if hasattr(closing, "close"):
        closing.close()  # type: ignore[union-attr]


def test_every_skip_names_its_reason() -> None:
    """A block or line the suite does not run says why; the count is printed with the test's output."""
    skipped_blocks = [(block.where, _skip_reason(block)) for block in ALL if _skip_reason(block) is not None]
    skipped_lines = [(block.where, command, why) for block in ALL if block.tag in SHELL_TAGS
                     and _skip_reason(block) is None and not block.option("file")
                     for command, why in commands(block) if why is not None]
    run = sum(1 for block in ALL if block.tag in SHELL_TAGS and _skip_reason(block) is None
              and not block.option("file") for _command, why in commands(block) if why is None)
    run += sum(1 for block in ALL if block.tag in ("python", "yaml") and _skip_reason(block) is None)
    run += sum(len(block.option("then")) for block in ALL if _skip_reason(block) is None)
    for where, reason in skipped_blocks:
        assert reason, where
    for where, command, why in skipped_lines:
        assert why.strip(), (where, command)
    print(f"\ndoc blocks: {len(ALL)}; commands and code blocks run: {run}; blocks skipped: {len(skipped_blocks)}; "
          f"lines skipped: {len(skipped_lines)}")
    for where, reason in skipped_blocks:
        print(f"  skipped block {where}: {reason}")
    for where, command, why in skipped_lines:
        print(f"  skipped line {where}: {command}: {why}")
    assert run > len(skipped_lines) + len(skipped_blocks)  # most of what the docs say is run


def test_every_block_has_a_tag_the_harness_knows() -> None:
    """An untagged block is run as commands: output, diagrams and boards are tagged `text`."""
    for block in ALL:
        assert block.tag in SHELL_TAGS + TEXT_TAGS + ("python", "yaml"), f"{block.where}: tag {block.tag!r}"
        if block.tag in SHELL_TAGS and _skip_reason(block) is None and not block.option("file"):
            for command, _why in commands(block):
                first = shlex.split(command)[0] if command else ""
                assert first in ("foxgeese", "python", "pip", "bash", "node", "ray", "env", "make", "npm"), (
                    f"{block.where}: {command!r} does not look like a command; tag the block `text`")


def test_the_readmes_figures_for_quick_are_the_games_quick_plays(isolated: dict[str, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """README.md quotes the bundled `quick` tournament's scores and its head to head: every player
    has a fixed budget, so any machine plays the same games, and this run gives the same figures."""
    from foxgeese.tournaments.report import elo_text, load_results

    folder = isolated["README.md"]
    out = folder / "tournament-out" / "quick"
    if not (out / "results.json").exists():  # else the README's own block played it already
        code, output = run_command("foxgeese tournament run quick", folder, monkeypatch)
        assert code == 0, output
    results = load_results(out)
    readme = " ".join((ROOT / "README.md").read_text().split())
    scores = re.search(r"\((\d+)/16 for mcts1000, (\d+)/16 for minimax4, (\d+)/16 for random\)", readme)
    assert scores, "README.md no longer quotes quick's scores as this test reads them"
    for name, quoted in zip(("mcts1000", "minimax4", "random"), scores.groups()):
        assert f"{results['standings'][name]['score']:g}" == quoted, name
    pair = next(line for line in results["pairs"] if {line["first"], line["second"]} == {"mcts1000", "minimax4"})
    quoted = re.search(r"head-to-head: ([^ ]+ Elo \[[^\]]+\]) over (\d+) twin pairs", readme)
    assert quoted, "README.md no longer quotes quick's head to head as this test reads it"
    assert elo_text(pair).replace("-", "−") == quoted.group(1) and str(pair["pairs"]) == quoted.group(2)

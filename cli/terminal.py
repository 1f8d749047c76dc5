"""Output for people on a terminal or a pipe: a rich console that leaves a closed pipe to
`FoxgeeseGroup` (rich's own answer is a silent exit 1), and tables that fit the console's width
(80 columns in a pipe) or degrade to a layout that does, never a cut header or a cell wrapped
over three lines.
"""

from __future__ import annotations

import errno
import textwrap
from collections.abc import Sequence
from typing import IO, Any

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


class PipeSafeConsole(Console):
    """A rich Console whose closed stdout raises BrokenPipeError, handled once for every command."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def make_console(file: IO[str] | None = None, width: int | None = None, stderr: bool = False) -> Console:
    """The console every command prints rich output with (`width` for tests and reports to files)."""
    return PipeSafeConsole(file=file, width=width, stderr=stderr)


def table(title: str, columns: Sequence[str], left: int = 1) -> Table:
    """A table with `columns`, the first `left` of them aligned left and the rest right (numbers)."""
    made = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        made.add_column(column, justify="left" if index < left else "right")
    return made


def print_table(console: Console, shown: Table, legend: Sequence[str] = ()) -> None:
    """Prints `shown` as a boxed table if it fits the console, else without its box, else as one
    block of `header value` lines per row; then each line of `legend` (what its words mean)."""
    width = console.width
    if shown.title:
        console.print(str(shown.title), markup=False, highlight=False, width=width)
        shown.title = None
    if _natural_width(console, shown) > width:
        shown.box, shown.padding, shown.show_edge, shown.pad_edge = box.SIMPLE_HEAD, (0, 1), False, False
        shown.collapse_padding = True
    if _natural_width(console, shown) <= width:
        console.print(shown, width=width)
    else:
        for line in record_lines(shown, width):
            console.print(line, markup=False, highlight=False, width=width, crop=False)
    for line in legend:
        console.print(line, markup=False, highlight=False, width=width)


def _natural_width(console: Console, shown: Table) -> int:
    return Measurement.get(console, console.options.update(width=10_000), shown).maximum


def record_lines(shown: Table, width: int) -> list[str]:
    """Each row as its first cell, then `header value` pairs, wrapped at `width` and indented."""
    columns = list(shown.columns)
    cells = [[str(cell) for cell in column.cells] for column in columns]
    lines = []
    for row in range(len(cells[0]) if cells else 0):
        pairs = [f"{columns[index].header} {cells[index][row]}".strip()
                 for index in range(1, len(columns)) if cells[index][row] != ""]
        head = cells[0][row] or str(columns[0].header)
        lines.extend(textwrap.wrap(f"{head}: " + "; ".join(pairs), width, subsequent_indent="    ",
                                   break_on_hyphens=False))
    return lines


def rendered(render: Any, width: int = 80) -> str:
    """What `render(console)` prints on a console `width` columns wide (tests, captures)."""
    import io

    buffer = io.StringIO()
    render(make_console(file=buffer, width=width))
    return buffer.getvalue()

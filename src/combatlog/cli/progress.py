"""One progress display for the commands that may run for seconds (import, export, verify, copy, run,
report): a rich progress bar on stderr, shown only when stderr is a terminal and never under --json.

Code doing the work reports through a plain callback, ``on_progress(done, total)`` (total 0: unknown),
so that it knows nothing of terminals::

    with progress("verifying", as_json=as_json) as bar:
        verify_file(path, store, progress=bar.callback)

rich is imported only when the bar is shown (start-up time matters for every other run).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
OnProgress = Callable[[int, int], None]
_OPEN: list[Progress] = []  # shown displays now open: one at a time (a command run by `run FILE` shows none)


def shown_here(as_json: bool = False) -> bool:
    """Whether a progress display may be shown: stderr is a terminal and the output is not JSON."""
    return not as_json and sys.stderr.isatty()


class Progress:
    """A progress display for one task; ``on_progress(done, total)`` moves it (a no-op when hidden)."""

    def __init__(self, label: str, unit: str = "events", *, shown: bool) -> None:
        self.label, self.unit, self.shown = label, unit, shown and not _OPEN
        if self.shown:
            _OPEN.append(self)
        self._bar: Any = None
        self._task: Any = None

    @property
    def callback(self) -> OnProgress | None:
        """``on_progress`` when the display is shown, else None (for code that skips counting then)."""
        return self.on_progress if self.shown else None

    def on_progress(self, done: int, total: int) -> None:
        if not self.shown:
            return
        first = self._bar is None
        if first:
            self._start()
        self._bar.update(self._task, completed=done, total=total or None)
        if first or (total and done >= total):  # drawn at once, not only on rich's next tick: a task
            self._bar.refresh()                  # shorter than a tick is still seen, and seen to finish

    def count(self, items: Iterable[T], total: int) -> Iterator[T]:
        """``items`` as they are, the display moving by one for each."""
        done = 0
        for item in items:
            yield item
            done += 1
            self.on_progress(done, total)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

        self._bar = Bar(TextColumn(f"{self.label}"), BarColumn(), MofNCompleteColumn(), TextColumn(self.unit),
                        TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True,
                        redirect_stdout=False, redirect_stderr=False)  # stdout may be a pipe: never capture it
        self._task = self._bar.add_task(self.label, total=None)
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        if self in _OPEN:
            _OPEN.remove(self)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(label: str, unit: str = "events", *, as_json: bool = False, shown: bool | None = None) -> Progress:
    """A progress display for ``label``; shown on a terminal unless ``as_json`` (``shown`` decides instead)."""
    return Progress(label, unit, shown=shown_here(as_json) if shown is None else shown)

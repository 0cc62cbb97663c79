"""The audit's progress display: one rich progress bar per stage on stderr (or nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..terminal import terminal_text

__all__ = ["Stages", "terminal_text"]


class Stages:
    """A rich progress display with one bar per stage on stderr (or nothing)."""

    def __init__(self, names: list[str], enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._names = names

    @contextmanager
    def running(self) -> Iterator[Stages]:
        if not self.enabled:
            yield self
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<28}"),
            BarColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        with self._progress:
            for name in self._names:
                self._tasks[name] = self._progress.add_task(name, total=1, note="", start=False)
            yield self

    def start(self, name: str) -> None:
        if self._progress is not None and name in self._tasks:
            self._progress.start_task(self._tasks[name])

    def step(self, name: str, completed: int, total: int, note: str = "") -> None:
        """Sub-steps of a stage (e.g. one situation test per protected attribute)."""
        if self._progress is not None and name in self._tasks:
            self._progress.update(
                self._tasks[name], completed=completed, total=total, note=terminal_text(note)
            )

    def done(self, name: str, note: str = "") -> None:
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], total=1, completed=1, note=terminal_text(note))
            self._progress.stop_task(self._tasks[name])

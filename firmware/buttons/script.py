"""Buttons replayed from a text file (script:FILE), for end-to-end tests and demos.

One event a line: prev, select, next, menu, undo, back (any case). `wait SECONDS` delays
the events after it; `# comments` and blank lines are ignored. The first poll() starts
the clock; an event is delivered once its time has come (immediately when there is no
wait before it). After the last event poll() returns None and `finished` is True.
A word that is not an event is an error naming the file and line, raised when opened.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Callable

from firmware.buttons.base import ButtonEvent, ButtonsError

WORDS = ", ".join(e.value for e in ButtonEvent)


def parse_script(text: str, name: str = "script") -> list[tuple[float, ButtonEvent]]:
    """(due time in seconds from the start, event) for every event line."""
    due = 0.0
    events: list[tuple[float, ButtonEvent]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0].lower() == "wait":
            try:
                seconds = float(words[1]) if len(words) == 2 else -1.0
            except ValueError:
                seconds = -1.0
            if not 0 <= seconds <= 3600:
                raise ButtonsError(f"{name}: line {number}: {line!r}: write wait SECONDS, "
                                   "e.g. wait 1.5")
            due += seconds
            continue
        try:
            if len(words) != 1:
                raise ValueError
            events.append((due, ButtonEvent(words[0].lower())))
        except ValueError:
            raise ButtonsError(f"{name}: line {number}: {line!r} is not a button event; use "
                               f"{WORDS} or wait SECONDS") from None
    return events


class ScriptButtons:
    def __init__(self, path: str | Path | None = None, *, text: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if text is None:
            if path is None:
                raise ButtonsError("script: name the file, e.g. script:moves.txt")
            try:
                text = Path(path).read_text(encoding="utf-8")
            except FileNotFoundError:
                raise ButtonsError(f"{path}: no such button script; check the path") from None
            except (OSError, UnicodeDecodeError) as e:
                raise ButtonsError(f"{path}: cannot read the button script ({e}); save it as "
                                   "UTF-8 text") from None
        self.name = str(path) if path is not None else "script"
        self.pending = deque(parse_script(text, self.name))
        self.clock = clock
        self.sleep = sleep
        self._start: float | None = None

    @property
    def finished(self) -> bool:
        return not self.pending

    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        now = self.clock()
        if self._start is None:
            self._start = now
        if not self.pending:
            if timeout > 0:
                self.sleep(timeout)
            return None
        due, event = self.pending[0]
        wait = self._start + due - now
        if wait > timeout:
            if timeout > 0:
                self.sleep(timeout)
            return None
        if wait > 0:
            self.sleep(wait)
        self.pending.popleft()
        return event

    def close(self) -> None:
        self.pending.clear()


class NoButtons:
    """No buttons: poll() just waits out the timeout."""

    def __init__(self, sleep: Callable[[float], None] = time.sleep) -> None:
        self.sleep = sleep

    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        if timeout > 0:
            self.sleep(timeout)
        return None

    def close(self) -> None:
        pass

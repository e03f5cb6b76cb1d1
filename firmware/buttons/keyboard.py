"""The keyboard as the three buttons, for the demo in a terminal.

    a or Left          PREV        A (shift)   UNDO  (long PREV)
    s, Space or Enter  SELECT      S (shift)   MENU  (long SELECT)
    d or Right         NEXT        D (shift)   BACK  (long NEXT)
    q                  quit: raises KeyboardInterrupt, exactly like Ctrl-C

The terminal is put in cbreak mode (no line buffering, no echo) rather than full raw
mode, so Ctrl-C still interrupts and output newlines still work; reads are non-blocking
(select with a timeout). close() restores the saved settings, and an atexit hook does it
too should the program die another way; a terminal left without echo is a bad demo.
"""

from __future__ import annotations

import atexit
import os
import select
import sys
import termios
from typing import Any

from firmware.buttons.base import ButtonEvent, ButtonsError

KEYS = {"a": ButtonEvent.PREV, "s": ButtonEvent.SELECT, " ": ButtonEvent.SELECT,
        "\r": ButtonEvent.SELECT, "\n": ButtonEvent.SELECT, "d": ButtonEvent.NEXT,
        "A": ButtonEvent.UNDO, "S": ButtonEvent.MENU, "D": ButtonEvent.BACK,
        "\x1b[D": ButtonEvent.PREV, "\x1b[C": ButtonEvent.NEXT,
        "\x1bOD": ButtonEvent.PREV, "\x1bOC": ButtonEvent.NEXT}
QUIT = "q"
HELP = "keys: a/Left prev  s/Space/Enter select  d/Right next  A undo  S menu  D back  q quit"


class KeyboardButtons:
    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        if not os.isatty(self.fd):
            raise ButtonsError("keyboard buttons need a terminal on stdin; use --buttons "
                               "script:FILE or none when piping input")
        self._saved: list[Any] | None = termios.tcgetattr(self.fd)
        mode = termios.tcgetattr(self.fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO)     # lflag: cbreak, keep ISIG
        mode[6][termios.VMIN] = 0
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        self._buffer = ""
        atexit.register(self.close)

    def _read_available(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        while ready:
            chunk = os.read(self.fd, 64)
            if not chunk:
                break
            self._buffer += chunk.decode("utf-8", errors="ignore")
            ready, _, _ = select.select([self.fd], [], [], 0)

    def _take(self) -> ButtonEvent | None:
        while self._buffer:
            if self._buffer[0] == QUIT:
                self._buffer = ""
                raise KeyboardInterrupt("q pressed")
            for seq in ("\x1b[D", "\x1b[C", "\x1bOD", "\x1bOC"):
                if self._buffer.startswith(seq):
                    self._buffer = self._buffer[len(seq):]
                    return KEYS[seq]
            if self._buffer[0] == "\x1b":
                # an escape sequence we do not use (Up, F1...): drop it whole
                end = 1
                while end < len(self._buffer) and not self._buffer[end].isalpha() \
                        and self._buffer[end] != "~":
                    end += 1
                self._buffer = self._buffer[end + 1:]
                continue
            key, self._buffer = self._buffer[0], self._buffer[1:]
            if key in KEYS:
                return KEYS[key]
        return None

    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        event = self._take()
        if event is not None:
            return event
        self._read_available(timeout)
        return self._take()

    def close(self) -> None:
        if self._saved is not None:
            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            except (termios.error, OSError):
                pass
            self._saved = None
            atexit.unregister(self.close)

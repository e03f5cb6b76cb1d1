"""Button events and the interface every button backend implements."""

from __future__ import annotations

import enum
from typing import Protocol


class ButtonEvent(enum.Enum):
    PREV = "prev"
    SELECT = "select"
    NEXT = "next"
    MENU = "menu"        # long press on SELECT
    UNDO = "undo"        # long press on PREV
    BACK = "back"        # long press on NEXT


# The short event of each physical button and what holding it means instead.
LONG_OF = {ButtonEvent.PREV: ButtonEvent.UNDO, ButtonEvent.SELECT: ButtonEvent.MENU,
           ButtonEvent.NEXT: ButtonEvent.BACK}


class ButtonsError(RuntimeError):
    """Buttons that cannot be opened, or a bad replay script; the message is one line."""


class Buttons(Protocol):
    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        """The next event, waiting up to `timeout` seconds; None when there is none."""
        ...

    def close(self) -> None: ...

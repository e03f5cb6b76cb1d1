"""Three buttons (previous, select, next) as a stream of events; `open_buttons(spec)`.

Long presses: long SELECT opens the menu, long PREV undoes the last move.
Specs (also from $TABLEREF_BUTTONS):
  gpio[:PREV,SELECT,NEXT]   gpiozero Buttons on BCM pins (default 5,6,13; see README wiring)
  keyboard                  a terminal: a/s/d or arrows, Enter; A, S (capital) long presses
  script:FILE               a recorded sequence (one event a line, optional "@t" delay)
  none                      no buttons
gpiozero honours GPIOZERO_PIN_FACTORY=mock, which is what the tests use.
"""
from firmware.buttons.base import ButtonEvent, Buttons

__all__ = ["ButtonEvent", "Buttons"]

"""Three buttons (previous, select, next) as a stream of events; `open_buttons(spec)`.

Long presses: long SELECT opens the menu (MENU), long PREV undoes the last move (UNDO),
long NEXT goes back (BACK). Specs (also from $TABLEREF_BUTTONS, then the config file,
then "auto"):
  auto                      gpio on a Raspberry Pi, keyboard on a terminal, else none
  gpio[:PREV,SELECT,NEXT]   gpiozero Buttons on BCM pins (default 5,6,13; docs/hardware.md)
  keyboard                  a terminal: a/s/d or arrows, Enter; A, S, D (capital) long
                            presses; q quits (KeyboardInterrupt)
  script:FILE               a recorded sequence: one event a line, "wait SECONDS", "# ..."
  none                      no buttons
gpiozero honours GPIOZERO_PIN_FACTORY=mock, which is what the tests use.
"""
from firmware.buttons.base import ButtonEvent, Buttons, ButtonsError
from firmware.buttons.factory import open_buttons

__all__ = ["ButtonEvent", "Buttons", "ButtonsError", "open_buttons"]

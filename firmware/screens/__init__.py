"""OLED screens: pure functions from state to a 128x64 mode "1" PIL image.

firmware/screens/base.py holds the toolkit (canvas, fonts, text/menu/number screens) and
the screens every game shares; each game's screens live beside it (e.g. screens/town77.py).
"""

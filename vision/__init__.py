"""Frames in, observations out (in table millimetres). Reads pixels only, never a scene description."""

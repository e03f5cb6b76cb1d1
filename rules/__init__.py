"""Pure game logic: states in, verdicts and scores out. No numpy, cv2 or I/O."""

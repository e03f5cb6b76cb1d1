"""`tableref ...` with the recorded-truth Town 77 reader registered (subprocess tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import vision.api  # noqa: E402

vision.api.READERS["town77"] = "town77_challenge_truth_reader"

from firmware.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))

"""`tableref ...` with the mini table's reader registered for town77 (subprocess tests).

Registering through vision.api.READERS is the same door every real reader uses, so the
command under test is the real one; only the pixels-to-tiles step is the test's own.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import vision.api  # noqa: E402

vision.api.READERS["town77"] = "minitable"

from firmware.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))

"""Make the ``_gemini_*`` helper modules importable (the folder has no ``__init__.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

"""Make the helper module importable as a plain module (the folder has no __init__)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

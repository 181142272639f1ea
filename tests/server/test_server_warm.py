"""The providers are warmed at start-up: the first run does not wait on a vendor SDK import.

In a fresh interpreter (this process has long imported every SDK): building the app imports
none of them; the app's start-up (its lifespan, what uvicorn runs before taking requests)
imports the SDK of every vendor the replay agent has recordings of, and the driver.
"""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import asyncio, json, sys
from toolwire.server import create_app

WATCH = ("anthropic", "openai", "google.genai", "toolwire.driver._runner")
app = create_app()
before = [m for m in WATCH if m in sys.modules]

async def main():
    async with app.router.lifespan_context(app):
        return [m for m in WATCH if m in sys.modules]

print(json.dumps({"before": before, "after": asyncio.run(main())}))
"""


def test_start_up_imports_what_the_first_run_needs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] == []
    assert seen["after"] == ["anthropic", "openai", "google.genai", "toolwire.driver._runner"]

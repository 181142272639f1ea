"""The Python in the README and the guides runs as written, with no key and no network.

Each document's ```python blocks run in order in one namespace (a reader's session), in a
fresh interpreter started in the checkout, with every vendor key and base URL removed from
the environment: what the examples need they set up themselves (a ``FakeVendor`` per vendor,
which the documents' first block starts). A block that is a pytest test module (it names
itself ``# test_<name>.py``) runs with pytest beside ``examples/cassette_kit``'s agent and
cassettes, as the guide says to use it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
TEST_MODULE = re.compile(r"\A# (test_\w+\.py)\n")

RUNNER = """
import json, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__main__"}
for where, code in blocks:
    try:
        exec(compile(code, where, "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"the block at {where} failed")
print(f"ran {len(blocks)} blocks")
"""


def _blocks(doc: Path) -> list[tuple[str, str]]:
    text = doc.read_text(encoding="utf-8")
    return [
        (f"{doc.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 2}", m.group(1))
        for m in FENCE.finditer(text)
    ]


def _env() -> dict[str, str]:
    """This environment without a vendor key or base URL (nothing may reach a vendor)."""
    drop = re.compile(r".*(_API_KEY|_BASE_URL)$|GOOGLE_APPLICATION_CREDENTIALS")
    env = {k: v for k, v in os.environ.items() if not drop.match(k)}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_python_block_runs_as_written(doc: Path, tmp_path: Path) -> None:
    blocks = _blocks(doc)
    scripts = [b for b in blocks if not TEST_MODULE.match(b[1])]
    modules = [b for b in blocks if TEST_MODULE.match(b[1])]
    if doc.name in ("README.md", "runs.md", "serve.md"):
        assert scripts, f"{doc.name} has Python examples: the fence pattern no longer finds them"
    if scripts:
        (tmp_path / "blocks.json").write_text(json.dumps(scripts), encoding="utf-8")
        (tmp_path / "run.py").write_text(RUNNER, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(tmp_path / "run.py"), str(tmp_path / "blocks.json")],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        assert f"ran {len(scripts)} blocks" in done.stdout
    for where, code in modules:
        _run_as_test_module(where, code, tmp_path / "kit")


def _run_as_test_module(where: str, code: str, folder: Path) -> None:
    """The block as the test module it names, beside the example kit's agent and cassettes."""
    match = TEST_MODULE.match(code)
    assert match is not None
    shutil.copytree(
        ROOT / "examples" / "cassette_kit",
        folder,
        ignore=shutil.ignore_patterns("__pycache__", "test_*.py"),
    )
    (folder / match.group(1)).write_text(code, encoding="utf-8")
    pytest_args = ["-q", "-p", "no:cacheprovider", "-n", "0", "--rootdir", str(folder)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args, str(folder / match.group(1))],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{where}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    assert " passed" in done.stdout and "failed" not in done.stdout

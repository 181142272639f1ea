"""The plugin is registered for pytest by the installed distribution and costs nothing unused."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points

HEAVY = ("yaml", "vcr", "anthropic", "openai", "google", "ag_ui", "pydantic", "httpx2")


def test_the_distribution_registers_the_plugin_entry_point() -> None:
    found = [ep for ep in entry_points(group="pytest11") if ep.name == "toolwire"]
    assert [ep.value for ep in found] == ["toolwire.testing.plugin"]
    assert found[0].dist is not None and found[0].dist.name == "toolwire"


def test_loading_the_plugin_imports_no_vendor_sdk_yaml_or_vcrpy() -> None:
    code = (
        "import sys, json, toolwire.testing.plugin; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_pytest_help_of_this_install_shows_the_options() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:recording"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "toolwire cassettes" in out
    assert "--toolwire-update" in out
    assert "--record-mode={none,once,new_episodes,all}" in out


def test_each_feature_declares_what_it_needs() -> None:
    """Found as a new user: ``toolwire[all]`` could not import ``toolwire.testing`` (no PyYAML),
    and ``toolwire[anthropic]`` could not ``toolwire decode`` a cassette."""
    from importlib.metadata import requires

    reqs = [r.replace(" ", "").replace('"', "'") for r in requires("toolwire") or []]

    def needs(extra: str | None) -> set[str]:
        marker = f"extra=='{extra}'"
        return {
            r.split(";")[0].split(">")[0].split("=")[0].lower()
            for r in reqs
            if (";" not in r if extra is None else marker in r)
        }

    assert "pyyaml" in needs(None)
    assert {"vcrpy", "pytest"} <= needs("testing")
    assert {"vcrpy", "pytest", "anthropic", "openai", "google-genai"} <= needs("all")

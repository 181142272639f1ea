"""Shared fixtures for the Asgard adapter tests: our hand-built cassettes, replayed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "asgard"
ALL = sorted(p.name for p in CASSETTES.glob("*.yaml"))
#: The cassettes that record a POST run (the rejoin one is a GET replay of a transcript).
POSTS = [n for n in ALL if n != "rejoin.yaml"]


@dataclass
class Replayed:
    """One recorded POST, as the HTTP client got it back through vcrpy."""

    request: dict[str, Any]
    body: bytes
    content_type: str


def replay_cassette(name: str) -> list[Replayed]:
    """POST every recorded request through ``requests`` under vcrpy (record_mode none)."""
    import requests

    from toolwire.testing import replay

    # PyYAML's own safe loading, by libyaml (the pure-Python parser is ~10x slower)
    doc = yaml.load((CASSETTES / name).read_text("utf-8"), Loader=yaml.CSafeLoader)
    out: list[Replayed] = []
    with replay(str(CASSETTES / name), allow_playback_repeats=False):
        for inter in doc["interactions"]:
            req = inter["request"]
            if req["method"] == "GET":  # a transcript rejoin carries no body
                body: dict[str, Any] = {}
                resp = requests.get(req["uri"], timeout=5)
            else:
                body = json.loads(req["body"])
                resp = requests.post(req["uri"], json=body, timeout=5)
            assert resp.status_code == 200
            out.append(Replayed(body, resp.content, resp.headers.get("content-type", "")))
    return out


@pytest.fixture(params=ALL)
def cassette(request: pytest.FixtureRequest) -> str:
    return str(request.param)

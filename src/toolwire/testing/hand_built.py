"""Hand-built cassettes: one request and its response, written as vcrpy stores them.

A vendor with no recording at hand gets cassettes built from its documented wire shape (the
``build_cassettes.py`` scripts beside them write them with :func:`write_cassette`); a test
then parses each through the vendor's real SDK, so the shape is checked, not assumed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


def write_cassette(
    path: Path,
    comment: str,
    request: dict[str, Any],
    body: str,
    *,
    uri: str,
    content_type: str,
) -> None:
    """Write ``path``: a ``# Hand-built: comment`` line, then one POST of ``request`` (JSON)
    to ``uri`` answered 200 with ``body`` of ``content_type``."""
    doc = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": uri,
                    "body": json.dumps(request, indent=2, ensure_ascii=False),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": [content_type]},
                    "body": {"string": body},
                },
            }
        ],
    }
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)
    path.write_text(f"# Hand-built: {comment}\n{text}", encoding="utf-8")


__all__ = ["write_cassette"]

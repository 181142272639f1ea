"""docs/capabilities.md is the capability data, rendered: the two never drift apart."""

from __future__ import annotations

from pathlib import Path

from toolwire.capabilities import table
from toolwire.capabilities.render import TARGETS, markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "capabilities.md"


def test_the_capability_doc_is_the_data_rendered() -> None:
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "regenerate: python -m toolwire.capabilities.render > docs/capabilities.md"
    )


def test_every_family_of_every_target_has_a_row() -> None:
    text = DOC.read_text(encoding="utf-8")
    for target in TARGETS:
        for fam in table(target)["families"]:
            assert f"| {target} | {fam['name']}" in text

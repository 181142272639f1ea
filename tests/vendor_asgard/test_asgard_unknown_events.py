"""Asgard frames toolwire has no mapping for are carried or announced, never lost silently.

Asgard has no SDK on PyPI; ``_asgard_shapes`` writes its frame types down. A frame of an
``asgard.*`` type this version does not know is carried as ``RAW``; a frame whose
``eventType`` is not Asgard's at all is a loss (issue 36: nothing dropped without a word).
"""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import RawEvent

from toolwire.adapters.asgard import Decoder
from toolwire.losses import ContentLossWarning


def frame(event_type: str, fact: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "requestId": "req",
        "eventId": "e1",
        "namespace": "",
        "botProviderName": "",
        "customChannelId": "ch",
        "fact": fact or {},
    }


def test_an_unknown_asgard_event_is_carried_as_raw() -> None:
    d = Decoder()
    d.feed(frame("asgard.run.init", {"runInit": {}}))
    events = d.feed(frame("asgard.hologram.start", {"hologram": {"x": 1}}))
    assert [type(e) for e in events] == [RawEvent]
    assert events[0].event["eventType"] == "asgard.hologram.start"  # type: ignore[attr-defined]
    assert d.losses == []


def test_a_foreign_event_type_is_announced() -> None:
    d = Decoder()
    d.feed(frame("asgard.run.init", {"runInit": {}}))
    with pytest.warns(ContentLossWarning, match="'other.thing' is no Asgard event type"):
        events = d.feed(frame("other.thing"))
    assert events == []
    assert [loss.kind for loss in d.losses] == ["event-dropped"]

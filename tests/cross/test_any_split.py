"""Any split of a recorded stream's bytes into pieces gives the same chunks and events, for every
model adapter in the registry: the framing's push reader, as a driver feeds it the HTTP body,
against the whole body read at once (``FRAMING.read``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import adapters
from toolwire.errors import ToolwireError
from toolwire.testing.recording_cache import recording

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"


def _streams(name: str) -> list[bytes]:
    """The recorded bodies of ``name`` sent in its streaming framing (by their content type)."""
    media = adapters.get(name).FRAMING.media_type
    return [
        ex.response_body
        for path in sorted((CASSETTES / name).glob("*.yaml"))
        for ex in recording(path)
        if ex.content_type.split(";")[0].strip() == media
    ]


def _events(adapter: Any, chunks: list[dict[str, Any]]) -> list[Any]:
    decoder = adapter.Decoder()
    out: list[Any] = []
    try:
        for chunk in chunks:
            out += decoder.feed(chunk)
        out += decoder.close()
    except ToolwireError as exc:  # a cut or failing stream: the same error either way
        out.append(repr(exc))
    return out


@pytest.mark.parametrize("name", adapters.model_names())
def test_every_model_adapter_has_recorded_streams(name: str) -> None:
    assert _streams(name), f"no recording in cassettes/{name} is a {name} stream"


@pytest.mark.parametrize("name", adapters.model_names())
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_chunks_and_events(name: str, data: st.DataObject) -> None:
    adapter = adapters.get(name)
    body = data.draw(st.sampled_from(_streams(name)))
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=24))))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    reader = adapter.FRAMING.reader()
    try:
        pushed: list[Any] = [c for p in pieces for c in reader.feed(p)] + reader.close()
    except ToolwireError as exc:
        pushed = [repr(exc)]
    try:
        whole: list[Any] = list(adapter.FRAMING.read(body))
    except ToolwireError as exc:
        whole = [repr(exc)]
    assert pushed == whole
    if not any(isinstance(c, str) for c in whole):
        assert _events(adapter, pushed) == _events(adapter, whole)
        # every recorded stream decodes to at least one event (not only to an error)
        assert any(not isinstance(e, str) for e in _events(adapter, whole))

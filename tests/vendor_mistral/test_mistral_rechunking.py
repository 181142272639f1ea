"""Any split of a recorded mistral body's bytes into pieces gives the same events (the framing's
push reader, as a driver feeds it, against the whole body read at once)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.adapters import mistral as adapter
from toolwire.errors import ToolwireError
from toolwire.testing.recording_cache import recording

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / "mistral"
BODIES = [
    ex.response_body
    for path in sorted(CASSETTES.glob("*.yaml"))
    for ex in recording(path)
    if ex.request_body.get("stream", True)
]


def _events(chunks: list[dict]) -> list:
    decoder = adapter.Decoder()
    out = []
    try:
        for chunk in chunks:
            out += decoder.feed(chunk)
        out += decoder.close()
    except ToolwireError as exc:  # a cut or failing stream: the same error either way
        out.append(repr(exc))
    return out


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_events(data: st.DataObject) -> None:
    body = data.draw(st.sampled_from(BODIES))
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=24))))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    reader = adapter.FRAMING.reader()
    pushed = [c for p in pieces for c in reader.feed(p)] + reader.close()
    whole = list(adapter.FRAMING.read(body))
    assert pushed == whole
    assert _events(pushed) == _events(whole)
    assert _events(whole)  # every recorded body decodes to something

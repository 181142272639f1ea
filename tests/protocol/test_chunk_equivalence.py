"""Property: a chunked tool-call stream and its explicit form are equivalent."""

from __future__ import annotations

from typing import Any

from _agui_builders import args, chunk, end, run_finished, run_started, start
from hypothesis import given
from hypothesis import strategies as st

from toolwire.protocol.machine import StreamMachine

_calls = st.lists(
    st.tuples(
        st.sampled_from(["search", "get_weather", "f"]),
        st.lists(st.text(min_size=1, max_size=6), min_size=0, max_size=4),
        st.booleans(),  # whether continuations repeat the id
    ),
    min_size=1,
    max_size=4,
)


def _run(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    m = StreamMachine()
    out = [e.model_dump(by_alias=True, mode="json") for raw in events for e in m.feed(raw)]
    return out, [msg.model_dump(by_alias=True) for msg in m.messages]


@given(_calls)
def test_chunked_and_explicit_forms_give_the_same_events_and_history(calls: list[Any]) -> None:
    chunked = [run_started()]
    explicit = [run_started()]
    for i, (name, pieces, repeat_id) in enumerate(calls):
        cid = f"call_{i}"
        first = pieces[0] if pieces else None
        opener: dict[str, Any] = {"toolCallId": cid, "toolCallName": name, "parentMessageId": "m1"}
        if first is not None:
            opener["delta"] = first
        chunked.append(chunk(**opener))
        for piece in pieces[1:]:
            chunked.append(chunk(toolCallId=cid, delta=piece) if repeat_id else chunk(delta=piece))
        explicit.append(start(cid, name, parent="m1"))
        explicit.extend(args(cid, p) for p in pieces)
        explicit.append(end(cid))
    chunked.append(run_finished())
    explicit.append(run_finished())
    assert _run(chunked) == _run(explicit)

"""``frame_sse`` refuses a payload nested past ``max_json_depth`` (every reader of
toolwire's refuses it) and writes one at the cap, whether given as a dict or already
written (``Written``): it walks a payload only when its text is long enough to nest that
deep (each container it opens, it also closes), so the shortest payloads on each side of
the cap are the ones to try, with brackets inside strings that make a text look deep."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from toolwire.protocol._compact_json import compact
from toolwire.protocol._written import Written
from toolwire.protocol.jsontext import JSONTextError
from toolwire.protocol.limits import configure, limits
from toolwire.protocol.sse import frame_sse

CAP = 8


@pytest.fixture(autouse=True)
def _cap() -> Iterator[None]:
    previous = limits()
    configure(max_json_depth=CAP)
    yield
    configure(max_json_depth=previous.max_json_depth)


def _nested(containers: int) -> dict[str, Any]:
    """An object holding ``containers`` containers in all, one inside the other, as short
    as they can be written."""
    inner: Any = []
    for _ in range(containers - 2):
        inner = [inner]
    return {"a": inner}


def _forms(payload: dict[str, Any]) -> list[Any]:
    return [payload, Written(compact(payload), lambda: payload)]


@pytest.mark.parametrize("form", [0, 1])
def test_a_payload_at_the_cap_is_written(form: int) -> None:
    payload = _nested(CAP)
    text = frame_sse([_forms(payload)[form]]).decode()
    assert text == f"data: {compact(payload)}\n\n"
    assert json.loads(text[len("data: ") :]) == payload


@pytest.mark.parametrize("form", [0, 1])
def test_a_payload_past_the_cap_is_refused(form: int) -> None:
    payload = _nested(CAP + 1)
    assert len(compact(payload)) == 2 * (CAP + 1) + 4  # (as short as it can be)
    with pytest.raises(JSONTextError, match=f"deeper than {CAP}"):
        frame_sse([_forms(payload)[form]])


@pytest.mark.parametrize("form", [0, 1])
def test_brackets_in_strings_are_not_depth(form: int) -> None:
    payload = {"a": "{[" * (3 * CAP), "b": ["[{"] * CAP}
    assert frame_sse([_forms(payload)[form]]).decode() == f"data: {compact(payload)}\n\n"

"""``as_dict`` of SDK objects gives exactly the SDK's own ``model_dump(mode="json",
by_alias=True, exclude_unset=True)`` (same keys, order, values and JSON text), and decoding
the SDK objects gives the same events as decoding those dumps.

The objects are the vendors' real SDKs' parse of every streamed response recorded in the
repository's cassettes and the shared conformance corpus; the expected dicts are the SDK's
pydantic dump. Hand-made models cover what the recordings do not: the cases left to pydantic
(own serializers, computed fields, bytes, dates, integers in float fields, non-string keys).
"""

from __future__ import annotations

import datetime
import json
import warnings
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_serializer
from sdk_http import answering

from toolwire import adapters
from toolwire.errors import ToolwireError, VendorDataError
from toolwire.losses import ContentLossWarning
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.limits import configure, limits
from toolwire.recordings import model_exchanges

ROOT = Path(__file__).resolve().parents[2]
VENDORS = ("anthropic", "openai_chat", "openai_responses", "gemini")


def _stream(vendor: str, body: bytes) -> Any:
    """The vendor SDK's own streaming call over ``body``, in memory."""
    http = answering(body, "text/event-stream")
    if vendor == "anthropic":
        import anthropic

        client = anthropic.Anthropic(api_key="k", max_retries=0, http_client=http)
        return client.messages.create(
            model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}], stream=True
        )
    from openai import OpenAI

    if vendor in ("openai_chat", "openai_responses"):
        client = OpenAI(api_key="k", max_retries=0, http_client=http)
        if vendor == "openai_chat":
            return client.chat.completions.create(model="m", messages=[], stream=True)
        return client.responses.create(model="m", input="x", stream=True)
    from google import genai
    from google.genai import types

    gclient = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_client=http))
    return gclient.models.generate_content_stream(model="m", contents="x")


def _sdk_objects(vendor: str, body: bytes) -> list[Any]:
    """Every object the SDK yields, up to an in-stream error it raises (what it yielded
    before is what a caller would have handed toolwire)."""
    out: list[Any] = []
    try:
        for obj in _stream(vendor, body):
            out.append(obj)
    except Exception:  # the SDK raises on a recorded error event: keep what came before
        pass
    return out


def _recordings(vendor: str) -> list[tuple[str, list[Any]]]:
    adapter = adapters.get(vendor)
    paths = sorted((ROOT / "cassettes" / vendor).glob("*.yaml"))
    paths += sorted((ROOT.parent / "shared" / "conformance" / "cassettes" / vendor).glob("*.yaml"))
    out = []
    for path in paths:
        for i, ex in enumerate(model_exchanges(adapter, path.read_bytes(), path.name)):
            if ex.is_sse and ex.status == 200:
                objects = _sdk_objects(vendor, ex.response_body)
                if objects:
                    out.append((f"{path.name}#{i}", objects))
    return out


def _dump(obj: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic's notes on the SDKs' unvalidated models
        value: dict[str, Any] = obj.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _events(vendor: str, chunks: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    decoder = adapters.get(vendor).Decoder()
    events: list[dict[str, Any]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for chunk in [*chunks, None]:
                got = decoder.feed(chunk) if chunk is not None else decoder.close()
                events += [e.model_dump(by_alias=True) for e in got]
        except ToolwireError as exc:  # a recorded cut or error: both sides must meet it
            events.append({"raised": type(exc).__name__, "message": str(exc)})
    return events, [(loss.kind, loss.reason) for loss in decoder.losses]


@pytest.mark.parametrize("vendor", VENDORS)
def test_sdk_objects_of_every_recording_give_their_dump_and_its_events(vendor: str) -> None:
    recordings = _recordings(vendor)
    assert len(recordings) >= 5, f"{vendor}: too few streamed recordings found"
    count = 0
    for name, objects in recordings:
        dumps = [_dump(o) for o in objects]
        for n, (obj, dumped) in enumerate(zip(objects, dumps, strict=True)):
            got = as_dict(obj, vendor)
            assert got == dumped, f"{name}: object {n}"
            assert json.dumps(got) == json.dumps(dumped), f"{name}: object {n}"  # order, 1 vs 1.0
            count += 1
        assert _events(vendor, objects) == _events(vendor, dumps), name
    assert count >= 50, f"{vendor}: only {count} SDK objects checked"


class Color(str, Enum):
    RED = "red"


class Inner(BaseModel):
    model_config = ConfigDict(extra="allow")
    x: float = 0.0
    tag: Color | None = None


class Outer(BaseModel):
    model_config = ConfigDict(extra="allow", ser_json_bytes="base64")
    name: str = Field("", alias="Name")
    hidden: int = Field(0, exclude=True)
    inner: Inner | None = None
    items: list[Inner] = []
    free: dict[str, Any] = {}
    when: datetime.datetime | None = None
    blob: bytes | None = None
    ratio: float | None = None
    many: list[float] = []


class Serialized(BaseModel):
    a: int = 0

    @field_serializer("a")
    def _twice(self, v: int) -> int:
        return v * 2


class Computed(BaseModel):
    a: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def b(self) -> int:
        return self.a + 1


CASES: list[Any] = [
    Outer.model_construct(Name="n", inner={"x": 1}, extra_key=[1, "é", None]),
    Outer.model_construct(inner=Inner.model_construct(x=1, tag=Color.RED, more={"k": True})),
    Outer.model_construct(items=[Inner.model_construct(x=2)], ratio=3, many=[1, 2.5]),
    Outer.model_construct(free={"k": {"deep": [1, 2.0, "s"]}, "e": Color.RED}, hidden=5),
    Outer.model_construct(when=datetime.datetime(2026, 1, 2, 3, 4, 5), blob=b"\x00\xffab"),
    Outer.model_construct(ratio=float("inf"), free={"nan": float("nan")}),
    Inner.model_construct(x=float("-inf"), other=float("inf")),
    Outer.model_construct(free={1: "int key"}),
    Outer(Name="validated", inner=Inner(x=2, tag="red"), ratio=1),
    Serialized(a=2),
    Computed(a=2),
]


@pytest.mark.parametrize("obj", CASES, ids=range(len(CASES)))
def test_hand_made_models_give_their_dump(obj: BaseModel) -> None:
    with warnings.catch_warnings():  # pydantic's note on a model built without validation
        warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
        got = as_dict(obj, "v")
    dumped = _dump(obj)
    assert json.dumps(got) == json.dumps(dumped)  # order, and 1 vs 1.0
    assert repr(got) == repr(dumped)  # the same key types (1 vs "1"), NaN included


def test_a_surrogate_in_an_sdk_object_is_repaired_with_a_warning() -> None:
    obj = Outer.model_construct(Name="cut \ud83d", inner=Inner.model_construct(k="\udc00"))
    with pytest.warns(ContentLossWarning, match="surrogate"):
        got = as_dict(obj, "v", "chunk 3")
    assert got == {"Name": "cut \ufffd", "inner": {"k": "\ufffd"}}


def test_nesting_past_the_cap_in_an_sdk_object_is_refused() -> None:
    previous = limits()
    configure(max_json_depth=3)
    try:
        ok = Outer.model_construct(free={"a": {"b": 1}})  # depth: Outer, free, a
        assert as_dict(ok, "v") == {"free": {"a": {"b": 1}}}
        deep = Outer.model_construct(free={"a": {"b": [1]}})
        with pytest.raises(VendorDataError, match="nested deeper than 3"):
            as_dict(deep, "v")
    finally:
        configure(max_json_depth=previous.max_json_depth)

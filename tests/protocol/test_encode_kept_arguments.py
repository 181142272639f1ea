"""On the bytes path Gemini's and Ollama's encoders send a whole call's argument text as it
is, unread, when ``written_as_is`` proves it is what writing its object gives. The bytes,
losses, warnings and errors must be the dict path's (the text read and its object written)
for every argument text, the ones it takes and the ones that only look like them; and the
texts it takes must really go unread (else the comparisons here compare one way twice).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import pytest
from _agui_builders import args, end, run_finished, run_started, start, text, text_end, text_start
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_encode_batched import _mixed, _models
from test_encode_written import _same

from toolwire import adapters
from toolwire.protocol import arguments
from toolwire.protocol._written import Written
from toolwire.protocol.decoding import written_chunks

#: the encoders that send a call's arguments as an object (Mistral's go as their text)
WRITTEN = ["gemini", "ollama"]

#: argument texts around what is taken: each taken one beside a near miss
_TEXTS = [
    '{"city":"City 0","days":[1,2,3],"units":"celsius"}',
    '{"city":"City 0","days":[1,2,3],"units":"celsius","city":"x"}',
    "{}",
    '{"a":"é\u2028\u0085\x7f🙂"}',
    '{"a":"\ud83d"}',
    '{"a":"\\ud83d"}',
    '{"a":"x:y","b":"{","c":"}","d":","}',
    '{"a":-1,"b":0,"c":true,"d":false,"e":null,"f":[]}',
    '{"a":-0}',
    '{"a":01}',
    '{"a":1.0}',
    '{"lat":51.5074,"lon":-0.1278,"z":0.0001,"w":-0.0}',
    '{"a":1.50}',
    '{"a":1e5}',
    '{"a":0.00001}',
    '{"a":0.30000000000000004}',
    '{"a":1e400}',
    '{"a":NaN}',
    '{"a": 1}',
    '{"a":1} ',
    '{"a":{"b":1}}',
    '{"a":[[1]]}',
    "{" + ",".join(f'"k{i}":{i}' for i in range(8)) + "}",
    "{" + ",".join(f'"k{i}":{i}' for i in range(9)) + "}",
    '{"n":' + "7" * 599 + "}",
    '{"n":' + "7" * 5000 + "}",
    '{"a":"\\n"}',
    '["not","an","object"]',
    "not json",
    "",
]

#: what the decoder reads as a call's name and ids, hostile ones among them
_NAMES = st.sampled_from(["f", "get_weather", "\ud83d", 'a"b', "é", ""])


def _run(calls: list[tuple[str, str, str]], sign: str | None = None) -> list[Any]:
    events: list[Any] = [run_started(), text_start("m1"), text("m1", "hi"), text_end("m1")]
    for cid, name, delta in calls:
        events += [start(cid, name=name, parent="m1"), args(cid, delta), end(cid)]
    if sign is not None:  # a signature for the first call, which then goes as a dict
        events.insert(
            1,
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "tool-call",
                "entityId": sign,
                "encryptedValue": "sig",
            },
        )
    return [*events, run_finished()]


@pytest.mark.parametrize("vendor", WRITTEN)
@pytest.mark.parametrize("delta", _TEXTS)
def test_each_argument_text_writes_what_the_dict_path_writes(vendor: str, delta: str) -> None:
    events = _run([("c1", "f", delta), ("c2", "g", delta)])
    for form in (_models, _mixed, list):
        _same(vendor, form(events))
    _same(vendor, _models(_run([("c1", "f", delta)], sign="c1")))


@pytest.mark.parametrize("vendor", WRITTEN)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(
        st.tuples(st.sampled_from(["c1", "c2", "c3"]), _NAMES, st.sampled_from(_TEXTS)),
        max_size=5,
    ),
    cut=st.integers(0, 30),
    options=st.sampled_from([{}, {"model": "m"}, {"model_version": "v"}, {"response_id": "r"}]),
)
def test_random_runs_of_such_calls_write_alike(
    vendor: str, calls: list[tuple[str, str, str]], cut: int, options: dict[str, str]
) -> None:
    wanted = {"gemini": ("model_version", "response_id"), "ollama": ("model",)}[vendor]
    options = {k: v for k, v in options.items() if k in wanted}
    _same(vendor, _models(_run(calls))[:cut], **options)


@pytest.mark.parametrize("vendor", WRITTEN)
def test_a_text_written_as_is_goes_unread(vendor: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bytes path reads no argument text it can send as it is; a writer asking for the
    dict reads it then, and gets the dict path's chunk."""
    delta = '{"city":"City 0","days":[1,2,3],"units":"celsius"}'
    events = _models(_run([("c1", "f", delta), ("c2", "f", '{"x":1e5}')]))
    adapter = adapters.get(vendor)
    dicts = list(adapter.encode_stream(events))
    module = importlib.import_module(type(adapter.Encoder()).__module__)
    read: list[str] = []
    real = arguments.arguments_object

    def counted(text: str) -> Any:
        read.append(text)
        return real(text)

    monkeypatch.setattr(module, "arguments_object", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = list(written_chunks(adapter.encode_stream(events)))
    assert read == ['{"x":1e5}']  # (written otherwise: read and written again)
    written = [c for c in got if type(c) is Written]
    assert len(written) == 2
    assert [c.make() if type(c) is Written else c for c in got] == dicts
    # the text sent as it is was read for its dict alone; the other's object was kept
    assert read == ['{"x":1e5}', delta]

"""The adapter contract as a check a plugin author runs against their own package.

``check_adapter(name)`` (or a module) returns the problems found, each a sentence naming
the member; ``assert_adapter`` fails with all of them. It checks what
``toolwire.adapters.contract`` declares, from the package's real objects: every member of
its kind present, signatures as the callback Protocols say (parameter names and kinds,
read with ``inspect``), the optional hooks ``None`` or callable, the ``CLIENT`` members
(model adapters), an unknown option refused with ``UnsupportedInput`` naming it, and the
framing: a small turn encoded, written, read back (whole, in pieces, and pushed through
``FRAMING.reader()``) and decoded to the same calls. toolwire's own suite runs it over
every built-in adapter; in a plugin's suite::

    from toolwire.testing.contract import assert_adapter

    def test_my_adapter_keeps_the_contract():
        assert_adapter("my_vendor")
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

from toolwire import adapters
from toolwire.adapters.contract import (
    ADecodeStream,
    DecodeRequest,
    DecodeResponse,
    DecoderOptions,
    DecodeStream,
    EncodeRequest,
    EncodeStream,
    IsStreamed,
    LoadRecording,
    VendorClient,
)
from toolwire.errors import ToolwireError, UnsupportedInput
from toolwire.losses import held

#: member -> the callback Protocol its signature must follow
CALLBACKS: dict[str, type] = {
    "decode_stream": DecodeStream,
    "adecode_stream": ADecodeStream,
    "encode_stream": EncodeStream,
    "decode_response": DecodeResponse,
    "encode_request": EncodeRequest,
    "decode_request": DecodeRequest,
    "load_recording": LoadRecording,
    "is_streamed": IsStreamed,
    "decoder_options": DecoderOptions,
}

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problems(
    where: str, fn: Callable[..., Any], protocol_fn: Callable[..., Any]
) -> list[str]:
    """How ``fn`` cannot be called as ``protocol_fn`` declares (``self`` left out of both)."""
    try:
        real = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return [f"{where}: no readable signature ({exc})"]
    want = list(inspect.signature(protocol_fn).parameters.values())
    if want and want[0].name == "self":
        want = want[1:]
    have = list(real.parameters.values())
    has_var_kw = any(p.kind is p.VAR_KEYWORD for p in have)
    has_var_pos = any(p.kind is p.VAR_POSITIONAL for p in have)
    positional = [p for p in have if p.kind in _POSITIONAL]
    out: list[str] = []
    at = 0
    for p in want:
        if p.kind in _POSITIONAL:
            if at < len(positional):
                at += 1
            elif not has_var_pos:
                out.append(f"{where}: takes no positional argument for {p.name!r}")
        elif p.kind is p.KEYWORD_ONLY:
            named = real.parameters.get(p.name)
            if named is None and not has_var_kw:
                out.append(f"{where}: takes no keyword {p.name!r}")
            elif named is not None and named.kind not in (named.KEYWORD_ONLY, *_POSITIONAL):
                out.append(f"{where}: {p.name!r} cannot be passed by keyword")
        elif p.kind is p.VAR_KEYWORD and not has_var_kw and p.name == "options":
            out.append(f"{where}: takes no **options (the contract passes options through)")
    required = [
        p
        for p in have[at:]
        if p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]
    wanted = {p.name for p in want}
    out += [
        f"{where}: requires {p.name!r}, which the contract never passes"
        for p in required
        if p.name not in wanted
    ]
    return out


def _client_problems(client: VendorClient) -> list[str]:
    out: list[str] = []
    for name in adapters.CLIENT_SURFACE:
        declared = getattr(VendorClient, name)
        value = getattr(client, name, None)
        if isinstance(declared, property):
            if value is None and name != "api":
                out.append(f"CLIENT.{name} is missing")
            continue
        if not callable(value):
            out.append(f"CLIENT.{name} is not callable")
            continue
        out += signature_problems(f"CLIENT.{name}", value, declared)
    for name in ("extras", "key_env", "conversation_keys", "provider_aliases"):
        value = getattr(client, name, None)
        if not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)):
            out.append(f"CLIENT.{name} is not a tuple of strings")
    for name in ("retryable_errors", "secret_headers", "secret_query_keys", "account_headers"):
        if not isinstance(getattr(client, name, None), frozenset):
            out.append(f"CLIENT.{name} is not a frozenset")
    if not isinstance(getattr(client, "default_model", None), str):
        out.append("CLIENT.default_model is not a string")
    return out


#: a bare turn every stream adapter can carry: a text answer and one tool call
def sample_turn() -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Looking it up."},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TOOL_CALL_START", "toolCallId": "call_1", "toolCallName": "get_weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": '{"city":"Paris"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call_1"},
    ]


def _calls(events: list[Any]) -> list[tuple[str, str]]:
    names: dict[str, str] = {}
    args: dict[str, str] = {}
    for ev in events:
        kind = ev.type.value if hasattr(ev.type, "value") else ev.type
        if kind == "TOOL_CALL_START":
            names[ev.tool_call_id] = ev.tool_call_name
            args[ev.tool_call_id] = ""
        elif kind == "TOOL_CALL_ARGS":
            args[ev.tool_call_id] += ev.delta
    return [(names[k], json.dumps(json.loads(args[k] or "{}"))) for k in names]


def _framing_problems(module: Any) -> list[str]:
    framing = module.FRAMING
    out: list[str] = []
    for name in ("name", "media_type"):
        if not isinstance(getattr(framing, name, None), str):
            out.append(f"FRAMING.{name} is not a string")
    try:
        with held():  # a vendor that cannot carry the text says so as a loss: not the point here
            body = framing.write(list(module.encode_stream(sample_turn())))
            whole = list(framing.read(body))
            events = list(module.decode_stream(whole))
        pieces = list(framing.read([body[i : i + 7] for i in range(0, len(body), 7)]))
        reader = framing.reader()
        pushed = [c for i in range(0, len(body), 5) for c in reader.feed(body[i : i + 5])]
        pushed += reader.close()
    except ToolwireError as exc:
        return [*out, f"FRAMING: a small turn does not go round: {type(exc).__name__}: {exc}"]
    if not isinstance(body, bytes):
        out.append("FRAMING.write does not return bytes")
    if pieces != whole:
        out.append("FRAMING.read gives other chunks for the body in pieces than whole")
    if pushed != whole:
        out.append("FRAMING.reader() gives other chunks than FRAMING.read")
    if _calls(events) != [("get_weather", '{"city": "Paris"}')]:
        out.append(f"the sample turn's call does not come back: {_calls(events)}")
    return out


def check_adapter(adapter: str | ModuleType) -> list[str]:
    """Every way the adapter (a registered name, or its module) breaks the contract."""
    if isinstance(adapter, str):
        name = adapter
        try:
            module: Any = adapters.get(adapter)
        except ToolwireError as exc:
            return [str(exc)]
        kind = adapters.entry(adapter).kind
    else:
        module = adapter
        name = module.__name__.rpartition(".")[2]
        kind = adapters.kind_of(module)
    gaps = adapters.contract_gaps(module, kind)
    if gaps:
        return [f"{name} lacks {g}" for g in gaps]
    if kind == "result":
        return []
    out: list[str] = []
    for member, protocol in CALLBACKS.items():
        fn = getattr(module, member)
        if fn is None and member in adapters.HOOKS:
            continue
        if not callable(fn):
            out.append(f"{name}.{member} is not callable")
            continue
        out += signature_problems(f"{name}.{member}", fn, protocol.__call__)
    if getattr(module.Decoder, "vendor", None) != name:
        out.append(f"{name}.Decoder.vendor is {getattr(module.Decoder, 'vendor', None)!r}")
    for member in ("Decoder", "Encoder", "decode_stream"):
        try:
            target = getattr(module, member)
            result = (
                target([], bogus_option=1) if member == "decode_stream" else target(bogus_option=1)
            )
            if member == "decode_stream":
                list(result)
        except UnsupportedInput as exc:
            if "bogus_option" not in str(exc):
                out.append(f"{name}.{member}: the unknown option is not named: {exc}")
        except Exception as exc:  # the contract wants UnsupportedInput, anything else is a gap
            out.append(f"{name}.{member}: an unknown option raised {type(exc).__name__}")
        else:
            out.append(f"{name}.{member}: an unknown option was accepted")
    out += _framing_problems(module)
    if kind == "model":
        out += _client_problems(module.CLIENT)
    return out


def assert_adapter(adapter: str | ModuleType) -> None:
    """Fail with every problem :func:`check_adapter` finds (none: the contract holds)."""
    problems = check_adapter(adapter)
    assert not problems, "the adapter contract is not kept:\n" + "\n".join(problems)


__all__ = ["CALLBACKS", "assert_adapter", "check_adapter", "sample_turn", "signature_problems"]

"""Request bodies both ways (``RunAgentInput`` <-> ``messages``/``tools``), and whole responses.

Encoding follows the API's pairing rule: an assistant message with
``tool_calls`` (``content: null`` when it has no text) is followed at once by
one ``role:"tool"`` message per call, in call order. A tool message holds a
string or text parts only, so each result is fitted first: media is dropped
with a warning, or with ``media="relocate"`` moved into one ``role:"user"``
message right after the tool messages (only what a user message takes for
that model; file handles only when OpenAI issued them). A result left with
nothing is answered with ``""``.
"""

from __future__ import annotations

import functools
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    ContentPart,
    DeveloperMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.capabilities import family
from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.chat_request import (
    answer_calls,
    chat_history,
    chat_run_input,
    function_call,
)
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.fitting import (
    DEFAULT_MEDIA_LABEL,
    Accepts,
    fit_content,
    part_loss,
)
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.parts import text_of
from toolwire.protocol.surface import checked_options, encode_surface

from .parts import content_to_agui, text_part, to_vendor
from .wire import (
    CALL_ID_RULE,
    FIELDS,
    FORMAT_KEY,
    STRICT_KEY,
    TOOL_TYPE_KEY,
    VENDOR,
    ChatMessage,
    CustomCall,
    CustomDefinition,
    FunctionDefinition,
    ToolCallParam,
    ToolParam,
)

# ------------------------------------------------------------------ encode


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str,
    media: str = "drop",
    losses: list[Loss] | None = None,
    tool_result: Accepts | None = None,
    user_message: Accepts | None = None,
    unanswered: str = "error",
    unanswered_text: str | None = None,
    media_label: str | None = DEFAULT_MEDIA_LABEL,
    **vendor_options: Any,
) -> dict[str, Any]:
    """A ``chat.completions.create`` body (``model``, ``messages``, ``tools``, options).

    ``media`` is ``"drop"`` or ``"relocate"``; ``tool_result`` /
    ``user_message`` override what the capability table says ``model``
    takes. The returned body's ``.losses`` lists every loss (each warned about once, and
    appended to ``losses`` when given).
    A call with no result is rejected by the API: ``unanswered`` says what to do
    (``"error"`` raises ``UnansweredToolCall``, ``"drop"`` removes the call,
    ``"answer"`` answers it as failed with ``unanswered_text``; see ``settle_unanswered``).
    With ``media="relocate"`` each call's moved media follows a ``media_label`` text
    naming the call (a template of ``{tool_call_id}`` and ``{tool_name}``; None: no label).
    """
    h = chat_history(
        run_input,
        vendor=VENDOR,
        model=model,
        media=media,
        call_id_rule=CALL_ID_RULE,
        losses=losses,
        tool_result=tool_result,
        user_message=user_message,
        unanswered=unanswered,
        unanswered_text=unanswered_text,
        relocated_upgrade=_beyond_relocation(model) if media == "relocate" else None,
    )
    run, lost, ids, in_user = h.run, h.lost, h.ids, h.in_user
    messages: list[ChatMessage] = []
    for turn in h.turns:
        m = turn.message
        if isinstance(m, AssistantMessage):
            messages.append(_assistant(m, ids))
            answers, moved = answer_calls(
                h, m, turn.results, lambda r, _, c: _tool(r, c, lost, ids), media_label=media_label
            )
            messages += answers
            if moved:
                parts = _user_parts(moved, in_user, lost)
                if parts:
                    messages.append({"role": "user", "content": parts})
            _encrypted(m, lost)
            continue
        if isinstance(m, UserMessage):
            messages.append(_user(m, in_user, lost))
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            messages.append(_named({"role": m.role, "content": m.content}, m))
        elif isinstance(m, ReasoningMessage):
            lost.append(_loss("reasoning-dropped", "Chat Completions takes no reasoning input"))
        else:
            lost.append(
                _loss("message-dropped", f"a {m.role} message has no Chat Completions form")
            )
        if getattr(m, "encrypted_value", None):
            lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
    body: dict[str, Any] = {"model": model, "messages": messages}
    if run.tools:
        body["tools"] = [_tool_spec(t) for t in run.tools]
    if run.context:
        lost.append(
            _loss(
                "context-dropped",
                "Chat Completions has no field for run context; put it in a system message",
            )
        )
    body.update(vendor_options)
    lost += ids.losses
    return body


#: The hint for a part that not even a user message takes, once relocation was asked for.
_BEYOND_RELOCATION = "use the Responses API, which takes images and files in tool output"


@functools.lru_cache(maxsize=256)  # (the family's look-up is a tenth of a millisecond)
def _beyond_relocation(model: str) -> str:
    """The drop hint of the tool-result place once relocation was asked for: no longer
    suggesting it (the model family's own hint, if it has one, still applies)."""
    return str(family(VENDOR, model).get("upgrade") or _BEYOND_RELOCATION)


def _loss(kind: str, reason: str, tool_call_id: str | None = None) -> Loss:
    return Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id)


def _named(out: ChatMessage, m: Message) -> ChatMessage:
    name = getattr(m, "name", None)
    if name:
        out["name"] = name
    return out


_NO_ARTEFACTS = "Chat Completions has no field for a provider's opaque artefact"


def _encrypted(m: AssistantMessage, lost: list[Loss]) -> None:
    """A loss for each encrypted value of an assistant message and its calls."""
    if m.encrypted_value:
        lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS))
    for c in m.tool_calls or ():
        if c.encrypted_value:
            lost.append(_loss("encrypted-value-dropped", _NO_ARTEFACTS, c.id))


def _assistant(m: AssistantMessage, ids: IdMapper) -> ChatMessage:
    out: ChatMessage = {"role": "assistant"}
    calls = m.tool_calls or []
    # A tool-call turn sends content null, not "": several compatible servers mishandle "".
    out["content"] = m.content if m.content else (None if calls else "")
    if calls:
        out["tool_calls"] = [_call(c, ids(c.id, c.metadata)) for c in calls]
    if m.name:
        out["name"] = m.name
    return out


def _call(c: ToolCall, call_id: str) -> ToolCallParam:
    meta = c.metadata if isinstance(c.metadata, dict) else {}
    if meta.get(TOOL_TYPE_KEY) == "custom":
        custom: CustomCall = {"name": c.function.name, "input": c.function.arguments}
        return {"id": call_id, "type": "custom", "custom": custom}
    call: ToolCallParam = function_call(c, call_id)
    return call


def _tool(result: ToolMessage, content: Any, lost: list[Loss], ids: IdMapper) -> ChatMessage:
    """One ``role:"tool"`` message; the error travels in the text (the API has no flag).

    Only text fits on the wire here; a media part a caller's own ``tool_result``
    table let through is still dropped, and reported.
    """
    body: str | list[dict[str, Any]]
    if isinstance(content, str):
        body = content
    else:
        body = []
        for i, p in enumerate(content):
            if isinstance(p, TextPart):
                body.append(text_part(p.text))
            else:
                why = "a role:tool message holds text only"
                lost.append(part_loss(p, i, VENDOR, why, result.tool_call_id))
        if not body:
            body = ""  # every part dropped: still answered
    if result.error:
        note = f"Error: {result.error}"
        if isinstance(body, list):
            body = [*body, text_part(note)]
        else:
            body = f"{body}\n\n{note}" if body else note
    return {"role": "tool", "tool_call_id": ids(result.tool_call_id), "content": body}


def _user(m: UserMessage, in_user: Accepts, lost: list[Loss]) -> ChatMessage:
    content: Any = m.content
    if not isinstance(content, str):
        fitted = fit_content(content, in_user)
        lost.extend(fitted.losses)
        kept = fitted.content
        content = kept if isinstance(kept, str) else _user_parts(kept, in_user, lost)
    return _named({"role": "user", "content": content}, m)


def _user_parts(
    parts: list[ContentPart], in_user: Accepts, lost: list[Loss]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, p in enumerate(parts):
        mapped = to_vendor(p)
        if mapped is None:
            why = "the Chat Completions wire has no shape for this part and source"
            lost.append(part_loss(p, i, in_user.target, why, None))
        else:
            out.append(mapped)
    return out


def _tool_spec(t: Tool) -> ToolParam:
    meta = t.metadata if isinstance(t.metadata, dict) else {}
    if meta.get(TOOL_TYPE_KEY) == "custom":
        custom: CustomDefinition = {"name": t.name}
        if t.description:
            custom["description"] = t.description
        if meta.get(FORMAT_KEY) is not None:
            custom["format"] = meta[FORMAT_KEY]
        return {"type": "custom", "custom": custom}
    fn: FunctionDefinition = {"name": t.name}
    if t.description:
        fn["description"] = t.description
    if t.parameters is not None:
        fn["parameters"] = t.parameters
    if isinstance(meta.get(STRICT_KEY), bool):
        fn["strict"] = meta[STRICT_KEY]
    return {"type": "function", "function": fn}


# ------------------------------------------------------------------ decode


@checked_options(VENDOR)
def decode_request(
    body: dict[str, Any] | Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A ``chat.completions.create`` body -> ``RunAgentInput``.

    Message ids are minted from each message's position and content, so the
    same history prefix gets the same ids in every request of a thread.
    Body options other than ``messages`` and ``tools`` (``model``,
    ``stream``, ``tool_choice``, ...) go to ``forwardedProps``.
    """
    req = as_dict(body, VENDOR, "request")
    raw_messages = FIELDS.at(req, "messages", list, "request")
    lost: list[Loss] = []
    messages = _decode_messages(raw_messages, lost)
    # what no AG-UI message holds is said (announced there), not dropped silently
    return chat_run_input(
        req,
        raw_messages,
        messages,
        lost,
        fields=FIELDS,
        thread_id=thread_id,
        run_id=run_id,
        tool=_decode_tool,
    )


def _decode_messages(raw: list[Any], lost: list[Loss]) -> list[Message]:
    out: list[Message] = []
    legacy: dict[str, str] = {}  # function name -> id minted for its legacy function_call
    for i, m in enumerate(raw):
        where = f"request.messages[{i}]"
        m = FIELDS.obj(m, where)
        role = m.get("role")
        mid = mint_id("msg", VENDOR, i, dumps_compact(m, VENDOR, where))
        name = m.get("name") if isinstance(m.get("name"), str) else None
        named: dict[str, Any] = {"name": name} if name else {}
        content = m.get("content")
        if role in ("system", "developer"):
            text = content_to_agui(content, f"{where}.content")
            cls = SystemMessage if role == "system" else DeveloperMessage
            out.append(cls(id=mid, content=text_of(text), **named))
        elif role == "user":
            if content is None:
                raise FIELDS.missing(f"{where}.content")
            out.append(
                UserMessage(id=mid, content=content_to_agui(content, f"{where}.content"), **named)
            )
        elif role == "assistant":
            out.append(_decode_assistant(m, mid, named, where, legacy, lost))
        elif role == "tool":
            call_id = FIELDS.at(m, "tool_call_id", str, where)
            body = "" if content is None else content_to_agui(content, f"{where}.content")
            out.append(
                ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=body)
            )
        elif role == "function":
            fname = m.get("name")
            if not isinstance(fname, str) or fname not in legacy:
                raise VendorDataError(
                    VENDOR, f"{where}.name", "a function message answers no earlier function_call"
                )
            text = "" if content is None else content_to_agui(content, f"{where}.content")
            call_id = legacy.pop(fname)
            out.append(
                ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=text)
            )
        else:
            raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")
    return out


def _decode_assistant(
    m: dict[str, Any],
    mid: str,
    named: dict[str, Any],
    where: str,
    legacy: dict[str, str],
    lost: list[Loss],
) -> AssistantMessage:
    kw: dict[str, Any] = dict(named)
    content = m.get("content")
    if content is not None:
        text = text_of(content_to_agui(content, f"{where}.content"))
        if text:
            kw["content"] = text
    if isinstance(m.get("refusal"), str) and m["refusal"]:
        if "content" not in kw:
            kw["content"] = m["refusal"]
        else:
            lost.append(_dropped(f"{where}.refusal", "a refusal beside the text"))
    if m.get("audio"):
        lost.append(_dropped(f"{where}.audio", "the reference to an earlier audio answer"))
    calls = [
        _decode_call(c, f"{where}.tool_calls[{j}]")
        for j, c in enumerate(FIELDS.list_at(m, "tool_calls", where))
    ]
    fc = m.get("function_call")
    if isinstance(fc, dict):
        fname = FIELDS.at(fc, "name", str, f"{where}.function_call")
        cid = mint_id("call", mid, "function_call")
        legacy[fname] = cid
        args = fc.get("arguments")
        args = args if isinstance(args, str) else ""
        calls.append(ToolCall(id=cid, function=FunctionCall(name=fname, arguments=args)))
    if calls:
        kw["tool_calls"] = calls
    elif "content" not in kw:
        kw["content"] = ""
    return AssistantMessage(id=mid, **kw)


def _dropped(where: str, what: str) -> Loss:
    return Loss(
        kind="field-dropped",
        target="AG-UI",
        reason=f"{where}: {what} has no place in an AG-UI assistant message",
    )


def _function(value: dict[str, Any], where: str) -> tuple[bool, dict[str, Any], str]:
    """A call's or tool's ``custom`` / ``function`` object: whether it is custom, the
    object, and its ``name``."""
    custom = value.get("type") == "custom"
    key = "custom" if custom else "function"
    spec = FIELDS.at(value, key, dict, where)
    return custom, spec, FIELDS.at(spec, "name", str, f"{where}.{key}")


def _decode_call(c: Any, where: str) -> ToolCall:
    c = FIELDS.obj(c, where)
    cid = FIELDS.at(c, "id", str, where)
    if not cid:
        raise FIELDS.missing(f"{where}.id")
    custom, fn, name = _function(c, where)
    args = FIELDS.opt_text(
        fn.get("input" if custom else "arguments"), f"{where}.function.arguments"
    )
    kw: dict[str, Any] = {"metadata": {TOOL_TYPE_KEY: "custom"}} if custom else {}
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args or ""), **kw)


def _decode_tool(t: Any, where: str) -> Tool:
    custom, spec, name = _function(FIELDS.obj(t, where), where)
    meta: dict[str, Any] = {}
    if custom:
        meta[TOOL_TYPE_KEY] = "custom"
        if spec.get("format") is not None:
            meta[FORMAT_KEY] = spec["format"]
    elif isinstance(spec.get("strict"), bool):
        meta[STRICT_KEY] = spec["strict"]
    desc = spec.get("description")
    kw: dict[str, Any] = {"metadata": meta} if meta else {}
    if spec.get("parameters") is not None:
        kw["parameters"] = spec["parameters"]
    return Tool(name=name, description=desc if isinstance(desc, str) else "", **kw)


# ---------------------------------------------------------------- response


__all__ = ["decode_request", "encode_request"]

"""AG-UI history <-> a Responses request body, and whole responses -> AG-UI events.

``encode_request`` turns a ``RunAgentInput`` into the keyword arguments of
``client.responses.create``: every message becomes ``input`` items, each call
is followed by its answer (``function_call_output`` and kin), tool results are
fitted to what the target takes, and reasoning items are resent with their
encrypted content. ``decode_request`` reads such a body back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.errors import VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import CallIds, IdMapper
from toolwire.protocol.chat_request import place_rules
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.fitting import Accepts
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import pair_history, settle_unanswered
from toolwire.protocol.parts import text_of
from toolwire.protocol.signatures import mark_history, strip_foreign
from toolwire.protocol.surface import MEDIA_CHOICES, check_choice, checked_options, encode_surface

from .items import (
    SERVER_RUN,
    Waiting,
    approval_entry,
    approval_response,
    finish_call,
    image_data,
    is_call_item,
    is_vendor_run,
    output_item_result,
)
from .parts import to_agui_content, to_vendor_content
from .wire import (
    ANNOTATIONS_KEY,
    CALL_FIELDS_KEY,
    CALL_ID_RULE,
    FIELDS,
    ITEM_ID_KEY,
    ITEM_KEY,
    ITEM_TYPE_KEY,
    OUTPUT_ITEM_KEY,
    PHASE_KEY,
    PROVIDER,
    REASONING_PART_KEY,
    TOOL_FIELDS_KEY,
    TOOL_KEY,
    VENDOR,
)

# ---------------------------------------------------------------- encode


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
    **vendor_options: Any,
) -> dict[str, Any]:
    """``RunAgentInput`` -> the body (``responses.create`` kwargs) for ``model``.

    ``media`` is accepted for the common signature: Responses takes images and
    files inside tool results, and nothing it refuses there (audio, video,
    other providers' file handles) is taken in a user message either, so
    ``"relocate"`` moves nothing. The returned body's ``.losses`` lists every loss
    (each warned about once, and appended to ``losses`` when given). ``tool_result`` /
    ``user_message`` override what the capability table says each place takes.
    ``vendor_options`` are added to the body as they are. A ``function_call`` (or
    other client call) with no output is rejected by the API: ``unanswered``
    ``"error"`` raises ``UnansweredToolCall``, ``"drop"`` removes the call,
    ``"answer"`` answers it as failed with ``unanswered_text`` (``settle_unanswered``);
    hosted tools are never touched.
    """
    run_input = as_run_input(run_input, VENDOR)
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    found: list[Loss] = [] if losses is None else losses  # returns_encoded's list
    tool_accepts = tool_result or place_rules(VENDOR, "tool_result", model)
    user_accepts = user_message or place_rules(VENDOR, "user_message", model)
    history = strip_foreign(run_input.messages, PROVIDER, target=VENDOR, losses=found)
    paired = pair_history(history, target=VENDOR, allow_unanswered=True)
    settle_unanswered(
        paired, target=VENDOR, policy=unanswered, text=unanswered_text, exempt=_hosted
    )
    found += paired.losses
    ids = IdMapper(CALL_ID_RULE, set(paired.call_ids))
    items: list[dict[str, Any]] = []
    for turn in paired.turns:
        m = turn.message
        if isinstance(m, AssistantMessage):
            items += _assistant_items(m, turn.results, tool_accepts, found, ids)
        elif isinstance(m, ReasoningMessage):
            _reasoning_item(m, items, found)
        elif isinstance(m, UserMessage):
            items.append(_user_item(m, user_accepts, found))
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            items.append({"role": m.role, "content": m.content})
        else:
            found.append(
                Loss(
                    kind="message-dropped",
                    target=VENDOR,
                    reason=f"a {m.role} message has no place in a Responses input",
                )
            )
    # answers to MCP approval requests (the request itself comes from previous_response_id
    # or the caller's own input: an interrupt is not part of the history)
    items += [approval_response(entry) for entry in run_input.resume or ()]
    body: dict[str, Any] = {"model": model, "input": items}
    if run_input.tools:
        body["tools"] = [_tool(t) for t in run_input.tools]
    body.update(vendor_options)
    found += ids.losses
    return body


def _hosted(call: ToolCall) -> bool:
    """A tool OpenAI runs itself (its item, or a later output OpenAI sends, holds its result)."""
    meta = call.metadata or {}
    item = meta.get(ITEM_KEY)
    return is_vendor_run(meta.get(ITEM_TYPE_KEY), item if isinstance(item, dict) else {})


def _user_item(m: UserMessage, place: Accepts, found: list[Loss]) -> dict[str, Any]:
    content, lost = to_vendor_content(m.content, place)
    found += lost
    if isinstance(content, list):
        for part in content:
            if part["type"] == "input_image":
                part.setdefault("detail", "auto")  # required in a message; the API's default
    return {"role": "user", "content": content}


def _reasoning_item(m: ReasoningMessage, items: list[dict[str, Any]], found: list[Loss]) -> None:
    """Resend OpenAI reasoning as it came (its item id, summary and encrypted content)."""
    meta = m.metadata or {}
    rid = meta.get(ITEM_ID_KEY)
    if not isinstance(rid, str):
        found.append(
            Loss(
                kind="reasoning-dropped",
                target=VENDOR,
                reason="reasoning that OpenAI did not produce cannot be resent as a reasoning "
                "item (it needs OpenAI's item id and encrypted content)",
            )
        )
        return
    last = items[-1] if items else None
    if not (last and last.get("type") == "reasoning" and last.get("id") == rid):
        last = {"type": "reasoning", "id": rid, "summary": []}
        items.append(last)
    if meta.get(REASONING_PART_KEY) == "content":
        last.setdefault("content", []).append({"type": "reasoning_text", "text": m.content})
    elif m.content:
        last["summary"].append({"type": "summary_text", "text": m.content})
    if m.encrypted_value:
        last["encrypted_content"] = m.encrypted_value


def _assistant_items(
    m: AssistantMessage,
    results: list[ToolMessage | None],
    place: Accepts,
    found: list[Loss],
    ids: IdMapper,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    meta = m.metadata or {}
    if m.content:
        mid = meta.get(ITEM_ID_KEY)
        if isinstance(mid, str):
            notes = meta.get(ANNOTATIONS_KEY)
            text = {
                "type": "output_text",
                "text": m.content,
                "annotations": notes if isinstance(notes, list) else [],
            }
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": mid,
                "status": "completed",
                "content": [text],
            }
            if isinstance(meta.get(PHASE_KEY), str):
                item["phase"] = meta[PHASE_KEY]
            out.append(item)
        else:
            out.append({"role": "assistant", "content": m.content})
    calls = m.tool_calls or []
    sent = [ids(c.id, c.metadata) for c in calls]
    for call, cid, result in zip(calls, sent, results or [None] * len(calls), strict=True):
        out.append(_call_item(call, cid, result, found))
    for call, cid, result in zip(calls, sent, results or [None] * len(calls), strict=True):
        if result is not None:
            out += _result_items(call, cid, result, place, found)
    return out


def _call_item(
    call: ToolCall, cid: str, result: ToolMessage | None, found: list[Loss]
) -> dict[str, Any]:
    meta = call.metadata or {}
    kind = meta.get(ITEM_TYPE_KEY)
    whole = meta.get(ITEM_KEY)
    if call.encrypted_value:
        found.append(
            Loss(
                kind="signature-dropped",
                target=VENDOR,
                reason="a tool call's encrypted value (another vendor's signature) has no "
                "place on a Responses function_call",
                tool_call_id=call.id,
            )
        )
    if isinstance(whole, dict) and isinstance(kind, str) and kind != "custom_tool_call":
        item = dict(whole)
        if kind == "image_generation_call" and "result" not in item:
            item["result"] = image_data(result.content) if result else None
        return item
    if kind == "custom_tool_call":
        item = {"type": "custom_tool_call", "call_id": cid, "name": call.function.name}
        item["input"] = call.function.arguments
    else:
        item = {
            "type": "function_call",
            "call_id": cid,
            "name": call.function.name,
            "arguments": call.function.arguments,
        }
        if isinstance(meta.get(CALL_FIELDS_KEY), dict):
            item.update(meta[CALL_FIELDS_KEY])
    if isinstance(meta.get(ITEM_ID_KEY), str):
        item["id"] = meta[ITEM_ID_KEY]
    return item


def _result_items(
    call: ToolCall, cid: str, result: ToolMessage, place: Accepts, found: list[Loss]
) -> list[dict[str, Any]]:
    meta = result.metadata or {}
    cmeta = call.metadata or {}
    kind = cmeta.get(ITEM_TYPE_KEY) if isinstance(cmeta.get(ITEM_KEY), dict) else None
    if isinstance(meta.get(OUTPUT_ITEM_KEY), dict):
        return [dict(meta[OUTPUT_ITEM_KEY])]
    if kind in SERVER_RUN:
        return []  # the call item holds its own result
    content, lost = to_vendor_content(
        result.content, place, tool_call_id=call.id, error=result.error
    )
    found += lost
    if kind == "computer_call":
        shot = next(
            (
                p
                for p in (content if isinstance(content, list) else [])
                if p["type"] == "input_image"
            ),
            None,
        )
        if shot is not None:
            screenshot = {k: v for k, v in shot.items() if k in ("image_url", "file_id")}
            screenshot["type"] = "computer_screenshot"
            return [{"type": "computer_call_output", "call_id": cid, "output": screenshot}]
    if isinstance(kind, str) and kind.endswith("_call"):
        text = content if isinstance(content, str) else text_of(_texts(content))
        return [{"type": f"{kind}_output", "call_id": cid, "output": text}]
    out_type = (
        "custom_tool_call_output"
        if cmeta.get(ITEM_TYPE_KEY) == "custom_tool_call"
        else "function_call_output"
    )
    return [{"type": out_type, "call_id": cid, "output": content}]


def _texts(parts: list[dict[str, Any]]) -> str:
    return "".join(p.get("text", "") for p in parts if p.get("type") == "input_text")


def _tool(t: Tool) -> dict[str, Any]:
    meta = t.metadata or {}
    if isinstance(meta.get(TOOL_KEY), dict):
        return dict(meta[TOOL_KEY])
    out: dict[str, Any] = {
        "type": "function",
        "name": t.name,
        "description": t.description,
        "parameters": t.parameters,
        # required by the API's type; strict mode would reject most hand-written schemas
        "strict": False,
    }
    if isinstance(meta.get(TOOL_FIELDS_KEY), dict):
        out.update(meta[TOOL_FIELDS_KEY])
    return out


# ---------------------------------------------------------------- decode


@dataclass
class _Builder:
    """Input items gathered into AG-UI messages (assistant items merge into one message)."""

    messages: list[Message] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    assistant: dict[str, Any] | None = None
    ids: CallIds = field(default_factory=lambda: CallIds(VENDOR))  # repeats stay apart
    waiting: Waiting = field(default_factory=Waiting)  # what an output without call_id answers

    def flush(self) -> None:
        a, self.assistant = self.assistant, None
        if a is None:
            return
        kw: dict[str, Any] = {"id": a["id"]}
        if a["content"] is not None:
            kw["content"] = a["content"]
        if a["calls"]:
            kw["tool_calls"] = a["calls"]
        if a["metadata"]:
            kw["metadata"] = a["metadata"]
        self.messages.append(AssistantMessage(**kw))

    def open_assistant(self, ident: str) -> dict[str, Any]:
        if self.assistant is None:
            self.assistant = {"id": ident, "content": None, "calls": [], "metadata": {}}
        return self.assistant


@checked_options(VENDOR)
def decode_request(
    body: Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A Responses request body (dict or SDK kwargs) -> ``RunAgentInput``.

    Ids the body lacks are minted from stable inputs: a message's from its
    position and content (so the same history gets the same ids in every
    request of a conversation), the thread's from the instructions and the
    first input item, the run's from the whole body. Keys other than
    ``input`` and ``tools`` go to ``forwarded_props["openai_responses"]``.
    """
    req = as_dict(body, VENDOR, "request")
    seed = mint_id("req", dumps_compact(req, VENDOR, "request"))
    raw_input = FIELDS.several(  # items, one item, or the user's text
        req.get("input", []), "request.input", text=lambda t: {"role": "user", "content": t}
    )
    b = _Builder()
    resume: list[ResumeEntry] = []
    for i, raw in enumerate(raw_input):
        where = f"request.input[{i}]"
        if isinstance(raw, dict) and raw.get("type") == "mcp_approval_response":
            resume.append(approval_entry(raw, where))  # an answer to an interrupt
            continue
        _decode_item(b, raw, where, mint_id("msg", i, dumps_compact(raw)))
    b.flush()
    raw_tools = FIELDS.list_at(req, "tools", "request")
    tools = [_decode_tool(t, f"request.tools[{i}]") for i, t in enumerate(raw_tools)]
    rest = {k: v for k, v in req.items() if k not in ("input", "tools")}
    kw: dict[str, Any] = {}
    if tools:
        kw["tools"] = tools
    if rest:
        kw["forwarded_props"] = {VENDOR: rest}
    if resume:
        kw["resume"] = resume
    announce(b.losses)
    return RunAgentInput(
        thread_id=thread_id or _thread_id(req, raw_input),
        run_id=run_id or mint_id("run", seed),
        messages=mark_history(b.messages, PROVIDER),
        **kw,
    )


def _thread_id(req: dict[str, Any], items: list[Any]) -> str:
    first = dumps_compact(items[0]) if items else ""
    return mint_id("thread", dumps_compact(req.get("instructions")), first)


def _decode_item(b: _Builder, raw: Any, where: str, minted: str) -> None:
    raw = FIELDS.obj(raw, where)
    kind = raw.get("type")
    if kind is None and "role" in raw:
        kind = "message"
    kind = FIELDS.text(kind, f"{where}.type")
    if kind == "message":
        _decode_message(b, raw, where, minted)
    elif kind == "reasoning":
        b.flush()
        _decode_reasoning(b, raw, where)
    elif is_call_item(kind, raw):
        call = finish_call(raw, where)
        if kind == "function_call" and "status" in raw:
            call.metadata.setdefault(CALL_FIELDS_KEY, {})["status"] = raw["status"]
        a = b.assistant
        if a is None:
            a = b.open_assistant(mint_id("msg", call.id))
        vendor_id = call.id
        call.id = b.ids.assign(vendor_id)
        call.metadata.update(b.ids.metadata(call.id, vendor_id))
        if call.result is None:
            b.waiting.add(kind, call.id)
        kw: dict[str, Any] = {"metadata": call.metadata} if call.metadata else {}
        fn = FunctionCall(name=call.name, arguments=call.arguments)
        a["calls"].append(ToolCall(id=call.id, function=fn, **kw))
        if call.result is not None:
            b.flush()
            rkw: dict[str, Any] = {}
            if call.result_metadata:
                rkw["metadata"] = call.result_metadata
            err = call.result_metadata.get("toolwire.error")
            if isinstance(err, str):
                rkw["error"] = err
            b.messages.append(
                ToolMessage(
                    id=result_message_id(call.id),
                    tool_call_id=call.id,
                    content=call.result,
                    **rkw,
                )
            )
    elif kind.endswith("_output"):
        b.flush()
        given = FIELDS.opt_text(raw.get("call_id"), f"{where}.call_id")
        call_id = b.waiting.answer(kind, b.ids.answer(given) or given if given else None)
        if call_id is None:
            b.losses.append(
                Loss(
                    kind="item-dropped",
                    target="AG-UI",
                    reason=f"{where}: a {kind!r} item without a call_id follows no call",
                )
            )
            return
        ident = raw["id"] if isinstance(raw.get("id"), str) else result_message_id(call_id)
        if kind in ("function_call_output", "custom_tool_call_output"):
            if "output" not in raw:
                raise FIELDS.missing(f"{where}.output")
            content, lost = to_agui_content(
                raw["output"], f"{where}.output", target=VENDOR, tool_call_id=call_id
            )
            meta: dict[str, Any] = {}
        else:
            content, meta, lost = output_item_result(raw, where, target=VENDOR)
        b.losses += lost
        mkw: dict[str, Any] = {"metadata": meta} if meta else {}
        b.messages.append(ToolMessage(id=ident, tool_call_id=call_id, content=content, **mkw))
    else:
        b.losses.append(
            Loss(
                kind="item-dropped",
                target="AG-UI",
                reason=f"{where}: a Responses {kind!r} item has no AG-UI message to live in",
            )
        )


def _decode_message(b: _Builder, raw: dict[str, Any], where: str, minted: str) -> None:
    role = FIELDS.at(raw, "role", str, where)
    content = raw.get("content", "")
    if role == "assistant":
        b.flush()
        text = content if isinstance(content, str) else _output_text(content, where)
        meta: dict[str, Any] = {}
        ident = minted
        if isinstance(raw.get("id"), str):
            ident = meta[ITEM_ID_KEY] = raw["id"]
        if isinstance(raw.get("phase"), str):
            meta[PHASE_KEY] = raw["phase"]
        notes = [
            n
            for p in ([] if isinstance(content, str) else FIELDS.several(content, where))
            if isinstance(p, dict)
            for n in FIELDS.list_at(p, "annotations", f"{where}.content[]")
        ]
        if notes:
            meta[ANNOTATIONS_KEY] = notes
        a = b.open_assistant(ident)
        a["content"] = text
        a["metadata"] = meta
        return
    b.flush()
    if isinstance(raw.get("id"), str):
        minted = raw["id"]  # a stored input message keeps its id
    agui, lost = to_agui_content(content, f"{where}.content", target="AG-UI")
    b.losses += lost
    if role == "user":
        b.messages.append(UserMessage(id=minted, content=agui))
    elif role in ("system", "developer"):
        text = agui if isinstance(agui, str) else text_of(agui)
        cls = SystemMessage if role == "system" else DeveloperMessage
        b.messages.append(cls(id=minted, content=text))
    else:
        raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")


def _output_text(content: Any, where: str) -> str:
    out = []
    for i, p in enumerate(FIELDS.several(content, f"{where}.content")):
        p = FIELDS.obj(p, f"{where}.content[{i}]")
        if p.get("type") == "refusal":
            out.append(str(p.get("refusal", "")))
        else:
            out.append(FIELDS.at(p, "text", str, f"{where}.content[{i}]"))
    return "".join(out)


def _decode_reasoning(b: _Builder, raw: dict[str, Any], where: str) -> None:
    rid = FIELDS.at(raw, "id", str, where)
    found: list[tuple[str, str]] = []
    for field_name in ("summary", "content"):
        for n, part in enumerate(FIELDS.list_at(raw, field_name, where)):
            at = f"{where}.{field_name}[{n}]"
            found.append((field_name, FIELDS.at(part, "text", str, at)))
    if not found:
        found.append(("summary", ""))
    enc = raw.get("encrypted_content")
    for n, (field_name, text) in enumerate(found):
        meta: dict[str, Any] = {ITEM_ID_KEY: rid}
        if field_name == "content":
            meta[REASONING_PART_KEY] = "content"
        kw: dict[str, Any] = {}
        if n == 0 and isinstance(enc, str) and enc:
            kw["encrypted_value"] = enc
        mid = rid if n == 0 else f"{rid}:{n}"
        b.messages.append(ReasoningMessage(id=mid, content=text, metadata=meta, **kw))


def _decode_tool(raw: Any, where: str) -> Tool:
    raw = FIELDS.obj(raw, where)
    if raw.get("type") != "function":
        name = raw.get("name") if isinstance(raw.get("name"), str) else raw.get("type")
        desc = raw.get("description") if isinstance(raw.get("description"), str) else ""
        return Tool(name=str(name), description=str(desc), metadata={TOOL_KEY: dict(raw)})
    name = FIELDS.at(raw, "name", str, where)
    desc = raw.get("description")
    extra = {
        k: v
        for k, v in raw.items()
        if k not in ("type", "name", "parameters")
        and not (k == "description" and isinstance(v, str))
    }
    kw: dict[str, Any] = {"metadata": {TOOL_FIELDS_KEY: extra}} if extra else {}
    return Tool(
        name=name,
        description=desc if isinstance(desc, str) else "",
        parameters=raw.get("parameters"),
        **kw,
    )


# ---------------------------------------------------------------- whole responses


__all__ = ["decode_request", "encode_request"]

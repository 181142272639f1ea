"""AG-UI history <-> a Bedrock ``Converse`` / ``ConverseStream`` request.

The body is the operation's keyword arguments (``modelId``, ``messages``, ``system``,
``toolConfig``, ``inferenceConfig`` ...) in their JSON form: blobs (image bytes ...) as base64
text, so the body is JSON as every other adapter's is; ``wire.to_boto3`` turns it into the
``bytes`` boto3 wants (the driver does). Encoding pairs every call with its result
(``pair_history``), fits each result to what the model behind Bedrock takes in a
``toolResult`` (``accepts("bedrock", model=...)``: Claude takes images and documents, most
others text and JSON) and lays the turn out as Converse wants it: reasoning first (with its
signature, unchanged), then text, then the ``toolUse`` blocks; every result of the turn as a
``toolResult`` block at the head of the next user message.
"""

from __future__ import annotations

from typing import Any, Literal

from ag_ui.core import (
    AssistantMessage,
    ContentPart,
    DeveloperMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    RunAgentInput,
    SystemMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.adapters.bedrock.decoder import reasoning_id
from toolwire.adapters.bedrock.parts import blocks_to_parts, parts_to_blocks
from toolwire.adapters.bedrock.wire import (
    CALL_ID_RULE,
    FIELDS,
    REASONING_TEXT,
    REDACTED,
    TYPE_KEY,
    VENDOR,
    ToolDefinition,
    ToolSpec,
    add_options,
    blob_text,
    json_form,
)
from toolwire.errors import VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    dumps_compact,
    repeated_keys_reason,
)
from toolwire.protocol.callids import CallIds, IdMapper
from toolwire.protocol.chat_request import place_rules
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import DEFAULT_MEDIA_LABEL, Accepts, fit_content, labelled
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import Turn, pair_history, settle_unanswered
from toolwire.protocol.parts import text_of
from toolwire.protocol.signatures import mark_history, strip_foreign
from toolwire.protocol.surface import (
    MEDIA_CHOICES,
    check_choice,
    checked_options,
    encode_surface,
    request_ids,
)

#: request fields ``decode_request`` reads into the history (the rest is kept as options)
_HISTORY_FIELDS = ("messages", "system")

# ======================================================================= encode


class _Body:
    """``messages`` with same-role turns merged (Converse wants the roles to alternate)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def push(self, role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == role:
            self.messages[-1]["content"].extend(blocks)
        else:
            self.messages.append({"role": role, "content": blocks})


class _Encoding:
    def __init__(self, media: str, target: Accepts, user: Accepts) -> None:
        self.media = media
        self.target = target
        self.user = user
        self.losses: list[Loss] = []
        self.system: list[str] = []
        self.body = _Body()
        self.reasoning: list[dict[str, Any]] = []
        self.ids = IdMapper(CALL_ID_RULE)
        self.media_label: str | None = DEFAULT_MEDIA_LABEL

    def lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))

    def turn(self, turn: Turn) -> None:
        m = turn.message
        role = m.role  # the usual two first: one string test and one isinstance each
        if role == "assistant" and isinstance(m, AssistantMessage):
            self.assistant(turn, m)
        elif role == "user" and isinstance(m, UserMessage):
            self.flush_reasoning()
            self.body.push("user", self.user_blocks(m))
        elif isinstance(m, AssistantMessage):  # (a role that does not match its class)
            self.assistant(turn, m)
        elif isinstance(m, UserMessage):
            self.flush_reasoning()
            self.body.push("user", self.user_blocks(m))
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            if self.body.messages:
                self.lose(
                    "system-message-moved",
                    f"{m.role} message {m.id!r} moved to the top-level system prompt "
                    "(Converse takes instructions only there)",
                )
            if m.content:
                self.system.append(m.content)
        elif isinstance(m, ReasoningMessage):
            self.reasoning_block(m)
        # activity messages are UI state, never model input

    def reasoning_block(self, m: ReasoningMessage) -> None:
        if m.encrypted_value is None:
            self.lose(
                "reasoning-dropped",
                f"reasoning message {m.id!r} has no signature, and Bedrock takes reasoning "
                "back only with the signature it issued",
            )
            return
        meta = m.metadata if isinstance(m.metadata, dict) else {}
        if meta.get(TYPE_KEY) == REDACTED:
            self.reasoning.append({"reasoningContent": {"redactedContent": m.encrypted_value}})
        else:
            text = {"text": m.content, "signature": m.encrypted_value}
            self.reasoning.append({"reasoningContent": {"reasoningText": text}})

    def flush_reasoning(self) -> None:
        if self.reasoning:
            self.lose(
                "reasoning-dropped", "reasoning not followed by an assistant turn has nowhere to go"
            )
            self.reasoning = []

    def user_blocks(self, m: UserMessage) -> list[dict[str, Any]]:
        if isinstance(m.content, str):
            return [{"text": m.content}] if m.content else []
        fitted = fit_content(m.content, self.user)
        self.losses.extend(fitted.losses)
        if isinstance(fitted.content, str):
            return [{"text": fitted.content}] if fitted.content else []
        return parts_to_blocks(fitted.content, f"message {m.id}", self.losses, self.user.target)

    def assistant(self, turn: Turn, m: AssistantMessage) -> None:
        blocks = self.reasoning
        self.reasoning = []
        if m.content:
            blocks.append({"text": m.content})
        results: list[dict[str, Any]] = []
        relocated: list[ContentPart] = []
        for call, result in zip(m.tool_calls or [], turn.results, strict=True):
            blocks.append(self.tool_use(call))
            if result is not None:
                block, moved = self.tool_result(call.id, result)
                results.append(block)
                if moved:
                    relocated += labelled(
                        moved,
                        self.media_label,
                        tool_call_id=self.ids(call.id),
                        tool_name=call.function.name,
                        target=VENDOR,
                    )
        if not blocks:
            return
        self.body.push("assistant", blocks)
        if results:
            extra = parts_to_blocks(relocated, "relocated media", self.losses, self.user.target)
            self.body.push("user", results + extra)

    def tool_use(self, call: ToolCall) -> dict[str, Any]:
        if call.encrypted_value is not None:
            self.lose(
                "encrypted-value-dropped",
                "Bedrock signs reasoning, not tool calls; the call's encrypted value has no "
                "place in the request",
                call.id,
            )
        parsed, keys = arguments_object(call.function.arguments)
        parsed = from_text(parsed)
        if keys:
            self.lose(REPEATED_KEYS, repeated_keys_reason(keys, "toolUse.input"), call.id)
        if parsed is None:
            self.lose(
                "arguments-not-object",
                "Converse's toolUse.input must be a JSON object; these arguments are not one, "
                "so the call goes out with an empty input",
                call.id,
            )
            parsed = {}
        use: dict[str, Any] = {
            "toolUseId": self.ids(call.id, call.metadata),
            "name": call.function.name,
        }
        use["input"] = parsed
        return {"toolUse": use}

    def tool_result(
        self, call_id: str, msg: ToolMessage
    ) -> tuple[dict[str, Any], list[ContentPart]]:
        content: list[dict[str, Any]]
        moved: list[ContentPart] = []
        if isinstance(msg.content, str):
            content = [{"text": msg.content}] if msg.content else []
        else:
            relocate = self.user if self.media == "relocate" else None
            fitted = fit_content(msg.content, self.target, tool_call_id=call_id, relocate=relocate)
            self.losses.extend(fitted.losses)
            moved = fitted.relocated
            if isinstance(fitted.content, str):
                content = [{"text": fitted.content}] if fitted.content else []
            else:
                content = parts_to_blocks(
                    fitted.content,
                    f"tool result {call_id}",
                    self.losses,
                    self.target.target,
                    call_id,
                    in_result=True,
                )
        result: dict[str, Any] = {"toolUseId": self.ids(call_id)}
        error = msg.error
        if error is not None:
            result["status"] = "error"
            texts = "".join(str(b.get("text", "")) for b in content)
            if error and error not in texts:
                content.append({"text": error})
        result["content"] = content
        return {"toolResult": result}, moved


def _reasoning_first(messages: list[Message]) -> list[Message]:
    """Reasoning that directly follows an assistant message moved to just before it (a
    stream's history holds the assistant message from its first text or call on; reasoning
    streamed later in the same response belongs to that turn)."""
    out: list[Message] = []
    at: int | None = None
    for m in messages:
        if m.role == "reasoning" and at is not None:
            out.insert(at, m)
            at += 1
            continue
        at = len(out) if m.role == "assistant" else None
        out.append(m)
    return out


def _tool(tool: Tool) -> ToolDefinition:
    spec: ToolSpec = {"name": tool.name}
    if tool.description:
        spec["description"] = tool.description
    params = tool.parameters if isinstance(tool.parameters, dict) else None
    spec["inputSchema"] = {"json": params if params is not None else {"type": "object"}}
    return {"toolSpec": spec}


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str,
    media: Literal["drop", "relocate"] = "drop",
    losses: list[Loss] | None = None,
    max_tokens: int | None = None,
    use_forwarded_props: bool = False,
    unanswered: str = "error",
    unanswered_text: str | None = None,
    media_label: str | None = DEFAULT_MEDIA_LABEL,
    **vendor_options: Any,
) -> dict[str, Any]:
    """``RunAgentInput`` -> keyword arguments for ``client.converse_stream(...)`` (JSON form:
    pass them through ``to_boto3``; ``model`` is the ``modelId``).

    ``vendor_options`` go into the body as given (``additionalModelRequestFields``,
    ``guardrailConfig`` ...), but the sampling ones (``temperature``, ``top_p``, ``stop`` ...)
    into ``inferenceConfig``; ``max_tokens`` sets ``inferenceConfig.maxTokens``. With
    ``use_forwarded_props`` the options :func:`decode_request` kept in
    ``forwarded_props["bedrock"]`` come back. A call with no result: ``unanswered``
    ``"error"`` raises ``UnansweredToolCall``, ``"drop"`` removes it, ``"answer"`` answers it
    with ``status: error`` (``settle_unanswered``). With ``media="relocate"`` media a tool
    result cannot hold follows in the user message, after a ``media_label`` text.
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    ri = as_run_input(run_input, VENDOR)
    enc = _Encoding(
        media,
        place_rules(VENDOR, "tool_result", model),
        place_rules(VENDOR, "user_message", model),
    )
    enc.media_label = media_label
    own = strip_foreign(ri.messages, VENDOR, target=VENDOR, losses=enc.losses)
    paired = pair_history(_reasoning_first(own), target=VENDOR, allow_unanswered=True)
    settle_unanswered(paired, target=VENDOR, policy=unanswered, text=unanswered_text)
    enc.losses.extend(paired.losses)
    enc.ids.know(paired.call_ids)
    for t in paired.turns:
        enc.turn(t)
    enc.flush_reasoning()
    enc.losses.extend(enc.ids.losses)

    body: dict[str, Any] = {}
    forwarded = ri.forwarded_props if isinstance(ri.forwarded_props, dict) else {}
    kept = forwarded.get(VENDOR) if use_forwarded_props else None
    other_tools: list[Any] = []
    if isinstance(kept, dict):
        other_tools = list(kept.get("other_tools") or [])
        body.update({k: v for k, v in kept.items() if k != "other_tools"})
    body["modelId"] = model
    body["messages"] = enc.body.messages
    if enc.system:
        body["system"] = [{"text": s} for s in enc.system]
    tools = [_tool(t) for t in ri.tools or []] + other_tools
    config = dict(body.get("toolConfig") or {})
    if tools:
        config["tools"] = tools
        body["toolConfig"] = config
    else:
        body.pop("toolConfig", None)
        if config.get("toolChoice") is not None:
            enc.lose("tool-choice-dropped", "toolChoice without tools is not a Converse request")
    if max_tokens:
        body["inferenceConfig"] = {**(body.get("inferenceConfig") or {}), "maxTokens": max_tokens}
    add_options(body, vendor_options)
    if losses is not None:
        losses.extend(enc.losses)
    return body


# ======================================================================= decode


def _system(value: Any, tid: str, losses: list[Loss]) -> list[Message]:
    out: list[Message] = []
    for i, block in enumerate(FIELDS.lst(value, "request.system") if value is not None else []):
        at = f"request.system[{i}]"
        FIELDS.obj(block, at)
        if "text" in block:
            text = FIELDS.at(block, "text", str, at)
            out.append(SystemMessage(id=mint_id("msg", tid, "system", i), content=text))
        else:
            kind = next(iter(block), "?")
            losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {kind!r} system block has no place in AG-UI history",
                )
            )
    return out


def _user(
    content: list[Any], where: str, mid: str, losses: list[Loss], ids: CallIds
) -> list[Message]:
    out: list[Message] = []
    rest: list[dict[str, Any]] = []
    for i, block in enumerate(content):
        at = f"{where}[{i}]"
        FIELDS.obj(block, at)
        if "toolResult" not in block:
            rest.append(block)
            continue
        res = FIELDS.at(block, "toolResult", dict, at)
        at = f"{at}.toolResult"
        call_id = FIELDS.at(res, "toolUseId", str, at)
        call_id = ids.answer(call_id) or call_id
        raw = FIELDS.at(res, "content", list, at)
        parts: str | list[ContentPart]
        if len(raw) == 1 and isinstance(raw[0], dict) and set(raw[0]) == {"text"}:
            parts = FIELDS.at(raw[0], "text", str, f"{at}.content[0]")
        elif not raw:
            parts = ""
        else:
            parts = blocks_to_parts(raw, f"{at}.content", losses, tool_call_id=call_id)
        kw: dict[str, Any] = {}
        status = res.get("status")
        if status is not None and status not in ("success", "error"):
            raise VendorDataError(VENDOR, f"{at}.status", f"unknown status {status!r}")
        if status == "error":
            kw["error"] = parts if isinstance(parts, str) else text_of(parts)
        out.append(
            ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=parts, **kw)
        )
    if rest:
        if all(set(b) == {"text"} for b in rest):
            text = "".join(FIELDS.at(b, "text", str, where) for b in rest)
            out.append(UserMessage(id=mid, content=text))
        else:
            found = blocks_to_parts(rest, where, losses)
            if found:
                out.append(UserMessage(id=mid, content=found))
    return out


def _assistant(
    content: list[Any], where: str, mid: str, losses: list[Loss], ids: CallIds
) -> list[Message]:
    before: list[Message] = []
    texts: list[str] = []
    calls: list[ToolCall] = []
    for i, block in enumerate(content):
        at = f"{where}[{i}]"
        FIELDS.obj(block, at)
        if "text" in block:
            texts.append(FIELDS.at(block, "text", str, at))
        elif "reasoningContent" in block:
            rc = FIELDS.at(block, "reasoningContent", dict, at)
            if "redactedContent" in rc:
                value = blob_text(rc["redactedContent"], f"{at}.reasoningContent.redactedContent")
                before.append(
                    ReasoningMessage(
                        id=reasoning_id(mid, i),
                        content="",
                        encrypted_value=value,
                        metadata={TYPE_KEY: REDACTED},
                    )
                )
            else:
                rt = FIELDS.at(rc, "reasoningText", dict, f"{at}.reasoningContent")
                rat = f"{at}.reasoningContent.reasoningText"
                sig = rt.get("signature")
                kw: dict[str, Any] = {}
                if sig is not None:
                    kw["encrypted_value"] = FIELDS.at(rt, "signature", str, rat)
                before.append(
                    ReasoningMessage(
                        id=reasoning_id(mid, i),
                        content=FIELDS.at(rt, "text", str, rat),
                        metadata={TYPE_KEY: REASONING_TEXT},
                        **kw,
                    )
                )
        elif "toolUse" in block:
            use = FIELDS.at(block, "toolUse", dict, at)
            uat = f"{at}.toolUse"
            given = FIELDS.at(use, "input", dict, uat)
            vendor_id = FIELDS.at(use, "toolUseId", str, uat)
            cid = ids.assign(vendor_id)
            meta = dict(ids.metadata(cid, vendor_id))
            if isinstance(use.get("type"), str):
                meta[TYPE_KEY] = use["type"]
            ckw: dict[str, Any] = {"metadata": meta} if meta else {}
            calls.append(
                ToolCall(
                    id=cid,
                    function=FunctionCall(
                        name=FIELDS.at(use, "name", str, uat),
                        arguments=dumps_compact(given, VENDOR, f"{uat}.input"),
                    ),
                    **ckw,
                )
            )
        else:
            kind = next(iter(block), "?")
            losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {kind!r} block has no place in AG-UI history",
                )
            )
    akw: dict[str, Any] = {}
    if calls:
        akw["tool_calls"] = calls
    if texts or not calls:
        akw["content"] = "".join(texts)
    return [*before, AssistantMessage(id=mid, **akw)]


@checked_options(VENDOR)
def decode_request(
    body: Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """A Converse request (boto3's keyword arguments, or the HTTP body's JSON, which has no
    ``modelId``) -> ``RunAgentInput``.

    Ids Converse does not carry are minted from the body, so the same body gives the same
    input. Everything but the history and the tool specs (``modelId``, ``inferenceConfig``,
    ``toolChoice``, other tool kinds ...) is kept in ``forwarded_props["bedrock"]``.
    """
    data = json_form(as_dict(body, VENDOR, "request"))
    raw_messages = FIELDS.at(data, "messages", list, "request")
    first = dumps_compact(raw_messages[0], VENDOR, "request.messages[0]") if raw_messages else ""
    tid, rid = request_ids(
        thread_id=thread_id,
        run_id=run_id,
        thread_seed=(first,),
        run_seed=() if run_id else (dumps_compact(data, VENDOR, "request"),),
    )
    losses: list[Loss] = []
    ids = CallIds(VENDOR)
    messages: list[Message] = _system(data.get("system"), tid, losses)
    for i, m in enumerate(raw_messages):
        where = f"request.messages[{i}]"
        role = FIELDS.at(m, "role", str, where)
        content = FIELDS.at(m, "content", list, where)
        mid = mint_id("msg", rid, i)
        if role == "user":
            messages.extend(_user(content, f"{where}.content", mid, losses, ids))
        elif role == "assistant":
            messages.extend(_assistant(content, f"{where}.content", mid, losses, ids))
        else:
            raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")
    tools: list[Tool] = []
    other_tools: list[Any] = []
    config = data.get("toolConfig")
    kept = {k: v for k, v in data.items() if k not in (*_HISTORY_FIELDS, "toolConfig")}
    if config is not None:
        FIELDS.obj(config, "request.toolConfig")
        for i, t in enumerate(FIELDS.list_at(config, "tools", "request.toolConfig")):
            where = f"request.toolConfig.tools[{i}]"
            FIELDS.obj(t, where)
            spec = t.get("toolSpec")
            schema = spec.get("inputSchema") if isinstance(spec, dict) else None
            if not isinstance(spec, dict) or not isinstance(schema, dict) or "json" not in schema:
                other_tools.append(t)
                continue
            desc = spec.get("description")
            tools.append(
                Tool(
                    name=FIELDS.at(spec, "name", str, f"{where}.toolSpec"),
                    description=desc if isinstance(desc, str) else "",
                    parameters=schema["json"],
                )
            )
        rest = {k: v for k, v in config.items() if k != "tools"}
        if rest:
            kept["toolConfig"] = rest
    if other_tools:
        kept["other_tools"] = other_tools
    messages = mark_history(messages, VENDOR)
    if losses:
        announce(losses)
    return RunAgentInput(
        thread_id=tid,
        run_id=rid,
        messages=messages,
        tools=tools,
        forwarded_props={VENDOR: kept},
    )


__all__ = ["decode_request", "encode_request"]

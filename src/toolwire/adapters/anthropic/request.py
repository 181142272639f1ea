"""AG-UI history <-> an Anthropic Messages request body; whole responses -> events.

Encoding pairs every call with its result (``pair_history``), fits each result
to what Anthropic takes in a ``tool_result`` (``accepts`` + ``fit_content``)
and lays the turn out the way Anthropic demands: thinking blocks (with their
signatures) first, then text, then the ``tool_use`` blocks; every result of
that turn as a ``tool_result`` block at the head of the next user message.
Server-tool calls stay in the assistant turn with their original result block.
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

from toolwire.adapters.anthropic.parts import blocks_to_parts, parts_to_blocks, server_result
from toolwire.adapters.anthropic.wire import (
    BLOCK_KEY,
    CACHE_CONTROL_KEY,
    CALL_ID_RULE,
    CALL_TYPES,
    CALLER_KEY,
    FIELDS,
    SERVER_CALL_TYPES,
    SERVER_NAME_KEY,
    TOOLSET_KEY,
    TYPE_KEY,
    VENDOR,
    MessageParam,
    ToolParam,
    call_metadata,
    reasoning_id,
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

DEFAULT_MAX_TOKENS = 4096
#: Request fields kept in ``forwarded_props["anthropic"]`` by ``decode_request``.
_HISTORY_FIELDS = ("messages", "system", "tools")


# ======================================================================= encode


class _Body:
    """Builds ``messages`` with same-role turns merged (Anthropic joins them anyway)."""

    def __init__(self) -> None:
        self.messages: list[MessageParam] = []

    def push(self, role: Literal["user", "assistant"], blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        last = self.messages[-1]["content"] if self.messages else None
        if isinstance(last, list) and self.messages[-1]["role"] == role:
            last.extend(blocks)  # (every message it builds holds blocks, never a string)
        else:
            self.messages.append({"role": role, "content": blocks})  # the caller's to give


#: the metadata of a call that has none (read, never written)
_NO_META: dict[str, Any] = {}


class _Encoding:
    def __init__(self, model: str, media: str, target: Accepts, user: Accepts) -> None:
        self.model = model
        self.media = media
        self.target = target
        self.user = user
        self.losses: list[Loss] = []
        self.system: list[str] = []
        self.body = _Body()
        self.thinking: list[dict[str, Any]] = []  # reasoning waiting for its assistant turn
        self.ids = IdMapper(CALL_ID_RULE)
        self.media_label: str | None = DEFAULT_MEDIA_LABEL
        #: server calls whose result came in a later response (``_deferred_results``), and
        #: those result blocks waiting for the assistant turn they open
        self.deferred: frozenset[str] = frozenset()
        self.carried: list[dict[str, Any]] = []

    def lose(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.losses.append(Loss(kind=kind, target=VENDOR, reason=reason, tool_call_id=tool_call_id))

    # ------------------------------------------------------------- messages

    def turn(self, turn: Turn) -> None:
        m = turn.message
        role = m.role  # the usual two first: one string test and one isinstance each
        if role == "assistant" and isinstance(m, AssistantMessage):
            self.assistant(turn, m)
        elif role == "user" and isinstance(m, UserMessage):
            self.flush_carried()
            self.flush_thinking()
            self.body.push("user", self.user_blocks(m))
        elif isinstance(m, (SystemMessage, DeveloperMessage)):
            if self.body.messages:
                self.lose(
                    "system-message-moved",
                    f"{m.role} message {m.id!r} moved to the top-level system prompt "
                    "(Anthropic takes instructions only there)",
                )
            if m.content:
                self.system.append(m.content)
        elif isinstance(m, ReasoningMessage):
            self.reasoning(m)
        elif isinstance(m, AssistantMessage):  # (a role that does not match its class)
            self.assistant(turn, m)
        elif isinstance(m, UserMessage):
            self.flush_carried()
            self.flush_thinking()
            self.body.push("user", self.user_blocks(m))
        else:  # activity messages are UI state, never model input
            pass

    def reasoning(self, m: ReasoningMessage) -> None:
        if m.encrypted_value is None:
            self.lose(
                "reasoning-dropped",
                f"reasoning message {m.id!r} has no signature, and Anthropic accepts thinking "
                "only with the signature it issued",
            )
            return
        meta = m.metadata if isinstance(m.metadata, dict) else {}
        redacted = meta.get(TYPE_KEY) == "redacted_thinking" or (
            meta.get(TYPE_KEY) != "thinking" and m.content == ""
        )
        if redacted:
            block = {"type": "redacted_thinking", "data": m.encrypted_value}
        else:
            block = {"type": "thinking", "thinking": m.content, "signature": m.encrypted_value}
        self.thinking.append(block)

    def flush_thinking(self) -> None:
        if self.thinking:
            self.lose(
                "reasoning-dropped",
                "thinking not followed by an assistant turn has nowhere to go",
            )
            self.thinking = []

    def user_blocks(self, m: UserMessage) -> list[dict[str, Any]]:
        if isinstance(m.content, str):
            return [{"type": "text", "text": m.content}] if m.content else []
        fitted = fit_content(list(m.content), self.user)
        self.losses.extend(fitted.losses)
        if isinstance(fitted.content, str):
            return []
        return parts_to_blocks(fitted.content, f"message {m.id}", self.losses, self.user.target)

    def assistant(self, turn: Turn, m: AssistantMessage) -> None:
        # a result that came in this later response opens it, then the waiting reasoning
        blocks = self.carried + self.thinking
        self.carried, self.thinking = [], []
        if m.content:
            blocks.append({"type": "text", "text": m.content})
        results: list[dict[str, Any]] = []
        relocated: list[ContentPart] = []
        for call, result in zip(m.tool_calls or [], turn.results, strict=True):
            meta = call.metadata if isinstance(call.metadata, dict) else _NO_META
            kind = meta.get(TYPE_KEY) if meta else None
            if kind in SERVER_CALL_TYPES:
                blocks.extend(self.server_call(call, str(kind), meta, result))
                continue
            blocks.append(self.tool_use(call, meta))
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

    def arguments(self, call: ToolCall) -> dict[str, Any] | None:
        """The call's arguments as an object (None: not one); repeated keys are a loss."""
        parsed, keys = arguments_object(call.function.arguments)
        if keys:
            self.lose(REPEATED_KEYS, repeated_keys_reason(keys, "tool_use.input"), call.id)
        return from_text(parsed)

    def tool_use(self, call: ToolCall, meta: dict[str, Any]) -> dict[str, Any]:
        if call.encrypted_value is not None:
            self.lose(
                "encrypted-value-dropped",
                "Anthropic signs thinking blocks, not tool calls; the call's encrypted value "
                "has no place in the request",
                call.id,
            )
        parsed = self.arguments(call)
        if parsed is None:
            self.lose(
                "arguments-not-object",
                "Anthropic's tool_use.input must be a JSON object; these arguments are not one, "
                "so the call goes out with an empty input",
                call.id,
            )
            parsed = {}
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": self.ids(call.id, call.metadata),
            "name": call.function.name,
            "input": parsed,
        }
        if meta:
            if isinstance(meta.get(CALLER_KEY), dict):
                block["caller"] = meta[CALLER_KEY]
            if isinstance(meta.get(TOOLSET_KEY), str):
                block["toolset_name"] = meta[TOOLSET_KEY]
        return block

    def server_call(
        self, call: ToolCall, kind: str, meta: dict[str, Any], result: ToolMessage | None
    ) -> list[dict[str, Any]]:
        raw = None
        if result is not None and isinstance(result.metadata, dict):
            raw = result.metadata.get(BLOCK_KEY)
        if result is not None and not (isinstance(raw, dict) and raw.get("tool_use_id") == call.id):
            self.lose(
                "server-tool-call-dropped",
                "a server-tool call goes back to Anthropic only with the result block it "
                "returned, which this history does not hold",
                call.id,
            )
            return []
        block: dict[str, Any] = {
            "type": kind,
            "id": call.id,
            "name": call.function.name,
            "input": self.arguments(call) or {},
        }
        if kind == "mcp_tool_use" and isinstance(meta.get(SERVER_NAME_KEY), str):
            block["server_name"] = meta[SERVER_NAME_KEY]
        if isinstance(meta.get(CALLER_KEY), dict):
            block["caller"] = meta[CALLER_KEY]
        if raw is not None and call.id in self.deferred:
            self.carried.append(raw)  # it opens the next assistant turn, where it came
            return [block]
        return [block] if raw is None else [block, raw]

    def flush_carried(self) -> None:
        """A deferred result with no assistant turn after it: a turn of its own."""
        if self.carried:
            self.body.push("assistant", self.carried)
            self.carried = []

    def tool_result(
        self, call_id: str, msg: ToolMessage
    ) -> tuple[dict[str, Any], list[ContentPart]]:
        value: str | list[dict[str, Any]]
        moved: list[ContentPart] = []
        if isinstance(msg.content, str):
            value = msg.content  # a string result is sent as it is: nothing to fit
        else:
            relocate = self.user if self.media == "relocate" else None
            fitted = fit_content(msg.content, self.target, tool_call_id=call_id, relocate=relocate)
            self.losses.extend(fitted.losses)
            moved = fitted.relocated
            if isinstance(fitted.content, str):
                value = fitted.content
            else:
                where = f"tool result {call_id}"
                value = parts_to_blocks(
                    fitted.content, where, self.losses, self.target.target, call_id
                )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.ids(call_id)}
        error = msg.error
        if error is not None:
            if not value:
                if error:
                    value = error  # never is_error with empty content: the error text is it
                else:
                    self.lose(
                        "error-flag-dropped",
                        "Anthropic rejects is_error with empty content, and the error has no "
                        "text; the result goes out as an empty success",
                        call_id,
                    )
            elif error and error not in (value if isinstance(value, str) else _texts(value)):
                blocks = [{"type": "text", "text": value}] if isinstance(value, str) else value
                value = [*blocks, {"type": "text", "text": error}]
            if value:
                block["is_error"] = True
        if value:
            block["content"] = value  # an empty result omits content: the documented empty form
        meta = msg.metadata if isinstance(msg.metadata, dict) else {}
        if isinstance(meta.get(CACHE_CONTROL_KEY), dict):
            block["cache_control"] = meta[CACHE_CONTROL_KEY]
        return block, moved


def _texts(blocks: list[dict[str, Any]]) -> str:
    return "".join(b["text"] for b in blocks if b.get("type") == "text")


def _reasoning_first(messages: list[Message]) -> list[Message]:
    """Reasoning that directly follows an assistant message moved to just before it.

    A stream's history holds an assistant message from its first text or call on, so a
    thinking block that came later in the same response (interleaved thinking) follows the
    message there; it belongs to that turn, and must not be taken for the next turn's
    (pairing moves the tool results that separate the two). Thinking keeps its order.
    """
    out: list[Message] = []
    at: int | None = None  # where the last assistant message sits in ``out``
    for m in messages:
        role = m.role  # (a string test: isinstance on a pydantic class costs more)
        if role == "reasoning" and at is not None:
            out.insert(at, m)
            at += 1
            continue
        at = len(out) if role == "assistant" else None
        out.append(m)
    return out


def _deferred_results(messages: list[Message]) -> frozenset[str]:
    """Server calls answered in a *later* response: their tool message comes after an answer
    to a client call of the same turn (programmatic tool calling: the code called the
    application's tool, whose result had to go back before the code could finish). History
    pairs every result under its call; the request gives such a result block back where it
    came: opening the next assistant turn."""
    out: set[str] = set()
    server: set[str] = set()  # the last assistant turn's server calls
    client: set[str] = set()  # and its client calls
    answered_client = False  # a client call of that turn answered already
    for m in messages:
        if isinstance(m, AssistantMessage) and m.tool_calls:
            server = {c.id for c in m.tool_calls if _server_call(c)}
            answered_client = False
            client = {c.id for c in m.tool_calls if not _server_call(c)}
        elif isinstance(m, ToolMessage):
            if m.tool_call_id in server:
                if answered_client:
                    out.add(m.tool_call_id)
            elif m.tool_call_id in client:
                answered_client = True
    return frozenset(out)


def _server_call(call: ToolCall) -> bool:
    """A server tool or MCP call: Anthropic answers it inside the assistant turn."""
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    return meta.get(TYPE_KEY) in SERVER_CALL_TYPES


def _tool(tool: Tool) -> ToolParam:
    out: ToolParam = {"name": tool.name}
    if tool.description:
        out["description"] = tool.description
    params = tool.parameters if isinstance(tool.parameters, dict) else None
    out["input_schema"] = params if params is not None else {"type": "object", "properties": {}}
    return out


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
    """``RunAgentInput`` -> keyword arguments for ``client.messages.create(...)``.

    ``vendor_options`` (``stream``, ``thinking``, ``tool_choice``, ...) go into
    the body as given. With ``use_forwarded_props`` the request options that
    :func:`decode_request` kept in ``forwarded_props["anthropic"]`` come back
    too (off by default: forwarded props come from the client). Every loss is
    warned about and, when ``losses`` is a list, appended to it. A client tool
    call with no result is rejected by Anthropic: ``unanswered`` ``"error"`` raises
    ``UnansweredToolCall``, ``"drop"`` removes the call, ``"answer"`` answers it
    ``is_error`` with ``unanswered_text`` (``settle_unanswered``). With
    ``media="relocate"`` each call's moved media follows a ``media_label`` text naming
    the call (``{tool_call_id}``, ``{tool_name}``; None: no label).
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    ri = as_run_input(run_input, VENDOR)
    enc = _Encoding(
        model,
        media,
        place_rules(VENDOR, "tool_result", model),
        place_rules(VENDOR, "user_message", model),
    )
    enc.media_label = media_label
    # Signatures and encrypted reasoning another provider issued are useless here (a loss each).
    own = strip_foreign(ri.messages, VENDOR, target=VENDOR, losses=enc.losses)
    paired = pair_history(_reasoning_first(own), target=VENDOR, allow_unanswered=True)
    settle_unanswered(
        paired, target=VENDOR, policy=unanswered, text=unanswered_text, exempt=_server_call
    )
    enc.losses.extend(paired.losses)
    enc.ids.know(paired.call_ids)
    enc.deferred = _deferred_results(own)
    for t in paired.turns:
        enc.turn(t)
    enc.flush_carried()
    enc.flush_thinking()
    enc.losses.extend(enc.ids.losses)

    body: dict[str, Any] = {}
    forwarded = ri.forwarded_props if isinstance(ri.forwarded_props, dict) else {}
    kept = forwarded.get(VENDOR) if use_forwarded_props else None
    server_tools: list[Any] = []
    if isinstance(kept, dict):
        server_tools = list(kept.get("server_tools") or [])
        body.update({k: v for k, v in kept.items() if k != "server_tools"})
    body["model"] = model
    body["max_tokens"] = max_tokens or body.get("max_tokens") or DEFAULT_MAX_TOKENS
    if enc.system:
        body["system"] = (
            enc.system[0]
            if len(enc.system) == 1
            else [{"type": "text", "text": s} for s in enc.system]
        )
    body["messages"] = enc.body.messages
    tools = [_tool(t) for t in ri.tools or []] + server_tools
    if tools:
        body["tools"] = tools
    body.update(vendor_options)
    if enc.losses:
        if losses is not None:
            losses.extend(enc.losses)
    return body


# ======================================================================= decode


def _system(value: Any, ids: list[str]) -> list[Message]:
    if value is None:
        return []
    value = FIELDS.text_or_several(value, "request.system")  # text, blocks, or one block
    if isinstance(value, str):
        return [SystemMessage(id=mint_id("msg", *ids, "system"), content=value)] if value else []
    out: list[Message] = []
    for i, block in enumerate(value):
        text = FIELDS.at(block, "text", str, f"request.system[{i}]")
        out.append(SystemMessage(id=mint_id("msg", *ids, "system", i), content=text))
    return out


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    blocks = FIELDS.several(content, where, text=_text_block)  # text, blocks, or one block
    for i, block in enumerate(blocks):
        FIELDS.at(block, "type", str, f"{where}[{i}]")
    return blocks


def _user(content: Any, where: str, mid: str, losses: list[Loss], ids: CallIds) -> list[Message]:
    out: list[Message] = []
    rest: list[dict[str, Any]] = []
    for i, block in enumerate(_blocks(content, where)):
        at = f"{where}[{i}]"
        if block["type"] != "tool_result":
            rest.append(block)
            continue
        call_id = FIELDS.at(block, "tool_use_id", str, at)
        call_id = ids.answer(call_id) or call_id
        raw = FIELDS.text_or_several(block.get("content", ""), f"{at}.content")
        parts: str | list[ContentPart]
        if isinstance(raw, str):
            parts = raw
        else:
            parts = blocks_to_parts(raw, f"{at}.content", losses, tool_call_id=call_id)
        kw: dict[str, Any] = {}
        if block.get("is_error") is True:
            kw["error"] = parts if isinstance(parts, str) else text_of(parts)
        if isinstance(block.get("cache_control"), dict):
            kw["metadata"] = {CACHE_CONTROL_KEY: block["cache_control"]}
        out.append(
            ToolMessage(id=result_message_id(call_id), tool_call_id=call_id, content=parts, **kw)
        )
    if rest:
        if isinstance(content, str):
            out.append(UserMessage(id=mid, content=content))
        else:
            parts = blocks_to_parts(rest, where, losses)
            if parts:
                out.append(UserMessage(id=mid, content=parts))
    return out


def _assistant(
    content: Any, where: str, mid: str, losses: list[Loss], ids: CallIds
) -> list[Message]:
    before: list[Message] = []
    after: list[Message] = []
    texts: list[str] = []
    calls: list[ToolCall] = []
    for i, block in enumerate(_blocks(content, where)):
        at = f"{where}[{i}]"
        btype = block["type"]
        if btype == "text":
            texts.append(FIELDS.at(block, "text", str, at))
        elif btype == "thinking":
            before.append(
                ReasoningMessage(
                    id=reasoning_id(mid, i),
                    content=FIELDS.at(block, "thinking", str, at),
                    encrypted_value=FIELDS.at(block, "signature", str, at),
                    metadata={TYPE_KEY: "thinking"},
                )
            )
        elif btype == "redacted_thinking":
            before.append(
                ReasoningMessage(
                    id=reasoning_id(mid, i),
                    content="",
                    encrypted_value=FIELDS.at(block, "data", str, at),
                    metadata={TYPE_KEY: "redacted_thinking"},
                )
            )
        elif btype in CALL_TYPES:
            given = FIELDS.at(block, "input", dict, at)
            vendor_id = FIELDS.at(block, "id", str, at)
            cid = ids.assign(vendor_id)  # a repeated id stays a call of its own
            meta = {**call_metadata(btype, block), **ids.metadata(cid, vendor_id)}
            kw: dict[str, Any] = {"metadata": meta} if meta else {}
            calls.append(
                ToolCall(
                    id=cid,
                    function=FunctionCall(
                        name=FIELDS.at(block, "name", str, at),
                        arguments=dumps_compact(given, VENDOR, f"{at}.input"),
                    ),
                    **kw,
                )
            )
        elif btype.endswith("_tool_result") and "tool_use_id" in block:
            call_id = FIELDS.at(block, "tool_use_id", str, at)
            call_id = ids.answer(call_id) or call_id
            parts, rmeta, error = server_result(block, at, losses)
            rkw: dict[str, Any] = {"error": error} if error is not None else {}
            after.append(
                ToolMessage(
                    id=result_message_id(call_id),
                    tool_call_id=call_id,
                    content=parts,
                    metadata={**rmeta, BLOCK_KEY: block},
                    **rkw,
                )
            )
        else:
            losses.append(
                Loss(
                    kind="block-dropped",
                    target="AG-UI",
                    reason=f"{at}: a {btype!r} block has no place in AG-UI history",
                )
            )
    akw: dict[str, Any] = {}
    if calls:
        akw["tool_calls"] = calls
    if texts or not calls:
        akw["content"] = "".join(texts)
    return [*before, AssistantMessage(id=mid, **akw), *after]


@checked_options(VENDOR)
def decode_request(
    body: Any, *, thread_id: str | None = None, run_id: str | None = None
) -> RunAgentInput:
    """An Anthropic request body (dict or JSON-able object) -> ``RunAgentInput``.

    Ids Anthropic does not carry are minted from the body, so the same body
    gives the same input. Request options other than the history (model,
    max_tokens, thinking, server tools, ...) are kept in
    ``forwarded_props["anthropic"]``.
    """
    data = as_dict(body, VENDOR, "request")
    raw_messages = FIELDS.at(data, "messages", list, "request")
    first = dumps_compact(raw_messages[0], VENDOR, "request.messages[0]") if raw_messages else ""
    tid, rid = request_ids(
        thread_id=thread_id,
        run_id=run_id,
        thread_seed=(first,),
        # the whole body's text only when it is needed (a given run id needs none)
        run_seed=() if run_id else (dumps_compact(data, VENDOR, "request"),),
    )
    losses: list[Loss] = []
    ids = CallIds(VENDOR)
    messages: list[Message] = _system(data.get("system"), [tid])
    for i, m in enumerate(raw_messages):
        where = f"request.messages[{i}]"
        role = FIELDS.at(m, "role", str, where)
        if "content" not in m:
            raise FIELDS.missing(f"{where}.content")
        mid = mint_id("msg", rid, i)
        if role == "user":
            messages.extend(_user(m["content"], f"{where}.content", mid, losses, ids))
        elif role == "assistant":
            messages.extend(_assistant(m["content"], f"{where}.content", mid, losses, ids))
        elif role == "system":
            messages.extend(_system(m["content"], [tid, str(i)]))
        else:
            raise VendorDataError(VENDOR, f"{where}.role", f"unknown role {role!r}")
    tools: list[Tool] = []
    server_tools: list[Any] = []
    for i, t in enumerate(FIELDS.list_at(data, "tools", "request")):
        where = f"request.tools[{i}]"
        FIELDS.obj(t, where)
        if t.get("type") not in (None, "custom") or "input_schema" not in t:
            server_tools.append(t)
            continue
        tools.append(
            Tool(
                name=FIELDS.at(t, "name", str, where),
                description=str(t["description"]) if isinstance(t.get("description"), str) else "",
                parameters=t["input_schema"],
            )
        )
    messages = mark_history(messages, VENDOR)  # these signatures are Anthropic's own
    kept = {k: v for k, v in data.items() if k not in _HISTORY_FIELDS}
    if server_tools:
        kept["server_tools"] = server_tools
    if losses:
        announce(losses)
    return RunAgentInput(
        thread_id=tid,
        run_id=rid,
        messages=messages,
        tools=tools,
        forwarded_props={VENDOR: kept},
    )


__all__ = ["DEFAULT_MAX_TOKENS", "decode_request", "encode_request"]

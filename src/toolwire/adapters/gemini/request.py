"""AG-UI history <-> Gemini ``generate_content`` requests.

``encode_request`` returns the keyword arguments of google-genai's
``client.models.generate_content(model=, contents=, config=)`` as plain dicts
(snake_case; the SDK writes the camelCase or Vertex wire itself).
``decode_request`` reads that form, or a REST body as recorded on the wire.
"""

from __future__ import annotations

import functools
import json
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
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from toolwire.adapters.gemini.parts import (
    code_output,
    content_to_response,
    data_url_to_source,
    media_from_ag,
    media_to_ag,
    response_to_content,
)
from toolwire.adapters.gemini.wire import (
    CALL_ID_RULE,
    CODE_EXECUTION,
    FIELDS,
    OUTCOME_KEY,
    PART_KEY,
    PART_QUALIFIERS,
    PROVIDER,
    TOOL_TYPE_KEY,
    VENDOR,
    CodeExecutionResultParam,
    FunctionDeclaration,
    FunctionResponse,
    b64_signature,
    get,
    has,
    json_text,
    model_name,
    snake,
)
from toolwire.capabilities import Place, family
from toolwire.errors import UnsupportedInput, VendorDataError
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import (
    REPEATED_KEYS,
    arguments_object,
    dumps_compact,
    parse_arguments_object,
    repeated_keys_reason,
)
from toolwire.protocol.callids import IdMapper
from toolwire.protocol.chat_request import place_rules
from toolwire.protocol.decoding import as_dict
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import DEFAULT_MEDIA_LABEL, Accepts, fit_content, labelled
from toolwire.protocol.ids import mint_id, result_message_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import pair_history, settle_unanswered
from toolwire.protocol.parts import text_of
from toolwire.protocol.signatures import mark_history, strip_foreign
from toolwire.protocol.surface import (
    MEDIA_CHOICES,
    check_choice,
    checked_options,
    encode_surface,
    request_ids,
)

Backend = Literal["gemini_api", "vertex"]

#: Gemini's documented value for a call whose thought signature is unknown
#: (a call made by another vendor, or typed by hand).
SKIP_SIGNATURE = "skip_thought_signature_validator"

# ``forwarded_props["gemini"]`` carries what AG-UI has no field for, so a decoded request
# encodes back whole: ``generation_config``, ``tool_config``, ``safety_settings`` and
# ``builtin_tools`` (tools other than function declarations, e.g. ``googleSearch``).


# ------------------------------------------------------------------ encoding


def target_accepts(model: str | None, backend: str, place: Place = "tool_result") -> Accepts:
    """What ``model`` on ``backend`` takes in ``place`` (file handles follow the backend)."""
    return place_rules(VENDOR, place, model_name(model), backend)


@functools.lru_cache(maxsize=256)  # (the family's look-up is a tenth of a millisecond)
def _family_rules(model: str | None, backend: str) -> tuple[Any, bool]:
    """The family's ``function_call_ids`` (default: sent) and whether it requires thought
    signatures."""
    fam = family(VENDOR, model, backend)
    return fam.get("function_call_ids", True), fam.get("thought_signatures") == "required"


#: the roles that go to the system instruction
_INSTRUCTIONS = ("system", "developer")


@encode_surface(VENDOR)
def encode_request(
    run_input: RunAgentInput | dict[str, Any],
    *,
    model: str,
    media: Literal["drop", "relocate"] = "drop",
    losses: list[Loss] | None = None,
    backend: Backend = "gemini_api",
    call_ids: bool | None = None,
    unanswered: str = "error",
    unanswered_text: str | None = None,
    media_label: str | None = DEFAULT_MEDIA_LABEL,
) -> dict[str, Any]:
    """``generate_content`` kwargs (``model``, ``contents``, ``config``) for an AG-UI history.

    ``call_ids`` overrides whether ``functionCall``/``functionResponse`` carry ids
    (by default: as the model's family in ``adapters/gemini/capabilities.json`` says).
    Every loss is warned about and, when ``losses`` is a list, appended to it.
    A function call with no result (Gemini wants as many responses as calls):
    ``unanswered`` ``"error"`` raises, ``"drop"`` removes it, ``"answer"`` answers it as
    failed with ``unanswered_text`` (``settle_unanswered``); Gemini's own code runs and
    grounding are never touched. With ``media="relocate"`` each call's moved media
    follows a ``media_label`` text naming the call (``{tool_call_id}``, ``{tool_name}``;
    None: no label).
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{VENDOR}.encode_request")
    if backend not in ("gemini_api", "vertex"):
        raise UnsupportedInput(f"gemini: unknown backend {backend!r} (gemini_api or vertex)")
    ri = as_run_input(run_input, VENDOR)
    ids_by_default, needs_sig = _family_rules(model_name(model), backend)
    with_ids = ids_by_default if call_ids is None else call_ids
    in_result = target_accepts(model, backend)
    in_user = target_accepts(model, backend, "user_message")
    lost: list[Loss] = []

    system: list[dict[str, Any]] = []
    history: list[Message] = []
    for m in strip_foreign(ri.messages, PROVIDER, target=VENDOR, losses=lost):
        # (the role first: a failed isinstance on a pydantic class is slow)
        if m.role in _INSTRUCTIONS and isinstance(m, (SystemMessage, DeveloperMessage)):
            system.append({"text": m.content})
        else:
            history.append(m)
    paired = pair_history(history, target=VENDOR, allow_unanswered=True)
    settle_unanswered(
        paired, target=VENDOR, policy=unanswered, text=unanswered_text, exempt=_vendor_run
    )
    lost.extend(paired.losses)
    ids = IdMapper(CALL_ID_RULE, set(paired.call_ids)) if with_ids else None

    contents: list[dict[str, Any]] = []
    thoughts: list[dict[str, Any]] = []
    for turn in paired.turns:
        m = turn.message
        role = m.role  # (the role first, as above)
        if role == "reasoning" and isinstance(m, ReasoningMessage):
            part: dict[str, Any] = {"text": m.content, "thought": True}
            if m.encrypted_value:
                part["thought_signature"] = m.encrypted_value
            thoughts.append(part)
            continue
        if role == "assistant" and isinstance(m, AssistantMessage):
            contents.extend(
                _model_turn(
                    m,
                    turn.results,
                    thoughts,
                    ids,
                    needs_sig,
                    in_result,
                    in_user,
                    (media, media_label),
                    lost,
                )
            )
            thoughts = []
            continue
        if thoughts:
            contents.append({"role": "model", "parts": thoughts})
            thoughts = []
        if role == "user" and isinstance(m, UserMessage):
            parts = _user_parts(m.content, in_user, lost)
            if parts:
                contents.append({"role": "user", "parts": parts})
        # ToolMessage never reaches here (pair_history files it under its call);
        # ActivityMessage and other display-only messages are not model input.
    if thoughts:
        contents.append({"role": "model", "parts": thoughts})

    config: dict[str, Any] = {}
    if system:
        config["system_instruction"] = {"parts": system}
    decls = [_declaration(t) for t in ri.tools or []]
    tools: list[dict[str, Any]] = [{"function_declarations": decls}] if decls else []
    forwarded = ri.forwarded_props.get("gemini") if isinstance(ri.forwarded_props, dict) else None
    if isinstance(forwarded, dict):
        tools.extend(forwarded.get("builtin_tools") or [])
        # the SDK's config holds the wire's generationConfig fields at its top level
        generation = forwarded.get("generation_config")
        if isinstance(generation, dict):
            config.update(generation)
        for key in ("tool_config", "safety_settings"):
            if forwarded.get(key) is not None:
                config[key] = forwarded[key]
    if tools:
        config["tools"] = tools
    if ri.context:
        lost.append(
            Loss(
                kind="context-dropped",
                target=VENDOR,
                reason="Gemini has no place "
                "for AG-UI context entries; put them in a system message to send them",
            )
        )
    if ids is not None:
        lost.extend(ids.losses)
    if losses is not None:
        losses.extend(lost)
    body: dict[str, Any] = {"model": model, "contents": contents}
    if config:
        body["config"] = config
    return body


def _vendor_run(call: ToolCall) -> bool:
    """Code execution, grounding and built-in tool calls: Gemini answers them itself."""
    return (call.metadata or {}).get(PART_KEY) in (
        "executableCode",
        "groundingMetadata",
        "toolCall",
    )


def _declaration(tool: Tool) -> FunctionDeclaration:
    decl: FunctionDeclaration = {"name": tool.name, "description": tool.description}
    if tool.parameters is not None:
        decl["parameters_json_schema"] = tool.parameters
    return decl


def _user_parts(content: Any, in_user: Accepts, lost: list[Loss]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]  # even "": the user turn is there, and Gemini takes it
    fitted = fit_content([data_url_to_source(p) for p in content], in_user)
    lost.extend(fitted.losses)
    parts: list[dict[str, Any]] = []
    for p in fitted.content if isinstance(fitted.content, list) else []:
        if p.type == "text":
            if p.text:
                parts.append({"text": p.text})
        else:
            parts.append(media_from_ag(p))
    return parts


def _model_turn(
    m: AssistantMessage,
    results: list[ToolMessage | None],
    thoughts: list[dict[str, Any]],
    ids: IdMapper | None,
    needs_sig: bool,
    in_result: Accepts,
    in_user: Accepts,
    media: tuple[str, str | None],
    lost: list[Loss],
) -> list[dict[str, Any]]:
    parts = list(thoughts)
    if m.content:
        text: dict[str, Any] = {"text": m.content}
        if m.encrypted_value:
            text["thought_signature"] = m.encrypted_value
        parts.append(text)
    answers: list[dict[str, Any]] = []
    siblings: list[dict[str, Any]] = []
    first_call = len(parts)
    signed = False
    for call, result in zip(m.tool_calls or [], results or [], strict=False):
        kind = (call.metadata or {}).get(PART_KEY)
        args, keys = arguments_object(call.function.arguments)
        args = from_text(args)
        if keys:
            reason = repeated_keys_reason(keys, "functionCall.args")
            lost.append(
                Loss(kind=REPEATED_KEYS, target=VENDOR, tool_call_id=call.id, reason=reason)
            )
        if args is None:
            lost.append(
                Loss(
                    kind="arguments-not-object",
                    target=VENDOR,
                    tool_call_id=call.id,
                    reason="Gemini takes arguments as a JSON object; this text is not "
                    "one, so the call is sent with {}",
                )
            )
            args = {}
        if kind == "groundingMetadata":
            continue  # search grounding is the model's own; Gemini takes no echo of it
        if kind == "executableCode":
            parts.append(
                _signed(
                    {"executable_code": {k: args[k] for k in ("language", "code") if k in args}},
                    call.encrypted_value,
                )
            )
            if result is not None:
                parts.append({"code_execution_result": _code_result(result)})
            continue
        if kind == "toolCall":
            body: dict[str, Any] = {"id": call.id, "args": args}
            if (call.metadata or {}).get(TOOL_TYPE_KEY):
                body["tool_type"] = (call.metadata or {})[TOOL_TYPE_KEY]
            parts.append(_signed({"tool_call": body}, call.encrypted_value))
            if result is not None:
                resp = from_text(parse_arguments_object(text_of(result.content))) or {}
                parts.append(
                    {
                        "tool_response": {
                            "id": call.id,
                            "response": resp,
                            **({"tool_type": body["tool_type"]} if "tool_type" in body else {}),
                        }
                    }
                )
            continue
        fc: dict[str, Any] = {"name": call.function.name, "args": args}
        if ids is not None:
            fc["id"] = ids(call.id, call.metadata)
        signed = signed or bool(call.encrypted_value)
        parts.append(_signed({"function_call": fc}, call.encrypted_value))
        assert result is not None  # pair_history raised for unanswered calls
        answers.append(_answer(call, result, ids, in_result, in_user, media, siblings, lost))
    if answers and needs_sig and not signed:
        for p in parts[first_call:]:
            if "function_call" in p:
                p["thought_signature"] = SKIP_SIGNATURE
                lost.append(
                    Loss(
                        kind="thought-signature-missing",
                        target=VENDOR,
                        tool_call_id=None,
                        reason="the calls of this turn carry no "
                        f"thought signature; sent Gemini's {SKIP_SIGNATURE!r} instead",
                    )
                )
                break
    if m.encrypted_value and not m.content:
        parts.append({"text": "", "thought_signature": m.encrypted_value})
    out = [{"role": "model", "parts": parts}] if parts else []
    if answers:
        out.append({"role": "user", "parts": answers + siblings})
    return out


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    if signature:
        part["thought_signature"] = signature
    return part


def _code_result(result: ToolMessage) -> CodeExecutionResultParam:
    meta = result.metadata or {}
    body: CodeExecutionResultParam = {}
    outcome = meta.get(OUTCOME_KEY) or ("OUTCOME_FAILED" if result.error else "OUTCOME_OK")
    body["outcome"] = outcome
    text = text_of(result.content) or (result.error or "")
    body["output"] = code_output(text, meta.get(OUTCOME_KEY))
    return body


def _answer(
    call: ToolCall,
    result: ToolMessage,
    ids: IdMapper | None,
    in_result: Accepts,
    in_user: Accepts,
    media: tuple[str, str | None],
    siblings: list[dict[str, Any]],
    lost: list[Loss],
) -> dict[str, Any]:
    content = result.content
    if isinstance(content, list):
        content = [data_url_to_source(p) for p in content]
    how, label = media
    fitted = fit_content(
        content, in_result, tool_call_id=call.id, relocate=in_user if how == "relocate" else None
    )
    lost.extend(fitted.losses)
    kept = fitted.content
    fr: FunctionResponse = {"name": call.function.name}
    if ids is not None:
        fr["id"] = ids(call.id)
    fr["response"] = content_to_response(kept, result.error, result.metadata)
    media_parts = (
        [media_from_ag(p) for p in kept if p.type != "text"] if isinstance(kept, list) else []
    )
    if media_parts:
        fr["parts"] = media_parts
    sent = ids(call.id) if ids is not None else call.id
    for p in labelled(
        fitted.relocated, label, tool_call_id=sent, tool_name=call.function.name, target=VENDOR
    ):
        siblings.append({"text": p.text} if p.type == "text" else media_from_ag(p))
    return {"function_response": fr}


# ------------------------------------------------------------------ decoding


#: Gemini ``Schema`` keywords (as google-genai's keyword arguments spell them) and their
#: JSON Schema spelling
_SCHEMA_KEYS = {
    "any_of": "anyOf",
    "max_items": "maxItems",
    "min_items": "minItems",
    "max_properties": "maxProperties",
    "min_properties": "minProperties",
    "max_length": "maxLength",
    "min_length": "minLength",
    "property_ordering": "propertyOrdering",
}
_SCHEMA_DEPTH = 64


def _json_schema(schema: Any, where: str, depth: int = 0) -> Any:
    """A function's ``parameters`` (Gemini's OpenAPI-style ``Schema``) as the JSON Schema an
    AG-UI tool carries, which every other vendor reads: type names in lower case
    (``OBJECT`` -> ``object``; ``TYPE_UNSPECIFIED`` says nothing and goes), ``nullable`` as a
    ``"null"`` type, snake_case keywords in their JSON Schema spelling; the rest as it is."""
    if depth > _SCHEMA_DEPTH:
        raise VendorDataError(VENDOR, where, f"a schema nested over {_SCHEMA_DEPTH} levels")
    schema = as_dict(schema, VENDOR, where) if not isinstance(schema, dict) else schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        key = _SCHEMA_KEYS.get(key, key)
        if key == "type" and isinstance(value, str):
            if value.upper() == "TYPE_UNSPECIFIED":
                continue
            value = value.lower()
        elif key == "properties" and isinstance(value, dict):
            value = {
                name: _json_schema(v, f"{where}.properties.{name}", depth + 1)
                for name, v in value.items()
            }
        elif key == "items" and value is not None:
            value = _json_schema(value, f"{where}.items", depth + 1)
        elif key == "anyOf" and isinstance(value, list):
            value = [_json_schema(v, f"{where}.anyOf[{i}]", depth + 1) for i, v in enumerate(value)]
        out[key] = value
    if out.pop("nullable", None) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


@checked_options(VENDOR)
def decode_request(
    body: Any,
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    backend: Backend = "gemini_api",
) -> RunAgentInput:
    """A ``generate_content`` request (REST body or SDK kwargs) -> ``RunAgentInput``.

    Function responses are paired with calls by id, or else by name and order
    (Gemini 2.x sends no ids); calls without ids get ids minted from their
    position, so the same request always decodes to the same ids.
    """
    req = as_dict(body, VENDOR, "request")
    config = get(req, "config")
    config = as_dict(config, VENDOR, "request.config") if config is not None else {}
    messages: list[Message] = []
    lost: list[Loss] = []  # parts with no AG-UI home: said, not dropped silently
    system = get(req, "systemInstruction", get(config, "systemInstruction"))
    if system is not None:
        messages.extend(_system(system, lost))
    raw = req.get("contents")
    if raw is None:
        raise VendorDataError(VENDOR, "request.contents", "missing")
    # a list of contents, one content, or (SDK kwargs) the user's text
    raw = FIELDS.several(raw, "request.contents", text=str)
    pending: list[tuple[str, str]] = []
    for i, item in enumerate(raw):
        where = f"request.contents[{i}]"
        if isinstance(item, str):
            messages.append(UserMessage(id=mint_id("gemini_msg", i, "user"), content=item))
            continue
        content = as_dict(item, VENDOR, where)
        parts = [  # a list of parts, or one part (Gemini takes either), or text
            as_dict(p, VENDOR, f"{where}.parts[{j}]")
            for j, p in enumerate(
                FIELDS.several(get(content, "parts"), f"{where}.parts", text=_text_part)
            )
        ]
        role = get(content, "role") or "user"
        if role == "model":
            msgs, pending = _model_content(parts, i, where, backend, lost)
            messages.extend(msgs)
        else:
            msgs, pending = _user_content(parts, i, where, pending, backend, lost)
            messages.extend(msgs)
    tools: list[Tool] = []
    builtin: list[Any] = []
    for k, tool in enumerate(
        FIELDS.several(get(req, "tools", get(config, "tools")), "request.tools")
    ):
        tool = as_dict(tool, VENDOR, f"request.tools[{k}]")
        decls = get(tool, "functionDeclarations")
        if decls is None:
            builtin.append(tool)
            continue
        for n, d in enumerate(FIELDS.several(decls, f"request.tools[{k}].functionDeclarations")):
            d = FIELDS.obj(d, f"request.tools[{k}].functionDeclarations[{n}]")
            params = get(d, "parametersJsonSchema")
            if params is None and get(d, "parameters") is not None:
                at = f"request.tools[{k}].functionDeclarations[{n}].parameters"
                params = _json_schema(get(d, "parameters"), at)
            kw: dict[str, Any] = {} if params is None else {"parameters": params}
            tools.append(
                Tool(
                    name=str(get(d, "name") or ""),
                    description=str(get(d, "description") or ""),
                    **kw,
                )
            )
    forwarded: dict[str, Any] = {}
    if builtin:
        forwarded["builtin_tools"] = builtin
    for key in ("generationConfig", "toolConfig", "safetySettings"):
        value = get(req, key, get(config, key))
        if value is not None:
            forwarded[_snake_key(key)] = value
    kw2: dict[str, Any] = {"forwarded_props": {"gemini": forwarded}} if forwarded else {}
    thread_id, run_id = request_ids(
        thread_id=thread_id,
        run_id=run_id,
        thread_seed=(VENDOR, _seed(raw[:1])),
        run_seed=(VENDOR, _seed(req)),
    )
    announce(lost)
    return RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        messages=mark_history(messages, PROVIDER),
        tools=tools,
        context=[],
        state=None,
        **kw2,
    )


def _enc(sig: str | None) -> dict[str, Any]:
    return {"encrypted_value": sig} if sig else {}


def _err(err: str | None) -> dict[str, Any]:
    return {"error": err} if err else {}


def _snake_key(name: str) -> str:
    return snake(name)


def _text_part(text: str) -> dict[str, Any]:
    return {"text": text}


def _part_dropped(lost: list[Loss], part: dict[str, Any], at: str, why: str) -> None:
    fields = ", ".join(sorted(part)) or "nothing"
    lost.append(Loss(kind="request-part-dropped", target="AG-UI", reason=f"{at} ({fields}): {why}"))


def _system(system: Any, lost: list[Loss]) -> list[Message]:
    """``systemInstruction``: a Content whose ``parts`` is a list or one part (a popular R
    client sends one, and Gemini answers 200), or, as SDK kwargs, text, a part or parts."""
    if isinstance(system, str):
        return [SystemMessage(id=mint_id("gemini_sys", 0), content=system)]
    if isinstance(system, dict) and get(system, "parts") is None and "role" not in system:
        parts: list[Any] = [system]  # one part given as the instruction (SDK kwargs)
    elif isinstance(system, list):
        parts = system
    else:
        parts = FIELDS.several(
            get(as_dict(system, VENDOR, "request.systemInstruction"), "parts"),
            "request.systemInstruction.parts",
            text=_text_part,
        )
    out: list[Message] = []
    for k, p in enumerate(parts):
        text = p if isinstance(p, str) else get(as_dict(p, VENDOR, "systemInstruction"), "text")
        if isinstance(text, str):
            out.append(SystemMessage(id=mint_id("gemini_sys", k), content=text))
        else:
            _part_dropped(
                lost, p, f"request.systemInstruction.parts[{k}]", "a system message holds text"
            )
    return out


def _model_content(
    parts: list[dict[str, Any]], i: int, where: str, backend: str, lost: list[Loss]
) -> tuple[list[Message], list[tuple[str, str]]]:
    mid = mint_id("gemini_msg", i, "model")
    out: list[Message] = []
    texts: list[str] = []
    signature: str | None = None
    calls: list[ToolCall] = []
    results: list[ToolMessage] = []
    pending: list[tuple[str, str]] = []
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        sig = b64_signature(get(part, "thoughtSignature"), f"{at}.thoughtSignature")
        if has(part, "functionCall"):
            fc = FIELDS.obj(get(part, "functionCall"), f"{at}.functionCall")
            name = FIELDS.text(get(fc, "name"), f"{at}.functionCall.name")
            cid = FIELDS.opt_text(get(fc, "id"), f"{at}.functionCall.id") or mint_id(
                "gemini_call", i, len(calls) + 1
            )
            args = get(fc, "args")
            text = json_text(
                FIELDS.opt_obj(args, f"{at}.functionCall.args") or {}, f"{at}.functionCall.args"
            )
            calls.append(
                ToolCall(
                    id=cid,
                    function=FunctionCall(name=name, arguments=text),
                    **_enc(sig),
                )
            )
            pending.append((cid, name))
        elif has(part, "executableCode"):
            code = FIELDS.obj(get(part, "executableCode"), f"{at}.executableCode")
            cid = FIELDS.opt_text(get(code, "id"), f"{at}.executableCode.id") or mint_id(
                "gemini_code", i, len(calls) + 1
            )
            args = {
                k: FIELDS.opt_text(get(code, k), f"{at}.executableCode.{k}")
                for k in ("language", "code")
                if get(code, k) is not None
            }
            calls.append(
                ToolCall(
                    id=cid,
                    function=FunctionCall(name=CODE_EXECUTION, arguments=dumps_compact(args)),
                    metadata={PART_KEY: "executableCode"},
                    **_enc(sig),
                )
            )
        elif has(part, "codeExecutionResult"):
            res = FIELDS.obj(get(part, "codeExecutionResult"), f"{at}.codeExecutionResult")
            target = get(res, "id") or next(
                (c.id for c in reversed(calls) if c.function.name == CODE_EXECUTION), None
            )
            if target is None:
                raise VendorDataError(VENDOR, at, "a code result with no executableCode before it")
            outcome = get(res, "outcome")
            output = str(get(res, "output") or "")
            meta: dict[str, Any] = {PART_KEY: "codeExecutionResult"}
            if outcome is not None:
                meta[OUTCOME_KEY] = outcome
            err = output or str(outcome) if outcome not in (None, "OUTCOME_OK") else None
            results.append(
                ToolMessage(
                    id=result_message_id(target),
                    tool_call_id=target,
                    content=err or output,  # as the stream decoder: the error when no output
                    metadata=meta,
                    **_err(err),
                )
            )
        elif "text" in part:
            text = FIELDS.text(part["text"], f"{at}.text")
            if part.get("thought") is True:
                out.append(
                    ReasoningMessage(
                        id=mint_id("gemini_reasoning", i, j),
                        content=text,
                        **_enc(sig),
                    )
                )
            else:
                texts.append(text)
                signature = sig or signature
        elif sig is not None and not (set(part) - PART_QUALIFIERS):
            signature = sig
        elif set(part) - PART_QUALIFIERS:  # media the model produced, a server tool, a new kind
            if sig is not None:
                signature = sig
            _part_dropped(lost, part, at, "an assistant message has no place for it")
    kw: dict[str, Any] = {}
    if calls:
        kw["tool_calls"] = calls
    if texts or not calls:
        kw["content"] = "".join(texts)
    if signature:
        kw["encrypted_value"] = signature
    out.append(AssistantMessage(id=mid, **kw))
    out.extend(results)
    return out, pending


def _user_content(
    parts: list[dict[str, Any]],
    i: int,
    where: str,
    pending: list[tuple[str, str]],
    backend: str,
    lost: list[Loss],
) -> tuple[list[Message], list[tuple[str, str]]]:
    out: list[Message] = []
    rest: list[ContentPart] = []
    left = list(pending)
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        if has(part, "functionResponse"):
            fr = FIELDS.obj(get(part, "functionResponse"), f"{at}.functionResponse")
            fid = FIELDS.opt_text(get(fr, "id"), f"{at}.functionResponse.id")
            name = FIELDS.opt_text(get(fr, "name"), f"{at}.functionResponse.name")
            slot = next((k for k, (c, _) in enumerate(left) if fid is not None and c == fid), None)
            if slot is None:
                slot = next((k for k, (_, n) in enumerate(left) if n == name), None)
            if slot is None:
                raise VendorDataError(
                    VENDOR,
                    f"{at}.functionResponse",
                    f"answers no call of the model turn before it ({name!r})",
                )
            call_id, _ = left.pop(slot)
            content, error, meta = response_to_content(fr, f"{at}.functionResponse", backend)
            kw: dict[str, Any] = {}
            if error is not None:
                kw["error"] = error
            if meta:
                kw["metadata"] = meta
            out.append(
                ToolMessage(
                    id=result_message_id(call_id),
                    tool_call_id=call_id,
                    content=content,
                    **kw,
                )
            )
        elif "text" in part:
            rest.append(TextPart(text=FIELDS.text(part["text"], f"{at}.text")))
        else:
            media = media_to_ag(part, at, backend)
            if media is not None:
                rest.append(media)
            elif set(part) - PART_QUALIFIERS:
                _part_dropped(lost, part, at, "a user message has no place for it")
    if rest:
        user: Any = rest
        if len(rest) == 1 and isinstance(rest[0], TextPart):
            user = rest[0].text
        out.append(UserMessage(id=mint_id("gemini_msg", i, "user"), content=user))
    return out, left


def _seed(value: Any) -> str:
    """Stable text of a request part, for minting the ids a request does not carry."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


__all__ = ["Backend", "decode_request", "encode_request", "target_accepts"]

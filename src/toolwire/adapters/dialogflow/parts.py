"""One ``ToolCall`` / ``ToolCallResult`` <-> one AG-UI tool call / tool result.

Both directions live here so the mapping reads as one table. Everything
Dialogflow has and AG-UI does not (the source resource, display fields, the
answer record, create times, the state, ``retryable``) rides under the
``"dialogflow"`` metadata key of the item it belongs to, which is also what
lets the reverse direction rebuild the vendor JSON exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import ContentPart, DataSource, TextPart

from toolwire.errors import VendorDataError
from toolwire.losses import Loss
from toolwire.protocol.arguments import dumps_compact, parse_arguments_object
from toolwire.protocol.finite import from_text
from toolwire.protocol.fitting import Accepts, fit_content, part_loss
from toolwire.protocol.machine import RESULT_ERROR_KEY
from toolwire.protocol.parts import Content, media_part

from .wire import (
    FIELDS,
    META_KEY,
    SOURCE_KEYS,
    STATES,
    VENDOR,
    b64_bytes,
    b64_text,
    enum_name,
    sniff_mime,
    source_of,
    timestamp_ms,
)

TARGET = "dialogflow"

# --------------------------------------------------------------------------- decode


@dataclass
class CallIn:
    """A ``ToolCall`` read from JSON, ready to become START/ARGS/END.

    The argument text is written once, when the call is read (it is the check that the
    parameters are JSON, too); the timestamp and the content fingerprint are computed
    only when asked for: a streamed call restated in later chunks needs neither.
    """

    name: str
    answer_record: str | None
    state: str | None
    meta: dict[str, Any] = field(default_factory=dict)  # the "dialogflow" metadata value
    arguments: str = ""  # ``inputParameters`` as compact JSON text ("" when absent)
    identity: dict[str, Any] = field(default_factory=dict)  # what the fingerprint hashes
    where: str = ""

    @property
    def timestamp(self) -> int | None:
        create = self.meta.get("createTime")
        return timestamp_ms(create, f"{self.where}.createTime") if create is not None else None

    @property
    def fingerprint(self) -> str:
        return dumps_compact(self.identity)


def _last_segment(resource: str) -> str:
    return resource.rstrip("/").rsplit("/", 1)[-1]


def read_call(tc: dict[str, Any], where: str) -> CallIn:
    """``ToolCall`` JSON -> call fields; the tool name is ``action`` (then display name, source)."""
    meta: dict[str, Any] = {}
    source = source_of(tc, where)
    if source:
        meta["source"] = source
    for key in ("toolDisplayName", "toolDisplayDetails"):
        value = FIELDS.opt_text(tc.get(key), f"{where}.{key}")
        if value is not None:
            meta[key] = value
    action = FIELDS.opt_text(tc.get("action"), f"{where}.action")
    params = FIELDS.opt_obj(tc.get("inputParameters"), f"{where}.inputParameters")
    # argument text is JSON: a NaN or an infinity (json.loads reads them) is not
    arguments = (
        dumps_compact(params, VENDOR, f"{where}.inputParameters") if params is not None else ""
    )
    create = FIELDS.opt_text(tc.get("createTime"), f"{where}.createTime")
    if create is not None:
        meta["createTime"] = create
    answer = FIELDS.opt_text(tc.get("answerRecord"), f"{where}.answerRecord") or None
    if answer is not None:
        meta["answerRecord"] = answer
    state = enum_name(tc.get("state"), STATES, f"{where}.state")
    if state is not None:
        meta["state"] = state
    if action:
        name = action
    else:
        meta["noAction"] = True
        name = meta.get("toolDisplayName") or (
            _last_segment(next(iter(source.values()))) if source else ""
        )
    identity = {"source": source, "action": action, "inputParameters": params, "createTime": create}
    return CallIn(name, answer, state, meta, arguments, identity, where)


def synthesized_call(res: dict[str, Any], where: str) -> CallIn:
    """A call for a result whose ``toolCall`` is absent: named from the result itself."""
    source = source_of(res, where)
    action = FIELDS.opt_text(res.get("action"), f"{where}.action")
    name = action or (_last_segment(next(iter(source.values()))) if source else "")
    answer = FIELDS.opt_text(res.get("answerRecord"), f"{where}.answerRecord") or None
    return CallIn(name, answer, None, {"synthesized": True}, "", {"result": res}, where)


@dataclass
class ResultIn:
    content: Content
    metadata: dict[str, Any]
    timestamp: int | None


def read_result(res: dict[str, Any], where: str) -> ResultIn:
    """``ToolCallResult`` JSON -> AG-UI result content and metadata.

    ``content`` stays a string; ``rawContent`` becomes one media part with a data
    source (MIME sniffed when certain, else ``application/octet-stream``);
    ``error`` becomes its message as content, the error under ``RESULT_ERROR_KEY``
    (so history gets ``ToolMessage.error``) and ``{message, retryable}`` under
    ``dialogflow.error``.
    """
    meta: dict[str, Any] = {}
    source = source_of(res, where)
    if source:
        meta["source"] = source
    action = FIELDS.opt_text(res.get("action"), f"{where}.action")
    if action is not None:
        meta["action"] = action
    create = FIELDS.opt_text(res.get("createTime"), f"{where}.createTime")
    stamp = timestamp_ms(create, f"{where}.createTime") if create is not None else None
    if create is not None:
        meta["createTime"] = create
    answer = FIELDS.opt_text(res.get("answerRecord"), f"{where}.answerRecord")
    if answer is not None:
        meta["answerRecord"] = answer
    set_ = [k for k in ("error", "rawContent", "content") if res.get(k) is not None]
    if len(set_) > 1:
        raise VendorDataError(VENDOR, where, f"more than one result set: {', '.join(set_)}")
    metadata: dict[str, Any] = {}
    content: Content
    if "error" in set_:
        err = FIELDS.obj(res["error"], f"{where}.error")
        message = FIELDS.opt_text(err.get("message"), f"{where}.error.message")
        retryable = FIELDS.opt_bool(err.get("retryable"), f"{where}.error.retryable")
        record: dict[str, Any] = {}
        if message is not None:
            record["message"] = message
        if retryable is not None:
            record["retryable"] = retryable
        meta["error"] = record
        content = message or ""
        metadata[RESULT_ERROR_KEY] = message or ""
    elif "rawContent" in set_:
        text = FIELDS.text(res["rawContent"], f"{where}.rawContent")
        data = b64_bytes(text, f"{where}.rawContent")
        mime = sniff_mime(data) or "application/octet-stream"
        part = media_part(
            DataSource(value=b64_text(data), mime_type=mime),
            metadata={META_KEY: {"rawContent": True}},
        )
        content = [part]
    elif "content" in set_:
        value = FIELDS.text(res["content"], f"{where}.content")
        content = value
    else:
        meta["resultUnset"] = True
        content = ""
    metadata[META_KEY] = meta
    return ResultIn(content, metadata, stamp)


# --------------------------------------------------------------------------- encode


def _df(metadata: Any) -> dict[str, Any] | None:
    if isinstance(metadata, dict):
        value = metadata.get(META_KEY)
        if isinstance(value, dict):
            return value
    return None


def _other_keys_loss(metadata: Any, allowed: set[str], what: str, tool_call_id: str) -> list[Loss]:
    if not isinstance(metadata, dict):
        return []
    extra = [k for k in metadata if k not in allowed]
    if not extra:
        return []
    return [
        Loss(
            kind="metadata-dropped",
            target=TARGET,
            reason=f"{what} metadata keys {', '.join(map(repr, extra))} have no Dialogflow field",
            tool_call_id=tool_call_id,
        )
    ]


def encode_call(
    call_id: str,
    name: str,
    arguments: str,
    metadata: Any,
    *,
    state: str | None = None,
    losses: list[Loss],
) -> dict[str, Any]:
    """An AG-UI tool call -> ``ToolCall`` JSON.

    Fields kept under ``metadata["dialogflow"]`` are restored. ``answerRecord``
    is Dialogflow's only per-call identity, so a call that did not come from
    Dialogflow carries its AG-UI id there (it round-trips, and a
    ``SuggestionInput`` can address it); a call whose id toolwire minted gets
    none. Arguments must be a JSON object (``Struct``): anything else is a loss.
    """
    df = _df(metadata) or {}
    out: dict[str, Any] = {}
    src = df.get("source")
    if isinstance(src, dict):
        out.update({k: v for k, v in src.items() if k in SOURCE_KEYS})
    for key in ("toolDisplayName", "toolDisplayDetails"):
        if isinstance(df.get(key), str):
            out[key] = df[key]
    if not df.get("noAction"):
        out["action"] = name
    if arguments != "":
        params = from_text(parse_arguments_object(arguments))
        if params is None:
            losses.append(
                Loss(
                    kind="arguments-not-object",
                    target=TARGET,
                    reason="ToolCall.inputParameters is a Struct, which holds only a JSON "
                    "object; the argument text is not one and is left out",
                    tool_call_id=call_id,
                )
            )
        else:
            out["inputParameters"] = params
    if isinstance(df.get("createTime"), str):
        out["createTime"] = df["createTime"]
    if isinstance(df.get("answerRecord"), str):
        out["answerRecord"] = df["answerRecord"]
    elif not df.get("idMinted"):
        out["answerRecord"] = call_id
    final_state = state or df.get("state")
    if isinstance(final_state, str):
        out["state"] = final_state
    losses.extend(_other_keys_loss(metadata, {META_KEY}, "tool call", call_id))
    return out


def encode_result(
    content: Content,
    error: str | None,
    metadata: Any,
    *,
    call_id: str,
    call_name: str | None,
    accepts: Accepts,
    losses: list[Loss],
) -> dict[str, Any]:
    """An AG-UI tool result -> ``ToolCallResult`` JSON.

    The ``result`` oneof holds one of: an error, one string, one blob. So an
    error wins over content (content other than the error text is a loss); text
    parts are joined (a loss of the part boundaries when there are several) and
    media next to text is dropped; with no text, the first data part becomes
    ``rawContent`` and the rest is dropped. Parts the target cannot take at all
    (URL and file sources) are dropped by ``fit_content``.
    """
    df = _df(metadata)
    out: dict[str, Any] = {}
    if df is not None:
        src = df.get("source")
        if isinstance(src, dict):
            out.update({k: v for k, v in src.items() if k in SOURCE_KEYS})
        if isinstance(df.get("action"), str):
            out["action"] = df["action"]
    elif call_name is not None:
        out["action"] = call_name
    if df is not None:
        for key in ("createTime", "answerRecord"):
            if isinstance(df.get(key), str):
                out[key] = df[key]
    losses.extend(_other_keys_loss(metadata, {META_KEY, RESULT_ERROR_KEY}, "tool result", call_id))
    if error is not None:
        record: dict[str, Any] = {"message": error}
        known = df.get("error") if df is not None else None
        if isinstance(known, dict):
            if "message" not in known and error == "":
                record = {}
            if isinstance(known.get("retryable"), bool):
                record["retryable"] = known["retryable"]
        out["error"] = record
        _error_content_losses(content, error, call_id, losses)
        return out
    fitted = fit_content(content, accepts, tool_call_id=call_id)
    losses.extend(fitted.losses)
    if isinstance(fitted.content, str) or isinstance(content, str):
        text = fitted.content if isinstance(fitted.content, str) else ""
        if not (text == "" and df is not None and df.get("resultUnset")):
            out["content"] = text
        return out
    gone = {loss.part_index for loss in fitted.losses}
    kept = [(i, p) for i, p in enumerate(content) if i not in gone]  # original positions
    texts = [p for _, p in kept if isinstance(p, TextPart)]
    media = [(i, p) for i, p in kept if not isinstance(p, TextPart)]
    if texts:
        out["content"] = "".join(p.text for p in texts)
        if len(texts) > 1:
            losses.append(
                Loss(
                    kind="text-parts-joined",
                    target=TARGET,
                    reason=f"ToolCallResult.content is one string; {len(texts)} text parts "
                    "were joined and their boundaries are lost",
                    tool_call_id=call_id,
                )
            )
        for index, part in media:
            losses.append(
                part_loss(
                    part,
                    index,
                    TARGET,
                    "the result keeps its text, and "
                    "Dialogflow's result holds one string or one blob, not both",
                    call_id,
                )
            )
        return out
    at, first = media[0]
    source = getattr(first, "source", None)
    if not isinstance(source, DataSource):  # only with a caller's own, wider capabilities
        reason = "only a data source can become rawContent"
        losses.append(part_loss(first, at, TARGET, reason, call_id))
        out["content"] = ""
        return out
    data = b64_bytes(source.value, f"tool result {call_id!r}: part data")
    out["rawContent"] = b64_text(data)
    sniffed = sniff_mime(data)
    if source.mime_type != (sniffed or "application/octet-stream"):
        losses.append(
            Loss(
                kind="mime-type-dropped",
                target=TARGET,
                reason=f"rawContent carries bytes only; the MIME type {source.mime_type!r} "
                f"is not recoverable from them (read back as "
                f"{sniffed or 'application/octet-stream'!r})",
                tool_call_id=call_id,
            )
        )
    extra = _part_extra_metadata(first)
    if extra:
        losses.append(
            Loss(
                kind="metadata-dropped",
                target=TARGET,
                reason=f"part metadata keys {', '.join(map(repr, extra))} have no Dialogflow field",
                tool_call_id=call_id,
            )
        )
    for index, part in media[1:]:
        reason = "Dialogflow's result holds one blob"
        losses.append(part_loss(part, index, TARGET, reason, call_id))
    return out


def _part_extra_metadata(part: ContentPart) -> list[str]:
    meta = getattr(part, "metadata", None)
    if not isinstance(meta, dict):
        return []
    return [k for k in meta if k != META_KEY]


def _error_content_losses(content: Content, error: str, call_id: str, losses: list[Loss]) -> None:
    if isinstance(content, str):
        if content not in ("", error):
            losses.append(
                Loss(
                    kind="content-dropped",
                    target=TARGET,
                    reason="ToolCallResult's result is one of error/content/rawContent; the "
                    "error is kept and the partial content is lost",
                    tool_call_id=call_id,
                )
            )
        return
    for index, part in enumerate(content):
        if isinstance(part, TextPart) and part.text in ("", error):
            continue
        losses.append(
            part_loss(
                part,
                index,
                TARGET,
                "ToolCallResult's result is one of error/content/rawContent, and the error is kept",
                call_id,
            )
        )


__all__ = [
    "TARGET",
    "CallIn",
    "ResultIn",
    "encode_call",
    "encode_result",
    "read_call",
    "read_result",
    "synthesized_call",
]

"""What the chat-shaped request encoders share.

Several vendors lay a conversation out alike: a list of role-tagged messages, each assistant
turn followed at once by one ``role:"tool"`` message per call in call order, and the media a
tool message cannot hold moved (``media="relocate"``) into a user message right after them.
Only the shape of each message differs. The set-up of an ``encode_request``
(:func:`chat_history`), the walk over the paired history (:func:`chat_messages`, fed one
:class:`ChatForms` per vendor), the answering of one turn's calls (:func:`answer_calls`), the
``function`` tool and call shapes, and the ``RunAgentInput`` of a decoded body live here once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypedDict, TypeVar

from ag_ui.core import (
    PROTOCOL_VERSION,
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

from toolwire.capabilities import Place, accepts
from toolwire.losses import Loss, announce
from toolwire.protocol.arguments import dumps_compact
from toolwire.protocol.callids import IdMapper, IdRule
from toolwire.protocol.fields import Fields
from toolwire.protocol.fitting import DEFAULT_MEDIA_LABEL, Accepts, fit_content, labelled
from toolwire.protocol.ids import mint_id
from toolwire.protocol.inputs import as_run_input
from toolwire.protocol.pairing import Turn, pair_history, settle_unanswered
from toolwire.protocol.surface import MEDIA_CHOICES, Encoded, check_choice, encode_surface

#: a result's content once fitted: a string, or the parts its place keeps
Fitted = str | list[ContentPart]
#: a vendor's message shape (its ``TypedDict`` in ``wire.py``)
M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)


class FunctionDefinition(TypedDict, total=False):
    name: str
    description: str
    parameters: dict[str, Any]


class FunctionTool(TypedDict, total=False):
    """A tool definition as the chat-shaped APIs take it: ``{"type": "function", "function"}``."""

    type: str
    function: FunctionDefinition


@dataclass(slots=True)
class ChatHistory:
    """What an ``encode_request`` works from: the paired history, the rules of the two places
    a part can go, the call-id mapping and the list every loss goes to."""

    run: RunAgentInput
    turns: list[Turn]
    vendor: str
    in_tool: Accepts
    in_user: Accepts
    #: where a tool result's media goes when its message cannot hold it (``media="relocate"``)
    relocate: Accepts | None
    ids: IdMapper
    lost: list[Loss] = field(default_factory=list)

    def loss(self, kind: str, reason: str, tool_call_id: str | None = None) -> None:
        self.lost.append(
            Loss(kind=kind, target=self.vendor, reason=reason, tool_call_id=tool_call_id)
        )


def chat_history(
    run_input: RunAgentInput | dict[str, Any],
    *,
    vendor: str,
    model: str,
    media: str,
    call_id_rule: IdRule,
    losses: list[Loss] | None,
    tool_result: Accepts | None,
    user_message: Accepts | None,
    unanswered: str,
    unanswered_text: str | None,
    relocated_upgrade: str | None = None,
) -> ChatHistory:
    """Check the options, read the input, pair every call with its result (settling the
    unanswered ones by ``unanswered``) and look up the capability rows for ``model``.

    With ``media="relocate"`` the tool-result rule's drop hint becomes ``relocated_upgrade``
    (relocation was already asked for: the hint no longer suggests it); a rule the caller
    gave is kept as given.
    """
    check_choice(media, MEDIA_CHOICES, option="media", where=f"{vendor}.encode_request")
    run = as_run_input(run_input, vendor)
    in_tool = tool_result or place_rules(
        vendor, "tool_result", model, None, relocated_upgrade if media == "relocate" else ""
    )
    in_user = user_message or place_rules(vendor, "user_message", model)
    paired = pair_history(run.messages, target=vendor, allow_unanswered=True)
    settle_unanswered(paired, target=vendor, policy=unanswered, text=unanswered_text)
    lost: list[Loss] = [] if losses is None else losses  # the caller's list, when given
    lost += paired.losses
    return ChatHistory(
        run=run,
        turns=paired.turns,
        vendor=vendor,
        in_tool=in_tool,
        in_user=in_user,
        relocate=in_user if media == "relocate" else None,
        # (the pairing's own set of the history's call ids: nothing else reads it)
        ids=IdMapper(call_id_rule, paired.call_ids),
        lost=lost,
    )


@functools.lru_cache(maxsize=256)
def place_rules(
    target: str,
    place: Place = "tool_result",
    model: str | None = None,
    backend: str | None = None,
    upgrade: str | None = "",
) -> Accepts:
    """``capabilities.accepts(target, place=, model=, backend=)``, made once for each: a
    request encoder asks for the same two on every call, and building one reads the
    table's families (a tenth of a millisecond) and starts with no answers remembered.
    ``upgrade`` other than ``""`` replaces the rows' drop hint (``None``: none)."""
    rules = accepts(target, place=place, model=model, backend=backend)
    return rules if upgrade == "" else replace(rules, upgrade=upgrade)


def answer_calls(
    h: ChatHistory,
    m: AssistantMessage,
    results: list[ToolMessage | None],
    tool_message: Callable[[ToolMessage, ToolCall, Fitted], M],
    *,
    media_label: str | None,
) -> tuple[list[M], list[ContentPart]]:
    """One tool message per call of ``m``, in call order, each result fitted to the tool
    place first; and, with relocation, the media they could not hold, each call's run led
    by a ``media_label`` text naming the call."""
    answers: list[M] = []
    moved: list[ContentPart] = []
    in_tool, relocate, lost = h.in_tool, h.relocate, h.lost
    for call, result in zip(m.tool_calls or (), results, strict=True):
        assert result is not None  # settle_unanswered answered or removed every open call
        content = result.content
        if isinstance(content, str):  # a string result fits every place: nothing to fit
            answers.append(tool_message(result, call, content))
            continue
        fitted = fit_content(content, in_tool, tool_call_id=result.tool_call_id, relocate=relocate)
        if fitted.losses:
            lost += fitted.losses
        answers.append(tool_message(result, call, fitted.content))
        if fitted.relocated:
            moved += labelled(
                fitted.relocated,
                media_label,
                tool_call_id=h.ids(result.tool_call_id),
                tool_name=call.function.name,
                target=h.vendor,
            )
    return answers, moved


class ChatForms(Protocol[M_co]):
    """How one chat-shaped vendor writes each message (the walk is :func:`chat_messages`)."""

    #: the vendor's name in prose (``"a developer message has no {label} form"``)
    label: str
    #: why the run's context is lost, and where to put it instead (no chat API has a field)
    context_hint: str

    def reasoning(self, m: ReasoningMessage) -> str | None:
        """Take a reasoning message's opaque value: the signature to carry on the next
        assistant message, or None (after recording a loss for what it cannot carry)."""

    def assistant(self, m: AssistantMessage, thinking: list[str], signatures: list[str]) -> M_co:
        """The assistant message, with the reasoning texts and signatures before it."""

    def tool(self, result: ToolMessage, call: ToolCall, content: Fitted) -> M_co:
        """The tool message answering ``call``, its content fitted to the tool place."""

    def user(self, content: Fitted) -> M_co:
        """A user message of ``content`` (fitted to the user place when it has parts)."""

    def system(self, text: str) -> M_co:
        """A system (or developer) message."""

    def moved(self, parts: list[ContentPart]) -> M_co | None:
        """The user message carrying relocated media, or None when nothing of it is left."""


class BaseForms:
    """What most chat-shaped vendors' forms share: the history they write for, a ``system``
    message as ``{"role": "system", "content"}``, and a user message (or the one carrying
    relocated media) as text or as the vendor's content parts (:meth:`parts`, the one
    thing such a vendor writes itself). Returns are the vendor's ``TypedDict``, hence ``Any``
    here."""

    def __init__(self, h: ChatHistory) -> None:
        self.h = h

    def parts(self, parts: list[ContentPart]) -> list[Any]:
        """The vendor's content parts for ``parts`` (a loss in ``h.lost`` for each it cannot
        write)."""
        raise NotImplementedError

    def system(self, text: str) -> Any:
        return {"role": "system", "content": text}

    def user(self, content: Fitted) -> Any:
        return {
            "role": "user",
            "content": content if isinstance(content, str) else self.parts(content),
        }

    def moved(self, parts: list[ContentPart]) -> Any:
        items = self.parts(parts)
        return {"role": "user", "content": items} if items else None


#: the class each role's message has
_ROLE_CLASS: dict[str, type[Message]] = {
    "assistant": AssistantMessage,
    "reasoning": ReasoningMessage,
    "user": UserMessage,
    "system": SystemMessage,
    "developer": DeveloperMessage,
}


def _role_of_class(m: Message) -> str:
    """The role :func:`chat_messages` takes ``m`` for, by its class ("" for none of them)."""
    for role, cls in _ROLE_CLASS.items():
        if isinstance(m, cls):
            return role
    return ""


def chat_messages(h: ChatHistory, forms: ChatForms[M], *, media_label: str | None) -> list[M]:
    """The ``messages`` of a chat-shaped request: reasoning held for the assistant message
    after it (lost, with a warning, when none follows), every call answered right after its
    assistant message, system and developer messages as ``system``."""
    messages: list[M] = []
    thinking: list[str] = []
    signatures: list[str] = []
    unfollowed = "no assistant message follows the reasoning"
    add = messages.append
    assistant, tool, user, in_user = forms.assistant, forms.tool, forms.user, h.in_user
    role_class = _ROLE_CLASS.get
    for turn in h.turns:
        m = turn.message
        # the role first, the isinstance behind it: a failed isinstance on a pydantic class
        # costs more than a string test; a message whose class is not its role's (a
        # subclass, a role set by hand) is taken by its class, as an isinstance chain would
        role: str = m.role
        if type(m) is not role_class(role):
            role = _role_of_class(m)
        if role == "assistant" and isinstance(m, AssistantMessage):
            add(assistant(m, thinking, signatures))
            if thinking or signatures:
                thinking, signatures = [], []
            if turn.results:
                answers, moved = answer_calls(h, m, turn.results, tool, media_label=media_label)
                messages += answers
                if moved and (carrier := forms.moved(moved)) is not None:
                    add(carrier)
            continue
        if role == "reasoning" and isinstance(m, ReasoningMessage):
            if m.content:
                thinking.append(m.content)
            signature = forms.reasoning(m)
            if signature:
                signatures.append(signature)
            continue
        if thinking or signatures:
            h.loss("reasoning-dropped", unfollowed)
            thinking, signatures = [], []
        if role == "user" and isinstance(m, UserMessage):
            content: Fitted = m.content
            if not isinstance(content, str):
                fitted = fit_content(content, in_user)
                if fitted.losses:
                    h.lost += fitted.losses
                content = fitted.content
            add(user(content))
        elif (role == "system" or role == "developer") and isinstance(
            m, (SystemMessage, DeveloperMessage)
        ):
            add(forms.system(m.content))
        else:
            h.loss("message-dropped", f"a {m.role} message has no {forms.label} form")
    if thinking or signatures:
        h.loss("reasoning-dropped", unfollowed)
    return messages


def chat_body(
    h: ChatHistory,
    forms: ChatForms[M],
    *,
    model: str,
    media_label: str | None,
    vendor_options: dict[str, Any],
) -> dict[str, Any]:
    """A whole chat-shaped body: ``model``, the :func:`chat_messages`, the tools as
    ``function`` definitions and the caller's options; the run's context is lost with the
    vendor's hint, and the call-id mapping reported."""
    body: dict[str, Any] = {
        "model": model,
        "messages": chat_messages(h, forms, media_label=media_label),
    }
    if h.run.tools:
        body["tools"] = [function_tool(t) for t in h.run.tools]
    if h.run.context:
        h.loss("context-dropped", forms.context_hint)
    body.update(vendor_options)
    h.lost += h.ids.losses
    return body


def chat_encode_request(
    vendor: str,
    call_id_rule: IdRule,
    forms: Callable[[ChatHistory], ChatForms[Any]],
    *,
    doc: str,
    module: str,
) -> Callable[..., Encoded]:
    """A chat-shaped vendor's ``encode_request``: the options every adapter takes (``media``,
    ``tool_result`` / ``user_message`` overrides, ``unanswered``, ``media_label``, the
    vendor's own options passed on), the set-up, the walk fed the vendor's ``forms`` and the
    body, behind the two decorators every ``encode_request`` wears. ``doc`` and ``module``
    make it the adapter's own (``help()``, the docs, the contract test read them)."""

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
        h = chat_history(
            run_input,
            vendor=vendor,
            model=model,
            media=media,
            call_id_rule=call_id_rule,
            losses=losses,
            tool_result=tool_result,
            user_message=user_message,
            unanswered=unanswered,
            unanswered_text=unanswered_text,
        )
        return chat_body(
            h, forms(h), model=model, media_label=media_label, vendor_options=vendor_options
        )

    encode_request.__doc__ = doc
    encode_request.__module__ = module
    encode_request.__qualname__ = "encode_request"
    return encode_surface(vendor)(encode_request)


def with_error_note(text: str, error: str | None) -> str:
    """A tool result's text with its error after it (for APIs with no error flag)."""
    if not error:
        return text
    note = f"Error: {error}"
    return f"{text}\n\n{note}" if text else note


def function_call(c: ToolCall, call_id: str) -> Any:
    """A ``{"type": "function"}`` call; empty argument text becomes ``"{}"`` (the APIs want
    a JSON object there). Typed ``Any``: it is each vendor's own call ``TypedDict``."""
    args = c.function.arguments
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": c.function.name, "arguments": args if args.strip() else "{}"},
    }


def function_tool(t: Tool) -> FunctionTool:
    """A ``{"type": "function"}`` tool definition; no parameters is an empty object schema."""
    fn: FunctionDefinition = {"name": t.name}
    if t.description:
        fn["description"] = t.description
    fn["parameters"] = t.parameters if t.parameters is not None else {"type": "object"}
    return {"type": "function", "function": fn}


def tool_of_function(t: Any, fields: Fields, where: str) -> Tool:
    """An AG-UI tool from a ``{"type": "function", "function": {...}}`` definition."""
    t = fields.obj(t, where)
    fn = fields.at(t, "function", dict, where)
    name = fields.at(fn, "name", str, f"{where}.function")
    desc = fn.get("description")
    kw: dict[str, Any] = {}
    if fn.get("parameters") is not None:
        kw["parameters"] = fn["parameters"]
    return Tool(name=name, description=desc if isinstance(desc, str) else "", **kw)


def arguments_text(args: Any, fields: Fields, where: str) -> str:
    """A call's arguments as text, whether the request holds them as text or as an object
    (the object's compact JSON); none is ``""``."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    if isinstance(args, dict):
        return dumps_compact(args, fields.vendor, where)
    raise fields.wrong(args, (str, dict), where)


def chat_run_input(
    req: dict[str, Any],
    raw_messages: list[Any],
    messages: list[Message],
    lost: list[Loss],
    *,
    fields: Fields,
    thread_id: str | None,
    run_id: str | None,
    tool: Callable[[Any, str], Tool] | None = None,
) -> RunAgentInput:
    """The ``RunAgentInput`` of a decoded chat-shaped request body: its ``tools`` (each read
    by ``tool``, by default a ``function`` definition), every other option as
    ``forwardedProps``, and ids minted from the messages where none is given. What the
    messages lost is announced first."""
    announce(lost)
    vendor = fields.vendor
    read = tool or (lambda t, where: tool_of_function(t, fields, where))
    kw: dict[str, Any] = {}
    if req.get("tools") is not None:
        raw_tools = fields.list_at(req, "tools", "request")
        kw["tools"] = [read(t, f"request.tools[{i}]") for i, t in enumerate(raw_tools)]
    rest = {k: v for k, v in req.items() if k not in ("messages", "tools")}
    if rest:
        kw["forwarded_props"] = rest
    first = dumps_compact(raw_messages[:1], vendor, "request.messages[0]")
    return RunAgentInput(
        thread_id=thread_id or mint_id("thread", vendor, first),
        run_id=run_id
        or mint_id("run", vendor, dumps_compact(raw_messages, vendor, "request.messages")),
        protocol_version=PROTOCOL_VERSION,
        messages=messages,
        **kw,
    )


def call_of_function(c: Any, fields: Fields, where: str) -> ToolCall:
    """An AG-UI call from a ``{"id", "function": {"name", "arguments"}}`` call of a request
    (its id required)."""
    c = fields.obj(c, where)
    cid = fields.at(c, "id", str, where)
    if not cid:
        raise fields.missing(f"{where}.id")
    fn = fields.at(c, "function", dict, where)
    name = fields.at(fn, "name", str, f"{where}.function")
    args = arguments_text(fn.get("arguments"), fields, f"{where}.function.arguments")
    return ToolCall(id=cid, function=FunctionCall(name=name, arguments=args))


__all__ = [
    "BaseForms",
    "ChatForms",
    "ChatHistory",
    "Fitted",
    "FunctionDefinition",
    "FunctionTool",
    "answer_calls",
    "arguments_text",
    "call_of_function",
    "chat_body",
    "chat_encode_request",
    "chat_history",
    "chat_messages",
    "chat_run_input",
    "function_call",
    "function_tool",
    "place_rules",
    "tool_of_function",
    "with_error_note",
]

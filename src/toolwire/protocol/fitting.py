"""Fitting tool-result content to what a target accepts, part by part.

The ladder (DESIGN.md): keep what the target takes natively; optionally move
what it takes only in a user message (``relocate``); otherwise drop the part
and record a :class:`~toolwire.losses.Loss`. A result left with nothing is the
empty string: a call is always answered, and nothing is ever put in a dropped
part's place.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from ag_ui.core import (
    AudioPart,
    ContentPart,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    VideoPart,
)

from toolwire.errors import UnsupportedInput
from toolwire.losses import Loss
from toolwire.protocol.parts import Content, mime_type, source_kind, text_part


@dataclass(frozen=True)
class PartRule:
    """One kind of part a target takes: its MIME patterns and source kinds.

    ``mime_types`` are shell-style patterns (``image/*``); ``allow_unknown_mime``
    says whether a URL or file source without a MIME type is let through (the
    vendor sniffs it); ``url_schemes``, when not empty, the only URL schemes a URL
    source may have (a vendor that fetches only from its own storage: ``s3``).
    """

    kind: str
    mime_types: tuple[str, ...] = ("*",)
    sources: tuple[str, ...] = ("data", "url", "file")
    allow_unknown_mime: bool = True
    url_schemes: tuple[str, ...] = ()

    def takes_url(self, scheme: str | None) -> bool:
        return not self.url_schemes or scheme in self.url_schemes

    def takes_mime(self, mime: str | None) -> bool:
        if mime is None:
            return self.allow_unknown_mime
        return _matches(self.mime_types, mime)


@functools.lru_cache(maxsize=1024)  # a history repeats a few MIME types; bounded all the same
def _matches(patterns: tuple[str, ...], mime: str) -> bool:
    low = mime.lower().split(";", 1)[0].strip()
    return any(fnmatchcase(low, pat) for pat in patterns)


#: a part with a source: every kind but text
MediaPart = ImagePart | AudioPart | VideoPart | DocumentPart

#: the most answers one ``Accepts`` keeps (each a distinct kind, source, provider, MIME type)
_ANSWERS_KEPT = 256


@dataclass(frozen=True)
class Accepts:
    """What one target takes in one place (a tool result or a user message).

    ``file_providers`` names whose file handles the target can resolve: a
    ``FileSource`` is usable only by the provider that issued it.
    """

    target: str
    rules: tuple[PartRule, ...] = ()
    text: bool = True
    file_providers: tuple[str, ...] = ()
    upgrade: str | None = None
    #: the answer for each (kind, source type, file provider, MIME type) met so far: a
    #: history asks about the same few again and again
    _answers: dict[tuple[str, str, str | None, str | None], str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def why_not(self, part: ContentPart) -> str | None:
        """``None`` when the part is taken, else the reason it is not."""
        # (the type tags, not isinstance: a failed isinstance on a pydantic class is slow)
        if part.type == "text":
            return None if self.text else "the target takes no text here"
        source = part.source
        # a file handle's issuer, a URL's scheme: what else besides kind and MIME type decides
        qualifier = source.provider if source.type == "file" else None
        if source.type == "url":
            qualifier = _scheme(source.value)
        key = (part.type, source.type, qualifier, source.mime_type)
        answers = self._answers
        if key in answers:
            return answers[key]
        reason = self._why_not(part)
        if len(answers) < _ANSWERS_KEPT:
            answers[key] = reason
        return reason

    def _why_not(self, part: MediaPart) -> str | None:
        kind = part.type
        rules = [r for r in self.rules if r.kind == kind]
        if not rules:
            return f"{self.target} takes no {kind} parts here"
        src = part.source.type
        if isinstance(part.source, FileSource):
            provider = part.source.provider
            if provider is None or provider not in self.file_providers:
                issued = f"issued by {provider!r}" if provider else "of an unnamed provider"
                return f"a file handle {issued} is usable only by that provider"
        mime = part.source.mime_type
        if not any(src in r.sources for r in rules):
            return f"{self.target} takes {kind} parts only from {_sources(rules)} sources"
        if src == "url":
            scheme = _scheme(part.source.value)
            rules = [r for r in rules if src not in r.sources or r.takes_url(scheme)]
            if not any(src in r.sources for r in rules):
                schemes = _schemes(self.rules, kind)
                return f"{self.target} takes {kind} URLs only of the schemes {schemes}"
        if not any(src in r.sources and r.takes_mime(mime) for r in rules):
            if mime is None:
                return f"{self.target} needs a MIME type for {kind} parts from {src} sources"
            return f"{self.target} does not take {mime} {kind} parts"
        return None


def _scheme(url: str) -> str | None:
    head, colon, _ = url.partition(":")
    return head.lower() if colon and head.isascii() and head.isalnum() else None


def _schemes(rules: Sequence[PartRule], kind: str) -> str:
    names = dict.fromkeys(f"{s}://" for r in rules if r.kind == kind for s in r.url_schemes)
    return "/".join(names)


def _sources(rules: Sequence[PartRule]) -> str:
    kinds: list[str] = []
    for r in rules:
        kinds.extend(s for s in r.sources if s not in kinds)
    return "/".join(kinds)


@dataclass(slots=True)
class Fitted:
    """The result of fitting: what stays in place, what moves, what was lost."""

    content: Content
    relocated: list[ContentPart] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)


def fit_content(
    content: Content,
    accepts: Accepts,
    *,
    tool_call_id: str | None = None,
    relocate: Accepts | None = None,
) -> Fitted:
    """Fit ``content`` to ``accepts``; with ``relocate``, move what only that place takes.

    Never raises for a part the target cannot take, and always answers: when
    every part is dropped (or moved) the content left in place is ``""``.
    """
    if isinstance(content, str):
        return Fitted(content)
    kept: list[ContentPart] = []
    moved: list[ContentPart] = []
    losses: list[Loss] = []
    why_not = accepts.why_not
    takes_text = accepts.text
    for index, part in enumerate(content):
        # (a text part is taken where text is: ``why_not``'s first answer, without its call)
        if takes_text and part.type == "text":
            kept.append(part)
            continue
        reason = why_not(part)
        if reason is None:
            kept.append(part)
            continue
        if relocate is not None and part.type != "text":
            second = relocate.why_not(part)
            if second is None:
                moved.append(part)
                continue
            reason = f"{reason}; not in a user message either: {second}"
        losses.append(part_loss(part, index, accepts.target, reason, tool_call_id, accepts.upgrade))
    return Fitted(kept if kept else "", moved, losses)


def part_loss(
    part: ContentPart,
    index: int,
    target: str,
    reason: str,
    tool_call_id: str | None,
    upgrade: str | None = None,
) -> Loss:
    """The record of one dropped part."""
    return Loss(
        kind="part-dropped",
        target=target,
        reason=reason,
        tool_call_id=tool_call_id,
        part_index=index,
        part_kind=part.type,
        mime_type=mime_type(part) if not isinstance(part, TextPart) else "text/plain",
        source_kind=source_kind(part),
        upgrade=upgrade,
    )


def flatten(
    content: Content,
    *,
    target: str = "a string-only peer",
    tool_call_id: str | None = None,
    upgrade: str = "upgrade the peer to AG-UI 1.0 content parts",
) -> tuple[str, list[Loss]]:
    """Text parts concatenated in order (no separator); a loss for every other part
    (``upgrade`` says how the caller keeps them)."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    losses: list[Loss] = []
    for index, part in enumerate(content):
        if isinstance(part, TextPart):
            texts.append(part.text)
        else:
            losses.append(
                part_loss(
                    part,
                    index,
                    target,
                    "the peer holds only a string, so only text parts survive",
                    tool_call_id,
                    upgrade,
                )
            )
    return "".join(texts), losses


#: The text put before each call's relocated media (``media_label=`` of ``encode_request``):
#: media moved out of two results into one user message must say which call it came
#: from, or the model cannot tell them apart. ``{tool_call_id}`` is the id the target
#: is sent, ``{tool_name}`` the call's function name.
DEFAULT_MEDIA_LABEL = "Media from the result of tool call {tool_call_id} ({tool_name}):"


def media_label(
    template: str | None, *, tool_call_id: str, tool_name: str, target: str
) -> TextPart | None:
    """The label part before one call's relocated media (None: no label asked for).

    The label is context for the model, not a stand-in for anything dropped.
    """
    if template is None:
        return None
    try:
        text = template.format(tool_call_id=tool_call_id, tool_name=tool_name)
    except (KeyError, IndexError, ValueError) as exc:
        raise UnsupportedInput(
            f"{target}: media_label {template!r} is not a template of {{tool_call_id}} and "
            f"{{tool_name}}: {exc!r}"
        ) from None
    if not text:
        return None
    # (a plain str cannot fail validation; anything else a template's format gave is checked)
    return text_part(text) if type(text) is str else TextPart(text=text)


def labelled(
    relocated: Sequence[ContentPart],
    template: str | None,
    *,
    tool_call_id: str,
    tool_name: str,
    target: str,
) -> list[ContentPart]:
    """One call's relocated parts, after their label (nothing when nothing moved)."""
    if not relocated:
        return []
    label = media_label(template, tool_call_id=tool_call_id, tool_name=tool_name, target=target)
    return [label, *relocated] if label is not None else list(relocated)


__all__ = [
    "DEFAULT_MEDIA_LABEL",
    "Accepts",
    "Fitted",
    "PartRule",
    "fit_content",
    "flatten",
    "labelled",
    "media_label",
    "part_loss",
]

"""Fitting tool-result parts to a target, and flattening for string-only peers."""

from __future__ import annotations

import warnings
from typing import Any

from ag_ui.core import (
    AudioPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
    VideoPart,
)
from hypothesis import given
from hypothesis import strategies as st

from toolwire import PartsDroppedWarning
from toolwire.capabilities import accepts
from toolwire.losses import announce
from toolwire.protocol.fitting import Accepts, PartRule, fit_content, flatten

PNG = ImagePart(source=DataSource(value="iVBORw0KGgo=", mime_type="image/png"))
PDF = DocumentPart(source=DataSource(value="JVBERi0=", mime_type="application/pdf"))
WAV = AudioPart(source=DataSource(value="UklGRg==", mime_type="audio/wav"))
MP4 = VideoPart(source=UrlSource(value="https://example.com/v.mp4", mime_type="video/mp4"))
TEXT_ONLY = Accepts(target="text-only peer")


def test_fitting_an_all_media_result_for_a_text_only_target_gives_empty_string() -> None:
    fitted = fit_content([PNG, PDF, WAV, MP4], TEXT_ONLY, tool_call_id="c1")
    assert fitted.content == ""
    assert len(fitted.losses) == 4
    assert [loss.part_kind for loss in fitted.losses] == ["image", "document", "audio", "video"]
    assert [loss.part_index for loss in fitted.losses] == [0, 1, 2, 3]
    assert all(loss.tool_call_id == "c1" for loss in fitted.losses)


def test_native_parts_stay_in_order_and_text_is_kept() -> None:
    target = accepts("anthropic")
    parts = [TextPart(text="a"), PNG, WAV, TextPart(text="b"), PDF]
    fitted = fit_content(parts, target, tool_call_id="c1")
    assert fitted.content == [parts[0], PNG, parts[3], PDF]
    assert [(x.part_kind, x.mime_type, x.source_kind) for x in fitted.losses] == [
        ("audio", "audio/wav", "data")
    ]


def test_a_file_source_is_usable_only_by_the_provider_that_issued_it() -> None:
    mine = ImagePart(
        source=FileSource(value="file_011C", provider="anthropic", mime_type="image/png")
    )
    theirs = ImagePart(
        source=FileSource(value="file-abc", provider="openai", mime_type="image/png")
    )
    fitted = fit_content([mine, theirs], accepts("anthropic"), tool_call_id="c1")
    assert fitted.content == [mine]
    assert len(fitted.losses) == 1
    assert "openai" in fitted.losses[0].reason


def test_relocate_moves_what_only_a_user_message_takes() -> None:
    fitted = fit_content(
        [TextPart(text="see image"), PNG, WAV],
        accepts("openai_chat", model="gpt-4o"),
        tool_call_id="c1",
        relocate=accepts("openai_chat", model="gpt-4o", place="user_message"),
    )
    assert fitted.content == [TextPart(text="see image")]
    assert fitted.relocated == [PNG]
    assert [x.part_kind for x in fitted.losses] == ["audio"]


def test_a_string_result_is_untouched() -> None:
    fitted = fit_content("plain", TEXT_ONLY)
    assert fitted.content == "plain" and not fitted.losses


def test_the_warning_names_part_mime_source_call_target_reason_and_upgrade() -> None:
    fitted = fit_content([PNG], accepts("openai_chat", model="gpt-4o"), tool_call_id="call_9")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        announce(fitted.losses)
    assert len(caught) == 1 and caught[0].category is PartsDroppedWarning
    text = str(caught[0].message)
    for needle in ("image", "image/png", "data source", "call_9", "openai_chat", "relocate"):
        assert needle in text, needle


def test_warnings_are_on_by_default_and_silenceable_while_losses_stay_available() -> None:
    fitted = fit_content([PNG], TEXT_ONLY, tool_call_id="c1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", PartsDroppedWarning)
        announce(fitted.losses)
    assert caught == []
    assert len(fitted.losses) == 1


def test_flatten_concatenates_text_parts_in_order_without_separator() -> None:
    text, losses = flatten([TextPart(text="a"), PNG, TextPart(text="b"), TextPart(text="c")])
    assert text == "abc"
    assert [(x.part_kind, x.part_index) for x in losses] == [("image", 1)]


def test_flatten_of_an_image_result_leaves_no_placeholder() -> None:
    text, losses = flatten([PNG], tool_call_id="c1")
    assert text == ""
    assert losses[0].kind == "part-dropped"


def test_mime_patterns_and_unknown_mime_rules() -> None:
    strict = Accepts(
        target="t",
        rules=(PartRule("image", ("image/png",), ("url",), allow_unknown_mime=False),),
    )
    no_mime = ImagePart(source=UrlSource(value="https://x/y"))
    jpg = ImagePart(source=UrlSource(value="https://x/y.jpg", mime_type="image/jpeg"))
    png = ImagePart(source=UrlSource(value="https://x/y.png", mime_type="IMAGE/PNG"))
    fitted = fit_content([no_mime, jpg, png], strict)
    assert fitted.content == [png]
    assert "needs a MIME type" in fitted.losses[0].reason
    assert "image/jpeg" in fitted.losses[1].reason


# --- properties --------------------------------------------------------------

_mimes = st.sampled_from(
    ["image/png", "image/tiff", "application/pdf", "text/plain", "audio/wav", "video/mp4", None]
)


@st.composite
def _parts(draw: Any) -> Any:
    kind = draw(st.sampled_from(["text", "image", "audio", "video", "document"]))
    if kind == "text":
        return TextPart(text=draw(st.text(max_size=5)))
    src_kind = draw(st.sampled_from(["data", "url", "file"]))
    mime = draw(_mimes)
    if src_kind == "data":
        source: Any = DataSource(value="AA==", mime_type=mime or "application/octet-stream")
    elif src_kind == "url":
        source = UrlSource(value="https://x", mime_type=mime)
    else:
        provider = draw(st.sampled_from(["openai", "anthropic", "google", None]))
        source = FileSource(value="f", provider=provider, mime_type=mime)
    cls = {"image": ImagePart, "audio": AudioPart, "video": VideoPart, "document": DocumentPart}
    return cls[kind](source=source)


_targets = st.sampled_from(
    [
        accepts("anthropic"),
        accepts("openai_chat", model="gpt-4o"),
        accepts("openai_responses"),
        accepts("gemini", model="gemini-2.5-flash"),
        accepts("gemini", model="gemini-3-pro-preview"),
        accepts("dialogflow"),
        accepts("asgard"),
        TEXT_ONLY,
    ]
)


@given(st.lists(_parts(), max_size=8), _targets, st.booleans())
def test_fitting_never_raises_and_always_answers(
    parts: list[Any], target: Accepts, rel: bool
) -> None:
    relocate = accepts("gemini", model="gemini-2.5-flash", place="user_message") if rel else None
    fitted = fit_content(parts, target, tool_call_id="c", relocate=relocate)
    kept = 0 if isinstance(fitted.content, str) else len(fitted.content)
    assert kept + len(fitted.relocated) + len(fitted.losses) == len(parts)
    if parts and kept == 0:
        assert fitted.content == ""
    if kept:
        assert isinstance(fitted.content, list) and fitted.content  # never an empty list


@given(st.lists(_parts(), max_size=8))
def test_flatten_keeps_text_order(parts: list[Any]) -> None:
    text, losses = flatten(parts)
    assert text == "".join(p.text for p in parts if isinstance(p, TextPart))
    assert len(losses) == sum(1 for p in parts if not isinstance(p, TextPart))


def test_data_urls_round_trip_and_other_urls_are_not_data() -> None:
    from toolwire.protocol.parts import parse_data_url, to_data_url

    assert parse_data_url(to_data_url("image/png", "iVBO")) == ("image/png", "iVBO")
    assert parse_data_url("data:;base64,AA") == ("application/octet-stream", "AA")
    assert parse_data_url("https://example.com/a.png") is None
    assert parse_data_url("data:text/plain,hello") is None


def test_an_answer_kept_for_a_kind_source_and_mime_is_the_one_asked_again() -> None:
    """``why_not`` keeps each answer per (kind, source, provider, MIME type): asking again,
    with other parts of the same key, answers as a fresh ``Accepts`` does."""
    rules = (PartRule("image", ("image/png",), ("data",)),)
    target = Accepts(target="t", rules=rules)
    other = ImagePart(source=DataSource(value="AAAA", mime_type="image/png"))
    jpeg = ImagePart(source=DataSource(value="AAAA", mime_type="image/jpeg"))
    for _ in range(2):
        assert target.why_not(PNG) is None and target.why_not(other) is None
        assert target.why_not(jpeg) == Accepts(target="t", rules=rules).why_not(jpeg) is not None
        assert target.why_not(MP4) == "t takes no video parts here"
    assert target == Accepts(target="t", rules=rules)  # the answers are not part of its value
    assert hash(target) == hash(Accepts(target="t", rules=rules))


def test_the_answers_kept_are_bounded() -> None:
    target = Accepts(target="t", rules=(PartRule("image"),))
    for n in range(1000):
        part = ImagePart(source=DataSource(value="AAAA", mime_type=f"image/x-{n}"))
        assert target.why_not(part) is None
    assert len(target._answers) <= 256


def test_a_file_handle_is_answered_per_provider() -> None:
    """The provider is part of what an answer is kept under: one provider's handle taken,
    another's refused, in either order."""
    target = Accepts(target="t", rules=(PartRule("image"),), file_providers=("openai",))
    ours = ImagePart(source=FileSource(value="file-1", provider="openai", mime_type="image/png"))
    theirs = ImagePart(source=FileSource(value="f-2", provider="gemini", mime_type="image/png"))
    for _ in range(2):
        assert target.why_not(ours) is None
        assert "usable only by that provider" in (target.why_not(theirs) or "")


def test_a_rule_with_url_schemes_takes_only_those_urls() -> None:
    """A vendor that fetches only from its own storage (``url_schemes``): an s3:// document is
    kept, the same document at an https:// URL is dropped naming the schemes, and the answer
    for one scheme is never reused for the other."""
    rule = PartRule(kind="document", sources=("data", "url"), url_schemes=("s3",))
    place = Accepts(target="storage-bound", rules=(rule,))
    s3 = DocumentPart(source=UrlSource(value="s3://bucket/q3.pdf", mime_type="application/pdf"))
    web = DocumentPart(source=UrlSource(value="https://x.test/q3.pdf", mime_type="application/pdf"))
    fitted = fit_content([s3, web, s3, PDF], place, tool_call_id="c1")
    assert fitted.content == [s3, s3, PDF]
    (lost,) = fitted.losses
    assert lost.part_index == 1 and lost.source_kind == "url"
    assert "s3://" in lost.reason
    anywhere = Accepts(target="any-url", rules=(PartRule(kind="document"),))
    assert fit_content([web], anywhere).content == [web]

"""Class 6 of issue 12: no credential reaches an exception, a loss, a warning or the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fuzz_harness import run_cli

from toolwire.errors import TruncatedStream, UnsupportedInput, VendorDataError, VendorStreamError
from toolwire.losses import Loss
from toolwire.protocol.redact import MASK, redact, redact_headers
from toolwire.recordings import Exchange

SECRET = "AIzaSyD-s3cr3t-k3y-v4lu3-0123456789abcd"


@pytest.mark.parametrize(
    "text",
    [
        f"https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse&key={SECRET}",
        f"https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=1&api-key={SECRET}",
        f"POST /v1/x?api_key={SECRET}&y=1",
        f"Authorization: Bearer {SECRET}",
        f"{{'authorization': ['Bearer {SECRET}'], 'x-api-key': ['{SECRET}']}}",
        f'"x-goog-api-key": "{SECRET}"',
        f"token {SECRET}",  # a bare Google key shape
    ],
)
def test_redact_masks_every_credential_shape(text: str) -> None:
    out = redact(text)
    assert SECRET not in out and MASK in out


def test_redact_keeps_what_says_where() -> None:
    uri = f"https://h/v1beta/models/g:streamGenerateContent?alt=sse&key={SECRET}&x=1"
    assert redact(uri) == f"https://h/v1beta/models/g:streamGenerateContent?alt=sse&key={MASK}&x=1"
    assert redact("keyboard=1 monkey=2") == "keyboard=1 monkey=2"


def test_redact_headers() -> None:
    got = redact_headers({"Authorization": "Bearer x", "x-goog-api-key": "k", "accept": "*/*"})
    assert got == {"Authorization": MASK, "x-goog-api-key": MASK, "accept": "*/*"}


@pytest.mark.parametrize(
    "error",
    [
        lambda: VendorDataError("gemini", f"https://h/m?key={SECRET}", "bad"),
        lambda: VendorDataError("gemini", "chunk 0", f"see https://h/m?key={SECRET}"),
        lambda: TruncatedStream("gemini", f"GET https://h/m?key={SECRET}"),
        lambda: VendorStreamError("openai_chat", "401", f"bad key: Bearer {SECRET}"),
        lambda: UnsupportedInput(f"https://h/m?key={SECRET}: body is not JSON"),
    ],
)
def test_every_toolwire_error_is_redacted(error: object) -> None:
    exc = error()  # type: ignore[operator]
    assert SECRET not in str(exc) and SECRET not in repr(exc)
    for attr in ("where", "reason", "message"):
        assert SECRET not in str(getattr(exc, attr, ""))


def test_a_loss_message_is_redacted() -> None:
    loss = Loss(kind="part-dropped", target="gemini", reason=f"fetched https://h/f?key={SECRET}")
    assert SECRET not in loss.message


def test_a_recorded_uri_with_a_key_does_not_leak_from_response_json() -> None:
    ex = Exchange(response_body=b"not json", uri=f"https://h/m:generateContent?key={SECRET}")
    with pytest.raises(UnsupportedInput) as exc:
        ex.response_json()
    assert SECRET not in str(exc.value) and "generateContent" in str(exc.value)


def test_the_cli_never_prints_the_key_of_a_recorded_uri(tmp_path: Path) -> None:
    cassette = tmp_path / "keyed.yaml"
    cassette.write_text(
        "interactions:\n"
        "- request:\n"
        f"    method: POST\n    uri: https://h/v1beta/models/g:generateContent?key={SECRET}\n"
        "    body: null\n"
        "  response:\n"
        "    status: {code: 200}\n"
        "    headers: {content-type: [application/json]}\n"
        "    body: {string: 'not json'}\n"
    )
    code, out, err = run_cli(["decode", "--from", "gemini", str(cassette)])
    assert (code, out) == (1, "")
    assert SECRET not in err and "generateContent" in err


def test_one_mask_for_known_values_and_shapes_in_text_and_data() -> None:
    # a client's own key has no recognisable shape: the caller names it (the driver does)
    plain = "my-own-proxy-key-42"
    value = {"message": f"401 for {plain}", "meta": [f"Bearer {SECRET}", 3, None]}
    out = redact(value, [plain])
    assert out == {"message": f"401 for {MASK}", "meta": [f"Bearer {MASK}", 3, None]}
    assert MASK == "[REDACTED]"  # the one mask (the driver's "[redacted]" is gone)


def test_known_values_only_leaves_text_that_merely_looks_like_a_credential() -> None:
    # the server masks its keys in every event; a model writing about tokens is left alone
    text = f"use token=abc123 and key {SECRET}, not {'agent-key-9876'}"
    assert redact(text, ["agent-key-9876"], shapes=False) == (
        f"use token=abc123 and key {SECRET}, not {MASK}"
    )


@pytest.mark.parametrize("shapes", [True, False])
@pytest.mark.parametrize(
    "text",
    [
        "no secret here",
        "key sk-live-123 and sk-live-1234 in one",
        "Authorization: Bearer sk-live-1234",
        "",
    ],
)
def test_masker_masks_as_redact_does(text: str, shapes: bool) -> None:
    from toolwire.redaction import masker

    known = ["sk-live-123", "sk-live-1234", ""]
    assert masker(known, shapes=shapes)(text) == redact(text, known, shapes=shapes)

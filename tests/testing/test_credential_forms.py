"""Credentials in every form a recording or a message may hold (issue 35, item 6).

Beyond the usual headers: ``user:pass@`` in a URL, signed-URL and OAuth query parameters
(``sig``, ``X-Goog-Signature``, ``X-Amz-Signature``, ``client_secret``, ``token``...) and
headers whose name says credential (``X-Upstream-Credential``, ``X-Auth``...). Recording
filters each; a form a filter missed refuses the write; a URL printed anywhere has its
password masked.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from toolwire.errors import CassetteMiss
from toolwire.protocol.redact import MASK, is_credential_name, redact, redact_headers
from toolwire.testing.cassettes import CassetteKit
from toolwire.testing.fake_vendor import FakeVendor, Reply
from toolwire.testing.secrets import filtered_uri, find_secrets

PASSWORD = "hunter2-Pa55word-77"
SIGNED = {
    "sig": "c2lnbmF0dXJlLXZhbHVlLTEyMw",
    "X-Goog-Signature": "9f8e7d6c5b4a39281706",
    "X-Amz-Signature": "a1b2c3d4e5f60718293a",
    "X-Amz-Credential": "AKIDEXAMPLE/20260101/us-east-1/s3/aws4_request",
    "X-Amz-Security-Token": "FwoGZXIvYXdzEJr-token-9",
    "client_secret": "oauth-client-secret-42",
    "token": "plain-token-value-99",
    "access_token": "at-1234567890abcdef",
}
HEADERS = {
    "X-Upstream-Credential": "upstream-cred-5566778899",
    "X-Auth": "xauth-value-11223344",
    "X-Auth-Token": "xauthtoken-55667788",
    "X-Service-Secret": "svc-secret-99887766",
}
EVERY_VALUE = [PASSWORD, *SIGNED.values(), *HEADERS.values()]


def _signed_url(base: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in SIGNED.items())
    host = base.removeprefix("http://")
    return f"http://alice:{PASSWORD}@{host}/v1/objects?alt=sse&{query}"


def test_recording_filters_every_credential_form(tmp_path: Path) -> None:
    reply = Reply(
        headers={"x-auth-token": "resp-token-abcdef123", "x-request-id": "req-1"},
        chunks=[b'{"ok": true}'],
    )
    with FakeVendor([reply]) as fv, CassetteKit(tmp_path, record_mode="once")("c.yaml"):
        url = _signed_url(fv.base_url)
        httpx2.post(url, json={"q": 1}, headers=HEADERS)
        sent = fv.requests[0]
    # the live request carried every form (so the filters had something to do)
    assert all(v in sent.path for v in SIGNED.values())
    assert sent.headers["x-upstream-credential"] == HEADERS["X-Upstream-Credential"]
    text = (tmp_path / "c.yaml").read_text("utf-8")
    for value in [*EVERY_VALUE, "resp-token-abcdef123"]:
        assert value not in text, value
    assert "alice" not in text and "alt=sse" in text and "x-request-id" in text
    # and the recording replays for the same live request: filtered parameters never match
    with FakeVendor([]) as fv, CassetteKit(tmp_path, record_mode="none")("c.yaml"):
        assert httpx2.post(_signed_url(fv.base_url), json={"q": 1}).json() == {"ok": True}


def test_a_form_no_filter_removed_refuses_the_write() -> None:
    request = {
        "method": "GET",
        "uri": f"https://bob:{PASSWORD}@files.example/o?X-Goog-Signature=abc123def456",
        "headers": {"X-Upstream-Credential": ["upstream-cred-5566778899"]},
        "body": None,
    }
    found = find_secrets([request], [{"headers": {}, "body": {"string": ""}}])
    assert any("user:password@" in f for f in found)
    assert any("X-Goog-Signature" in f for f in found)
    assert any("x-upstream-credential" in f.lower() for f in found)
    assert not any(PASSWORD in f or "abc123def456" in f for f in found)


@pytest.mark.parametrize("name", [*SIGNED, *HEADERS, "Authorization", "x-api-key", "key"])
def test_credential_names_are_recognised(name: str) -> None:
    assert is_credential_name(name)


@pytest.mark.parametrize(
    "name",
    ["content-type", "x-ratelimit-remaining-tokens", "idempotency-key", "keep-alive", "alt"],
)
def test_ordinary_names_are_not(name: str) -> None:
    assert not is_credential_name(name)


def test_redact_masks_userinfo_signed_parameters_and_named_headers() -> None:
    url = _signed_url("http://h.example")
    out = redact(f"GET {url} failed")
    assert not any(v in out for v in [PASSWORD, *SIGNED.values()])
    assert f"alice:{MASK}@h.example/v1/objects?alt=sse" in out
    dump = "\n".join(f"{k}: {v}" for k, v in HEADERS.items())
    assert not any(v in redact(dump) for v in HEADERS.values())
    assert redact_headers(HEADERS) == {k: MASK for k in HEADERS}
    assert redact("missing key: messages; content-type: text/plain") == (
        "missing key: messages; content-type: text/plain"
    )


def test_filtered_uri_drops_userinfo_and_every_credential_parameter() -> None:
    out = filtered_uri(_signed_url("http://h.example"))
    assert out == "http://h.example/v1/objects?alt=sse"


def test_a_cassette_miss_never_prints_the_urls_password(tmp_path: Path) -> None:
    with FakeVendor([]) as fv:
        with pytest.raises(CassetteMiss) as info:
            with CassetteKit(tmp_path, record_mode="none")("missing.yaml"):
                httpx2.get(_signed_url(fv.base_url))
    shown = str(info.value)
    assert not any(v in shown for v in [PASSWORD, *SIGNED.values()])
    miss = CassetteMiss("c.yaml", f"GET https://u:{PASSWORD}@h/x", "no match", "none")
    assert PASSWORD not in str(miss) and PASSWORD not in miss.request


def test_a_server_agent_masks_the_password_of_its_base_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolwire.server._config import AgentConfig
    from toolwire.server._providers import secrets

    monkeypatch.setenv("TW_FORMS_KEY", "sk-forms-key-0123456789")
    agent = AgentConfig(
        name="a",
        provider="openai_chat",
        base_url=f"http://proxyuser:{PASSWORD}@proxy.internal:8080/v1",
        key_env=("TW_FORMS_KEY",),
    )
    assert secrets(agent) == ["sk-forms-key-0123456789", PASSWORD]

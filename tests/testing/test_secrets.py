"""Secret filtering and the key-shaped scan that refuses a cassette write."""

from __future__ import annotations

import base64
import json
import os
import random
import struct
import zlib
from pathlib import Path

import pytest
import vcr.request  # type: ignore[import-untyped]
from pdf_file import BINARY_HEADER, pdf_file

from toolwire.errors import SecretInCassette
from toolwire.testing import secrets
from toolwire.testing.vcr import ParsedBodySerializer

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "conformance" / "cassettes"

KEYS = {
    "sk-…": "sk-ant-api03-" + "a1B2c3D4e5" * 5,
    "sk-proj": "sk-proj-" + "Zz9Yy8Xx7W" * 4,
    "AIza…": "AIza" + "SyD3mO-k3y_0123456789abcdefghijklmn",
    "ya29.…": "ya29." + "a0AfB_byC" * 4,
    "1//…": "1//" + "0gXyZ-abc_DEF123456789ghijklmnop",
    "eyJ…": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX3ZhbHVl",
}


def _png(width: int = 256, height: int = 256, seed: int = 7) -> bytes:
    """A real PNG file (random RGB noise, so its base64 is as varied as a photo's)."""
    rnd = random.Random(seed)
    raw = b"".join(b"\x00" + rnd.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def _pdf(seed: int = 11) -> bytes:
    """A real PDF (one page, a compressed content stream and an embedded binary stream)."""
    rnd = random.Random(seed)
    content = zlib.compress(b"BT /F1 24 Tf 72 720 Td (toolwire) Tj ET")
    blob = rnd.randbytes(60_000)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content)
        + content
        + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(blob) + blob + b"\nendstream",
    ]
    return pdf_file(objs, BINARY_HEADER)


def _request(uri: str, body: object = None, headers: dict[str, str] | None = None) -> object:
    data = json.dumps(body).encode() if body is not None else None
    return vcr.request.Request("POST", uri, data, headers or {"content-type": "application/json"})


def _response(body: str = "{}", headers: dict[str, list[str]] | None = None) -> dict[str, object]:
    return {
        "status": {"code": 200, "message": "OK"},
        "headers": headers or {"content-type": ["application/json"]},
        "body": {"string": body},
    }


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_every_key_shape_is_found_in_a_body_a_header_and_a_url(kind: str) -> None:
    key = KEYS[kind]
    req = _request(f"https://x.test/v1/a?q={key}", {"messages": [{"content": f"use {key}"}]})
    resp = _response(json.dumps({"echo": key}), {"x-thing": [key]})
    found = secrets.find_secrets([req], [resp])
    places = [f.split(": ")[1] for f in found]
    assert places == [
        "request URL",
        "request body.messages[0].content",
        "response header x-thing",
        "response body.echo",
    ]
    assert all(key not in f for f in found)


def test_base64_png_and_pdf_media_are_not_reported() -> None:
    png, pdf = _png(), _pdf()
    assert png.startswith(b"\x89PNG") and pdf.startswith(b"%PDF-")
    media = {
        "image": base64.b64encode(png).decode(),
        "document": base64.b64encode(pdf).decode(),
        "url_safe": base64.urlsafe_b64encode(pdf).decode(),
        "data_url": "data:image/png;base64," + base64.b64encode(png).decode(),
    }
    body = {
        "messages": [
            {"content": [{"type": "image", "source": {"data": v}} for v in media.values()]}
        ]
    }
    sse = "".join(f"data: {json.dumps({'delta': v})}\n\n" for v in media.values())
    found = secrets.find_secrets(
        [_request("https://x.test/v1/m", body)],
        [_response(sse, {"content-type": ["text/event-stream"]})],
    )
    assert found == []


def test_no_false_positive_in_any_real_recording() -> None:
    """Media, thinking signatures, encrypted reasoning, ids: nothing in a body or URL is a key.

    Headers other projects stored (their cookies) are reported, rightly: they are left out.
    """
    files = sorted((ROOT / "cassettes").rglob("*.yaml"))
    corpus = sorted(SHARED.rglob("*.yaml"))
    assert len(files) > 40 and len(corpus) > 40, "the recordings are missing"
    for path in files + corpus:
        doc = ParsedBodySerializer.deserialize(path.read_text("utf-8"))
        inter = doc["interactions"]
        found = secrets.find_secrets([i["request"] for i in inter], [i["response"] for i in inter])
        if path in files:
            assert found == [], path
        else:
            assert [f for f in found if " header " not in f] == [], path


def test_filters_drop_credential_headers_key_params_and_token_fields() -> None:
    req = _request(
        "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?key=AIzaX&alt=sse",
        {"contents": []},
        {
            "Authorization": "Bearer ya29.token",
            "x-goog-api-key": "AIzaY",
            "OpenAI-Organization": "org-1",
            "OpenAI-Project": "proj_1",
            "Cookie": "a=b",
            "content-type": "application/json",
        },
    )
    out = secrets.filter_request(req)
    assert {k.lower() for k in out.headers} == {"content-type"}
    assert out.uri.endswith("generateContent?alt=sse")
    resp = _response(
        json.dumps({"access_token": "ya29.abc", "expires_in": 3599, "nested": [{"id_token": "x"}]}),
        {
            "Set-Cookie": ["s=1"],
            "openai-organization": ["org-1"],
            "anthropic-organization-id": ["o"],
            "request-id": ["req_1"],
            "content-type": ["application/json"],
        },
    )
    got = secrets.filter_response(resp)
    assert set(got["headers"]) == {"request-id", "content-type"}
    assert json.loads(got["body"]["string"]) == {
        "access_token": "FILTERED",
        "expires_in": 3599,
        "nested": [{"id_token": "FILTERED"}],
    }
    form = secrets.filtered_body(
        "grant_type=refresh_token&refresh_token=1//abc&client_secret=s",
        "application/x-www-form-urlencoded",
    )
    assert form == "grant_type=refresh_token&refresh_token=FILTERED&client_secret=FILTERED"


def test_placeholders_left_by_other_tools_are_not_reported() -> None:
    req = _request(
        "https://x.test/v1/a", None, {"authorization": "Bearer REDACTED", "x-api-key": "<filtered>"}
    )
    assert secrets.find_secrets([req], [_response()]) == []
    req = _request("https://x.test/v1/a", None, {"x-my-api-key": "k3y-0123456789abcdef"})
    assert secrets.find_secrets([req], [_response()]) == [
        "interaction 0: request header x-my-api-key: "
        "a header named for a credential still has a value"
    ]


def test_refusal_names_every_place_and_never_the_value() -> None:
    key = KEYS["sk-proj"]
    with pytest.raises(SecretInCassette) as info:
        secrets.refuse_secrets(
            "c.yaml", [_request("https://x.test/v1/a", {"k": key})], [_response()]
        )
    assert info.value.findings == [
        "interaction 0: request body.k: an OpenAI/Anthropic-style secret key (sk-…)"
    ]
    assert key not in str(info.value) and "c.yaml" in str(info.value)


def test_scan_is_linear_on_large_media() -> None:
    big = base64.b64encode(os.urandom(1_500_000)).decode()
    found = secrets.find_secrets(
        [_request("https://x.test/v1/a", {"data": big})], [_response(json.dumps({"d": big}))]
    )
    assert found == []

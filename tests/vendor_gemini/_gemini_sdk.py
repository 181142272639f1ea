"""The vendor's own view of Gemini traffic, for tests: google-genai parses, vcrpy replays.

Everything here goes through the real SDK (no network: vcrpy ``record_mode="none"``), so a
test can compare what our adapter produced with what Google's own client makes of the bytes.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml
from google import genai
from google.genai import _common, models, types
from google.oauth2.credentials import Credentials

from toolwire.recordings import Exchange
from toolwire.testing import replay

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance" / "cassettes" / "gemini"
OWN = ROOT / "cassettes" / "gemini"


def client_for(uri: str) -> genai.Client:
    """A client whose requests land on ``uri``'s host and path (Gemini API or Vertex)."""
    return _client(*_where(uri))


@functools.cache
def _client(vertex: bool, project: str, location: str) -> genai.Client:
    # one client per place, kept for the session: a client holds only its settings (vcrpy
    # replays each request), and building one costs two TLS contexts from the CA bundle
    if vertex:
        return genai.Client(
            vertexai=True, project=project, location=location, credentials=Credentials("fake")
        )
    return genai.Client(api_key="fake-key")


def _where(uri: str) -> tuple[bool, str, str]:
    if "aiplatform.googleapis.com" in uri:
        path = uri.split("aiplatform.googleapis.com/", 1)[1]
        host = uri.split("://", 1)[1].split("/", 1)[0]
        if "/projects/" in uri:
            project = path.split("projects/", 1)[1].split("/", 1)[0]
            location = path.split("locations/", 1)[1].split("/", 1)[0]
        else:
            project, location = "p", "global"
        if host != "aiplatform.googleapis.com":
            location = host.split("-aiplatform", 1)[0]
        return True, project, location
    return False, "", ""


def model_of(uri: str) -> str:
    return uri.split("/models/", 1)[1].split(":", 1)[0]


def sdk_responses(
    cassette: Path, exchange: Exchange, before: list[Exchange] | None = None
) -> list[types.GenerateContentResponse]:
    """What google-genai yields for one recorded exchange, replayed from ``cassette``.

    vcrpy plays interactions in file order, so the model calls recorded before this
    one (``before``) are issued first and their answers discarded.
    """
    got: list[types.GenerateContentResponse] = []
    with replay(str(cassette), match="path"):
        for ex in [*(before or []), exchange]:
            client = client_for(ex.uri)
            model = model_of(ex.uri)
            if ":streamGenerateContent" in ex.uri:
                got = list(client.models.generate_content_stream(model=model, contents="replay"))
            else:
                got = [client.models.generate_content(model=model, contents="replay")]
    return got


def sse_cassette(
    tmp: Path, body: bytes, *, vertex: bool = False, model: str = "gemini-3-pro-preview"
) -> Path:
    """A minimal vcrpy cassette (vendor-wire-formats.md §1) holding one SSE response."""
    if vertex:
        uri = (
            "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/p/locations/"
            f"us-central1/publishers/google/models/{model}:streamGenerateContent?alt=sse"
        )
    else:
        uri = f"https://generativelanguage.googleapis.com/v1beta/models/{model}:streamGenerateContent?alt=sse"
    doc = {
        "version": 1,
        "interactions": [
            {
                "request": {"method": "POST", "uri": uri, "body": None, "headers": {}},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["text/event-stream"]},
                    "body": {"string": body.decode("utf-8")},
                },
            }
        ],
    }
    path = tmp / "stream.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), "utf-8")
    return path


def sdk_parse_sse(
    tmp: Path, body: bytes, *, vertex: bool = False
) -> list[types.GenerateContentResponse]:
    """google-genai's parse of SSE bytes (served to it by vcrpy)."""
    path = sse_cassette(tmp, body, vertex=vertex)
    uri = yaml.safe_load(path.read_text())["interactions"][0]["request"]["uri"]
    return sdk_responses(path, Exchange(response_body=body, uri=uri))


def sdk_wire_request(kwargs: dict[str, Any], *, vertex: bool = False) -> dict[str, Any]:
    """The JSON body google-genai would POST for ``generate_content(**kwargs)``."""
    client = client_for("https://aiplatform.googleapis.com/v1beta1/x" if vertex else "https://g/x")
    params = types._GenerateContentParameters(**kwargs)
    convert = (
        models._GenerateContentParameters_to_vertex
        if vertex
        else models._GenerateContentParameters_to_mldev
    )
    body = convert(client._api_client, params, None, params)
    body.pop("_url", None)
    body.pop("config", None)
    out: dict[str, Any] = json.loads(
        json.dumps(_common.encode_unserializable_types(_common.convert_to_dict(body)))
    )
    return out


def field(obj: dict[str, Any], camel: str) -> Any:
    """``obj[camel]`` under either spelling (recorders keep both)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in camel)
    return obj.get(camel, obj.get(snake))

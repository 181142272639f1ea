"""examples/hybrid_agent: a backend tool and a frontend tool, served over HTTP, two runs through
@ag-ui/client's HttpAgent against a fake vendor, for every model adapter of the registry.

Run 1: one RUN_STARTED, the backend call, its TOOL_CALL_RESULT with the image part, the second
turn with the frontend call, RUN_FINISHED with only the frontend call pending. Run 2 carries
the UI's answer (with an image of its own) and ends with text. The client's verifier accepts
every stream; each image reaches the vendor's requests as the capabilities say.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import struct
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _agent_support import turn
from _serve import REPO, live_server
from ag_ui.core import ImagePart
from local_tls import fake_vendor

from toolwire import adapters
from toolwire.capabilities import accepts

EXAMPLE = REPO / "examples" / "hybrid_agent"
KEY = "sk-hybrid-fake-key-0123456789"
Client = Callable[[dict[str, Any], Path], dict[str, Any]]


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("hybrid_agent_app", EXAMPLE / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _png(rgb: tuple[int, int, int]) -> str:
    """A 1x1 PNG of one colour, base64."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = zlib.compress(b"\x00" + bytes(rgb))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", raw) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


UI_IMAGE = _png((200, 30, 30))


def _image(value: str) -> ImagePart:
    return ImagePart.model_validate(
        {"type": "image", "source": {"type": "data", "value": value, "mimeType": "image/png"}}
    )


def test_the_example_is_at_most_40_lines() -> None:
    assert len((EXAMPLE / "app.py").read_text().splitlines()) <= 40


@pytest.mark.parametrize("adapter", adapters.model_names())  # the registry's model adapters
def test_the_hybrid_agent_round_trip_through_the_official_client(
    adapter: str, ag_ui_client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sdk = adapters.client(adapter)  # the adapter's SDK: its async client and default model
    model = sdk.default_model
    sky = base64.b64encode((EXAMPLE / "sky.png").read_bytes()).decode()
    tokens = {"input_tokens": 12, "output_tokens": 4}
    # call ids every vendor takes as they are (Mistral's are 9 letters or digits)
    script = [
        turn(
            adapter, [("callW0001", "get_weather", {"city": "Oslo"})], message_id="msg_1", **tokens
        ),
        turn(
            adapter,
            [("callB0002", "confirm_booking", {"hotel": "Grand"})],
            text="Book it?",
            message_id="msg_2",
            **tokens,
        ),
        turn(adapter, [], text="Booked the Grand.", message_id="msg_3", **tokens),
    ]
    example = _example()
    answer = [
        {"type": "text", "text": "confirmed"},
        {"type": "image", "source": {"type": "data", "value": UI_IMAGE, "mimeType": "image/png"}},
    ]
    confirm = {
        "name": "confirm_booking",
        "description": "Ask the user to confirm a booking.",
        "parameters": {"type": "object", "properties": {"hotel": {"type": "string"}}},
    }
    with fake_vendor(adapter, script, tmp_path, monkeypatch) as fv, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a target that cannot take an image says so
        client = sdk.make_client(api_key=KEY, base_url=fv.base_url)
        app = example.hybrid_app(client, model, vendor=adapter, forward_losses=True)
        with live_server(app) as (_, base):
            out = ag_ui_client(
                {
                    "url": f"{base}/agents/hybrid",
                    "threadId": f"hybrid-{adapter}",
                    "messages": [{"id": "u1", "role": "user", "content": "A hotel in Oslo?"}],
                    "tools": [confirm],
                    "answers": {"confirm_booking": answer},
                },
                tmp_path,
            )
    assert out["exit"] == 0, [r["error"] for r in out["runs"]]  # the verifier took every stream
    first, second = (r["events"] for r in out["runs"])

    types = [e["type"] for e in first]
    assert types.count("RUN_STARTED") == 1 and types[-1] == "RUN_FINISHED"
    calls = [(e["toolCallId"], e["toolCallName"]) for e in first if e["type"] == "TOOL_CALL_START"]
    assert [name for _, name in calls] == ["get_weather", "confirm_booking"]
    (result,) = [e for e in first if e["type"] == "TOOL_CALL_RESULT"]
    assert result["toolCallId"] == calls[0][0] and result["messageId"]
    assert types.index("TOOL_CALL_RESULT") < types.index("TEXT_MESSAGE_START")
    assert [p["type"] for p in result["content"]] == ["text", "image"]
    assert result["content"][1]["source"]["value"] == sky
    assert first[-1]["outcome"]["pendingToolCallIds"] == [calls[1][0]]

    assert second[0]["type"] == "RUN_STARTED" and second[-1]["type"] == "RUN_FINISHED"
    text = "".join(e["delta"] for e in second if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Booked the Grand."
    assert not second[-1]["outcome"].get("pendingToolCallIds")

    # what reached the vendor: three requests; each image as the capabilities say
    bodies = [r.body.decode() for r in fv.requests]
    assert len(bodies) == 3
    native = accepts(adapter, model=model).why_not(_image(sky)) is None
    assert "Sunny in Oslo, 21 C" in bodies[1] and (sky in bodies[1]) == native
    assert "confirmed" in bodies[2] and (UI_IMAGE in bodies[2]) == native
    assert KEY not in json.dumps(out)

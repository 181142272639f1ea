"""The adapter's public surface, and that it imports and works without google-genai."""

from __future__ import annotations

import subprocess
import sys

from toolwire import adapters
from toolwire.adapters import gemini


def test_the_design_surface_and_the_cli_conventions_are_there() -> None:
    assert adapters.get("gemini") is gemini
    for name in (*adapters.SURFACE, "sse_chunks", "is_model_exchange"):
        assert callable(getattr(gemini, name)), name


def test_imports_and_decodes_without_the_vendor_sdk() -> None:
    code = """
import sys
sys.modules["google.genai"] = None  # any import of the SDK now fails
sys.modules["google.genai.types"] = None
from toolwire.adapters import gemini
chunk = {"candidates": [{"content": {"role": "model", "parts": [
    {"functionCall": {"id": "c1", "name": "f", "args": {"a": 1}}}]}, "finishReason": "STOP"}],
    "responseId": "r"}
events = list(gemini.decode_stream([chunk]))
assert [e.type.value for e in events] == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
body = gemini.to_sse(gemini.encode_stream(events))
assert body.startswith(b"data: ")
print("ok")
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert res.returncode == 0, res.stderr.decode()
    assert res.stdout.strip() == b"ok"

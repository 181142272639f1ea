"""MCP tool results, tool definitions and tool calls <-> AG-UI 1.0.

MCP has no stream of its own here: what crosses is a ``CallToolResult`` (an MCP
server's answer, ``decode_result`` / ``encode_result``), a ``Tool`` definition
(``decode_tool`` / ``encode_tool``) and the ``tools/call`` params
(``decode_call`` / ``encode_call``). The mapping follows the MCP specification
revision ``2026-07-28`` (``SPEC_REVISION``) and is in ``docs/adapters/mcp.md``.
Values may be the ``mcp`` SDK's ``mcp.types`` models or dicts of the spec's JSON
shape, with the same output; the SDK is never imported.
"""

from __future__ import annotations

from .result import decode_result, encode_result
from .tools import decode_call, decode_tool, encode_call, encode_tool
from .wire import SPEC_REVISION

__all__ = [
    "SPEC_REVISION",
    "decode_call",
    "decode_result",
    "decode_tool",
    "encode_call",
    "encode_result",
    "encode_tool",
]

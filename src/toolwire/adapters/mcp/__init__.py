"""MCP tool results, tool definitions and tool calls <-> AG-UI 1.0.

MCP has no stream of its own here: what crosses is a ``CallToolResult`` (an MCP
server's answer, ``decode_result`` / ``encode_result``), a ``Tool`` definition
(``decode_tool`` / ``encode_tool``) and the ``tools/call`` params
(``decode_call`` / ``encode_call``). The mapping follows the MCP specification
revision ``2026-07-28`` (``SPEC_REVISION``) and is in ``docs/adapters/mcp.md``.
Values may be the ``mcp`` SDK's ``mcp.types`` models or dicts of the spec's JSON
shape, with the same output; the SDK is never imported. Modules: ``result``
(``CallToolResult`` both ways), ``tools`` (tool definitions and ``tools/call`` params
both ways), ``parts`` (one content block <-> one part), ``wire`` (the revision, the
metadata keys, reading SDK models as JSON, the field reader). Every ``encode_*``
returns an ``Encoded`` body whose ``.losses`` it warns about once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .result import decode_result as decode_result
from .result import encode_result as encode_result
from .tools import decode_call as decode_call
from .tools import decode_tool as decode_tool
from .tools import encode_call as encode_call
from .tools import encode_tool as encode_tool
from .wire import SPEC_REVISION as SPEC_REVISION

if TYPE_CHECKING:  # mypy holds this package to the contract of its kind
    from toolwire.adapters import mcp as _self
    from toolwire.adapters.contract import ResultPeer

    _contract: ResultPeer = _self

__all__ = [
    "SPEC_REVISION",
    "decode_call",
    "decode_result",
    "decode_tool",
    "encode_call",
    "encode_result",
    "encode_tool",
]

"""Gemini's JSON-array stream reader (now shared: :mod:`toolwire.protocol.json_array`)."""

from __future__ import annotations

from toolwire.protocol.json_array import JsonArrayReader, is_json_array, json_array_chunks

__all__ = ["JsonArrayReader", "is_json_array", "json_array_chunks"]

"""Helpers for replaying recorded vendor traffic in tests (vcrpy), with secrets filtered."""

from toolwire.testing.vcr import (
    FILTER_HEADERS,
    ParsedBodySerializer,
    normalized_path,
    replay,
)

__all__ = ["FILTER_HEADERS", "ParsedBodySerializer", "normalized_path", "replay"]

"""toolwire.testing.recording_cache: parsed once, handed out as copies, read again when edited."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from toolwire.recordings import load_recording
from toolwire.testing.recording_cache import recording

ROOT = Path(__file__).resolve().parents[2]
CASSETTE = ROOT / "cassettes" / "anthropic" / "tool_result_media.yaml"


def test_the_cached_exchanges_equal_a_fresh_parse_and_are_copies() -> None:
    fresh = load_recording(CASSETTE.read_bytes(), CASSETTE.name)
    first = recording(CASSETTE)
    assert first == fresh and first[0].request_body
    first[0].request_body["model"] = "edited by a test"
    first[0].headers.clear()
    assert recording(CASSETTE) == fresh


def test_a_rewritten_file_is_parsed_again(tmp_path: Path) -> None:
    copy = tmp_path / "c.yaml"
    shutil.copyfile(CASSETTE, copy)
    before = recording(copy)
    text = copy.read_text("utf-8").replace("claude-", "claude-x-", 1)
    copy.write_text(text, "utf-8")
    st = copy.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert recording(copy) == load_recording(copy.read_bytes(), copy.name) != before

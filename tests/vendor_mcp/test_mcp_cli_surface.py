"""``toolwire mcp-result`` and how the mcp peer is found (``adapters.get("mcp")``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolwire import adapters, cli
from toolwire.errors import UnsupportedInput

RESULT = {
    "resultType": "complete",
    "content": [
        {"type": "text", "text": "Invalid departure date: must be in the future."},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ],
    "isError": True,
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err


def test_mcp_result_prints_the_tool_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(RESULT))
    code, out, err = _run(
        capsys, "mcp-result", str(path), "--tool-call-id", "call_1", "--message-id", "m1"
    )
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "id": "m1",
        "role": "tool",
        "toolCallId": "call_1",
        "content": [
            {"type": "text", "text": "Invalid departure date: must be in the future."},
            {
                "type": "image",
                "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"},
            },
        ],
        "error": "Invalid departure date: must be in the future.",
    }


def test_unknown_content_is_announced_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"content": [{"type": "hologram"}, {"type": "text", "text": "ok"}]}))
    code, out, err = _run(capsys, "mcp-result", str(path), "--tool-call-id", "c")
    assert code == 0
    assert json.loads(out)["content"] == [{"type": "text", "text": "ok"}]
    assert err.startswith(
        "warning: toolwire: stripped result.content[0] of unknown content type 'hologram'"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "not JSON"),
        ('{"content": 3}', "mcp: result.content: expected a list, got int"),
        ('{"content": [{"type": "image", "data": "x"}]}', "result.content[0].mimeType: missing"),
        ('{"resultType": "input_required", "inputRequests": {}}', "input_required"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    code, out, err = _run(capsys, "mcp-result", str(path), "--tool-call-id", "c")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("toolwire: ") and reason in err


def test_a_missing_file_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "mcp-result", str(tmp_path / "absent.json"), "--tool-call-id", "c")
    assert code == 1 and "absent.json" in err


def test_the_tool_call_id_is_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["mcp-result", str(tmp_path / "x.json")])
    assert info.value.code == 2
    assert "--tool-call-id" in capsys.readouterr().err


# ---------------------------------------------------------------------- surface


def test_get_finds_the_mcp_peer_outside_the_stream_adapters() -> None:
    import toolwire.adapters.mcp as module

    assert adapters.get("mcp") is module
    assert adapters.get("MCP") is module
    assert "mcp" in adapters.RESULT_PEERS and "mcp" not in adapters.NAMES
    for name in adapters.RESULT_SURFACE:
        assert callable(getattr(module, name)), name
    assert module.SPEC_REVISION == "2026-07-28"
    assert "mcp" not in adapters.available()  # the stream adapters only


def test_an_unknown_name_lists_every_peer() -> None:
    with pytest.raises(UnsupportedInput, match=r"anthropic.*mcp"):
        adapters.get("nope")


def test_importing_toolwire_and_the_peer_imports_no_mcp_sdk() -> None:
    code = (
        "import sys, toolwire, toolwire.adapters.mcp; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

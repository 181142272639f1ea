"""The adapter's public surface, and that it imports without the vendor SDK."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from toolwire import adapters
from toolwire.capabilities import accepts
from toolwire.protocol.fitting import fit_content

dialogflow = adapters.get("dialogflow")


def test_the_design_surface_and_the_cli_conventions_are_there() -> None:
    for name in (*adapters.SURFACE, "sse_chunks", "load_recording", "is_model_exchange"):
        assert callable(getattr(dialogflow, name)), name
    assert dialogflow.Decoder.vendor == "dialogflow"


def test_the_adapter_imports_and_decodes_with_google_blocked() -> None:
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "google" or name.startswith("google."):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        from toolwire.adapters import dialogflow
        events = list(dialogflow.decode_stream([{"toolCall": {"action": "f"}}]))
        assert [e.type.value for e in events] == ["TOOL_CALL_START", "TOOL_CALL_END"]
        assert not [m for m in sys.modules if m == "google" or m.startswith("google.")]
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_the_capability_rows_take_data_sources_only() -> None:
    from ag_ui.core import DataSource, FileSource, ImagePart, UrlSource

    acc = accepts("dialogflow")
    data = ImagePart(source=DataSource(value="AA==", mime_type="image/png"))
    url = ImagePart(source=UrlSource(value="https://x/a.png", mime_type="image/png"))
    file = ImagePart(source=FileSource(value="f-1", mime_type="image/png", provider="google"))
    fitted = fit_content([data, url, file], acc, tool_call_id="c")
    assert fitted.content == [data]
    assert [loss.source_kind for loss in fitted.losses] == ["url", "file"]

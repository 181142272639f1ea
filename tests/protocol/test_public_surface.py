"""The curated surface (issue 10 point 7): what ``toolwire`` and ``toolwire.protocol`` name.

The top level names what a user needs first and imports it on first use; the protocol
package's ``__all__`` is its user API and holds none of the adapter-author toolkit, which
its modules hold; the drivers' implementation modules are private.
"""

from __future__ import annotations

import importlib
import pkgutil

import toolwire
import toolwire.protocol
from toolwire import adapters

FIRST_NEEDS = {"adapters", "validate_stream", "frame_run", "aframe_run", "run", "arun"}
TOOLKIT = {
    "BaseDecoder": "toolwire.protocol.decoding",
    "BaseEncoder": "toolwire.protocol.encoding",
    "Fields": "toolwire.protocol.fields",
    "stream_surface": "toolwire.protocol.surface",
    "result_message_id": "toolwire.protocol.ids",
    "fit_content": "toolwire.protocol.fitting",
    "frame_sse": "toolwire.protocol.sse",
}


def test_the_top_level_names_what_a_user_needs_first() -> None:
    assert FIRST_NEEDS | {"RetryPolicy", "Loss", "ToolwireError"} <= set(toolwire.__all__)
    for name in toolwire.__all__:
        assert getattr(toolwire, name) is not None, name
    assert toolwire.adapters.get("anthropic") is adapters.get("anthropic")
    assert toolwire.validate_stream is toolwire.protocol.validate_stream
    assert toolwire.frame_run is toolwire.protocol.frame_run
    assert sorted(dir(toolwire)) == sorted(toolwire.__all__)


def test_the_protocol_exports_the_user_api_and_no_toolkit() -> None:
    exported = set(toolwire.protocol.__all__)
    assert {"validate_stream", "StreamMachine", "frame_run", "RESULT_ERROR_KEY"} <= exported
    assert not exported & set(TOOLKIT)
    for name in exported:
        assert hasattr(toolwire.protocol, name), name
    for name, module in TOOLKIT.items():  # the toolkit is where the docs say it is
        assert hasattr(importlib.import_module(module), name), (module, name)


def test_the_drivers_implementation_modules_are_private() -> None:
    for package in ("toolwire.driver", "toolwire.server"):
        pkg = importlib.import_module(package)
        names = [m.name for m in pkgutil.iter_modules(pkg.__path__)]
        assert names and all(n.startswith("_") for n in names), (package, names)
        for name in pkg.__all__:
            assert hasattr(pkg, name), (package, name)

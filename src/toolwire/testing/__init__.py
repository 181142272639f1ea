"""Testing with recorded vendor traffic: vcrpy replay, the cassette kit (a pytest plugin),
snapshots of the AG-UI stream, and secret filtering for recording.

The names below are imported on first use: the pytest plugin (``toolwire.testing.plugin``)
loads in every pytest run of an environment that has toolwire and must not pull in PyYAML,
vcrpy or the rest. ``replay(path)`` needs vcrpy (``pip install 'toolwire[testing]'``).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.testing.vcr import (
        FILTER_HEADERS,
        ParsedBodySerializer,
        make_vcr,
        normalized_path,
        replay,
    )

_FROM_VCR = ("FILTER_HEADERS", "ParsedBodySerializer", "make_vcr", "normalized_path", "replay")


def __getattr__(name: str) -> Any:
    if name in _FROM_VCR:
        from toolwire.testing import vcr

        return getattr(vcr, name)
    raise AttributeError(f"module 'toolwire.testing' has no attribute {name!r}")


__all__ = ["FILTER_HEADERS", "ParsedBodySerializer", "make_vcr", "normalized_path", "replay"]

"""Testing with recorded vendor traffic: vcrpy replay, the cassette kit (a pytest plugin),
snapshots of the AG-UI stream, and secret filtering for recording.

The names below are imported on first use: the pytest plugin (``toolwire.testing.plugin``)
loads in every pytest run of an environment that has toolwire and must not pull in PyYAML,
vcrpy or the rest. ``replay(path)`` needs vcrpy (``pip install 'toolwire[testing]'``);
``FakeVendor`` (a local server playing scripted or recorded vendor replies) needs nothing.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.testing.fake_vendor import FakeVendor, Reply, replies_from_cassette
    from toolwire.testing.vcr import (
        FILTER_HEADERS,
        ParsedBodySerializer,
        make_vcr,
        normalized_path,
        replay,
    )

_FROM_VCR = ("FILTER_HEADERS", "ParsedBodySerializer", "make_vcr", "normalized_path", "replay")
#: the fake vendor server (stdlib only): what the README's and guides' examples run against
_FROM_FAKE = ("FakeVendor", "Reply", "replies_from_cassette")


def __getattr__(name: str) -> Any:
    if name in _FROM_VCR:
        from toolwire.testing import vcr

        return getattr(vcr, name)
    if name in _FROM_FAKE:
        from toolwire.testing import fake_vendor

        return getattr(fake_vendor, name)
    raise AttributeError(f"module 'toolwire.testing' has no attribute {name!r}")


__all__ = [
    "FILTER_HEADERS",
    "FakeVendor",
    "ParsedBodySerializer",
    "Reply",
    "make_vcr",
    "normalized_path",
    "replay",
    "replies_from_cassette",
]

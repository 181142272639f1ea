"""Testing with recorded vendor traffic: vcrpy replay, the cassette kit (a pytest plugin),
snapshots of the AG-UI stream, and secret filtering for recording.

``replay(path)`` needs vcrpy (``pip install 'toolwire[testing]'``); it is imported when a
cassette is opened, so importing this package needs only PyYAML.
"""

from toolwire.testing.vcr import (
    FILTER_HEADERS,
    ParsedBodySerializer,
    make_vcr,
    normalized_path,
    replay,
)

__all__ = ["FILTER_HEADERS", "ParsedBodySerializer", "make_vcr", "normalized_path", "replay"]

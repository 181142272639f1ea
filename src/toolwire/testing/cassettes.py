"""The ``toolwire_cassette`` fixture's object: open a cassette, compare the run with its snapshot.

``toolwire_cassette("weather.yaml")`` is a context manager over vcrpy (``make_vcr``): cassettes
live in ``cassettes/<test module>/`` beside the test module, as pytest-recording keeps them
(its ``vcr_cassette_dir`` and ``vcr_config`` fixtures are honoured when a project has them).
The record mode is ``--record-mode`` (shared with pytest-recording when both are installed),
else ``vcr_config["record_mode"]``, else ``none``: CI never touches the network.

In mode ``none`` a request the cassette does not hold is a :class:`~toolwire.errors.CassetteMiss`
naming the first differing field, raised when the ``with`` block ends even if the agent caught
the SDK's connection error (``toolwire.run`` turns it into ``RUN_ERROR``) and went on.
``assert_snapshot(events)`` compares the normalized AG-UI stream with the JSONL file beside the
cassette (``weather.agui.jsonl``); ``--toolwire-update`` rewrites it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from toolwire import adapters
from toolwire.errors import CassetteMiss, UnsupportedInput
from toolwire.testing import secrets
from toolwire.testing.snapshots import describe_changes, read_snapshot, snapshot_text
from toolwire.testing.vcr import FILTER_HEADERS, RESPONSE_HOOKS, make_vcr

RECORD_MODES = ("none", "once", "new_episodes", "all")

#: Environment variables the vendor SDKs read a key from; in mode ``none`` a missing one is set
#: to a placeholder so a client builds without a key (nothing is sent anywhere).
#: Each group is one SDK's variables (every model adapter's ``CLIENT.key_env``, as installed
#: when the kit is imported); the first is the one set.
KEY_VARIABLES = tuple(
    dict.fromkeys(tuple(adapters.client(n).key_env) for n in adapters.model_names())
)
PLACEHOLDER_KEY = "toolwire-replay-placeholder"

#: ``vcr_config`` keys the kit passes on to vcrpy (after its own filters, never instead).
_PASSED_ON = (
    "filter_query_parameters",
    "filter_post_data_parameters",
    "ignore_hosts",
    "ignore_localhost",
    "filter_sensitive_data",
    "before_save_interaction",
    "after_load_interaction",
)


def snapshot_path(cassette: Path) -> Path:
    """``weather.yaml`` -> ``weather.agui.jsonl`` in the same folder."""
    return cassette.with_name(cassette.stem + ".agui.jsonl")


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class _Use:
    """One ``with toolwire_cassette(name):`` block."""

    def __init__(self, kit: CassetteKit, path: Path, options: dict[str, Any]) -> None:
        self.kit = kit
        self.path = path
        self.options = options
        self.misses: list[CassetteMiss] = []
        self.cassette: Any = None
        self._context: Any = None
        self._persister: Any = None

    def __enter__(self) -> Any:
        mode = self.kit.record_mode
        if mode == "none" and not self.path.is_file():
            raise CassetteMiss(str(self.path), "", "the cassette does not exist", "none")
        ignore = tuple(self.options.pop("ignore_body_keys", ()))
        extra_headers = tuple(self.options.pop("filter_headers", ()))
        response_headers = frozenset(
            str(h).lower() for h in self.options.pop("filter_response_headers", ())
        )
        config = self.kit.vcr_config
        v = make_vcr(self.kit.vcr_mode, ignore_body_keys=ignore)
        self._persister = v.persister
        kwargs: dict[str, Any] = {k: config[k] for k in _PASSED_ON if k in config}
        kwargs["before_record_request"] = [
            secrets.filter_request,
            *_as_list(config.get("before_record_request")),
            *_as_list(self.options.pop("before_record_request", None)),
        ]
        kwargs["before_record_response"] = [
            *RESPONSE_HOOKS,
            secrets.response_header_filter(response_headers),
            *_as_list(config.get("before_record_response")),
            *_as_list(self.options.pop("before_record_response", None)),
        ]
        kwargs["filter_headers"] = [
            *FILTER_HEADERS,
            *_as_list(config.get("filter_headers")),
            *extra_headers,
        ]
        if self.kit.drop_unused:
            kwargs["drop_unused_requests"] = True
        kwargs.update(self.options)
        self._context = v.use_cassette(str(self.path), serializer="tw_yaml", **kwargs)
        self.cassette = self._context.__enter__()
        self._watch(self.cassette)
        return self.cassette

    def _watch(self, cassette: Any) -> None:
        """Turn vcrpy's 'cannot record' into a CassetteMiss kept for the end of the block."""
        original = cassette.can_play_response_for
        use = self

        def can_play_response_for(request: Any) -> bool:
            if original(request):
                return True
            if not cassette.write_protected or not cassette.filter_request(request):
                return False
            miss = use.miss(cassette, request)
            use.misses.append(miss)
            raise miss

        cassette.can_play_response_for = can_play_response_for

    def miss(self, cassette: Any, request: Any) -> CassetteMiss:
        """Why ``request`` has no recorded answer, from the closest recorded request."""
        what = f"{request.method} {secrets.filtered_uri(request.uri)}"
        closest = cassette.find_requests_with_most_matches(request)
        if not len(cassette):
            reason = "the cassette holds no interaction"
        elif closest and not closest[0][2]:
            reason = "every recorded interaction that matches it has been played already"
        elif closest:
            reason = "; ".join(message for _name, message in closest[0][2])
        else:
            reason = "no recorded request has its method and path"
        return CassetteMiss(str(self.path), what, reason, self.kit.record_mode)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self._context.__exit__(exc_type, exc, tb)
        finally:
            self.kit.used.append(self.path)
        if self.misses:
            # the first miss says it; whatever the SDK or the agent made of it is secondary
            raise self.misses[0] from exc
        refused = getattr(self._persister, "refused", None)
        if refused is not None:
            raise refused from exc

    async def __aenter__(self) -> Any:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


class CassetteKit:
    """What the ``toolwire_cassette`` fixture gives a test (see the module doc)."""

    def __init__(
        self,
        cassette_dir: Path,
        *,
        record_mode: str = "none",
        update: bool = False,
        vcr_config: dict[str, Any] | None = None,
        written: list[Path] | None = None,
    ) -> None:
        if record_mode == "rewrite":  # pytest-recording's mode: record the cassette afresh
            record_mode, self.drop_unused = "all", True
        else:
            self.drop_unused = False
        if record_mode not in RECORD_MODES:
            raise UnsupportedInput(
                f"--record-mode must be one of {', '.join(RECORD_MODES)}, not {record_mode!r}"
            )
        self.cassette_dir = Path(cassette_dir)
        self.record_mode = record_mode
        self.vcr_mode = record_mode
        self.update = update
        self.vcr_config = dict(vcr_config or {})
        self.used: list[Path] = []
        self.written = written if written is not None else []

    def path(self, name: str) -> Path:
        """Where cassette ``name`` lives (an absolute ``name`` is kept as it is)."""
        p = Path(name)
        if not p.suffix:
            p = p.with_suffix(".yaml")
        return p if p.is_absolute() else self.cassette_dir / p

    def __call__(self, name: str, **options: Any) -> _Use:
        """A context manager replaying (or, as the record mode allows, recording) ``name``.

        ``options``: ``ignore_body_keys`` (top-level request body keys left out of matching),
        ``filter_headers`` / ``filter_response_headers`` (request / response header names to
        drop) and ``before_record_request``/``before_record_response`` (added to the kit's own
        filters); anything else goes to vcrpy's ``use_cassette``.
        """
        return _Use(self, self.path(name), options)

    def assert_snapshot(self, events: Iterable[Any], name: str | None = None) -> None:
        """Compare the run's normalized AG-UI stream with the snapshot beside the cassette.

        ``name`` names the cassette (default: the last one this test used). A missing
        snapshot is written when recording or with ``--toolwire-update``; in mode ``none``
        it fails, so CI never passes on a snapshot nobody reviewed.
        """
        __tracebackhide__ = True
        if name is not None:
            target = snapshot_path(self.path(name))
        elif self.used:
            target = snapshot_path(self.used[-1])
        else:
            raise UnsupportedInput(
                "assert_snapshot: no cassette used yet in this test; pass name='...'"
            )
        text = snapshot_text(events)
        if not target.is_file():
            if self.update or self.record_mode != "none":
                self._write(target, text)
                return
            raise AssertionError(
                f"no AG-UI snapshot at {target}: run once with --toolwire-update to write it "
                "(and review it)"
            )
        old = target.read_bytes().decode("utf-8")
        if old == text:
            return
        if self.update:
            self._write(target, text)
            return
        changes = describe_changes(read_snapshot(old), read_snapshot(text))
        if not changes:
            changes = ["the same events, written differently (re-run with --toolwire-update)"]
        raise AssertionError(
            f"the AG-UI stream differs from the snapshot {target}:\n  "
            + "\n  ".join(changes)
            + "\nIf the change is intended, run with --toolwire-update to accept it."
        )

    def _write(self, target: Path, text: str) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(text.encode("utf-8"))
        os.replace(tmp, target)
        self.written.append(target)


__all__ = [
    "KEY_VARIABLES",
    "PLACEHOLDER_KEY",
    "RECORD_MODES",
    "CassetteKit",
    "snapshot_path",
]

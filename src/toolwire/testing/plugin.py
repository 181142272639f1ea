"""toolwire's pytest plugin (entry point ``pytest11``): the ``toolwire_cassette`` fixture.

Loaded in every pytest run of an environment that has toolwire, so this module imports
nothing but pytest and the standard library; vcrpy, PyYAML and toolwire's own code are
imported when a test first asks for the fixture.

``--record-mode`` is the option pytest-recording also defines. Both plugins load from entry
points in no fixed order, and two definitions of one option end pytest before it starts, so
the option is added only after every plugin and the initial conftests are registered
(``pytest_load_initial_conftests``), and only if no other plugin defined it: with
pytest-recording installed the two share its option (its extra mode ``rewrite`` means ``all``
here, dropping what was not played again).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

RECORD_MODES = ("none", "once", "new_episodes", "all")
_OPTION = "--record-mode"
_WRITTEN = pytest.StashKey[list[Path]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolwire", "toolwire cassettes (AG-UI regression tests)")
    group.addoption(
        "--toolwire-update",
        action="store_true",
        default=False,
        help="rewrite the AG-UI snapshots (<cassette>.agui.jsonl) the tests compare with",
    )


def _has_option(parser: pytest.Parser, name: str) -> bool:
    groups = [getattr(parser, "_anonymous", None), *getattr(parser, "_groups", [])]
    return any(
        name in opt.names() for group in groups if group is not None for opt in group.options
    )


@pytest.hookimpl(trylast=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    if _has_option(parser, _OPTION):
        return  # pytest-recording (or another VCR plugin) defined it: share theirs
    parser.getgroup("toolwire").addoption(
        _OPTION,
        action="store",
        default=None,
        choices=RECORD_MODES,
        help="cassette record mode: none (default: replay only, never the network), once, "
        "new_episodes, all",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_WRITTEN] = []


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_sep("-", f"toolwire: {len(written)} AG-UI snapshot(s) written")
        for path in written:
            terminalreporter.write_line(f"  {path}")


def _fixture_value(request: pytest.FixtureRequest, name: str) -> Any:
    """A fixture's value if some plugin or conftest defines it, else ``None``."""
    try:
        return request.getfixturevalue(name)
    except pytest.FixtureLookupError:
        return None


def _option(config: pytest.Config, name: str) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # the option was never added (plugin loaded after start-up)
        return None


@pytest.fixture
def toolwire_cassette(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Replay (or record) vendor traffic and compare the AG-UI run with its snapshot.

    ``with toolwire_cassette("weather.yaml"): ...`` then
    ``toolwire_cassette.assert_snapshot(events)``; see ``toolwire.testing.cassettes``.
    """
    from toolwire.testing.cassettes import KEY_VARIABLES, PLACEHOLDER_KEY, CassetteKit

    config = request.config
    vcr_config = _fixture_value(request, "vcr_config") or {}
    mode = _option(config, "record_mode") or vcr_config.get("record_mode") or "none"
    folder = _fixture_value(request, "vcr_cassette_dir")
    if folder is None:
        module = Path(str(request.node.path))
        folder = module.parent / "cassettes" / module.stem
    kit = CassetteKit(
        Path(folder),
        record_mode=str(getattr(mode, "value", mode)),
        update=bool(_option(config, "toolwire_update")),
        vcr_config=vcr_config,
        written=config.stash.get(_WRITTEN, None),
    )
    if kit.record_mode == "none":
        for group in KEY_VARIABLES:
            if not any(os.environ.get(var) for var in group):
                monkeypatch.setenv(group[0], PLACEHOLDER_KEY)
    return kit


__all__ = ["RECORD_MODES", "toolwire_cassette"]

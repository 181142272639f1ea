"""What ``toolwire serve`` serves: agents (one per provider setting) and the server's limits.

A config is plain data (TOML or JSON on disk, a mapping or these dataclasses in code), checked
once at start-up so a typo is an error naming the field, not a failure on the first request.
Keys never live in the config: each real provider reads its key from the environment at the
moment it runs, so a config file can be committed and a key never printed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolwire.errors import ToolwireError

#: the provider that answers from recordings (no adapter of its own, no key)
REPLAY = "replay"


def providers() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Provider name -> (the adapter it speaks, the environment variables its key may be
    in): ``replay``, then every model adapter of the registry under its name and its
    ``CLIENT.provider_aliases`` (a plugin's too)."""
    from toolwire import adapters

    out: dict[str, tuple[str, tuple[str, ...]]] = {REPLAY: ("", ())}
    for name in adapters.model_names():
        client = adapters.client(name)
        for provider in (name, *client.provider_aliases):
            out.setdefault(provider, (name, tuple(client.key_env)))
    return out


def default_models() -> dict[str, str]:
    """Provider name -> the model a real provider uses when the config names none."""
    from toolwire import adapters

    return {p: adapters.client(a).default_model for p, (a, _keys) in providers().items() if a}


def __getattr__(name: str) -> object:
    """``PROVIDERS`` and ``DEFAULT_MODELS``, read from the registry when asked."""
    if name == "PROVIDERS":
        return providers()
    if name == "DEFAULT_MODELS":
        return default_models()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_BODY_LIMIT = 1 << 20  # bytes of one RunAgentInput


class ConfigError(ToolwireError):
    """A server config that cannot be used: names the field and what is wrong."""


@dataclass(frozen=True)
class AgentConfig:
    """One agent: served at ``POST /agents/{name}``, answered by ``provider``.

    ``model`` and ``params`` (vendor request options such as ``max_tokens``) are used by real
    providers; ``base_url`` points a vendor SDK elsewhere (a proxy, an OpenAI-compatible server,
    a fake vendor in tests); ``key_env`` overrides which environment variable holds the key.
    The replay provider reads ``cassettes`` (files or folders named by vendor) and ``pace``
    (seconds between events, to watch a recorded stream arrive).
    """

    name: str
    provider: str
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    cassettes: tuple[str, ...] = ()
    pace: float = 0.0

    @property
    def key_names(self) -> tuple[str, ...]:
        return self.key_env or providers()[self.provider][1]


@dataclass(frozen=True)
class ServerConfig:
    """The agents and the server's own settings."""

    agents: tuple[AgentConfig, ...] = (AgentConfig(name="replay", provider="replay"),)
    body_limit: int = DEFAULT_BODY_LIMIT
    inspector: str | None = "/inspector"  # mount path of the inspector page; None: no page


def _fail(where: str, reason: str) -> ConfigError:
    return ConfigError(f"config: {where}: {reason}")


def _str_tuple(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _fail(where, "expected a string or a list of strings")


_AGENT_KEYS = {"name", "provider", "model", "params", "base_url", "key_env", "cassettes", "pace"}


def agent_from_mapping(raw: Any, where: str) -> AgentConfig:
    """One ``[[agents]]`` entry as an :class:`AgentConfig`."""
    if not isinstance(raw, Mapping):
        raise _fail(where, "expected a table/object")
    unknown = sorted(set(raw) - _AGENT_KEYS)
    if unknown:
        raise _fail(
            f"{where}.{unknown[0]}", f"unknown setting; known: {', '.join(sorted(_AGENT_KEYS))}"
        )
    provider = raw.get("provider")
    known = providers()
    if provider not in known:
        raise _fail(f"{where}.provider", f"expected one of {', '.join(known)}, got {provider!r}")
    name = raw.get("name", provider)
    if not isinstance(name, str) or not name or "/" in name:
        raise _fail(f"{where}.name", "expected a non-empty name without '/'")
    model = raw.get("model")
    if model is not None and not isinstance(model, str):
        raise _fail(f"{where}.model", "expected a string")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise _fail(f"{where}.params", "expected a table/object of request options")
    base_url = raw.get("base_url")
    if base_url is not None and not isinstance(base_url, str):
        raise _fail(f"{where}.base_url", "expected a URL string")
    pace = raw.get("pace", 0.0)
    if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not 0 <= pace <= 10:
        raise _fail(f"{where}.pace", "expected seconds between 0 and 10")
    return AgentConfig(
        name=name,
        provider=provider,
        model=model,
        params=dict(params),
        base_url=base_url,
        key_env=_str_tuple(raw.get("key_env", ()), f"{where}.key_env"),
        cassettes=_str_tuple(raw.get("cassettes", ()), f"{where}.cassettes"),
        pace=float(pace),
    )


def config_from_mapping(raw: Any) -> ServerConfig:
    """A whole config document (``agents``, ``body_limit``, ``inspector``) as a ServerConfig."""
    if not isinstance(raw, Mapping):
        raise _fail("document", "expected a table/object at the top")
    unknown = sorted(set(raw) - {"agents", "body_limit", "inspector"})
    if unknown:
        raise _fail(unknown[0], "unknown setting; known: agents, body_limit, inspector")
    agents_raw = raw.get("agents", [{"provider": "replay"}])
    if not isinstance(agents_raw, Sequence) or isinstance(agents_raw, str) or not agents_raw:
        raise _fail("agents", "expected a non-empty list of agents")
    agents = tuple(agent_from_mapping(a, f"agents[{i}]") for i, a in enumerate(agents_raw))
    limit = raw.get("body_limit", DEFAULT_BODY_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise _fail("body_limit", "expected a positive number of bytes")
    inspector = raw.get("inspector", "/inspector")
    if inspector is not False and (not isinstance(inspector, str) or not inspector.startswith("/")):
        raise _fail("inspector", "expected a mount path starting with '/', or false")
    return checked(ServerConfig(agents=agents, body_limit=limit, inspector=inspector or None))


def checked(config: ServerConfig) -> ServerConfig:
    """``config`` when its agent names are unique and its providers known."""
    seen: set[str] = set()
    known = providers()
    for agent in config.agents:
        if agent.provider not in known:
            raise _fail(f"agent {agent.name!r}", f"unknown provider {agent.provider!r}")
        if agent.name in seen:
            raise _fail(f"agent {agent.name!r}", "two agents have this name")
        seen.add(agent.name)
    return config


def load_config(path: str | Path) -> ServerConfig:
    """A config file: TOML (``.toml``) or JSON."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"config: {p}: {exc.strerror or exc}") from None
    if p.suffix.lower() == ".toml":
        try:
            import tomllib  # type: ignore[import-not-found,unused-ignore]
        except ImportError:  # Python 3.10
            raise ConfigError(f"config: {p}: TOML needs Python 3.11+; use JSON") from None
        try:
            raw: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config: {p}: not valid TOML: {exc}") from None
    else:
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"config: {p}: not valid JSON: {exc}") from None
    return config_from_mapping(raw)


__all__ = [
    "DEFAULT_BODY_LIMIT",
    "REPLAY",
    "AgentConfig",
    "ConfigError",
    "ServerConfig",
    "agent_from_mapping",
    "checked",
    "config_from_mapping",
    "default_models",
    "load_config",
    "providers",
]

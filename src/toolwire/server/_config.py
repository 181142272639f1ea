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

#: the environment variable whose value, when set, every agent request must carry as a bearer token
DEFAULT_TOKEN_ENV = "TOOLWIRE_TOKEN"

#: the server's own waits and caps (seconds, counts); docs/reliability.md says why each
DEFAULT_LIMITS: dict[str, float] = {
    "header_timeout": 10.0,  # a request's headers must arrive within this (408 after)
    "body_timeout": 30.0,  # its body within this, once the headers came (408 after)
    "run_deadline": 900.0,  # one run, start to end (RUN_ERROR code "deadline" after)
    "max_connections": 100,  # open connections (uvicorn answers 503 beyond)
    "max_runs": 16,  # runs streaming at once (503 "busy" beyond)
    "max_encoding_threads": 4,  # worker threads converting run input off the event loop
}


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
    #: Host header names accepted besides the loopback ones (``"*"``: any, behind your proxy)
    allowed_hosts: tuple[str, ...] = ()
    #: browser origins (``scheme://host[:port]``) accepted besides the server's own
    allowed_origins: tuple[str, ...] = ()
    #: the environment variable holding the bearer token (read at start-up; unset: no token)
    token_env: str = DEFAULT_TOKEN_ENV
    header_timeout: float = DEFAULT_LIMITS["header_timeout"]
    body_timeout: float = DEFAULT_LIMITS["body_timeout"]
    run_deadline: float = DEFAULT_LIMITS["run_deadline"]
    max_connections: int = int(DEFAULT_LIMITS["max_connections"])
    max_runs: int = int(DEFAULT_LIMITS["max_runs"])
    max_encoding_threads: int = int(DEFAULT_LIMITS["max_encoding_threads"])


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


_SERVER_KEYS = {
    "agents",
    "body_limit",
    "inspector",
    "allowed_hosts",
    "allowed_origins",
    "token_env",
    *DEFAULT_LIMITS,
}


def _limit(raw: Mapping[str, Any], name: str) -> float:
    value = raw.get(name, DEFAULT_LIMITS[name])
    whole = name.startswith("max_")
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (whole and not isinstance(value, int))
        or not 0 < value < 1e9
    ):
        kind = "a positive whole number" if whole else "a positive number of seconds"
        raise _fail(name, f"expected {kind}, got {value!r}")
    return value


def _origin(value: str, where: str) -> str:
    scheme, sep, rest = value.partition("://")
    if value == "*" or (scheme in ("http", "https") and sep and rest and "/" not in rest):
        return value.lower()
    raise _fail(where, f"expected an origin such as https://ui.example:8443, got {value!r}")


def config_from_mapping(raw: Any) -> ServerConfig:
    """A whole config document (``agents``, ``body_limit``, ``inspector``, the request checks
    and limits) as a ServerConfig."""
    if not isinstance(raw, Mapping):
        raise _fail("document", "expected a table/object at the top")
    unknown = sorted(set(raw) - _SERVER_KEYS)
    if unknown:
        raise _fail(unknown[0], f"unknown setting; known: {', '.join(sorted(_SERVER_KEYS))}")
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
    hosts = tuple(h.lower() for h in _str_tuple(raw.get("allowed_hosts", ()), "allowed_hosts"))
    origins = _str_tuple(raw.get("allowed_origins", ()), "allowed_origins")
    token_env = raw.get("token_env", DEFAULT_TOKEN_ENV)
    if not isinstance(token_env, str) or not token_env:
        raise _fail("token_env", "expected the name of an environment variable")
    return checked(
        ServerConfig(
            agents=agents,
            body_limit=limit,
            inspector=inspector or None,
            allowed_hosts=hosts,
            allowed_origins=tuple(
                _origin(o, f"allowed_origins[{i}]") for i, o in enumerate(origins)
            ),
            token_env=token_env,
            header_timeout=_limit(raw, "header_timeout"),
            body_timeout=_limit(raw, "body_timeout"),
            run_deadline=_limit(raw, "run_deadline"),
            max_connections=int(_limit(raw, "max_connections")),
            max_runs=int(_limit(raw, "max_runs")),
            max_encoding_threads=int(_limit(raw, "max_encoding_threads")),
        )
    )


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
    for name in DEFAULT_LIMITS:
        _limit({name: getattr(config, name)}, name)
    for i, origin in enumerate(config.allowed_origins):
        _origin(origin, f"allowed_origins[{i}]")
    if not isinstance(config.token_env, str) or not config.token_env:
        raise _fail("token_env", "expected the name of an environment variable")
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
    "DEFAULT_LIMITS",
    "DEFAULT_TOKEN_ENV",
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

"""The checks every request passes before the app sees it: who may spend the server's keys.

A page open in the developer's browser can send a cross-site ``POST`` without a preflight
when its body is ``text/plain``, and a DNS-rebinding page reaches ``127.0.0.1`` under its own
host name. So, in this order (docs/reliability.md, "The server's security model"):

1. ``Host`` must name the loopback interface (``localhost``, ``127.0.0.1``, ``[::1]``), the
   address the server was bound to, or a configured name: a rebinding page's host is none.
2. ``Origin``, when a browser sends one, must be the server's own (the inspector page is
   served from it) or a configured origin; ``Origin: null`` and a ``Sec-Fetch-Site:
   cross-site`` request without an ``Origin`` are refused.
3. A ``POST`` must say ``Content-Type: application/json``: a browser sends that cross-site
   only after a preflight, which this server answers only for configured origins.
4. With a token configured, every request to the agents carries ``Authorization: Bearer``
   with it (compared in constant time). The inspector page's own files stay public; a page
   that runs agents on such a server must send the header itself.

Each refusal is a 4xx JSON ``{"error", "reason"}`` like the app's own, and is logged.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("toolwire.server")

#: the names of the loopback interface a local browser may use as ``Host``
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def host_name(value: str) -> str:
    """The host of a ``Host`` header or an origin's authority: no port, brackets, final dot.

    Anything after the host but a ``:`` and digits is kept, so a malformed value
    (``localhost:80.evil.example``, ``[::1]x``) names no accepted host.
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value
        rest = value[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return value
        return value[1:end]
    if value.count(":") == 1:
        name, port = value.split(":", 1)
        if port and not port.isdigit():
            return value
        value = name
    return value.rstrip(".")


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name is the loopback interface only."""
    name = host_name(host)
    return name in LOOPBACK_HOSTS or name.startswith("127.")


def _authority(scheme: str, authority: str) -> str:
    """``host:port`` with the scheme's default port spelled out, for comparing."""
    authority = authority.strip().lower()
    if authority.startswith("[") and "]" in authority:
        end = authority.index("]")
        name, rest = authority[1:end], authority[end + 1 :]
        port = rest[1:] if rest.startswith(":") else ""
    elif authority.count(":") == 1:
        name, port = authority.split(":")
    else:
        name, port = authority, ""
    return f"{name.rstrip('.')}:{port or _DEFAULT_PORTS.get(scheme, '')}"


class RequestGuard:
    """ASGI middleware: Host, Origin, content type and bearer token, before the app."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: set[str],
        origins: Iterable[str],
        token: str | None,
        public_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.hosts = hosts  # shared: make_server adds the address it binds
        self.origins = frozenset(o.lower().rstrip("/") for o in origins)
        self.token = token
        self.public_prefixes = public_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope, Headers(scope=scope))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, error, reason = refusal
        log.info("refused %s %s (%s): %s", scope["method"], scope["path"], status, reason)
        headers = {"www-authenticate": "Bearer"} if status == 401 else None
        response = JSONResponse({"error": error, "reason": reason}, status, headers=headers)
        await response(scope, receive, send)

    def refusal(self, scope: Scope, headers: Headers) -> tuple[int, str, str] | None:
        """``(status, error, reason)`` when the request must not reach the app."""
        host = headers.get("host")
        if host is None:
            return 400, "no_host", "the request has no Host header"
        if "*" not in self.hosts and host_name(host) not in LOOPBACK_HOSTS | self.hosts:
            return (
                403,
                "host_not_allowed",
                f"Host {host!r} is not this server's (add it to allowed_hosts)",
            )
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin, host, scope):
            return (
                403,
                "origin_not_allowed",
                f"requests from the page at {origin!r} are not allowed (add it to allowed_origins)",
            )
        method = scope["method"]
        navigation = method in ("GET", "HEAD") and headers.get("sec-fetch-mode") == "navigate"
        if origin is None and headers.get("sec-fetch-site") == "cross-site" and not navigation:
            # (a person following a link to the page is a navigation: let it in)
            return 403, "origin_not_allowed", "a cross-site browser request without an Origin"
        if method not in _SAFE_METHODS:
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if media != "application/json":
                shown = media or "none"
                return (
                    415,
                    "not_json_content_type",
                    f"the body must be sent as Content-Type: application/json (got {shown})",
                )
        if self.token is not None and method != "OPTIONS" and not self._public(scope, method):
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            expected = self.token.encode("utf-8")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode("utf-8"), expected
            ):
                return 401, "unauthorized", "this server needs Authorization: Bearer <token>"
        return None

    def _public(self, scope: Scope, method: str) -> bool:
        """The inspector page's files and the home redirect: read without a token."""
        if method not in ("GET", "HEAD"):
            return False
        root = scope.get("root_path", "")
        path: str = scope["path"]
        if root and path.startswith(root):
            path = path[len(root) :]
        if path.startswith("/agents"):
            return False
        return path in ("", "/") or any(path.startswith(p) for p in self.public_prefixes)

    def _origin_ok(self, origin: str, host: str, scope: Scope) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins or "*" in self.origins:
            return True
        scheme, sep, authority = origin.partition("://")
        if not sep or scheme not in _DEFAULT_PORTS or not authority or "/" in authority:
            return False  # "null", a file: page, anything not an origin
        own = str(scope.get("scheme", "http"))
        # the server's own origin: the page was loaded from the Host this request names
        return _authority(scheme, authority) == _authority(own, host) or (
            scheme != own and _authority(own, authority) == _authority(own, host)
        )


__all__ = ["LOOPBACK_HOSTS", "RequestGuard", "host_name", "is_loopback"]

"""Who may use the endpoint: Host, Origin, content type and bearer token (issue 35, item 1).

A page the developer has open must not start runs that spend the configured key (a
``text/plain`` POST needs no preflight), and a DNS-rebinding page must not read answers.
The browser tests drive Debian's chromium: a hostile page on another origin, and a
rebinding host name mapped to 127.0.0.1 by the browser's resolver rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from _serve import asgi_client, live_server, run_input
from playwright.sync_api import sync_playwright
from starlette.types import ASGIApp, Receive, Scope, Send

from toolwire.server import ConfigError, config_from_mapping, create_app, make_server

HELLO = run_input([{"id": "u1", "role": "user", "content": "hello"}])
BODY = json.dumps(HELLO)
JSON = {"content-type": "application/json"}


async def _post(app: Any, path: str = "/agents/replay", **kw: Any) -> httpx.Response:
    async with asgi_client(app) as client:
        return await client.post(path, **kw)


async def test_a_cross_site_text_plain_post_never_starts_a_run() -> None:
    browser = {
        "origin": "http://evil.example",
        "content-type": "text/plain;charset=UTF-8",
        "sec-fetch-site": "cross-site",
    }
    r = await _post(create_app(), content=BODY, headers=browser)
    assert r.status_code == 403 and r.json()["error"] == "origin_not_allowed"
    assert "evil.example" in r.json()["reason"]


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
async def test_a_body_that_is_not_declared_json_is_refused(content_type: str) -> None:
    headers = {"content-type": content_type} if content_type else {}
    r = await _post(create_app(), content=BODY, headers=headers)
    assert r.status_code == 415 and r.json()["error"] == "not_json_content_type"


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8000",
        "127.0.0.1.nip.io",
        "localhost.evil",
        "[::2]",
        "localhost:8000.evil.example",
        "[::1]evil",
        "127.0.0.1@evil.example",
    ],
)
async def test_a_foreign_host_header_is_refused(host: str) -> None:
    async with asgi_client(create_app()) as client:
        listed = await client.get("/agents", headers={"host": host})
        run = await client.post("/agents/replay", content=BODY, headers={**JSON, "host": host})
    for r in (listed, run):
        assert r.status_code == 403 and r.json()["error"] == "host_not_allowed"


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:9", "LOCALHOST."])
async def test_loopback_hosts_and_the_same_origin_are_served(host: str) -> None:
    scheme_host = host.rstrip(".")
    headers = {**JSON, "host": host, "origin": f"http://{scheme_host}"}
    r = await _post(create_app(), content=BODY, headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize(
    "origin", ["null", "http://127.0.0.1:9999", "https://127.0.0.1", "file://", "http://localhost"]
)
async def test_other_origins_are_refused(origin: str) -> None:
    headers = {**JSON, "host": "127.0.0.1:8000", "origin": origin}
    r = await _post(create_app(), content=BODY, headers=headers)
    assert r.status_code == 403 and r.json()["error"] == "origin_not_allowed"


async def test_configured_hosts_and_origins_are_accepted_with_a_preflight() -> None:
    app = create_app(
        {"allowed_hosts": ["agents.internal"], "allowed_origins": ["https://ui.example"]}
    )
    async with asgi_client(app) as client:
        pre = await client.options(
            "/agents/replay",
            headers={
                "host": "agents.internal",
                "origin": "https://ui.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        run = await client.post(
            "/agents/replay",
            content=BODY,
            headers={**JSON, "host": "agents.internal", "origin": "https://ui.example"},
        )
        other = await client.post(
            "/agents/replay",
            content=BODY,
            headers={**JSON, "host": "agents.internal", "origin": "https://ui.example.evil"},
        )
    assert pre.status_code == 200
    assert pre.headers["access-control-allow-origin"] == "https://ui.example"
    assert run.status_code == 200
    assert run.headers["access-control-allow-origin"] == "https://ui.example"
    assert other.status_code == 403


async def test_a_token_guards_the_agents_but_not_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TW_GUARD_TOKEN", "s3cret-token-value")
    app = create_app({"token_env": "TW_GUARD_TOKEN"})
    async with asgi_client(app) as client:
        none = await client.post("/agents/replay", content=BODY, headers=JSON)
        wrong = await client.post(
            "/agents/replay", content=BODY, headers={**JSON, "authorization": "Bearer nope"}
        )
        listed = await client.get("/agents")
        good = await client.post(
            "/agents/replay",
            content=BODY,
            headers={**JSON, "authorization": "Bearer s3cret-token-value"},
        )
        page = await client.get("/inspector/")
    for r in (none, wrong, listed):
        assert r.status_code == 401 and r.json()["error"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
        assert "s3cret" not in r.text
    assert good.status_code == 200
    assert page.status_code == 200


def test_binding_beyond_loopback_needs_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLWIRE_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="TOOLWIRE_TOKEN"):
        make_server(create_app(), "0.0.0.0", 8000)
    with pytest.raises(ConfigError, match="bearer token"):
        make_server(create_app(), "192.168.1.20", 8000)
    make_server(create_app(), "127.0.0.1", 8000)  # loopback: no token needed
    monkeypatch.setenv("TOOLWIRE_TOKEN", "tok-for-the-lan")
    app = create_app()
    make_server(app, "192.168.1.20", 8000)
    assert "192.168.1.20" in app.state.toolwire.hosts  # the bound address is an accepted Host


def test_guard_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="allowed_origins"):
        config_from_mapping({"allowed_origins": ["ui.example"]})
    with pytest.raises(ConfigError, match="token_env"):
        config_from_mapping({"token_env": ""})


class _Runs:
    """Outermost ASGI layer: what the app answered to each request that reached it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[tuple[str, str, int]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["method"], scope["path"], message["status"]))
            await send(message)

        await self.app(scope, receive, send=sending)


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
#: Chromium's own local-network checks off: the server must hold without them (other browsers,
#: older versions, a page served from the local network)
NO_LOCAL_NETWORK_CHECKS = (
    "--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessSendPreflights,"
    "PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests"
)

HOSTILE = """<!doctype html><script>
window.outcome = (async () => {
  const out = {};
  try {  // a "simple" request: the browser sends it without asking the server first
    await fetch(TARGET, {method: "POST", mode: "no-cors",
                         headers: {"content-type": "text/plain"}, body: BODY});
    out.simple = "sent";
  } catch (e) { out.simple = "failed: " + e; }
  try {  // a JSON request: a preflight first, which the server does not allow
    const r = await fetch(TARGET, {method: "POST",
                                   headers: {"content-type": "application/json"}, body: BODY});
    out.json = await r.text();
  } catch (e) { out.json = "blocked"; }
  return out;
})();
</script>"""


def test_a_page_on_another_origin_cannot_start_a_run(chromium: Path, tmp_path: Path) -> None:
    app = create_app()
    seen = _Runs(app.middleware_stack or app.build_middleware_stack())
    app.middleware_stack = seen  # type: ignore[assignment]
    with live_server(app) as (_, base), sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(chromium), args=[*FLAGS, NO_LOCAL_NETWORK_CHECKS], headless=True
        )
        try:
            page = browser.new_page()
            script = HOSTILE.replace("TARGET", json.dumps(f"{base}/agents/replay")).replace(
                "BODY", json.dumps(BODY)
            )
            # another origin on this machine (a page from the public web meets Chromium's
            # private network checks as well; this one meets only the server's)
            page.route(
                "http://localhost:1/**",
                lambda route: route.fulfill(body=script, content_type="text/html"),
            )
            page.goto("http://localhost:1/")
            outcome = page.evaluate("window.outcome")
        finally:
            browser.close()
    assert outcome == {"simple": "sent", "json": "blocked"}
    # the simple POST reached the server and was refused before any run; nothing else got in
    posts = [s for s in seen.seen if s[0] == "POST"]
    assert posts and all(status == 403 for _, _, status in posts), seen.seen
    assert all(status >= 400 for _, _, status in seen.seen), seen.seen


def test_a_dns_rebinding_page_reads_nothing(chromium: Path, tmp_path: Path) -> None:
    """The browser resolves rebind.test to 127.0.0.1, as a rebinding attack's DNS would."""
    with live_server(create_app()) as (_, base), sync_playwright() as pw:
        port = base.rsplit(":", 1)[1]
        browser = pw.chromium.launch(
            executable_path=str(chromium),
            args=[*FLAGS, "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
            headless=True,
        )
        try:
            page = browser.new_page()
            answer = page.goto(f"http://rebind.test:{port}/agents")
            assert answer is not None
            status, body = answer.status, answer.text()
            posted = page.evaluate(
                """async (body) => {
                    const r = await fetch("/agents/replay", {method: "POST",
                        headers: {"content-type": "application/json"}, body});
                    return [r.status, await r.text()];
                }""",
                BODY,
            )
        finally:
            browser.close()
    assert status == 403 and json.loads(body)["error"] == "host_not_allowed"
    assert posted[0] == 403 and "RUN_STARTED" not in posted[1]


async def test_a_link_from_another_site_opens_the_page_but_fetches_nothing() -> None:
    cross = {"sec-fetch-site": "cross-site", "host": "127.0.0.1:8000"}
    async with asgi_client(create_app()) as client:
        page = await client.get("/inspector/", headers={**cross, "sec-fetch-mode": "navigate"})
        fetched = await client.get("/agents", headers={**cross, "sec-fetch-mode": "no-cors"})
    assert page.status_code == 200
    assert fetched.status_code == 403 and fetched.json()["error"] == "origin_not_allowed"


def test_the_serve_command_refuses_to_bind_beyond_loopback_without_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    from toolwire import cli

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn.Server, "run", never)
    monkeypatch.delenv("TOOLWIRE_TOKEN", raising=False)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "8000"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TOOLWIRE_TOKEN" in err and "Traceback" not in err

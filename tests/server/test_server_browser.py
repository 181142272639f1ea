"""The inspector page in headless Chromium: a person's frontend-tool round trip, offline.

Debian's chromium driven by Playwright's Python API (``executable_path``: no browser
download). What the page must show comes from the recording: the tool's name and arguments
(turn 1's stream), the result the recording's turn 2 request carries, and turn 2's text.
The screenshot is kept in the test's own folder (``tmp_path``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from _serve import (
    FRONTEND,
    live_server,
    recorded_calls,
    recorded_requests,
    recorded_sse_events,
    recorded_text,
)
from playwright.sync_api import expect, sync_playwright

from toolwire.server import create_app

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_the_inspector_plays_a_frontend_tool_round_trip(chromium: Path, tmp_path: Path) -> None:
    turns = recorded_sse_events(FRONTEND)
    first_request, second_request = recorded_requests(FRONTEND)
    question = first_request["messages"][0]["content"]
    ((call_id, name, arguments),) = recorded_calls(turns[0])
    result = second_request["messages"][2]["content"][0]["content"]
    shot = tmp_path / "inspector_frontend_tool.png"

    with live_server(create_app()) as (_, base), sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(chromium),
            args=FLAGS,
            headless=True,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            page = context.new_page()
            page.goto(f"{base}/")  # redirects to the inspector
            expect(page.get_by_role("button", name="Agent replay")).to_be_visible()
            # the page offers the recorded opening prompts: one click sends this one
            offered = page.get_by_role("group", name="Quick messages")
            offered.get_by_role("button", name=question, exact=True).click()

            card = page.locator(".agui-conv .agui-card").filter(has_text=call_id)
            expect(card.locator(".agui-card-h")).to_contain_text(name)
            expect(card.locator(".agui-card-h")).to_contain_text("client tool")
            shown = card.locator(f'pre[aria-label="Arguments of {name}"]').first
            assert json.loads(shown.inner_text()) == arguments

            page.get_by_label(f"Result for {name} ({call_id})").fill(result)
            page.get_by_role("button", name=f"Submit result for {call_id}").click()

            expect(card).to_contain_text("Result received")
            expect(card).to_contain_text(result)
            conversation = page.locator(".agui-app-conversation")
            expect(conversation).to_contain_text(recorded_text(turns[1]))
            issues = page.get_by_test_id("frames").get_by_role("button", name="Issues")
            expect(issues).to_have_text(re.compile(r"Issues\s*0"))  # the page's own frame checks
            page.screenshot(path=str(shot), full_page=True)
        finally:
            context.close()
    assert shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")

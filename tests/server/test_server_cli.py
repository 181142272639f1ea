"""``toolwire serve`` as a person runs it: a process that says where the page is, then serves it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from _serve import free_port

TOOLWIRE = Path(sys.executable).parent / "toolwire"


def _start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(TOOLWIRE), "serve", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def _wait_for(base: str, proc: subprocess.Popen[str], within: float = 30) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"toolwire serve exited: {proc.stderr.read() if proc.stderr else ''}"
            )
        try:
            httpx.get(f"{base}/agents", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"toolwire serve did not answer within {within:.0f} s")


def test_serve_says_where_the_page_is_and_stops_on_ctrl_c() -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    proc = _start("--port", str(port), "--provider", "replay", "--provider", "anthropic", env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(base, proc)
        agents = httpx.get(f"{base}/agents").json()
        page = httpx.get(f"{base}/inspector/")
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "toolwire serve: stopped" in err
    assert f"open http://127.0.0.1:{port}/inspector/" in err
    assert [(a["name"], a["available"]) for a in agents] == [("replay", True), ("anthropic", False)]
    assert "ANTHROPIC_API_KEY" in agents[1]["reason"]
    assert page.status_code == 200


def test_a_bad_config_is_one_line_and_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "serve.toml"
    bad.write_text('[[agents]]\nprovider = "acme"\n')
    done = subprocess.run(
        [str(TOOLWIRE), "serve", "--config", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "agents[0].provider" in done.stderr and "acme" in done.stderr


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def test_serve_with_workers_answers_from_several_processes_and_stops_on_ctrl_c() -> None:
    port = free_port()
    proc = _start("--port", str(port), "--provider", "replay", "--workers", "2")
    base = f"http://127.0.0.1:{port}"
    try:
        # each worker process imports the server anew: a loaded machine takes a while
        _wait_for(base, proc, within=120)
        answers = [httpx.get(f"{base}/agents").json() for _ in range(4)]
        # the worker processes below the parent (multiprocessing's spawn runs them as
        # ``python -c "from multiprocessing.spawn import spawn_main ..."``)
        workers = [p for p in _children(proc.pid) if "spawn_main" in _cmdline(p)]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert "(2 worker processes)" in err and "toolwire serve: stopped" in err
    assert all(a == answers[0] for a in answers) and answers[0][0]["name"] == "replay"
    assert len(workers) == 2


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_serve_refuses_zero_workers() -> None:
    done = subprocess.run(
        [str(TOOLWIRE), "serve", "--workers", "0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2  # a usage error
    assert "--workers" in done.stderr

"""`./dev test` sets up what the suite needs on a bare machine, or stops with one line.

The real script runs in a copy of the checkout's skeleton with a PATH of its own: the tools a
POSIX shell script uses, plus fakes of `id`, `apt-get`, `npm` and `node` that log their calls
(and, for apt-get, install a stand-in chromium). The Python environment is the stamped one the
script skips, so nothing here touches the network, the system or the real checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("sh", "cat", "cksum", "cut", "dirname", "mkdir", "touch", "chmod")


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


class Machine:
    """A skeleton checkout and a PATH holding only what each case puts there."""

    def __init__(self, tmp: Path, *, uid: int, has: tuple[str, ...]) -> None:
        self.root = tmp / "checkout"
        self.bin = tmp / "bin"
        self.log = tmp / "calls.log"
        self.chromium = tmp / "usr-bin" / "chromium"
        self.bin.mkdir()
        (self.root / "tests/server/js").mkdir(parents=True)
        shutil.copy(ROOT / "dev", self.root / "dev")
        shutil.copy(ROOT / "pyproject.toml", self.root / "pyproject.toml")
        (self.root / "tests/server/js/package-lock.json").write_text("{}", encoding="utf-8")
        venv = self.root / ".venv"
        (venv / "bin").mkdir(parents=True)
        _script(venv / "bin" / "python", "exit 0")  # stamped below: the script skips pip
        stamp = subprocess.run(
            ["sh", "-c", "cksum < pyproject.toml | cut -d' ' -f1"],
            cwd=self.root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (venv / ".toolwire-installed").write_text(stamp, encoding="utf-8")
        for tool in TOOLS:
            found = shutil.which(tool)
            assert found is not None, tool
            (self.bin / tool).symlink_to(found)
        log = f'echo "$0 $*" | sed "s|{self.bin}/||" >> {self.log}'
        (self.bin / "sed").symlink_to(shutil.which("sed") or "/bin/sed")
        _script(self.bin / "id", f'[ "$1" = -u ] && echo {uid}')
        install_chromium = f"mkdir -p {self.chromium.parent}; touch {self.chromium}; "
        install_chromium += f"chmod +x {self.chromium}"
        _script(
            self.bin / "apt-get",
            f'{log}\ncase "$*" in *install*chromium*) {install_chromium};; esac',
        )
        npm_ci = "mkdir -p node_modules && echo {} > node_modules/.package-lock.json"
        for name in has:
            if name == "chromium":
                self.chromium.parent.mkdir(exist_ok=True)
                _script(self.chromium, "exit 0")
            elif name == "npm":
                _script(self.bin / "npm", f"{log}\n{npm_ci}")
            else:
                _script(self.bin / name, "exit 0")

    def dev(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(self.bin), "TOOLWIRE_CHROMIUM": str(self.chromium), "HOME": "/"}
        return subprocess.run(
            ["sh", str(self.root / "dev"), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


def test_everything_present_and_done_costs_no_install(tmp_path: Path) -> None:
    m = Machine(tmp_path, uid=1000, has=("chromium", "npm", "node"))
    js = m.root / "tests/server/js/node_modules"
    js.mkdir()
    (js / ".package-lock.json").write_text("{}", encoding="utf-8")
    os.utime(m.root / "tests/server/js/package-lock.json", (1, 1))  # older than the install
    done = m.dev("setup")
    assert (done.returncode, done.stderr) == (0, "")
    assert m.calls() == []


def test_without_root_a_missing_chromium_stops_at_once_with_one_line(tmp_path: Path) -> None:
    m = Machine(tmp_path, uid=1000, has=("npm", "node"))
    done = m.dev("test", "-q")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "sudo apt-get install -y chromium" in lines[0]
    assert m.calls() == []  # nothing tried, pytest never started


def test_as_root_chromium_and_node_are_installed_then_the_npm_packages(tmp_path: Path) -> None:
    m = Machine(tmp_path, uid=0, has=())
    npm_log = f'echo "$0 $*" | sed "s|{m.bin}/||" >> {m.log}'
    npm_ci = "mkdir -p node_modules && echo {} > node_modules/.package-lock.json"
    # apt-get's npm and nodejs arrive as the fake apt-get runs: put them in place for it
    apt = m.bin / "apt-get"
    apt.write_text(
        apt.read_text()
        + f"\ncase \"$*\" in *install*) printf '#!/bin/sh\\n{npm_log}\\n{npm_ci}\\n' > {m.bin}/npm;"
        f" chmod +x {m.bin}/npm; printf '#!/bin/sh\\n' > {m.bin}/node; chmod +x {m.bin}/node;;"
        " esac\n"
    )
    done = m.dev("setup")
    assert done.returncode == 0, done.stderr
    calls = m.calls()
    assert calls[0] == "apt-get update -q"
    assert calls[1].startswith("apt-get install -y -q")
    assert calls[1].split()[-3:] == ["chromium", "npm", "nodejs"]
    assert calls[2:] == ["npm ci --no-audit --no-fund --loglevel=error"]
    assert (m.root / "tests/server/js/node_modules/.package-lock.json").exists()

    again = m.dev("setup")  # idempotent: the second run finds it all done
    assert again.returncode == 0, again.stderr
    assert m.calls() == calls


def test_as_root_without_apt_get_says_what_to_install(tmp_path: Path) -> None:
    m = Machine(tmp_path, uid=0, has=("npm", "node"))
    (m.bin / "apt-get").unlink()
    done = m.dev("setup")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert "chromium" in done.stderr and "package manager" in done.stderr

"""The suite's server and tools: one real aware-server for the session, a TCP proxy that can cut
its connections, and the fresh-venv install the README test uses (started at once, in the
background, so that it overlaps the other tests).

The server binary is $AWARE_SERVER_BIN (scripts/test sets it), else the debug build in
$CARGO_TARGET_DIR (default ~/.cache/aware-target).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Iterator, List, Optional, Set

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
README = ROOT / "README.md"


def server_bin() -> pathlib.Path:
    if os.environ.get("AWARE_SERVER_BIN"):
        return pathlib.Path(os.environ["AWARE_SERVER_BIN"])
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/aware-target")
    return pathlib.Path(target) / "debug" / "aware-server"


@dataclass
class Server:
    addr: str
    process: subprocess.Popen
    log: pathlib.Path

    @property
    def host(self) -> str:
        return self.addr.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.addr.rsplit(":", 1)[1])

    def logs(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    binary = server_bin()
    assert binary.exists(), f"{binary} is missing: build aware-server (scripts/test does) or set AWARE_SERVER_BIN"
    work = tmp_path_factory.mktemp("aware-server")
    env = {k: v for k, v in os.environ.items() if k not in ("AWARE_SERVER_BIN", "AWARE_LISTEN")}
    env.update(
        AWARE_LOG_LEVEL="warn",
        # Each tool takes a moment, so a run can be cut or cancelled mid-way; heartbeats come often.
        AWARE_AGENT__TOOL_DELAY_MS="800",
        AWARE_AGENT__HEARTBEAT_MS="200",
        # A slow query is stopped after a second (the timeout test needs no 5 s wait).
        AWARE_SANDBOX__TIMEOUT_MS="1000",
    )
    log = work / "server.log"
    argv = [str(binary), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(work / "data")]
    process, addr = start_server(argv, env, log)
    server = Server(addr=addr, process=process, log=log)
    try:
        yield server
    finally:
        stop_server(process)


def start_server(argv: List[str], env: dict, log: pathlib.Path) -> "tuple[subprocess.Popen, str]":
    """Starts ``aware-server`` (``argv``) with its stderr in ``log``; returns the process and the
    address it says it listens on, or fails the test after 120 s."""
    with open(log, "wb") as stderr:
        process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr)
    found: List[str] = []
    ready = threading.Event()

    def read_stdout() -> None:  # keeps draining, so the server never blocks on a full pipe
        assert process.stdout is not None
        for raw in process.stdout:
            m = re.match(r"aware-server listening on (\S+)", raw.decode(errors="replace"))
            if m and not found:
                found.append(m.group(1))
                ready.set()

    threading.Thread(target=read_stdout, daemon=True).start()
    if not ready.wait(120):
        process.kill()
        process.wait()
        pytest.fail(f"aware-server did not start within 120 s:\n{log.read_text(errors='replace')}")
    return process, found[0]


def stop_server(process: subprocess.Popen) -> None:
    """SIGTERM (a graceful stop), then SIGKILL after 20 s."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Proxy:
    """A TCP proxy on 127.0.0.1 to the server. ``cut(down)`` drops every connection at once and
    refuses new ones for ``down`` seconds, then listens again on the same port — a network outage
    as a client sees it. ``freeze()`` keeps the open connections open but forwards nothing more on
    them — a connection gone silent (a dead NAT entry, a stuck middlebox)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.connections = 0
        self.cuts = 0
        self._lock = threading.Lock()
        self._sockets: List[socket.socket] = []
        self._frozen: Set[socket.socket] = set()
        self._closed = False
        self._listener = self._listen(0)
        self.port = self._listener.getsockname()[1]
        self._start_accepting()

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _listen(self, port: int) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(64)
        s.settimeout(0.05)
        return s

    def _start_accepting(self) -> None:
        listener = self._listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            with self._lock:
                if listener is not self._listener or self._closed:
                    return
            try:
                client, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            client.settimeout(None)
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self._lock:
                self.connections += 1
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if src in self._frozen:
                    continue  # swallowed: the other side hears nothing
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self, down: float = 0.5) -> None:
        """Drops every connection now; listens again after ``down`` seconds (in the background)."""
        with self._lock:
            self.cuts += 1
            old, self._listener = self._listener, None  # type: ignore[assignment]
            sockets, self._sockets = self._sockets, []
        if old is not None:
            old.close()
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

        def reopen() -> None:
            time.sleep(down)
            listener = self._listen(self.port)
            with self._lock:
                if self._closed:
                    listener.close()
                    return
                self._listener = listener
            self._start_accepting()

        threading.Thread(target=reopen, daemon=True).start()

    def freeze(self) -> None:
        """Forwards nothing more on the connections open now; new ones work."""
        with self._lock:
            self.cuts += 1
            self._frozen.update(self._sockets)  # the sockets themselves: an id() can be reused

    def close(self) -> None:
        with self._lock:
            self._closed = True
            listener, sockets = self._listener, self._sockets
        if listener is not None:
            listener.close()
        for s in sockets:
            s.close()


@pytest.fixture
def proxy(server: Server) -> Iterator[Proxy]:
    p = Proxy(server.port)
    yield p
    p.close()


# -- the fresh virtualenv the README test installs the package into ----------------------------

README_INSTALL = re.compile(r'^pip install ("\./clients/python[^"]*"|\./clients/python\S*)', re.M)


def readme_install_spec() -> str:
    """The package spec of the README's ``pip install ./clients/python…`` line (quotes removed)."""
    m = README_INSTALL.search(README.read_text())
    assert m, "README.md has no `pip install ./clients/python…` line"
    return m.group(1).strip('"')


class FreshVenv:
    """``python -m venv`` in a temporary folder, then ``pip install`` of the README's spec — a user's
    first install, dependencies from PyPI included — run in the background from the session's start."""

    def __init__(self) -> None:
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="aware-fresh-venv-"))
        self.python = self.dir / "venv" / "bin" / "python"
        self.seconds: Optional[float] = None
        self.output = ""
        self.returncode: Optional[int] = None
        self._thread = threading.Thread(target=self._install, daemon=True)
        self._thread.start()

    def _install(self) -> None:
        start = time.monotonic()
        # From a clean copy of the package's folder: setuptools builds in place, and a `build/`
        # left by an earlier install could ship files the checkout no longer has.
        checkout = self.dir / "checkout"
        shutil.copytree(
            ROOT / "clients" / "python", checkout / "clients" / "python",
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache", "tests"),
        )
        steps = [
            [sys.executable, "-m", "venv", str(self.dir / "venv")],
            [str(self.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", readme_install_spec()],
        ]
        for step in steps:
            done = subprocess.run(step, cwd=checkout, capture_output=True, text=True)
            self.output += done.stdout + done.stderr
            self.returncode = done.returncode
            if done.returncode != 0:
                break
        self.seconds = time.monotonic() - start

    def wait(self, timeout: float = 300) -> "FreshVenv":
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the fresh venv install did not finish in time"
        return self


_fresh_venv: Optional[FreshVenv] = None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: List[pytest.Item]) -> None:
    global _fresh_venv
    if any("fresh_venv" in getattr(item, "fixturenames", ()) for item in items):
        _fresh_venv = FreshVenv()


@pytest.fixture(scope="session")
def fresh_venv() -> Iterator[FreshVenv]:
    venv = _fresh_venv or FreshVenv()
    yield venv.wait()
    shutil.rmtree(venv.dir, ignore_errors=True)

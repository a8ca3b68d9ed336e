"""The two-host cluster, for the tests of tests/cluster: built for each test, taken down after it."""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cluster.hosts import AppHost, Balancer, Database, Network, why_not


@dataclass
class Cluster:
    network: Network
    database: Database
    hosts: list[AppHost]
    balancer: Balancer

    def host(self, name: str) -> AppHost:
        return next(host for host in self.hosts if host.name == name)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    why = why_not()
    if why is not None:
        message = f"the two-host cluster test needs network namespaces: {why}"
        if os.environ.get("CLUSTER_REQUIRED") == "1":
            pytest.fail(message)  # .ci/run: this machine can build the cluster, so it must run, never skip
        pytest.skip(message)
    network = Network()
    parts: list = []
    try:
        database = Database(tmp_path / "pg", network.address, f"{network.prefix}.0/24")
        parts.append(database)
        hosts = [AppHost(f"app{n}", *network.host(n)) for n in (1, 2)]
        parts.extend(hosts)
        for host in hosts:
            host.start(database.url, network.address, tmp_path)
        balancer = Balancer(hosts, tmp_path)
        parts.append(balancer)
        yield Cluster(network, database, hosts, balancer)
    except BaseException:
        for log in sorted(tmp_path.glob("*.log")):
            print(f"--- {log.name}\n{log.read_text()[-3000:]}")
        raise
    finally:
        for part in reversed(parts):
            part.stop() if hasattr(part, "stop") else part.close()
        network.close()

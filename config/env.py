"""Reading the environment: shared by the settings and by scripts/dev.py (which runs before Django is set up)."""

import os
from ipaddress import IPv4Network, IPv6Network, ip_network

type Network = IPv4Network | IPv6Network


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, "1" if default else "0").strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_networks(name: str, default: str = "") -> list[Network]:
    """Addresses or networks, comma-separated ("10.0.0.2, 10.1.0.0/16"): TRUSTED_PROXIES, METRICS_ALLOWED."""
    found = []
    for item in env_list(name, default):
        try:
            found.append(ip_network(item, strict=False))
        except ValueError as error:
            raise ValueError(f"{name}: {item!r} is not an address or a network") from error
    return found

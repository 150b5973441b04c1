"""Which proxy a request goes through, from the ``*_PROXY`` and ``NO_PROXY`` environment variables.

Users behind a corporate proxy set these once for every tool they run, so provider requests honour
them the way curl and httpx do: ``HTTPS_PROXY`` for https URLs, ``HTTP_PROXY`` for http URLs,
``ALL_PROXY`` for either when the specific one is unset; the lowercase spelling wins over the
uppercase one. ``NO_PROXY`` lists hosts reached directly: ``*`` for all of them, a host name (which
also covers its subdomains), ``.example.com`` (only the subdomains), an IP address or a network in
CIDR form, each optionally with ``:port``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

from msgspec import Struct


class ProxyChoice(Struct, frozen=True):
    """A proxy to send a request through: its URL without credentials, and the credentials apart."""

    url: str
    username: str | None = None
    password: str | None = None


def _variable(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name.lower()) or environ.get(name.upper())
    return value.strip() or None if value else None


def _bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    host = host.lower().strip("[]")
    for raw in no_proxy.split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        if "://" in entry:
            entry = entry.split("://", 1)[1]
        entry_host, entry_port = entry, None
        if entry.count(":") == 1 and not entry.endswith("]"):
            entry_host, _, port_text = entry.partition(":")
            entry_port = int(port_text) if port_text.isdigit() else None
        entry_host = entry_host.strip("[]")
        if entry_port is not None and entry_port != port:
            continue
        if "/" in entry_host:
            if _in_network(host, entry_host):
                return True
            continue
        if entry_host.startswith("."):
            if host.endswith(entry_host):
                return True
            continue
        if host == entry_host or host.endswith("." + entry_host.lstrip("*.")):
            return True
    return False


def _in_network(host: str, network: str) -> bool:
    import ipaddress  # only a NO_PROXY entry in CIDR form needs it

    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network(network, strict=False)
    except ValueError:
        return False


def proxy_for(url: str, environ: Mapping[str, str] | None = None) -> ProxyChoice | None:
    """The proxy the environment names for `url`, or None to connect directly."""
    env = os.environ if environ is None else environ
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    proxy = _variable(env, f"{scheme}_proxy") or _variable(env, "all_proxy")
    if proxy is None:
        return None
    no_proxy = _variable(env, "no_proxy")
    if no_proxy and _bypassed(parts.hostname or "", parts.port or (443 if scheme == "https" else 80), no_proxy):
        return None
    if "://" not in proxy:
        proxy = "http://" + proxy  # "proxy:3128" means a plain HTTP proxy, as curl reads it
    target = urlsplit(proxy)
    netloc = target.hostname or ""
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if target.port is not None:
        netloc = f"{netloc}:{target.port}"
    return ProxyChoice(
        url=f"{target.scheme}://{netloc}",
        username=unquote(target.username) if target.username is not None else None,
        password=unquote(target.password) if target.password is not None else None,
    )


__all__ = ["ProxyChoice", "proxy_for"]

"""The SSRF address policy: which URLs, hosts and addresses Pagecast may fetch.

Every hop of every fetch goes through :meth:`AddressPolicy.check`. The URL must be ``http`` or
``https`` with a plain host (no credentials, no odd numeric spellings); the host is resolved and
*every* address it resolves to must be public unicast. Addresses that embed an IPv4 address
(IPv4-mapped, 6to4, Teredo, NAT64) are judged by the embedded address. Hosts listed in
``allow_hosts`` may resolve to loopback or private addresses (tests use this to reach 127.0.0.1),
but cloud metadata addresses are refused for every host. The operator's deny list
(:mod:`browser.deny`: address ranges and ports) is refused for every host as well.

The check returns a :class:`Target` carrying the addresses it approved, so the caller can pin its
connection to exactly those addresses and DNS rebinding between check and connect cannot slip
through.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import quote, urlsplit, urlunsplit

from browser.deny import DenyList
from browser.resolver import ResolutionError, Resolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}


def _networks(*cidrs: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr) for cidr in cidrs)


METADATA_NETWORKS = _networks(
    "169.254.0.0/16",  # link-local; 169.254.169.254 serves AWS, GCP, Azure, OpenStack and more
    "100.100.100.200/32",  # Alibaba Cloud
    "168.63.129.16/32",  # Azure wire server (a public-looking address)
    "192.0.0.192/32",  # Oracle Cloud
    "fd00:ec2::254/128",  # AWS over IPv6
)
"""Refused for every host, listed in ``allow_hosts`` or not."""

# Also checked by ipaddress's is_global, but what that covers has changed between Python
# releases, so the ranges that matter most are spelled out here too.
NON_PUBLIC_NETWORKS = _networks(
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/3",
    "::/127",
    "64:ff9b:1::/48",  # local-use NAT64: a private translator
    "100::/64",
    "2001::/23",
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
)

# IPv6 ranges whose last 32 bits are the IPv4 address really reached.
_LAST_32_BITS = _networks("64:ff9b::/96", "::ffff:0:0:0/96", "::/96")

_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$")
_HOST_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")
_PATH_SAFE = "!$&'()*+,;=:@/%~"
_QUERY_SAFE = _PATH_SAFE + "?"


class Refusal(StrEnum):
    """Why the policy refused a URL; the values match the fetcher's error kinds."""

    invalid_url = "invalid_url"
    address_not_allowed = "address_not_allowed"


class URLRefusedError(Exception):
    """The policy refused a URL. ``message`` is short and safe to show to the API client."""

    def __init__(self, kind: Refusal, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Target:
    """A URL the policy approved, with the addresses it checked.

    ``url`` is the normalised URL to request: scheme and host lowercased, the host in ASCII
    (IDNA) form, unsafe characters of path and query percent-encoded, no fragment. A client must
    connect to ``host`` only through ``addresses``.
    """

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    listed: bool
    """Whether ``host`` matched an ``allow_hosts`` entry (and so may be private)."""

    @property
    def is_ip_literal(self) -> bool:
        """Whether the URL names an address rather than a host name (nothing to resolve)."""
        return _literal(self.host) is not None


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (mapped, 6to4, Teredo, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)
    if int(address) > 1 and any(address in network for network in _LAST_32_BITS):
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    return []


def refusal_reason(address: IPAddress, *, allow_private: bool = False) -> str | None:
    """Why ``address`` may not be connected to, as a short phrase, or None when it may.

    ``allow_private`` (for hosts listed in ``allow_hosts``) lets loopback and private addresses
    through; metadata, multicast and unspecified addresses are refused regardless.
    """
    if any(address in network for network in METADATA_NETWORKS):
        return "a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner:
            for embedded in inner:
                reason = refusal_reason(embedded, allow_private=allow_private)
                if reason:
                    return reason
            return None
    if address.is_multicast:
        return "a multicast address"
    if address.is_unspecified:
        return "an unspecified address"
    if allow_private:
        return None
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if (
        address.is_private
        or address.is_reserved
        or not address.is_global
        or any(address in network for network in NON_PUBLIC_NETWORKS)
    ):
        return "a private or reserved address"
    return None


def _numeric_ipv4(labels: list[str]) -> ipaddress.IPv4Address | None:
    """Read the inet_aton spellings (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``)."""
    if not 1 <= len(labels) <= 4:
        return None
    values = []
    for label in labels:
        if not _NUMERIC_LABEL.match(label):
            return None
        if label.startswith("0x"):
            values.append(int(label[2:] or "0", 16))
        elif len(label) > 1 and label.startswith("0"):
            if any(digit in "89" for digit in label):
                return None
            values.append(int(label, 8))
        else:
            values.append(int(label))
    *head, last = values
    if any(value > 255 for value in head) or last >= 256 ** (4 - len(head)):
        return None
    number = last
    for position, value in enumerate(head):
        number += value << (8 * (3 - position))
    return ipaddress.IPv4Address(number)


def _invalid(message: str) -> URLRefusedError:
    return URLRefusedError(Refusal.invalid_url, message)


def _parse_host(raw: str, bracketed: bool) -> tuple[str, IPAddress | None]:
    """The host in canonical ASCII form and, for address literals, the address."""
    if bracketed:
        address = _literal(raw)
        if not isinstance(address, ipaddress.IPv6Address):
            raise _invalid("the URL has a malformed IPv6 address")
        return str(address), address
    host = raw
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise _invalid("the URL has a malformed host name") from exc
    host = host.lower().removesuffix(".")
    labels = host.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        address = _numeric_ipv4(labels)
        if address is None:
            raise _invalid("the URL has a malformed numeric host")
        if str(address) != host:
            raise URLRefusedError(
                Refusal.address_not_allowed,
                f"{raw} is an unusual spelling of a numeric address, which Pagecast does not fetch",
            )
        return host, address
    if len(host) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
        raise _invalid("the URL has a malformed host name")
    return host, None


def normalise_url(url: str) -> tuple[str, str, str, int, IPAddress | None]:
    """Parse and normalise a URL for fetching: ``(url, scheme, host, port, literal address)``.

    Raises :class:`URLRefusedError` with ``invalid_url`` for anything but a plain http(s) URL,
    and with ``address_not_allowed`` for numeric hosts in an unusual spelling.
    """
    text = url.strip()
    if not text or any(ord(char) < 0x20 or ord(char) == 0x7F for char in text):
        raise _invalid("the URL is empty or contains control characters")
    try:
        parts = urlsplit(text)
        explicit_port = parts.port
        hostname = parts.hostname
    except ValueError as exc:
        raise _invalid("the URL is malformed") from exc
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise _invalid("only http and https URLs can be fetched")
    if "@" in parts.netloc or "\\" in parts.netloc:
        raise _invalid("URLs with user names or passwords are not fetched")
    if not hostname:
        raise _invalid("the URL has no host")
    if explicit_port == 0:
        raise _invalid("the URL has an invalid port")
    bracketed = parts.netloc.startswith("[")
    host, literal = _parse_host(hostname, bracketed)
    netloc = f"[{host}]" if isinstance(literal, ipaddress.IPv6Address) else host
    if explicit_port is not None:
        netloc = f"{netloc}:{explicit_port}"
    path = quote(parts.path, safe=_PATH_SAFE) or "/"
    query = quote(parts.query, safe=_QUERY_SAFE)
    normalised = urlunsplit((scheme, netloc, path, query, ""))
    return normalised, scheme, host, explicit_port or DEFAULT_PORTS[scheme], literal


def _parse_allow_entry(entry: str) -> tuple[str, int | None]:
    text = entry.strip().lower()
    port: str | None = None
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, port = text.split(":")
    else:
        host = text
    if not host.isascii():
        host = host.encode("idna").decode("ascii")
    literal = _literal(host)
    host = str(literal) if literal is not None else host.removesuffix(".")
    if not host or (port is not None and not port.isdigit()):
        raise ValueError(f"invalid allow_hosts entry: {entry!r}")
    return host, int(port) if port is not None else None


class AddressPolicy:
    """Decides whether a URL may be fetched, resolving its host and checking every address.

    ``allow_hosts`` entries are host names or addresses, optionally with a port (``host:port``,
    ``[::1]:8080``); an entry without a port matches every port. A listed host may resolve to
    loopback or private addresses; nothing may reach a cloud metadata address.

    ``own_endpoints`` are Pagecast's own listeners (address, port): never a target, even when
    allow-listed, so the service cannot be pointed at its own API or metrics. ``deny`` is the
    operator's deny list: its ports and address ranges are refused for every host too.
    """

    def __init__(
        self,
        allow_hosts: Iterable[str] = (),
        own_endpoints: Iterable[tuple[str, int]] = (),
        deny: DenyList | None = None,
    ) -> None:
        self.deny = deny or DenyList()
        self._allowed = frozenset(
            _parse_allow_entry(entry) for entry in allow_hosts if entry.strip()
        )
        self._own: dict[int, set[IPAddress | None]] = {}
        for host, port in own_endpoints:
            # None stands for "any local address" (a wildcard or a name bound to them).
            literal = _literal(host)
            local = None if literal is None or literal.is_unspecified else literal
            self._own.setdefault(port, set()).add(local)

    def is_listed(self, host: str, port: int) -> bool:
        """Whether ``host`` (canonical form, as in :class:`Target`) on ``port`` is allow-listed."""
        return (host, None) in self._allowed or (host, port) in self._allowed

    async def check(self, url: str, resolver: Resolver) -> Target:
        """Approve ``url`` or refuse it.

        Raises :class:`URLRefusedError` (``invalid_url`` or ``address_not_allowed``) or
        :class:`ResolutionError`. Address literals are judged without calling ``resolver``.
        """
        normalised, scheme, host, port, literal = normalise_url(url)
        if self.deny.port_denied(port):
            raise URLRefusedError(
                Refusal.address_not_allowed,
                f"port {port} is on the operator's deny list, which Pagecast does not fetch",
            )
        listed = self.is_listed(host, port)
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            addresses = await _resolve(resolver, host, port)
        for address in addresses:
            if self._is_own(address, port):
                raise URLRefusedError(
                    Refusal.address_not_allowed, f"{host}:{port} is Pagecast itself"
                )
            reason = refusal_reason(address, allow_private=listed)
            if reason is None and self._denied(address):
                reason = "an address on the operator's deny list"
            if reason is not None:
                verb = "is" if literal is not None else "resolves to"
                raise URLRefusedError(
                    Refusal.address_not_allowed,
                    f"{host} {verb} {reason}, which Pagecast does not fetch",
                )
        return Target(
            url=normalised,
            scheme=scheme,
            host=host,
            port=port,
            addresses=tuple(str(address) for address in addresses),
            listed=listed,
        )

    def _denied(self, address: IPAddress) -> bool:
        embedded = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else []
        return self.deny.address_denied(address, embedded)

    def _is_own(self, address: IPAddress, port: int) -> bool:
        bound = self._own.get(port)
        if not bound:
            return False
        return address.is_loopback or address in bound or (None in bound and address.is_private)


async def _resolve(resolver: Resolver, host: str, port: int) -> list[IPAddress]:
    try:
        raw = await resolver(host, port)
    except OSError as exc:
        raise ResolutionError(f"{host} does not resolve") from exc
    addresses: list[IPAddress] = []
    for item in raw:
        address = _literal(item)
        if address is None:
            raise ResolutionError(f"{host} resolved to something that is not an address")
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise ResolutionError(f"{host} does not resolve")
    return addresses

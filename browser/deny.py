"""The operator's deny list, beside the built-in SSRF rules: address ranges
(``fetch.deny_networks``) and ports or port ranges (``fetch.deny_ports``) that no outbound request
of Pagecast may reach, whichever host names them and whether or not that host is in
``allow_hosts``. The address policy
(:class:`browser.ssrf.AddressPolicy`) asks it about every hop of every fetch, every destination the
browser's pages reach through the egress guard, every webhook and every oEmbed provider call; a
refusal there is the same refusal as the built-in rules'."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(entry: str) -> Network:
    """``10.0.0.0/8``, ``2001:db8::/32`` or a single address; host bits after the prefix are
    ignored (``10.1.2.3/8`` is ``10.0.0.0/8``). ValueError for anything else."""
    try:
        return ipaddress.ip_network(entry.strip(), strict=False)
    except ValueError as exc:
        raise ValueError(
            f"invalid deny_networks entry {entry!r}: not an address or CIDR range"
        ) from exc


def parse_ports(entry: str) -> tuple[int, int]:
    """``22`` or ``6000-6063`` as an inclusive (first, last) range of 1-65535. ValueError for
    anything else."""
    text = entry.strip()
    first, dash, last = text.partition("-")
    try:
        low = int(first.strip())
        high = int(last.strip()) if dash else low
    except ValueError as exc:
        raise ValueError(f"invalid deny_ports entry {entry!r}: not a port or a port range") from exc
    if not 1 <= low <= high <= 65535:
        raise ValueError(f"invalid deny_ports entry {entry!r}: ports go from 1 to 65535, low-high")
    return low, high


def deny_problems(networks: Iterable[str], ports: Iterable[str]) -> list[str]:
    """Every entry of the two lists that cannot be read, as a settings problem each."""
    problems = []
    for entry in networks:
        try:
            parse_network(entry)
        except ValueError as exc:
            problems.append(f"fetch: {exc}")
    for entry in ports:
        try:
            parse_ports(entry)
        except ValueError as exc:
            problems.append(f"fetch: {exc}")
    return problems


@dataclass(frozen=True)
class DenyList:
    """Address ranges and port ranges refused for every destination."""

    networks: tuple[Network, ...] = ()
    ports: tuple[tuple[int, int], ...] = ()

    @classmethod
    def parse(cls, networks: Iterable[str] = (), ports: Iterable[str] = ()) -> DenyList:
        """The deny list of the settings' entries (blank ones skipped); ValueError for an entry
        that cannot be read (the settings check reports those at start)."""
        return cls(
            tuple(parse_network(entry) for entry in networks if entry.strip()),
            tuple(parse_ports(entry) for entry in ports if entry.strip()),
        )

    def __bool__(self) -> bool:
        return bool(self.networks or self.ports)

    def port_denied(self, port: int) -> bool:
        return any(low <= port <= high for low, high in self.ports)

    def address_denied(self, address: IPAddress, embedded: Iterable[IPAddress] = ()) -> bool:
        """Whether ``address``, or an IPv4 address it stands for (``embedded``: mapped, 6to4,
        Teredo, NAT64), is in a denied range."""
        return any(
            candidate.version == network.version and candidate in network
            for candidate in (address, *embedded)
            for network in self.networks
        )

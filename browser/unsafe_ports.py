"""The ports browsers refuse to load a page from: Chromium's restricted ports (the Fetch
standard's "bad ports" but 4190 and 6679, which Chromium still loads). Each is the well-known
port of a protocol that tolerates stray lines of text (mail, chat, printing, X11...), so an
HTTP request sent there could be read as that protocol's commands. Pagecast refuses these
targets before any fetch, on every endpoint, so a page is never fetched by one path (the HTTP
client) that the browser refuses on another.

The list is data: a port, the service it belongs to. A test holds it against the farm's
Chromium: every port listed is refused, and none beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

UNSAFE_PORTS: Mapping[int, str] = MappingProxyType(
    {
        1: "tcpmux",
        7: "echo",
        9: "discard",
        11: "systat",
        13: "daytime",
        15: "netstat",
        17: "qotd",
        19: "chargen",
        20: "ftp-data",
        21: "ftp",
        22: "ssh",
        23: "telnet",
        25: "smtp",
        37: "time",
        42: "name",
        43: "nicname",
        53: "domain",
        69: "tftp",
        77: "priv-rjs",
        79: "finger",
        87: "ttylink",
        95: "supdup",
        101: "hostname",
        102: "iso-tsap",
        103: "gppitnp",
        104: "acr-nema",
        109: "pop2",
        110: "pop3",
        111: "sunrpc",
        113: "auth",
        115: "sftp",
        117: "uucp-path",
        119: "nntp",
        123: "ntp",
        135: "epmap",
        137: "netbios-ns",
        139: "netbios-ssn",
        143: "imap",
        161: "snmp",
        179: "bgp",
        389: "ldap",
        427: "svrloc",
        465: "submissions",
        512: "exec",
        513: "login",
        514: "shell",
        515: "printer",
        526: "tempo",
        530: "courier",
        531: "chat",
        532: "netnews",
        540: "uucp",
        548: "afp",
        554: "rtsp",
        556: "remotefs",
        563: "nntps",
        587: "submission",
        601: "syslog-conn",
        636: "ldaps",
        989: "ftps-data",
        990: "ftps",
        993: "imaps",
        995: "pop3s",
        1719: "h323gatestat",
        1720: "h323hostcall",
        1723: "pptp",
        2049: "nfs",
        3659: "apple-sasl",
        4045: "npp",
        5060: "sip",
        5061: "sips",
        6000: "x11",
        6566: "sane-port",
        6665: "ircu",
        6666: "ircu",
        6667: "ircu",
        6668: "ircu",
        6669: "ircu",
        6697: "ircs-u",
        10080: "amanda",
    }
)
"""Port -> the service whose well-known port it is."""


def unsafe_port_service(port: int | None) -> str | None:
    """The service of ``port`` when browsers refuse it, else None."""
    return None if port is None else UNSAFE_PORTS.get(port)

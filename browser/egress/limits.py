"""What the browser's traffic may bring in through the egress guard, the error a response that
breaks it raises, and the headers with which the guard marks its own answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "ACCEPT_ENCODING",
    "EGRESS_HEADER",
    "EGRESS_REASON_HEADER",
    "MEASURED_CODINGS",
    "RATIO_FLOOR",
    "EgressLimits",
    "LimitExceededError",
]

RATIO_FLOOR: Final = 1024 * 1024
"""Decoded bytes below which the decompression ratio is not judged (small pages compress well)."""
MEASURED_CODINGS: Final = frozenset({"gzip", "x-gzip", "deflate"})
"""The content codings the guard decodes to count, and the only ones it relays: the browser is
offered just these over plain HTTP (``Accept-Encoding`` is rewritten)."""
ACCEPT_ENCODING: Final = "gzip, deflate"
MAX_INTERIM: Final = 8
"""Most interim (1xx) answers relayed before the final one."""
EGRESS_HEADER: Final = "X-Pagecast-Egress"
"""Marks the guard's own answers (refused, unreachable, limited, failed), so the farm can tell
them from a page that answered with the same status. Stripped from origins' answers."""
EGRESS_REASON_HEADER: Final = "X-Pagecast-Egress-Reason"
"""Carries the guard's own short reason with a ``limited`` verdict (text the guard wrote)."""


@dataclass(frozen=True)
class EgressLimits:
    """What one response, and one tunnel, may bring in through the guard."""

    max_response_bytes: int = 10 * 1024 * 1024
    """Largest body of one plain-HTTP response, counted after decoding."""
    max_ratio: int = 100
    """Largest ratio of decoded to received body bytes (judged past 1 MiB decoded)."""
    max_head_bytes: int = 64 * 1024
    """Largest response head (status line and headers)."""
    max_tunnel_bytes: int = 64 * 1024 * 1024
    """Most bytes from the origin through one CONNECT tunnel or upgraded connection."""


class LimitExceededError(Exception):
    """A response broke one of the :class:`EgressLimits`; ``message`` says which."""

    def __init__(self, message: str, *, started: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.started = started
        """Whether part of the response had already been relayed (then only a reset is left)."""

"""The egress guard: the local forward proxy every request of the headless browser leaves
through, under the fetcher's SSRF rule and limits.

- :mod:`~browser.egress.guard`: :class:`EgressGuard`, its listener and each page's lane;
- :mod:`~browser.egress.wire`: reading and checking a request head, the guard's own answers;
- :mod:`~browser.egress.relay`: a plain-HTTP exchange or an opaque tunnel once approved;
- :mod:`~browser.egress.exchange`: one plain-HTTP exchange under the limits;
- :mod:`~browser.egress.body`: one message body relayed by its framing, every byte counted;
- :mod:`~browser.egress.limits`: what the traffic may bring in, and the error past it.
"""

from browser.egress.guard import EgressGuard
from browser.egress.limits import EgressLimits

__all__ = ["EgressGuard", "EgressLimits"]

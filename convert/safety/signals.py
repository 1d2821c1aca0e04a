"""Signal severities, risk levels and the scan results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

# --------------------------------------------------------------------------------------------
# Severities and levels
# --------------------------------------------------------------------------------------------

SEVERITY: Final[Mapping[str, float]] = MappingProxyType(
    {
        "hidden_instructions": 0.95,
        "hidden_instructions/addressed": 0.75,
        "comment_instructions": 0.85,
        "comment_instructions/addressed": 0.6,
        "comment_instructions/quoted": 0.3,
        "exfiltration_link/image": 0.9,
        "exfiltration_link/link": 0.8,
        "exfiltration_link/template": 0.25,
        "exfiltration_link/encoded": 0.25,
        "exfiltration_link/local": 0.15,
        "exfiltration_link/long": 0.1,
        "instruction_override": 0.65,
        "role_marker": 0.6,
        "data_request": 0.5,
        "ai_addressed": 0.35,
        "ai_addressed/combined": 0.6,
        "ai_addressed/mention": 0.15,
        "homoglyph": 0.9,
        "homoglyph/weak": 0.25,
        "encoded_payload": 0.9,
        "encoded_payload/text": 0.1,
        "invisible_unicode": 0.9,
        "invisible_unicode/tags": 0.6,
        "invisible_unicode/bidi": 0.2,
        "invisible_unicode/zero_width": 0.15,
        "hidden_text": 0.15,
    }
)
QUOTED_FACTOR: Final = 0.45
QUOTED_CAP: Final = 0.5
WEAK_BELOW: Final = 0.3
"""Signals weaker than this are ordinary page features (tracking links, screen-reader text,
zero-width characters, a stray look-alike letter)..."""
WEAK_CAP: Final = 0.3
"""...and together weigh at most this, so that they never make a page medium on their own."""
FORM_CAP: Final = 0.65
"""The most a page's risk reaches when its only strong signals are requests found by their
form alone: hidden prose that asks something is a medium risk; high needs a framing cue, a role
marker, an exfiltration link or smuggled text."""
MODES: Final = ("sanitize", "warn", "block")
LEVELS: Final = ((0.7, "high"), (0.4, "medium"), (0.0, "low"))
RECOMMENDATIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "high": "Do not pass this content to a model without review: it carries text written to "
        "steer an AI (hidden or explicit instructions, role markers or data exfiltration).",
        "medium": "Review before passing this content to a model: it holds instruction-like, "
        "hidden or obfuscated text that may be quoted examples or an injection attempt.",
        "low": "No sign of prompt injection beyond ordinary page features; safe to pass on "
        "with the usual care for untrusted text.",
    }
)
SAMPLE_CHARS: Final = 120
MAX_COUNT_TERMS: Final = 12


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One observation: a signal type, how strong, where, and the text that showed it."""

    kind: str
    severity: float
    location: str
    sample: str
    count: int = 1
    form: bool = False
    """A request found by its form alone, without a framing cue (:mod:`.form`): such findings
    make a page medium at most (:data:`FORM_CAP`)."""


@dataclass(frozen=True)
class HtmlScan:
    """What ``scan_html`` saw, and the parts of that tree ``strip_html`` should remove.

    The element references belong to the scanned tree and are only meaningful with it.
    """

    findings: tuple[Finding, ...] = ()
    remove: tuple[Any, ...] = ()
    unwrap: tuple[Any, ...] = ()
    attributes: tuple[tuple[Any, str], ...] = ()
    scrub: tuple[Any, ...] = ()
    """Elements whose text (and their children's) loses its invisible characters."""


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` with ``text``."""

    start: int
    end: int
    text: str = ""


@dataclass(frozen=True)
class TextScan:
    """What ``scan_markdown`` saw, and the edits ``strip_markdown`` applies."""

    findings: tuple[Finding, ...] = ()
    edits: tuple[Edit, ...] = ()
    checksum: int = 0

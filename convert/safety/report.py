"""The report: findings aggregated into signals, a risk score and a level."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from convert.safety.signals import (
    FORM_CAP,
    LEVELS,
    MAX_COUNT_TERMS,
    MODES,
    QUOTED_CAP,
    RECOMMENDATIONS,
    SAMPLE_CHARS,
    WEAK_BELOW,
    WEAK_CAP,
    Finding,
    HtmlScan,
    TextScan,
)

# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Signal:
    """Findings of one (type, location): strongest first."""

    kind: str
    location: str
    severities: tuple[float, ...]
    sample: str
    form: bool = False
    """Every finding of the signal is a request found by its form alone."""

    @property
    def severity(self) -> float:
        return self.severities[0]

    @property
    def count(self) -> int:
        return len(self.severities)

    def weight(self) -> float:
        """Noisy-OR of the occurrences, the k-th strongest counting ``s / 2**k``."""
        return _noisy_or(s / 2**k for k, s in enumerate(self.severities[:MAX_COUNT_TERMS]))


def _aggregate(findings: Iterable[Finding]) -> list[_Signal]:
    severities: dict[tuple[str, str], list[float]] = {}
    samples: dict[tuple[str, str], str] = {}
    cued: set[tuple[str, str]] = set()
    for finding in findings:
        key = (finding.kind, finding.location)
        severities.setdefault(key, []).extend([finding.severity] * finding.count)
        samples.setdefault(key, finding.sample)
        if not finding.form:
            cued.add(key)
    signals = [
        _Signal(
            kind,
            location,
            tuple(sorted(values, reverse=True)),
            samples[kind, location],
            form=(kind, location) not in cued,
        )
        for (kind, location), values in severities.items()
    ]
    return sorted(signals, key=lambda s: (-s.severity, s.kind, s.location))


def _noisy_or(weights: Iterable[float]) -> float:
    miss = 1.0
    for weight in weights:
        miss *= 1.0 - weight
    return 1.0 - miss


def _risk(signals: list[_Signal]) -> float:
    quoted = _noisy_or(s.weight() for s in signals if s.location == "quoted")
    weak = _noisy_or(
        s.weight() for s in signals if s.location != "quoted" and s.severity < WEAK_BELOW
    )
    strong = [s for s in signals if s.location != "quoted" and s.severity >= WEAK_BELOW]
    risk = _noisy_or([*(s.weight() for s in strong), min(quoted, QUOTED_CAP), min(weak, WEAK_CAP)])
    if strong and all(s.form for s in strong):
        risk = min(risk, FORM_CAP)  # hidden prose asking something, without a framing cue
    return round(risk, 4)


def _level(score: float) -> str:
    return next(name for threshold, name in LEVELS if score >= threshold)


def report(scan: HtmlScan, text: TextScan, mode: str) -> dict[str, object]:
    """The JSON-ready safety report for one page."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    signals = _aggregate((*scan.findings, *text.findings))
    score = _risk(signals)
    level = _level(score)
    return {
        "risk_score": score,
        "risk_level": level,
        "action_taken": mode,
        "signals": [
            {
                "type": signal.kind,
                "severity": round(min(max(signal.severity, 0.0), 1.0), 4),
                "count": signal.count,
                "sample": signal.sample[:SAMPLE_CHARS],
                "location": signal.location,
            }
            for signal in signals
        ],
        "recommendation": RECOMMENDATIONS[level],
    }

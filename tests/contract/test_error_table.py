"""Every failure kind a lower layer can report is answered as a known API error."""

from __future__ import annotations

import enum
import importlib
import inspect
from pathlib import Path

import pytest

from handlers.errors import FAILURE_KINDS, KINDS, failure_error, from_exception
from services.accounts import AccountFailure
from services.embeds import EmbedFailure
from services.embeds.frames import FrameError, FrameFailure
from services.failure import FarmErrorKind, FetchError, KeyFlaw
from services.fetch_policy import PageProblem
from services.jobs.admission import AdmissionFailure
from services.jobs.service import JobFailure
from services.markdown import MarkdownError, MarkdownFailure
from services.screenshots import ScreenshotError, ScreenshotFailure
from services.screenshots.deferred import DeferredFailure
from services.screenshots.signed import SignedLinkFailure
from services.site_map import MapFailure
from services.target_guard import TargetProblem, TargetRefusedError

ROOT = Path(__file__).resolve().parent.parent.parent
KIND_TYPES: tuple[type[enum.Enum], ...] = (
    FetchError,
    FarmErrorKind,
    KeyFlaw,
    TargetProblem,
    AccountFailure,
    MarkdownFailure,
    ScreenshotFailure,
    DeferredFailure,
    FrameFailure,
    PageProblem,
    EmbedFailure,
    MapFailure,
    JobFailure,
    AdmissionFailure,
    SignedLinkFailure,
)


@pytest.mark.parametrize("kinds", KIND_TYPES, ids=lambda kinds: kinds.__name__)
def test_every_kind_of_every_layer_has_an_api_error(kinds: type[enum.Enum]) -> None:
    for kind in kinds:
        assert kind in FAILURE_KINDS, kind
        assert FAILURE_KINDS[kind] in KINDS, kind


def test_the_table_holds_nothing_else() -> None:
    assert {type(kind) for kind in FAILURE_KINDS} == set(KIND_TYPES)


def test_every_failure_kind_the_services_declare_is_in_the_table() -> None:
    # A use case that declares a new kind of failure (an enum named ...Failure or ...Problem)
    # must have it answered as a known API error.
    declared = set()
    for path in sorted((ROOT / "services").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for _, value in inspect.getmembers(importlib.import_module(name), inspect.isclass):
            if issubclass(value, enum.Enum) and value.__name__.endswith(("Failure", "Problem")):
                declared.add(value)
    assert declared <= set(KIND_TYPES), declared - set(KIND_TYPES)


def test_a_failure_keeps_its_message_or_takes_the_kinds_own() -> None:
    error = failure_error(FetchError.timeout, attempts=2)
    assert error.kind == "fetch_timeout"
    assert error.message == KINDS["fetch_timeout"].message + " (after 2 attempts)"
    assert failure_error(MarkdownFailure.BUSY, "busy now", retry_after=5).retry_after == 5


def test_the_services_exceptions_are_answered_through_the_table() -> None:
    cases = [
        (MarkdownError(MarkdownFailure.NOT_HTML, "not HTML"), "no_html"),
        (ScreenshotError(FarmErrorKind.navigation_timeout, "slow"), "navigation_timeout"),
        (FrameError(FrameFailure.NOT_FOUND, "no frame"), "frame_not_found"),
        (TargetRefusedError(TargetProblem.UNRESOLVED, "no host"), "target_unreachable"),
    ]
    for exc, kind in cases:
        error = from_exception(exc)
        assert error is not None and error.kind == kind
    assert from_exception(RuntimeError("a bug")) is None


def test_an_unmapped_kind_is_answered_as_an_internal_failure() -> None:
    class Unmapped(enum.Enum):
        NEW = "new"

    assert failure_error(Unmapped.NEW).kind == "internal"

"""A page's webhook event carries its result whole up to the documented size; past it, the
page's URL, metadata or error and where to read the result."""

from __future__ import annotations

from services.jobs.pages import page_event
from store.job_types import ActiveJob, Outcome, Recorded

JOB = ActiveJob("j1", "acme", "pro", "batch", {}, "https://hooks.example/x", "s")


def test_a_small_result_travels_whole() -> None:
    outcome = Outcome(True, {"url": "https://e.org/a", "markdown": "# A"}, credits=1)
    event = page_event(JOB, Recorded(3, 0, None), outcome, 1_000)
    assert event["result"] == outcome.result and "result_omitted" not in event
    assert (event["seq"], event["status"], event["credits"]) == (3, "done", 1)


def test_a_large_result_is_left_out_with_where_to_read_it() -> None:
    result = {
        "url": "https://e.org/a",
        "final_url": "https://e.org/a/",
        "metadata": {"title": "A"},
        "markdown": "x" * 5_000,
    }
    event = page_event(JOB, Recorded(3, 0, None), Outcome(True, result, credits=1), 1_000)
    assert event["result_omitted"] is True and event["result_bytes"] > 5_000
    assert event["result"] == {
        "url": "https://e.org/a",
        "final_url": "https://e.org/a/",
        "metadata": {"title": "A"},
    }
    assert event["result_url"] == "/api/3.0/jobs/j1?cursor=2&limit=1"

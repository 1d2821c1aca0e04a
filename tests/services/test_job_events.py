"""A page's webhook event carries its result whole up to the documented size; past it, the
page's URL, metadata or error and where to read the result. The body is made once, the result's
JSON put in as the store keeps it."""

from __future__ import annotations

import json

from services.jobs.pages import page_event
from services.webhooks import encoded
from store.job_types import ActiveJob, Outcome, Recorded

JOB = ActiveJob("j1", "acme", "pro", "batch", {}, "https://hooks.example/x", "s")


def test_a_small_result_travels_whole() -> None:
    outcome = Outcome(True, {"url": "https://e.org/a", "markdown": "# A é"}, credits=1)
    made = page_event(JOB, Recorded(3, 0, None), outcome, 1_000)
    event = json.loads(made.body)
    assert event["result"] == outcome.result and "result_omitted" not in event
    assert (event["seq"], event["status"], event["credits"]) == (3, "done", 1)
    assert (made.kind, made.event_id) == ("page", "j1-3")
    # The stored result's text, as it is, and the same body a whole encoding makes.
    assert outcome.result_json in made.body
    assert made.body == encoded(event).body


def test_a_large_result_is_left_out_with_where_to_read_it() -> None:
    result = {
        "url": "https://e.org/a",
        "final_url": "https://e.org/a/",
        "metadata": {"title": "A"},
        "markdown": "x" * 5_000,
    }
    made = page_event(JOB, Recorded(3, 0, None), Outcome(True, result, credits=1), 1_000)
    event = json.loads(made.body)
    assert event["result_omitted"] is True and event["result_bytes"] > 5_000
    assert event["result"] == {
        "url": "https://e.org/a",
        "final_url": "https://e.org/a/",
        "metadata": {"title": "A"},
    }
    assert event["result_url"] == "/api/3.0/jobs/j1?cursor=2&limit=1"


def test_a_result_of_multibyte_text_is_measured_in_bytes() -> None:
    # 300 characters, 900 bytes of UTF-8: within 1,000 bytes; 400 of them (1,200 bytes) not.
    within = Outcome(True, {"markdown": "€" * 300})
    beyond = Outcome(True, {"markdown": "€" * 400})
    assert "result_omitted" not in json.loads(
        page_event(JOB, Recorded(1, 0, None), within, 1_000).body
    )
    assert json.loads(page_event(JOB, Recorded(2, 0, None), beyond, 1_000).body)["result_omitted"]

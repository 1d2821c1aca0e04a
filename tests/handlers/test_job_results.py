"""A job's stored result is answered as stored, spliced after the page row's fields: the JSON
is valid and holds the same members as decoding and encoding it would, without the stored
URL."""

from __future__ import annotations

import json
from typing import Any

import pytest

from handlers.jobs import result_bytes
from store.job_views import PageView


@pytest.mark.parametrize(
    "stored",
    [
        {"url": "https://e.org/a", "markdown": '# é "x" }', "metadata": {"title": "t"}},
        {"url": 'https://e.org/a?x="}"', "error": {"code": -3008, "message": "m"}},
        {"error": {"code": -5000, "message": "abandoned"}},
        {"url": "https://e.org/only"},
        {},
    ],
)
def test_a_stored_result_is_spliced_into_valid_json(stored: dict[str, Any]) -> None:
    text = json.dumps(stored, ensure_ascii=False, separators=(",", ":"))
    page = PageView(3, "https://e.org/row", 1, "done", 2, text)
    answered = json.loads(result_bytes(page))
    rest = {name: value for name, value in stored.items() if name != "url"}
    assert answered == {
        "seq": 3,
        "url": "https://e.org/row",
        "status": "done",
        "depth": 1,
        "credits": 2,
        **rest,
    }

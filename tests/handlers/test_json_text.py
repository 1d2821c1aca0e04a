"""JSON answers as text: the warnings spliced into an encoded object, and large texts read and
written on a thread giving what the loop would."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from handlers import json_text


@pytest.mark.parametrize(
    "value",
    [{}, {"a": 1}, {"markdown": "a } b", "debug": {"cache": "miss"}}, {"x": '"}\\'}],
)
def test_warnings_are_the_last_member_of_the_object(value: dict[str, object]) -> None:
    text = json_text.with_warnings(json_text.dumps(value), ["one", 'two "quoted"'])
    assert json.loads(text) == {**value, "warnings": ["one", 'two "quoted"']}
    assert list(json.loads(text))[-1] == "warnings"


def test_no_warnings_leave_the_text_as_it_is() -> None:
    text = json_text.dumps({"a": [1, 2]})
    assert json_text.with_warnings(text, []) is text


def test_warnings_go_only_into_an_object() -> None:
    with pytest.raises(ValueError):
        json_text.with_warnings("[1]", ["w"])


def test_a_long_text_is_read_and_written_on_a_thread() -> None:
    envelope = {"markdown": "word " * json_text.OFF_LOOP_CHARS, "debug": {"cache": "miss"}}
    text = json_text.dumps(envelope)
    threads: list[str] = []
    real_loads = json.loads

    def loads(raw: str) -> object:
        threads.append(threading.current_thread().name)
        return real_loads(raw)

    async def both() -> tuple[object, str]:
        json_text.json.loads = loads  # type: ignore[attr-defined]
        try:
            value = await json_text.decode(text)
        finally:
            json_text.json.loads = real_loads  # type: ignore[attr-defined]
        return value, await json_text.reencode(value, text)

    value, again = asyncio.run(both())
    assert value == envelope and again == text
    assert threads and threads[0] != threading.main_thread().name


def test_a_short_text_is_read_on_the_loop() -> None:
    assert asyncio.run(json_text.decode('{"a":1}')) == {"a": 1}

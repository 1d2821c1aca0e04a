"""JSON answers as text: encoded once, with the request's own fields spliced in, and encoded or
decoded on a thread when large, so that a large page's envelope never holds the IOLoop."""

from __future__ import annotations

import asyncio
import json
from typing import Any

OFF_LOOP_CHARS = 128 * 1024
"""A kept JSON text at least this long is decoded and encoded again on a thread (a shorter
one takes less time there than the hop to a thread would)."""


def dumps(value: Any) -> str:
    """``value`` as compact JSON text, as every JSON answer is written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def encode(value: Any) -> str:
    """``value`` as JSON text, encoded on a thread."""
    return await asyncio.get_running_loop().run_in_executor(None, dumps, value)


async def decode(text: str) -> Any:
    """The value of the JSON ``text``: decoded on a thread when it is long."""
    if len(text) < OFF_LOOP_CHARS:
        return json.loads(text)
    return await asyncio.get_running_loop().run_in_executor(None, json.loads, text)


async def reencode(value: Any, like: str) -> str:
    """``value`` as JSON text, on a thread when the text it was read from (``like``) was long."""
    if len(like) < OFF_LOOP_CHARS:
        return dumps(value)
    return await encode(value)


def with_warnings(text: str, warnings: list[str]) -> str:
    """The JSON object ``text`` with a ``warnings`` list added as its last member (the object
    has none of its own): the answer's text, without encoding the object again."""
    if not warnings:
        return text
    if not text.endswith("}"):
        raise ValueError("warnings go into a JSON object")
    joiner = "" if text == "{}" else ","
    return f'{text[:-1]}{joiner}"warnings":{dumps(warnings)}}}'

"""The bounded memo for pure functions of short strings."""

from __future__ import annotations

from convert.text.memo import CACHED_KEY_CHARS, small_key_cache


def test_short_strings_are_remembered_and_long_ones_computed_each_time() -> None:
    calls: list[tuple[object, ...]] = []

    @small_key_cache(8)
    def one(text: str) -> int:
        calls.append((text,))
        return len(text)

    @small_key_cache(8)
    def two(text: str, other: str) -> int:
        calls.append((text, other))
        return len(text) + len(other)

    long = "x" * (CACHED_KEY_CHARS + 1)
    assert [one("ab"), one("ab"), one(long), one(long)] == [2, 2, len(long), len(long)]
    assert [two("a", "b"), two("a", "b"), two("a", long), two("a", long)] == [
        2,
        2,
        1 + len(long),
    ] * 1 + [1 + len(long)]
    assert calls == [("ab",), (long,), (long,), ("a", "b"), ("a", long), ("a", long)]
    one.cache_clear()  # type: ignore[attr-defined]
    two.cache_clear()  # type: ignore[attr-defined]
    assert one("ab") == 2 and two("a", "b") == 2
    assert calls[-2:] == [("ab",), ("a", "b")]
    assert one.__name__ == "one" and two.__name__ == "two"
    assert one.__code__.co_name == "call_one"  # type: ignore[attr-defined]  # the quicker call

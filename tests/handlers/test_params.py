"""The parameter tables: types, bounds, aliases, every problem reported at once."""

from __future__ import annotations

import pytest

from handlers.params.inert import Absent, Given, Inert, all_of, any_of, one_of
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.param import Param
from handlers.params.table import ParamTable

TABLE = ParamTable(
    [
        Param("flag", "boolean", "a flag", False),
        Param("count", "integer", "a count", 5, minimum=1, maximum=10),
        Param("quality", "number", "quality", 80, minimum=10, maximum=80, round_to=10),
        Param("mode", "string", "mode", "a", choices=("a", "b")),
        Param("lenient", "string", "lenient", "x", choices=("x", "y"), lenient_choice=True),
        Param("maxwidth", "integer", "width", None, minimum=1, aliases=("maxWidth",)),
        Param("text", "string", "text", max_length=5),
    ]
)


def parse(**args: str):
    return TABLE.parse({name: [value] for name, value in args.items()})


@pytest.mark.parametrize("raw", ["true", "TRUE", "True", "1", " tRuE "])
def test_boolean_true_spellings(raw: str) -> None:
    values, problems = parse(flag=raw)
    assert problems == [] and values["flag"] is True


@pytest.mark.parametrize("raw", ["false", "FALSE", "0", "False"])
def test_boolean_false_spellings(raw: str) -> None:
    values, problems = parse(flag=raw)
    assert problems == [] and values["flag"] is False


@pytest.mark.parametrize("raw", ["yes", "on", "2", "", "truth"])
def test_boolean_other_values_are_refused_naming_the_parameter(raw: str) -> None:
    _, problems = parse(flag=raw)
    assert [p.name for p in problems] == ["flag"]


def test_defaults_when_absent() -> None:
    values, problems = parse()
    assert problems == []
    assert values["flag"] is False and values["count"] == 5 and values["maxwidth"] is None
    assert values.sent == set()


@pytest.mark.parametrize("raw", ["0", "11", "1.5", "abc", "1e3", "99999999999999999999999"])
def test_integer_bounds_and_shape(raw: str) -> None:
    _, problems = parse(count=raw)
    assert len(problems) == 1 and "from 1 to 10" in problems[0].message


@pytest.mark.parametrize(
    ("raw", "expected"), [("10", 10), ("14", 10), ("15", 20), ("44.9", 40), ("80", 80)]
)
def test_number_rounds_to_nearest_ten(raw: str, expected: int) -> None:
    values, problems = parse(quality=raw)
    assert problems == [] and values["quality"] == expected


@pytest.mark.parametrize("raw", ["nan", "inf", "9", "81"])
def test_number_refuses_out_of_range_and_non_finite(raw: str) -> None:
    assert parse(quality=raw)[1]


def test_choices_strict_and_lenient() -> None:
    assert parse(mode="c")[1][0].message == "must be one of a, b"
    values, problems = parse(lenient="zzz")
    assert problems == [] and values["lenient"] == "x"


def test_alias_and_lowercase_wins() -> None:
    values, _ = TABLE.parse({"maxWidth": ["300"]})
    assert values["maxwidth"] == 300
    values, _ = TABLE.parse({"maxWidth": ["300"], "maxwidth": ["200"]})
    assert values["maxwidth"] == 200


def test_max_length() -> None:
    assert parse(text="abcdef")[1][0].name == "text"


def test_every_problem_is_reported_at_once() -> None:
    _, problems = parse(flag="maybe", count="0", mode="z", text="toolong")
    assert [p.name for p in problems] == ["flag", "count", "mode", "text"]


def test_markdown_table_has_every_spec_parameter() -> None:
    spec = [
        "app_id",
        "only_main_content",
        "include_comments",
        "include_tags",
        "exclude_tags",
        "max_chars",
        "format",
        "include_markdown",
        "include_metadata",
        "include_chunks",
        "include_ai_safety",
        "chunking",
        "chunk_size",
        "chunk_overlap",
        "heading_aware",
        "heading_aware_level",
        "max_chunks",
        "query",
        "query_top_k",
        "include_headings",
        "include_links",
        "include_images",
        "auto_render",
        "auto_proxy",
        "retry",
        "max_retries",
        "retry_escalate",
        "full_render",
        "wait_for_selector",
        "scroll_to_bottom",
        "load_more_selector",
        "use_proxy",
        "use_premium",
        "use_superior",
        "proxy_country",
        "cache_ok",
        "max_cache_age",
        "accept_lang",
        "ai_sanitize",
        "ai_sanitize_mode",
    ]
    assert set(spec) <= set(MARKDOWN_PARAMS.by_name)


def test_markdown_bounds_match_the_spec() -> None:
    p = MARKDOWN_PARAMS.by_name
    assert (p["chunk_size"].minimum, p["chunk_size"].maximum, p["chunk_size"].default) == (
        200,
        20000,
        2000,
    )
    assert (p["max_chunks"].minimum, p["max_chunks"].maximum, p["max_chunks"].default) == (
        1,
        2000,
        500,
    )
    assert (p["max_retries"].minimum, p["max_retries"].maximum, p["max_retries"].default) == (
        1,
        4,
        4,
    )
    assert (p["heading_aware_level"].minimum, p["heading_aware_level"].maximum) == (1, 6)
    assert p["query"].max_length == 512 and p["query_top_k"].default == 5
    assert p["format"].choices == ("markdown", "json")


def test_a_rule_naming_an_unknown_parameter_is_refused_when_the_table_is_made() -> None:
    with pytest.raises(ValueError, match="names unknown"):
        ParamTable(TABLE.params, inert=[Inert("count", Given("cuont"))])
    with pytest.raises(ValueError, match="names unknown"):
        ParamTable(TABLE.params, inert=[Inert("conut", Given("count"))])


def test_a_rules_words_group_an_or_inside_an_and() -> None:
    condition = all_of(one_of("mode", "b"), any_of(one_of("flag", True), Given("text")))
    assert condition.words() == "mode=b and (flag=true or a text)"
    assert Absent("text").words() == "no text"
    assert condition.holds({"mode": "b", "flag": False, "text": "hi"})
    assert not condition.holds({"mode": "b", "flag": False, "text": ""})
    assert not condition.holds({"mode": "a", "flag": True, "text": None})


def test_clamp_lowers_only_what_is_above_the_maximum() -> None:
    table = ParamTable(
        [Param("side", "integer", "a side", None, minimum=1, maximum=40, clamp=True)]
    )
    for raw, value, warned in (("40", 40, False), ("41", 40, True), (" 900 ", 40, True)):
        parsed, problems = table.parse({"side": [raw]})
        assert problems == [] and parsed["side"] == value, raw
        assert bool(parsed.warnings) == warned, raw
    for raw in ("0", "x", "41.5", "9" * 30):
        _, problems = table.parse({"side": [raw]})
        assert [p.name for p in problems] == ["side"], raw
    (schema,) = table.openapi()
    assert "maximum" not in schema["schema"] and "lowered to 40" in schema["description"]

"""Reading rules from a page's ``<style>`` text."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from convert.html.css import _top_level_rules, parse_declarations


def _brace_walk(css: str) -> Iterator[tuple[str, str]]:
    """The plain definition: walk every brace, keeping depth."""
    depth = 0
    selector_start = body_start = 0
    selector = ""
    for match in re.finditer(r"[{}]", css):
        if match.group() == "{":
            if depth == 0:
                selector = css[selector_start : match.start()].rsplit(";", 1)[-1].strip()
                body_start = match.end()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                if selector and not selector.startswith("@"):
                    yield selector, css[body_start : match.start()]
                selector_start = match.end()


@pytest.mark.parametrize(
    ("css", "rules"),
    [
        (".a{display:none}.b{color:red}", [(".a", "display:none"), (".b", "color:red")]),
        ("@media print{.a{display:none}}.b{x:y}", [(".b", "x:y")]),
        ('@import "x.css"; .a{b:c}', [(".a", "b:c")]),
        (".card{color:red; &:hover{color:blue}}", [(".card", "color:red; &:hover{color:blue}")]),
        (".a{b:c}} .d{e:f}", [(".a", "b:c"), ("} .d", "e:f")]),
        (".a{b:c", []),
        ("@media a{@supports b{.c{d:e}}}.f{g:h}", [(".f", "g:h")]),
        (".a{b:c}\n.d{e{f{g:h}}}", [(".a", "b:c"), (".d", "e{f{g:h}}")]),
        (".a{b:c} .d{e:f} trailing text", [(".a", "b:c"), (".d", "e:f")]),
        ("", []),
    ],
)
def test_rules_outside_at_rules(css: str, rules: list[tuple[str, str]]) -> None:
    assert list(_top_level_rules(css)) == rules


def test_same_rules_as_a_walk_over_every_brace() -> None:
    generator = random.Random(7)
    for _ in range(20000):
        css = "".join(generator.choice("ab{};@ \n") for _ in range(generator.randint(0, 16)))
        assert list(_top_level_rules(css)) == list(_brace_walk(css)), css
    for _ in range(5000):  # mostly well-formed: rules, at-rule blocks, nesting at any depth
        css = "".join(
            generator.choice(("a{b}", "@m{a{b}c{d}}", "a{b{c}}", "@m{@s{a{b}}}", " ;", "}", "{"))
            for _ in range(generator.randint(0, 8))
        )
        assert list(_top_level_rules(css)) == list(_brace_walk(css)), css


def test_declarations_keep_the_properties_that_can_hide() -> None:
    assert parse_declarations("Display: NONE !important; margin: 0; color:#FFF") == {
        "display": "none",
        "color": "#fff",
    }

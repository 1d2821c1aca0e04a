"""The edges of the kept content: what ends or opens an article goes, the lead-in sentences of
its text stay."""

from __future__ import annotations

import pytest

from convert.extract import edges
from convert.markdown.pipeline import ConvertOptions, convert_page

DOCS = (
    "<html><head><title>Install - SDK docs</title></head><body>"
    "<nav><a href=/>Home</a> <a href=/docs>Docs</a></nav><main>"
    "<p>Install the SDK with pip:</p><pre><code>pip install pagecast-client</code></pre>"
    "<p>Then create a client with your key and call it; every method returns typed results, "
    "and errors are raised as exceptions with the API's code.</p>"
    "<pre><code>from pagecast_client import Pagecast\nclient = Pagecast(key)</code></pre>"
    "<p>That is all you need to start converting pages to Markdown with the library.</p>"
    "</main></body></html>"
)


def test_the_sentence_that_leads_into_the_first_code_block_stays() -> None:
    markdown = convert_page(DOCS, "https://d.example/docs/install", ConvertOptions()).markdown
    assert markdown.startswith("Install the SDK with pip:\n\n```")


def test_without_the_lead_in_rule_the_sentence_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the rule mends: a short block before the content's first prose goes as an edge.
    monkeypatch.setattr(edges, "_leads_in", lambda leaf, following: False)
    markdown = convert_page(DOCS, "https://d.example/docs/install", ConvertOptions()).markdown
    assert "Install the SDK with pip:" not in markdown


@pytest.mark.parametrize(
    "follows",
    [
        "<ul><li>Python 3.11 or newer</li><li>An API key</li></ul>",
        "<table><tr><th>Plan</th><th>Credits</th></tr><tr><td>free</td><td>100</td></tr></table>",
    ],
)
def test_a_lead_in_before_a_list_or_a_table_stays(follows: str) -> None:
    html = DOCS.replace(
        "<p>Install the SDK with pip:</p><pre><code>pip install pagecast-client</code></pre>",
        f"<p>You need:</p>{follows}",
    )
    markdown = convert_page(html, "https://d.example/docs/install", ConvertOptions()).markdown
    assert markdown.startswith("You need:")

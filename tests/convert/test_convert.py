"""The HTML-to-Markdown converter and the metadata reader, as pure functions."""

from __future__ import annotations

import pytest

from convert.html.document import SelectorError, split_selectors
from convert.markdown.length import estimate_tokens, truncate
from convert.markdown.pipeline import ConvertOptions, convert_page

URL = "https://example.com/blog/post"


def whole_page(**options: object) -> ConvertOptions:
    """Options that convert the whole page (these tests are about rendering, not extraction)."""
    return ConvertOptions(only_main_content=False, **options)  # type: ignore[arg-type]


def convert(html: str, **options: object) -> str:
    return convert_page(html, URL, whole_page(**options)).markdown


def test_headings_lists_links_images_absolute() -> None:
    text = convert(
        "<h1>T</h1><h3>Sub</h3><ul><li>a<ul><li>b</li></ul></li></ul>"
        "<p><a href='../x'>x</a> <img src='/i.png' alt='pic'></p>"
    )
    assert "# T\n" in text and "### Sub" in text
    assert "[x](https://example.com/x)" in text
    assert "![pic](https://example.com/i.png)" in text
    assert "- a\n  - b" in text


def test_no_script_style_comments_or_blank_runs() -> None:
    text = convert(
        "<html><head><title>t</title><style>p{}</style></head><body>"
        "<script>alert(1)</script><!-- hidden --><p>a</p><br><br><br><br><p>b</p>"
        "<noscript>enable js</noscript><template><p>tpl</p></template></body></html>"
    )
    assert "alert" not in text and "hidden" not in text and "p{}" not in text
    assert "enable js" not in text and "tpl" not in text
    assert "\n\n\n" not in text
    assert text.startswith("a")


def test_tail_text_survives_dropped_elements() -> None:
    assert "before after" in convert("<p>before <script>x</script>after</p>").replace("  ", " ")


def test_text_after_an_embed_survives() -> None:
    # libxml2 nests what follows <embed>, <source>, <track> and <wbr> inside them.
    markdown = convert(
        "<p>before <embed src='x.swf'> after embed</p><video><source src='v.mp4'></video>"
        "<p>long<wbr>word and <b>bold</b></p>"
    )
    assert "before after embed" in " ".join(markdown.split())
    assert "longword" in markdown and "**bold**" in markdown


def test_tables_and_code() -> None:
    text = convert(
        "<table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td>b</td></tr></table>"
        "<pre><code>x  = 1\n  y</code></pre>"
    )
    assert "| h1 | h2 |\n|---|---|\n| a | b |" in text
    assert "```\nx  = 1\n  y\n```" in text


def test_a_heading_over_a_table_in_its_header_keeps_it_a_table() -> None:
    text = convert(
        "<table><thead><tr><th colspan=2><h3>Specs</h3></th></tr></thead><tbody>"
        "<tr><td>Price</td><td>$999</td></tr><tr><td>Weight</td><td>4.4 lbs</td></tr>"
        "</tbody></table>"
    )
    assert "| Specs |   |\n|---|---|\n| Price | $999 |\n| Weight | 4.4 lbs |" in text
    # A heading in a body cell still makes the table a layout.
    text = convert(
        "<table><tr><td><h3>Left</h3><p>One column of the page.</p></td>"
        "<td><h3>Right</h3><p>The other.</p></td></tr><tr><td>a</td><td>b</td></tr></table>"
    )
    assert "|" not in text and "### Left" in text


def test_highlighted_code_keeps_its_spaces_and_lines_in_the_main_content() -> None:
    line = (
        "<span style=display:flex><span><span class=k>{key}</span>:<span class=w>{indent}</span>"
        "{value}<span class=w>\n</span></span></span>"
    )
    code = "".join(
        line.format(key=key, indent=indent, value=value)
        for key, indent, value in (
            ("kind", " ", "Service"),
            ("spec", "", ""),
            ("  port", " ", "80"),
        )
    )
    prose = "<p>" + "A Service exposes a set of Pods behind one stable address. " * 4 + "</p>"
    html = (
        f"<html><body><article><h1>Services</h1>{prose}<div class=highlight><pre><code "
        f"class=language-yaml><span class='token comment'># the port</span>\n{code}</code>"
        f"</pre></div>{prose}<p>Then<span> </span>apply "
        "it.</p></article></body></html>"
    )
    text = convert_page(html, "https://docs.example/services", ConvertOptions()).markdown
    assert "```yaml\n# the port\nkind: Service\nspec:\n  port: 80\n```" in text
    assert "Then apply it." in text


def test_a_table_inside_preformatted_text_is_the_codes_text() -> None:
    text = convert(
        "<pre><span><table><tr><td>100 m</td><td>11,2 sec.</td></tr>"
        "<tr><td>200 m</td><td>23,0 sec.</td></tr></table></span></pre>"
    )
    assert "PCB" not in text
    assert "```\n100 m11,2 sec.\n200 m23,0 sec.\n```" in text


def test_ruby_readings_do_not_split_the_words_they_annotate() -> None:
    text = convert(
        "<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの<ruby>体罰<rt>たいばつ</rt></ruby></p>"
    )
    assert text.strip() == "子どもへの体罰"


def test_what_html2text_reads_survives_the_attributes_it_does_not() -> None:
    text = convert(
        "<ol start='3' class='steps' style='color:red'><li data-x='1'>Third</li></ol>"
        "<p class='lead'><a href='https://x.example/a' title='A page' class='btn'>link</a> "
        "<img src='https://x.example/p.png' alt='A picture' class='wide' loading='lazy'></p>"
    )
    assert "3. Third" in text
    assert '[link](https://x.example/a "A page")' in text
    assert "![A picture](https://x.example/p.png)" in text


def test_base_href_is_honoured() -> None:
    text = convert(
        "<html><head><base href='https://cdn.example.org/d/'></head>"
        "<body><a href='p'>p</a></body></html>"
    )
    assert "(https://cdn.example.org/d/p)" in text


def test_include_and_exclude() -> None:
    html = (
        "<nav>menu</nav><article><h2>A</h2><p>keep <span class='x'>drop</span></p></article>"
        "<footer>f</footer>"
    )
    assert convert(html, include_tags=("article",)).split() == ["##", "A", "keep", "drop"]
    assert "drop" not in convert(html, include_tags=("article",), exclude_tags=(".x",))
    assert "menu" not in convert(html, exclude_tags=("nav", "footer"))


def test_invalid_selector_names_the_parameter() -> None:
    with pytest.raises(SelectorError) as info:
        convert("<p>x</p>", exclude_tags=("div[[",))
    assert info.value.parameter == "exclude_tags"


def test_split_selectors_keeps_commas_inside_brackets() -> None:
    assert split_selectors("a, :is(b, c) ,d[x='1,2']") == ("a", ":is(b, c)", "d[x='1,2']")
    assert split_selectors(None) == () and split_selectors(" , ") == ()


def test_truncate_prefers_block_boundaries() -> None:
    text = "para one is here\n\npara two is here\n\npara three"
    assert truncate(text, 30) == "para one is here\n"
    assert truncate("x" * 50, 10) == "x" * 10


def test_truncate_inside_a_paragraph_ends_a_sentence_and_never_cuts_a_link() -> None:
    text = "First sentence here. Then see [the reference](https://example.com/a/long/path) now."
    assert truncate(text, 60) == "First sentence here. Then see\n"
    assert truncate(text, 40) == "First sentence here.\n"
    cut = truncate("words " * 6 + "[the reference](https://example.com/a/long/path) now.", 60)
    assert cut == "words words words words words words\n"
    assert (
        truncate("Only words here and there without any stop at all", 30)
        == "Only words here and there\n"
    )


def test_truncate_leaves_no_heading_without_text_and_no_open_code_block() -> None:
    text = "Intro paragraph that is long enough.\n\n## Options\n\nThe options are many."
    assert truncate(text, 60) == "Intro paragraph that is long enough.\n"
    code = "Lead in:\n\n```python\nline_one = 1\nline_two = 2\nline_three = 3\n```\n"
    cut = truncate(code, 52)
    assert cut.startswith("Lead in:\n\n```python\nline_one = 1") and cut.endswith("\n```\n")
    assert len(cut) <= 52 and cut.count("```") == 2
    assert truncate("Lead in, a sentence long enough to keep.\n\n```\nx = 1\ny = 2\n```", 56) == (
        "Lead in, a sentence long enough to keep.\n"
    )


def test_max_chars_reported() -> None:
    result = convert_page("<p>" + "word " * 100 + "</p><p>more</p>", URL, whole_page(max_chars=100))
    assert result.truncated and result.truncation_reason == "max_chars_exceeded"
    assert len(result.markdown) <= 100


def test_empty_and_odd_documents() -> None:
    assert convert("") == ""
    assert convert("   ") == ""
    assert "x" in convert(
        "<?xml version='1.0' encoding='utf-8'?><html><body><p>x</p></body></html>"
    )
    assert "plain" in convert("plain text, no tags")


def test_token_estimate_counts_cjk_per_character() -> None:
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("日本語のテキスト") == 8
    assert estimate_tokens("") == 0


def test_metadata_best_source_first() -> None:
    html = """<html lang="de"><head><title>Doc title</title>
    <meta property="og:title" content="OG title"><meta name="twitter:title" content="TW title">
    <meta name="description" content="plain description">
    <meta property="og:image" content="/img/card.png">
    <script type="application/ld+json">
      {"@graph": [{"@type": "Article", "publisher": {"name": "LD Pub"}}]}
    </script>
    <script type="application/ld+json">{broken</script>
    </head><body><h1>H</h1></body></html>"""
    meta = convert_page(html, URL, whole_page()).metadata
    assert meta["title"] == "OG title"
    assert meta["description"] == "plain description"
    assert meta["image"] == "https://example.com/img/card.png"
    assert meta["site_name"] == "LD Pub"
    assert meta["language"] == "de"
    assert meta["canonical_url"] == URL and meta["final_url"] == URL


def test_metadata_fallbacks() -> None:
    meta = convert_page("<body><h1>Only heading</h1></body>", URL, whole_page()).metadata
    assert meta["title"] == "Only heading" and meta["site_name"] == "example.com"
    assert meta["description"] == "" and meta["image"] == ""


def test_main_content_of_a_page_without_containers() -> None:
    """Paragraphs straight in <body>: the extraction keeps them (and never picks <html>)."""
    html = (
        "<html><body><h1>Plain page</h1>"
        + "<p>A paragraph of plain prose, with commas, and enough words to score.</p>" * 4
        + "<div class='ad'>Buy now</div></body></html>"
    )
    text = convert_page(html, URL, ConvertOptions()).markdown
    assert text.startswith("# Plain page") and text.count("A paragraph of plain prose") == 4
    assert "Buy now" not in text


def test_page_text_cannot_forge_placeholders() -> None:
    text = convert(
        "<p>PAGECASTBLOCK99END PCB0X0X</p><pre>code</pre>"
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    )
    assert "PAGECASTBLOCK99END PCB0X0X" in text
    assert text.count("```") == 2 and "| a | b |" in text


def test_two_blocks_on_one_line_are_both_rendered() -> None:
    text = convert("<p><a href='/x'><pre>first</pre><pre>second</pre></a></p>")
    assert "```\nfirst\n```" in text and "```\nsecond\n```" in text and "PCB" not in text


def test_no_live_html_or_script_links_in_markdown() -> None:
    text = convert(
        "<p>&lt;img src=x onerror=alert(1)&gt; but <code>&lt;b&gt;</code> stays</p>"
        "<p><a href='javascript:alert(1)'>click</a> "
        "<img src='data:image/png;base64," + "A" * 5000 + "' alt='a chart'></p>"
    )
    assert "<img" not in text and "&lt;img src=x" in text and "`<b>`" in text
    assert "javascript:" not in text and "click" in text
    assert "AAAA" not in text and "a chart" in text


def test_code_keeps_its_blank_lines_and_line_breaks() -> None:
    text = convert(
        "<pre><code class='language-python'>def a():\n    pass\n\n\ndef b():\n    pass</code></pre>"
        "<pre>one<br>two</pre><pre><div>x</div><div>y</div></pre>"
    )
    assert "```python\ndef a():\n    pass\n\n\ndef b():\n    pass\n```" in text
    assert "```\none\ntwo\n```" in text and "```\nx\ny\n```" in text


def test_deeply_nested_documents_are_not_cut_short() -> None:
    deep = "<p>start</p>" + "<div>" * 1000 + "deep text" + "</div>" * 1000 + "<p>the end</p>"
    fonts = "<p>start</p>" + "<font>" * 300 + "<p>after the fonts</p>"
    assert "the end" in convert(deep) and "deep text" in convert(deep)
    assert "after the fonts" in convert(fonts)


def test_control_characters_do_not_break_the_tree() -> None:
    text = convert("<p>a<script>x</script>\x1cb\x00c\ud800d</p>")
    assert "abcd" in text.replace("\n", "")


def test_inline_code_is_its_text_without_the_marks_inside_it() -> None:
    text = convert(
        "<p>Write <code><strong>rewrite_log</strong> <code>on</code> | <code>off</code>;</code>"
        " or <kbd><a href='/k'>Ctrl</a>+C</kbd>.</p>"
    )
    assert "Write `rewrite_log on | off;` or `Ctrl+C`." in text


def test_a_one_line_pre_in_a_cell_is_inline_code_of_a_data_table() -> None:
    text = convert(
        "<table><tr><th>Syntax:</th><td><code>rewrite_log on | off;</code></td></tr>"
        "<tr><th>Default:</th><td><pre>rewrite_log off;</pre></td></tr></table>"
        "<table><tr><td>a</td><td><pre>one\ntwo</pre></td></tr>"
        "<tr><td>b</td><td>c</td></tr></table>"
    )
    assert (
        "| Syntax: | `rewrite_log on \\| off;` |\n|---|---|\n| Default: | `rewrite_log off;` |"
        in (text)
    )
    assert "```\none\ntwo\n```" in text, "a listing in a cell still lays the table out"


def test_a_highlighters_line_number_gutter_is_not_code() -> None:
    text = convert(
        "<div class=highlight><table class=lntable><tr><td><pre><code><span>1\n</span>"
        "<span>2\n</span></code></pre></td><td><pre><code class='language-c'>int x;\nint y;"
        "</code></pre></td></tr></table></div><pre>1\n2\n3</pre>"
    )
    assert "```c\nint x;\nint y;\n```" in text and "```\n1\n2\n```" not in text
    assert "```\n1\n2\n3\n```" in text, "numbers alone, numbering no code, are the page's"


def test_a_sphinx_block_names_its_language_on_the_wrapper() -> None:
    text = convert(
        "<div class='highlight-python3 notranslate'><div class='highlight'><pre>x = 1</pre>"
        "</div></div><div class='highlight-default notranslate'><div class='highlight'>"
        "<pre>y = 2</pre></div></div>"
    )
    assert "```python3\nx = 1\n```" in text and "```\ny = 2\n```" in text


def test_cells_written_without_their_rows_are_rows_of_the_tables_width() -> None:
    text = convert(
        "<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody>"
        "<td>Tent</td><td>$10</td></tr><td>Stove</td><td>$5</td></tr></tbody></table>"
    )
    assert "| Name | Price |\n|---|---|\n| Tent | $10 |\n| Stove | $5 |" in text


def test_a_placeholder_image_in_a_cell_adds_no_words_beside_the_cells_own() -> None:
    placeholder = "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E"
    text = convert(
        f'<table><tr><th>System</th><th><div>NordVPN</div><img src="{placeholder}" '
        f"alt='NordVPN Product Image'></th></tr><tr><td>Apps</td><td><img src=\"{placeholder}\""
        " alt='Yes'></td></tr></table><p>A <img src='data:image/png;base64,AAAA' alt='dot'>.</p>"
    )
    assert "| System | NordVPN |\n|---|---|\n| Apps | Yes |" in text
    assert "A dot." in text and "base64" not in text


def test_a_cells_asterisks_are_escaped_not_read_as_emphasis() -> None:
    text = convert(
        "<table><tr><th>Paid</th><th>Sum</th></tr><tr><td><b>$2,640.22*</b></td>"
        "<td>2*3 and 4*5</td></tr></table>"
    )
    assert "| $2,640.22\\* | 2\\*3 and 4\\*5 |" in text


def test_inline_code_keeps_its_line_breaks() -> None:
    text = convert("<p><code>make<br><b>su</b><br>make install</code></p>")
    assert "`make\nsu\nmake install`" in text


def test_a_link_around_a_placeholder_image_keeps_the_alt_text_as_its_words() -> None:
    text = convert(
        "<p>Before.</p><a href='https://photos.example/p/1' title='Valves'><div>"
        "<img src='data:image/gif;base64,R0lGODdhAw==' alt='Valves come in kinds'></div></a>"
        "<p>After.</p>"
    )
    assert '[Valves come in kinds](https://photos.example/p/1 "Valves")' in text

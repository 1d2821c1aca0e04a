"""Markdown that keeps the page's structure: links around blocks written as valid links, and the
fidelity measure the extraction bench reports (``tests/fidelity.py``)."""

from __future__ import annotations

from convert.markdown.pipeline import ConvertOptions, convert_page
from tests.fidelity import code_shares, list_shares, read_structure, table_shares

URL = "https://news.example/a"


def markdown_of(body: str) -> str:
    html = f"<html><body>{body}</body></html>"
    return convert_page(html, URL, ConvertOptions(only_main_content=False)).markdown


def test_a_link_around_a_card_is_written_on_its_heading() -> None:
    markdown = markdown_of(
        '<a href="/story-2" title="Second"><div class="card"><h3>Second story</h3>'
        "<ul><li>By Ann</li><li>May 3</li></ul><p>Teaser text here.</p></div></a>"
    )
    assert '### [Second story](https://news.example/story-2 "Second")' in markdown
    assert "- By Ann\n- May 3" in markdown and "Teaser text here." in markdown
    assert "\n[\n" not in markdown and "\n](" not in markdown


def test_a_link_around_paragraphs_is_written_on_the_first() -> None:
    markdown = markdown_of('<a href="/s"><div><p>Only a paragraph</p><p>And another</p></div></a>')
    assert "[Only a paragraph](https://news.example/s)" in markdown
    assert "And another" in markdown and "](https://news.example/s)\n" not in markdown.replace(
        "[Only a paragraph](https://news.example/s)", ""
    )


def test_an_inline_link_stays_as_it_is() -> None:
    assert "[the report](https://news.example/r)" in markdown_of(
        '<p>Read <a href="/r">the <b>report</b></a> now.</p>'
    ).replace("**", "")


def test_the_fidelity_measure_reads_tables_code_and_nested_lists() -> None:
    reference = read_structure(
        "| a | b |\n|---|---|\n| **1** | 2 |\n\n- one\n- two\n  - two a\n\n"
        "```python\nx = 1\nprint( x )\n```\n"
    )
    same = read_structure(
        "| A | B |\n| --- | --- |\n| 1 | 2 |\n\n- one\n- two\n    - two a\n\n"
        "```\nx = 1\nprint(  x )\n```\n"
    )
    flat = read_structure("- one\n- two\n- two a\n\n```\nx = 1\n```\n")
    assert table_shares(reference, same) == [1.0] and table_shares(reference, flat) == [0.0]
    assert code_shares(reference, same) == [1.0] and code_shares(reference, flat) == [0.5]
    assert list_shares(reference, same) == [1.0]
    assert list_shares(reference, flat) == [2 / 3], "a nested item read flat is not reproduced"


def test_the_fidelity_measure_forgives_both_sides_the_references_markdown_in_code() -> None:
    reference = read_structure(
        "| 450+free | 1person |\n|---|---|\n| a | * top |\n\n"
        "```\nStep 1: read\n'%(*levelname*)s'\n[display](https://x.example/d): flex;\n"
        "Result <(), Box< dyn Error>>\n```\n"
    )
    page = read_structure(
        "| 450+ free | 1 person |\n|---|---|\n| a | \\* top |\n\n"
        "```\n# Step 1: read\n\u2018%(levelname)s\u2019\ndisplay: flex;\n"
        "Result<(), Box<dyn Error>>\n```\n"
    )
    assert table_shares(reference, page) == [1.0]
    assert code_shares(reference, page) == [1.0] and code_shares(page, reference) == [1.0]
    other = read_structure("```\n# Step 2: read\nx = 1\n```\n")
    assert code_shares(reference, other) == [0.0]


def article(body: str) -> str:
    """Main-content Markdown of an article holding ``body`` between two paragraphs."""
    prose = "<p>" + "The article explains its figures at some length here. " * 8 + "</p>"
    html = f"<html><body><article><h1>Title</h1>{prose}{body}{prose}</article></body></html>"
    return convert_page(html, URL, ConvertOptions()).markdown


def test_a_table_whose_column_titles_are_headings_stays_a_table() -> None:
    markdown = markdown_of(
        "<table><tr><td><h4>Ingredient</h4></td><td><h4>Per person</h4></td></tr>"
        '<tr><td colspan="2"><h5>Vegetables</h5></td></tr>'
        "<tr><td>Onions</td><td>1 and a half</td></tr><tr><td>Celery</td><td>80g</td></tr>"
        "</table>"
    )
    assert "| Ingredient | Per person |" in markdown
    assert "| Vegetables |   |" in markdown and "| Onions | 1 and a half |" in markdown


def test_a_heading_beside_prose_in_a_cell_still_lays_the_page_out() -> None:
    markdown = markdown_of(
        "<table><tr><td><h3>Section</h3><p>Its text.</p></td><td>Aside</td></tr>"
        "<tr><td>More</td><td>Text</td></tr></table>"
    )
    assert "### Section" in markdown and "|" not in markdown


def test_a_cell_drops_direction_marks_and_an_icon_gives_its_text() -> None:
    markdown = markdown_of(
        "<table><tr><th>Maker</th><th>In stock</th></tr>"
        '<tr><td>\u200eApple</td><td><img src="https://news.example/tick.png" alt="Yes"></td></tr>'
        '<tr><td>Pear\u200f</td><td><img src="https://news.example/x.png" alt="No"></td></tr>'
        "</table>"
    )
    assert "| Apple | Yes |" in markdown and "| Pear | No |" in markdown
    assert "\u200e" not in markdown and "\u200f" not in markdown


def test_screen_reader_text_that_is_a_cells_only_word_is_kept() -> None:
    markdown = article(
        "<table><thead><tr><th></th><th>Online</th><th>Office</th></tr></thead><tbody>"
        '<tr><th>Messaging <span class="tooltip"><div class="sr-only">A long aside</div></span>'
        '</th><td><i class="icon-check"></i><span class="sr-only">Yes</span></td>'
        '<td><i class="icon-x"></i><span class="sr-only">No</span></td></tr>'
        '<tr><th>Video</th><td><span class="sr-only">Yes</span></td>'
        '<td><div class="rating">4.5 overall rating</div></td></tr></tbody></table>'
    )
    assert "| Messaging | Yes | No |" in markdown
    assert "| Video | Yes | 4.5 overall rating |" in markdown
    assert "A long aside" not in markdown, "a tooltip beside the cell's words still goes"


def test_a_data_table_in_a_drawer_is_kept() -> None:
    markdown = article(
        '<div class="drawer-set"><div class="drawer"><h3>Prices</h3>'
        "<table><thead><tr><th>Service</th><th>Movers</th></tr></thead><tbody>"
        "<tr><td>Antiques</td><td>82</td></tr><tr><td>Art</td><td>91</td></tr></tbody>"
        "</table></div></div>"
    )
    assert "| Service | Movers |" in markdown and "| Art | 91 |" in markdown


def test_a_section_titled_like_recommendations_keeps_its_data_table() -> None:
    table = (
        "<table><thead><tr><th>Attribute</th><th>Type</th></tr></thead><tbody>"
        "<tr><td>related_id</td><td>String</td></tr><tr><td>kind</td><td>Enum</td></tr>"
        "</tbody></table>"
    )
    markdown = article(f"<h3>Related Products</h3><p>Products bought together.</p>{table}")
    assert "| related_id | String |" in markdown and "Related Products" in markdown
    links = "".join(f'<p><a href="/p{n}">Product number {n}</a></p>' for n in range(4))
    assert "Product number" not in article(f"<h3>Related Products</h3>{links}")
    cells = "".join(
        f'<tr><td><a href="/p{n}">Product number {n}</a></td><td><a href="/q{n}">Other {n}</a>'
        "</td></tr>"
        for n in range(4)
    )
    grid = "<div><p>Our other guides:</p><table><tr><th><a href='/a'>Guide</a></th><th>"
    grid += f"<a href='/b'>Guide</a></th></tr>{cells}</table></div>"
    assert "Product number" not in article(f"<h3>Related Products</h3>{grid}")
    assert "Product number" not in article(grid), "a grid of links is a link farm"


def test_a_function_named_like_a_button_is_kept() -> None:
    markdown = article(
        "<table><thead><tr><th>Task</th><th>Tool</th></tr></thead><tbody>"
        "<tr><td><p>Console output</p></td><td><p><a href='/f#print'><code><span class='pre'>"
        "print()</span></code></a></p></td></tr><tr><td>Warn</td><td>warn()</td></tr>"
        "</tbody></table><p><code>share()</code></p><p><a href='/print'>Print</a></p>"
    )
    assert "| Console output | [`print()`](https://news.example/f#print) |" in markdown
    assert "`share()`" in markdown and "Print" not in markdown.replace("print()", "")


def test_a_section_of_bare_links_and_a_data_table_is_not_a_link_farm() -> None:
    links = "".join(
        f'<p><a href="https://ci.example/a/runs/2003911324{n}/job/5746831672{n}#step:18:4162">'
        f"https://ci.example/a/runs/2003911324{n}/job/5746831672{n}#step:18:4162</a></p>"
        for n in range(3)
    )
    markdown = article(
        f"<div class='sect2'><h3>UI tests</h3><p>The results:</p>{links}"
        "<table><thead><tr><th>Category</th><th>Count</th></tr></thead><tbody>"
        "<tr><td>Passed</td><td>6774</td></tr><tr><td>Failed</td><td>57</td></tr>"
        "</tbody></table></div>"
    )
    assert "| Passed | 6774 |" in markdown


def test_a_menu_drawer_without_a_table_still_goes() -> None:
    markdown = article(
        '<div class="drawer"><ul><li><a href="/a">Home</a></li><li><a href="/b">Shop</a></li>'
        "</ul></div>"
    )
    assert "Home" not in markdown and "Shop" not in markdown


def test_a_one_line_code_block_with_an_address_is_not_taken_for_a_credit() -> None:
    markdown = article(
        '<div class="highlight"><pre><span></span>Closes: https://example.com/issues/1234\n'
        "</pre></div><p>Cite it so:</p><p>See https://example.com/issues/1234</p>"
    )
    assert "```\nCloses: https://example.com/issues/1234\n```" in markdown
    assert "See https://example.com/issues/1234" in markdown


def test_spaces_inside_an_emphasis_keep_the_words_apart() -> None:
    markdown = markdown_of(
        "<p>tous nos<strong>\u00a0barbecues gaz</strong> avec un choix, "
        'et <a href="/l"> un lien </a>ici.</p>'
    )
    assert "tous nos **barbecues gaz** avec un choix" in markdown
    assert "et [un lien](https://news.example/l) ici." in markdown


def test_an_emphasis_inside_a_word_keeps_the_word_whole() -> None:
    markdown = markdown_of(
        "<p><b>H</b>ello there, a <em>sub</em>word and 中文<strong>重点</strong>中文.</p>"
    )
    assert "Hello there, a subword and 中文重点中文." in markdown


def test_an_empty_emphasis_leaves_no_marks() -> None:
    markdown = markdown_of('<p>Icons<i class="icon"></i> and <b> </b>gaps</p>')
    assert "*" not in markdown and "_" not in markdown
    assert "Icons and gaps" in markdown


def test_punctuation_follows_an_emphasis_without_a_space() -> None:
    markdown = markdown_of("<p><b>Bob</b>'s car, <em>red</em>; <b>fast</b>: yes.</p>")
    assert "**Bob**'s car, _red_; **fast**: yes." in markdown


def figure_page(caption: str) -> str:
    return (
        f"<html><body><article><p>{'An article paragraph. ' * 30}</p><figure>"
        f'<img src="/a.png" alt="Picture"><figcaption>{caption}</figcaption></figure>'
        f"<p>{'The text goes on. ' * 20}</p></article></body></html>"
    )


def test_a_numbered_figure_caption_is_kept_on_a_line_of_its_own() -> None:
    caption = "Figure 1: The parts of the system and how they talk."
    for main in (True, False):
        markdown = convert_page(
            figure_page(caption), URL, ConvertOptions(only_main_content=main)
        ).markdown
        assert f"![Picture](https://news.example/a.png)\n\n{caption}\n" in markdown


def test_a_photos_caption_leaves_the_main_content() -> None:
    page = figure_page("A sunset over the bay. Photo: Getty")
    assert "sunset" not in convert_page(page, URL, ConvertOptions()).markdown


def test_a_cell_keeps_its_inline_code_emphasis_links_and_line_breaks_as_spaces() -> None:
    markdown = markdown_of(
        "<table><tr><th>Name</th><th>Description</th></tr>"
        "<tr><td><code>workers</code></td><td>Worker processes.<br>Set to <b>0</b> for auto; "
        'see <a href="/w">workers</a> | more.</td></tr>'
        "<tr><td><kbd>a|b</kbd></td><td><p>One.</p><p>Two.</p></td></tr></table>"
    )
    assert (
        "| `workers` | Worker processes. Set to **0** for auto; see "
        "[workers](https://news.example/w) \\| more. |"
    ) in markdown
    assert "| `a\\|b` | One. Two. |" in markdown


def test_a_cell_all_in_bold_is_its_words_and_an_entity_keeps_its_spaces() -> None:
    markdown = markdown_of(
        "<table><tr><th><strong>Rank</strong></th><th><b>Product</b></th></tr>"
        "<tr><td>1</td><td>Desk</td></tr></table>"
        "<ul><li><strong>Reduces Stress &amp; Anxiety</strong> \u2013 lowers cortisol.</li></ul>"
        '<h3><a href="/q">\n <span> What is it? </span> </a></h3>'
    )
    assert "| Rank | Product |" in markdown
    assert "- **Reduces Stress & Anxiety** \u2013 lowers cortisol." in markdown
    assert "### [What is it?](https://news.example/q)" in markdown


def test_a_link_in_a_cell_whose_address_has_parentheses_stays_one_link() -> None:
    markdown = markdown_of(
        "<table><tr><th>Term</th><th>See</th></tr>"
        '<tr><td>Set</td><td><a href="/wiki/Set_(mathematics)">set</a></td></tr></table>'
    )
    assert "| Set | [set](https://news.example/wiki/Set_%28mathematics%29) |" in markdown

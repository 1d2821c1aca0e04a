"""Readers' comments: never an article's main content, given back after it when asked for, each
with its author and date; a thread's posts stay its content."""

from __future__ import annotations

from convert.markdown.chunks import ChunkOptions
from convert.markdown.pipeline import ConvertOptions, PageConversion, convert_page

URL = "https://blog.example/2020/01/05/a-short-post/"
ARTICLE = (
    "<p>The light over the roofs turned from orange to a deep blue while the first star came out "
    "above the chimneys, and the camera chose a high sensitivity on its own.</p>"
    "<p>A second picture with a longer exposure and a steadier hand came out cleaner, though the "
    "trail of the aeroplane had gone by then, which is a pity for the composition.</p>"
)


def comment(number: int, author: str, date: str, text: str, replies: str = "") -> str:
    return (
        f'<li id="comment-{number}" class="comment even depth-1">'
        f'<div id="div-comment-{number}" class="comment-body">'
        f'<div class="comment-author vcard"><img class="avatar" src="/a.png" alt="">'
        f'<cite class="fn"><a href="https://{author.lower()}.example">{author}</a></cite> '
        '<span class="says">says:</span></div>'
        f'<div class="comment-meta commentmetadata"><a href="#comment-{number}">{date}</a></div>'
        f"<p>{text}</p>"
        '<div class="reply"><a class="comment-reply-link" href="#respond">Reply</a></div>'
        f"</div>{replies}</li>"
    )


def blog(article: str = ARTICLE, wrapper_class: str = "content") -> str:
    comments = (
        '<div id="comments" class="comments-area">'
        "<h2 class='comments-title'>3 responses to \u201cA short post\u201d</h2>"
        '<ol class="comment-list">'
        + comment(
            101,
            "Anhora",
            "06.01.2020 at 9:16",
            "Both pictures are lovely, the second one with the trail is unbeatable, really.",
            '<ul class="children">'
            + comment(102, "Gnaddrig", "06.01.2020 at 9:58", "Thank you, I think so too.")
            + "</ul>",
        )
        + comment(
            103,
            "Yadgar",
            "06.01.2020 at 22:23",
            "The bright star must be Venus; with a tripod and a long zoom it shows a phase. " * 6,
        )
        + "</ol>"
        '<div id="respond"><h3>Leave a reply</h3><form><textarea></textarea>'
        "<button>Post comment</button></form></div></div>"
    )
    return (
        f"<html><head><title>A short post</title></head><body class='single comments-open'>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<div id='content' class='{wrapper_class}'><article><h1>A short post</h1>{article}"
        f"</article>{comments}</div><footer>Imprint</footer></body></html>"
    )


def convert(html: str, **options: object) -> PageConversion:
    return convert_page(html, URL, ConvertOptions(**options))  # type: ignore[arg-type]


def test_comments_under_an_article_are_not_its_content() -> None:
    result = convert(blog())
    assert "roofs turned from orange" in result.markdown
    assert "trail of the aeroplane" in result.markdown
    for said in ("Both pictures are lovely", "Thank you, I think so too", "bright star"):
        assert said not in result.markdown
    assert "responses to" not in result.markdown
    assert result.comment_count == 3


def test_comments_outweighing_a_short_article_still_go() -> None:
    # The discussion holds most of the page's text and its items are <article>s: neither size
    # nor tags tell it from the content.
    html = blog().replace("<li id=", "<li><article id=").replace("</li>", "</article></li>")
    result = convert(html)
    assert "roofs turned" in result.markdown and "bright star" not in result.markdown


def test_comments_come_back_after_the_content_when_asked_for() -> None:
    result = convert(blog(), include_comments=True)
    markdown = result.markdown
    content, _, comments = markdown.partition("## Comments")
    assert "roofs turned from orange" in content and "Both pictures" not in content
    assert "**Anhora** · 06.01.2020 at 9:16" in comments
    assert "**Gnaddrig** · 06.01.2020 at 9:58" in comments
    assert "**Yadgar** · 06.01.2020 at 22:23" in comments
    assert comments.index("Anhora") < comments.index("Gnaddrig") < comments.index("Yadgar")
    assert "Both pictures are lovely" in comments and "Thank you, I think so too" in comments
    # Said once each, without the avatars, the reply links, the "says:" or the reply form.
    assert comments.count("Both pictures are lovely") == 1
    for noise in ("Reply", "says:", "a.png", "Post comment", "Leave a reply", "responses to"):
        assert noise not in comments
    assert result.comment_count == 3


def test_comments_are_a_section_of_their_own_for_chunks() -> None:
    options = {"include_comments": True, "chunking": ChunkOptions(size=300, heading_level=2)}
    result = convert(blog(), **options)
    assert result.chunks is not None
    said = [chunk for chunk in result.chunks if "Both pictures" in chunk["text"]]
    assert said and all(chunk["heading_path"][-1] == "Comments" for chunk in said)


def test_a_list_of_comments_the_source_puts_before_the_article_goes() -> None:
    # A two-column layout whose source holds the comments' column first: no prose comes before
    # them, but their items hold all of their text.
    html = blog()
    start, end = html.index('<div id="comments"'), html.index("</div><footer>")
    comments = html[start:end]
    html = html[:start] + html[end:]
    html = html.replace("<div id='content'", f"{comments}<div id='content'")
    result = convert(html, include_comments=True)
    content, _, given_back = result.markdown.partition("## Comments")
    assert "roofs turned from orange" in content and "bright star" not in content
    assert "bright star" in given_back and result.comment_count == 3


def test_a_comments_text_outside_paragraphs_comes_back_without_its_byline() -> None:
    items = "".join(
        f'<div class="comment" id="c-{n}"><span class="comment-author">{who}</span>'
        f"<time>{n} Jan 2022</time><div class='media-body'>{said}<br>Second line {n}.</div>"
        f'<textarea class="comment" placeholder="Quote"></textarea></div>'
        for n, who, said in ((1, "Ada", "Well said, and long overdue."), (2, "Bo", "Agreed."))
    )
    html = blog().replace('<ol class="comment-list">', f'<ol class="comment-list">{items}')
    result = convert(html, include_comments=True)
    _, _, given_back = result.markdown.partition("## Comments")
    assert "**Ada** · 1 Jan 2022" in given_back and "Well said, and long overdue." in given_back
    assert "Second line 2." in given_back and given_back.count("Ada") == 1
    assert result.comment_count == 5


def test_a_wrapper_named_after_its_comments_keeps_its_article() -> None:
    # WordPress names the body "comments-open"; a theme may name the article's wrapper so.
    result = convert(blog(wrapper_class="post has-comments comments-open"))
    assert "roofs turned from orange" in result.markdown
    assert "bright star" not in result.markdown


def test_an_opinion_piece_named_kommentar_is_the_content() -> None:
    html = (
        "<html><body><nav><a href='/'>Start</a></nav><div class='kommentar'>"
        f"<h1>Ein Kommentar</h1>{ARTICLE}</div></body></html>"
    )
    result = convert(html)
    assert "roofs turned from orange" in result.markdown and result.comment_count == 0


def test_a_section_named_commentary_is_the_authors_text() -> None:
    html = (
        f"<html><body><main><h1>Submitting patches</h1>{ARTICLE}<section id='commentary'>"
        "<h3>Commentary</h3><p>The marker line serves the essential purpose of marking where "
        "the changelog stops for the tools that apply the patch.</p></section>"
        f"{ARTICLE}</main></body></html>"
    )
    result = convert(html)
    assert "marker line serves" in result.markdown and result.comment_count == 0


def test_a_threads_posts_are_its_content() -> None:
    posts = "".join(
        f'<div class="post"><div class="author"><a href="/u/{name}">{name}</a></div>'
        f"<time>2020-01-0{day}</time><p>{text}</p></div>"
        for day, (name, text) in enumerate(
            [
                ("opener", "How do I keep my sourdough starter alive over a long holiday away?"),
                ("baker", "Feed it well, then keep it in the fridge; it lasts three weeks or so."),
                ("miller", "Dry some on baking paper as a backup; it keeps for months that way."),
            ],
            start=1,
        )
    )
    html = (
        "<html><body><h1>Starter over the holidays</h1>"
        f"<div class='comments topic'>{posts}</div></body></html>"
    )
    result = convert(html)
    for said in ("keep my sourdough starter", "three weeks or so", "keeps for months"):
        assert said in result.markdown
    assert result.comment_count == 0


def test_comments_go_when_teasers_elsewhere_read_as_posts() -> None:
    # Teasers that name their authors alike, before the article: read as a thread's posts, they
    # must not keep the comments that hold none of them on the page.
    teasers = "".join(
        f"<div class='teaser'><span class='author'>Writer {n}</span>"
        f"<p>A teaser of another story on the site, number {n}, long enough to count.</p></div>"
        for n in range(4)
    )
    html = blog().replace(
        "<div id='content'", f"<div class='teasers'>{teasers}</div><div id='content'"
    )
    off = convert(html)
    assert "roofs turned from orange" in off.markdown and "bright star" not in off.markdown
    on = convert(html, include_comments=True)
    _, _, given_back = on.markdown.partition("## Comments")
    assert "bright star" in given_back and "**Yadgar** · 06.01.2020 at 22:23" in given_back


def test_replies_without_ids_are_comments_of_their_own() -> None:
    # SPIP and other systems nest replies as the same element without an id; the text sits in
    # a block named "comment-message" beside the author and date line.
    def item(who: str, when: str, said: str, replies: str = "") -> str:
        return (
            "<li class='forum-fil comment'><div class='comment-message'>"
            f"<div class='comment-content'><p>{said}</p></div>"
            f"<div class='comment-meta'><span class='comment-author vcard'><strong class='fn'>"
            f"{who}</strong></span> <abbr class='date'>Le {when}</abbr>"
            "<p class='comment-reply'><a href='?reply'>Répondre</a></p></div></div>"
            f"{f'<ul>{replies}</ul>' if replies else ''}</li>"
        )

    thread = item(
        "Gabriel", "11 septembre 2018", "Very good news.", item("Jacques", "13 mai 2019", "Well.")
    )
    html = blog().replace('<ol class="comment-list">', f'<ol class="comment-list">{thread}')
    result = convert(html, include_comments=True)
    _, _, given_back = result.markdown.partition("## Comments")
    assert "**Gabriel** · Le 11 septembre 2018\n\nVery good news." in given_back
    assert "**Jacques** · Le 13 mai 2019\n\nWell." in given_back
    assert given_back.count("Gabriel") == 1 and "Répondre" not in given_back


def test_a_comment_written_inside_its_author_block_keeps_its_text() -> None:
    # A theme that puts the text in the author block, the name and date in a <cite> under it.
    said = "Happy new year to you too, and thanks for being the first to write in it!"
    item = (
        '<li class="comment even depth-1" id="comment-7"><div id="div-comment-7">'
        '<div class="comment-author vcard"><img class="avatar" src="/a.png" alt="">'
        f"<p>{said}</p><p><cite>Comment by <span class='fn'>Jan</span> — 2019-01-01</cite>"
        '<span class="reply"> | <a class="comment-reply-link" href="#r">Reply</a></span></p>'
        "</div></div></li>"
    )
    html = blog().replace('<ol class="comment-list">', f'<ol class="comment-list">{item}')
    result = convert(html, include_comments=True)
    _, _, given_back = result.markdown.partition("## Comments")
    assert f"**Jan**\n\n{said}" in given_back
    assert "Comment by" not in given_back and "|" not in given_back
    assert "\n- " not in given_back  # a comment, not a list item


def test_a_comments_title_comes_back_above_its_text() -> None:
    item = (
        "<div class='kommentar-item'><div class='kommentar-info'><div class='benutzer'>Critic"
        "</div><div class='datum'>06.11.2023, 13.47 Uhr</div></div>"
        "<h5>A small step, not a leap</h5><div class='kommentar-text'>Nice park, modest news."
        "</div></div>"
    )
    html = blog().replace('<ol class="comment-list">', f'<ol class="comment-list">{item}')
    result = convert(html, include_comments=True)
    _, _, given_back = result.markdown.partition("## Comments")
    assert (
        "**Critic** · 06.11.2023, 13.47 Uhr\n\n**A small step, not a leap**\n\n"
        "Nice park, modest news." in given_back
    )


def test_comments_hidden_behind_a_button_come_back_only_when_asked_for() -> None:
    # "Show comments": the list is in the page, hidden until a click; a notice and a sign-in
    # prompt beside it outweigh a single comment.
    html = blog().replace(
        '<div id="comments" class="comments-area">',
        "<button onclick='show()'>Show comments</button>"
        '<div id="comments" class="comments-area" style="display:none">'
        "<p>Comments close two days after publication. Sign in with a valid subscription to "
        "write one; we read every comment before it appears, which takes a while.</p>",
    )
    on = convert(html, include_comments=True)
    content, _, given_back = on.markdown.partition("## Comments")
    assert "roofs turned from orange" in content and "bright star" not in content
    assert "**Yadgar** · 06.01.2020 at 22:23" in given_back and "bright star" in given_back
    off = convert(html)
    assert "bright star" not in off.markdown and "Sign in" not in off.markdown


def with_section(section: str) -> str:
    """The blog page with ``section`` in the place of its WordPress comments."""
    html = blog()
    start, end = html.index('<div id="comments"'), html.index("</div><footer>")
    return html[:start] + section + html[end:]


def test_reader_comments_named_in_german_go_and_come_back() -> None:
    items = "".join(
        f'<div class="leserkommentar"><span class="autor">Leser{n}</span> '
        f'<span class="datum">0{n}.03.2022</span><p>Deutscher Kommentar {n}, mit Text.</p></div>'
        for n in (1, 2)
    )
    html = with_section(f'<div class="leserkommentare"><h3>Leserkommentare</h3>{items}</div>')
    assert "Deutscher Kommentar" not in convert(html).markdown
    result = convert(html, include_comments=True)
    _, _, given_back = result.markdown.partition("## Comments")
    assert "**Leser1** · 01.03.2022\n\nDeutscher Kommentar 1, mit Text." in given_back
    assert given_back.count("01.03.2022") == 1 and result.comment_count == 2


def test_schema_org_comments_come_back_with_author_and_date() -> None:
    items = "".join(
        '<div itemprop="comment" itemscope itemtype="https://schema.org/Comment">'
        f'<span itemprop="author">Reader{n}</span> <time itemprop="dateCreated" '
        f'datetime="2020-01-0{n}">{n} Jan 2020</time><div itemprop="text"><p>Comment {n} '
        "on the pictures, from a reader.</p></div></div>"
        for n in (1, 2)
    )
    html = with_section(f'<div itemscope itemtype="https://schema.org/UserComments">{items}</div>')
    assert "on the pictures" not in convert(html).markdown
    _, _, given_back = convert(html, include_comments=True).markdown.partition("## Comments")
    assert "**Reader2** · 2 Jan 2020\n\nComment 2 on the pictures, from a reader." in given_back


def test_comments_without_items_come_back_without_their_count_heading() -> None:
    items = "".join(
        f"<li><strong>Plain{n}</strong> wrote:<p>Plain comment {n}, no classes.</p></li>"
        for n in (1, 2)
    )
    html = with_section(f'<div id="comments"><h3>2 Comments</h3><ul>{items}</ul></div>')
    assert "Plain comment" not in convert(html).markdown
    _, _, given_back = convert(html, include_comments=True).markdown.partition("## Comments")
    assert "Plain comment 1, no classes." in given_back and "2 Comments" not in given_back


def qa_page(comment_words: int = 12) -> str:
    """A Q&A page: a question and two answers, each with its short comments under it."""

    def post(kind: str, number: int, text: str) -> str:
        comments = "".join(
            f'<li class="comment" id="comment-{number}{n}"><span class="comment-copy">'
            f"{' '.join(['word'] * comment_words)} remark {number}{n}</span> "
            f'<a class="comment-user" href="/u/{n}">user{n}</a> '
            f'<span class="comment-date">Feb {n}, 2014</span></li>'
            for n in (1, 2)
        )
        return (
            f"<div class='{kind}' id='{kind}-{number}'><time>Feb 7, 2014</time>"
            "<div class='post-text'>"
            f"<p>{text}</p></div><div class='user-details'><a href='/u/{number}'>writer{number}"
            f"</a></div><div class='comments'><ul class='comments-list'>{comments}</ul></div>"
            "</div>"
        )

    prose = "The passive with werden tells what happens, the one with sein the state after it. "
    return (
        "<html><head><title>Wurde or war?</title></head><body><nav><a href='/'>Questions</a>"
        "</nav><div id='content'><h1>When to use wurde versus war?</h1>"
        + post("question", 1, "Why is it not 'Ich war ausgeraubt'? " + prose * 2)
        + post("answer", 2, prose * 4)
        + post("answer", 3, prose * 3)
        + "</div></body></html>"
    )


def test_the_comments_under_a_qa_sites_posts_come_back_apart() -> None:
    off = convert(qa_page())
    assert "Ich war ausgeraubt" in off.markdown and off.markdown.count("state after it") == 9
    assert "remark" not in off.markdown
    on = convert(qa_page(), include_comments=True)
    content, _, given_back = on.markdown.partition("## Comments")
    assert content.count("state after it") == 9 and "remark" not in content
    assert "**user1** · Feb 1, 2014" in given_back and "remark 21" in given_back
    assert on.comment_count == 6

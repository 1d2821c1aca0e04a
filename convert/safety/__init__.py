"""Prompt-injection scanner for Pagecast's Markdown endpoint (``ai_sanitize=true``).

Web pages handed to a language model can carry text written for the model rather than for the
reader: hidden instructions, fake chat-template markers, requests to leak data, image links that
smuggle the conversation out. This module looks for them in two passes, both pure functions with
no I/O and deterministic output:

``scan_html(root, url)``
    reads the raw lxml document (head, comments, scripts, noscript and template still present)
    without modifying it. It judges what Markdown rendering drops or hides: CSS-hidden elements
    (inline styles and simple rules from the page's own ``<style>`` blocks), HTML comments,
    ``<noscript>``, ``<template>``, ``alt``/``title``/``aria-label`` attributes, meta tags and
    the title, and link and image URLs.
``strip_html(root, scan)``
    (sanitize mode) removes in place what ``scan_html`` flagged as risky and returns the count.
``scan_markdown(markdown)``
    judges the Markdown the model will read: visible instructions, role markers, invisible
    Unicode, homoglyphs, encoded payloads and exfiltration links. Occurrences inside code spans,
    code blocks, blockquotes, quotation marks or sentences that discuss attacks count as quoted
    examples, not instructions.
``strip_markdown(markdown, scan)``
    (sanitize mode) removes the risky spans that ``scan_markdown`` found.
``report(scan, text, mode)``
    turns both scans into a JSON-ready dict with a risk score, a level and the signals.

Signal types (``type``), with base severities from ``SEVERITY``:

=====================  =====  ===============================================================
type                   sev.   meaning
=====================  =====  ===============================================================
hidden_instructions    0.95   hidden text (CSS, attributes) or Unicode tag characters carrying
                              instructions; 0.75 when it only addresses an AI; a hidden
                              *request* without override phrases (see below) scores its
                              request score plus 0.1 (at most 0.95) times its hiddenness
comment_instructions   0.85   instructions in a comment, noscript, template, attribute or meta
                              tag; 0.6 when it only addresses an AI, 0.3 when quoted; hidden
                              requests in comments, noscript, template, ``alt`` and
                              ``aria-description`` score as above
exfiltration_link      0.9    image URL with a data placeholder (``{user_data}``, ``[DATA]``,
                              ``$SECRET``...); 0.8 for a link; 0.25 for another placeholder,
                              0.25 for a query value that decodes to text, 0.1 for a query
                              string over 200 characters, 0.15 for a placeholder in a URL on
                              the page's own host
instruction_override   0.65   "ignore all previous instructions", "you are now...", in English,
                              German, French, Spanish (and close Italian/Portuguese forms)
role_marker            0.6    chat-template and role markers (``<|im_start|>``, ``[INST]``,
                              ``<<SYS>>``, ``### System:``, ``System: you are...``)
data_request           0.5    requests to reveal the system prompt, send user data somewhere,
                              tell the user to visit a site, include a link in the answer
ai_addressed           0.35   text addressed to an AI ("if you are an AI", "note to LLMs",
                              "AI assistants reading this:") near imperative content; 0.6 next
                              to other instruction phrases, 0.15 without imperative content
homoglyph              0.9    words mixing Latin with Cyrillic/Greek look-alikes that read as
                              instructions once folded to Latin; 0.25 otherwise
encoded_payload        0.9    base64 or hex blob decoding to instructions; 0.1 to other text
invisible_unicode      0.9    invisible characters inside an instruction phrase, or a request
                              whose words zero-width characters break up; 0.6 Unicode tag
                              characters, 0.2 bidi controls, 0.15 zero-width characters
hidden_text            0.15   hidden text without instructions (screen-reader text, menus)
=====================  =====  ===============================================================

Hidden requests (:mod:`.intent`, cues as data in :mod:`.rules_intent`): text hidden from the
human reader that asks an assistant for something reads as an injection even without override
framing. Its clauses are scored from grammatical and topical cues (an imperative opening a
clause, second-person obligation, an assistant or its answer addressed, the user in the third
person, a URL, e-mail or phone number to pass on, language and format demands, steering, alarms,
requests for personal data), discounted when they read as page furniture (menus, labels, form
and cookie messages, the page speaking to its own reader, markup in comments); a score of 0.6
makes a request. Its severity is weighed by how hidden the text is (``HIDDENNESS``: 1 for
``display:none``, white on white, a zero font size; 0.8 for clipping; 0.4 for ``aria-hidden``
alone, which hides nothing from sight). Hidden text that is no request is ``hidden_text``.

Hidden requests by their form (:mod:`.form`, the forms as data in :mod:`.rules_asking` and
:mod:`.rules_form`): hidden text that reads as a task set for someone is suspicious whatever it
asks for, since a page has no reason to hide a request from its readers. A clause is a request by
its form when it opens with a task's imperative ("Write...", "Nenne...", "Explícame...", "First
list...") or a role given to the reader ("Act as my tutor"), puts a task in a frame of asking,
direct or indirect ("could you", "I need", "pourriez-vous me donner", "Könntest du ...
vorschlagen?", "I wonder how"), is a question, names a task by what it asks for ("Travel tips for
Kyoto.", "Pros and cons of..."), or is a query in a question's form ("Quiet campsites near
Brest?"); the request clauses (with the asker's own situation around them) must make up most of the
text (a hidden element inside a small hidden block is judged on its own too). Less for the page's
own voice (its reader addressed, the site speaking of itself, its own things), controls, markup and
Title Case labels; none for a text the page also shows (the request's sentence or the whole text;
for a request of the cues as well), in a link, button, label or heading (the element itself, one
whose whole text it is or an image's alt inside one, or a descendant holding the sentence), in an
element fading in or beside a shown sibling of its class (an animation, a carousel), or a
developer's note in a comment (:mod:`.own`). Such a request weighs at most ``FORM_SEVERITY`` times
its hiddenness, and a page whose only strong signals are such requests is at most ``FORM_CAP``: a
medium risk, not a high one; with a cue of the request scan or a framing phrase it is judged as
above. Commented-out markup is read without the text of its links and headings (a teaser's
headline), and a lone ``</s>`` there is HTML's, not a role marker.

Instruction phrases in quoted or code context score ``QUOTED_FACTOR`` times their base
severity and are reported with location ``quoted``.

Locations: ``hidden_text``, ``html_comment``, ``noscript``, ``template``, ``attribute:<name>``,
``meta`` (meta tags and the title), ``link``, ``image``, ``html_tag`` (role-named elements such as
``<system>``), ``unicode_tags`` (text decoded from Unicode tag characters), ``markdown`` (the
rendered Markdown) and ``quoted`` (quoted or code examples in the Markdown).

Scoring: findings are aggregated per (type, location) into a signal whose severity is the
strongest occurrence. A signal weighs ``1 - prod(1 - s_k / 2**k)`` over its occurrences sorted
strongest first (k = 0, 1, ...), so repeats add with diminishing weight. Quoted signals are
combined first and capped at ``QUOTED_CAP``, so quoted examples alone never exceed medium;
signals under ``WEAK_BELOW`` (ordinary page features: tracking links, screen-reader text,
zero-width characters) are combined and capped at ``WEAK_CAP``, so they never make a page
medium on their own. The risk is the noisy-OR ``1 - prod(1 - w)`` of all weights, rounded to
four decimals. Levels: ``high`` from 0.7, ``medium`` from 0.4, else ``low``.
"""

from convert.safety.html_scan import scan_html
from convert.safety.markdown import scan_markdown, strip_markdown
from convert.safety.report import report
from convert.safety.sanitize import strip_html
from convert.safety.signals import (
    MODES,
    QUOTED_CAP,
    QUOTED_FACTOR,
    SEVERITY,
    Finding,
    HtmlScan,
    TextScan,
)

__all__ = [
    "MODES",
    "QUOTED_CAP",
    "QUOTED_FACTOR",
    "SEVERITY",
    "Finding",
    "HtmlScan",
    "TextScan",
    "report",
    "scan_html",
    "scan_markdown",
    "strip_html",
    "strip_markdown",
]

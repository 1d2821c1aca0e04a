"""Agreement with metascraper: how often Pagecast's metadata says what a widely used metadata
scraper says on the same page, field by field, on WCXB's development set.

metascraper (npm, with its title, description, image, publisher, author, date, lang and url
rule bundles) is the peer whose expectations Pagecast is measured against from outside. It is a
benchmark peer only: ``bench/metascraper`` holds its ``package.json``, lock file and a small
reader (``read.js``); ``node_modules`` there is installed on first use (``npm ci``), Debian's
``nodejs`` and ``npm`` with apt-get when node is missing. Its answers are kept beside it,
one cache file per metascraper version and data set, so that runs after the first only read
Pagecast again.

Compared, after normalisation (entities, NFKC, case, typographic quotes, whitespace):

- title, description, site name (metascraper's ``publisher``), author: the same words
  (punctuation aside); a description either side cut short with an ellipsis agrees when it
  begins the other; authors also when they name the same people in another order;
- image and canonical URL (metascraper's ``url``): the same absolute URL, scheme, ``www.``,
  a default port, doubled and trailing slashes and percent-escapes aside (metascraper
  normalises URLs so);
- date: Pagecast's ``published_at`` against metascraper's ``datePublished`` (its default
  ``date`` is the modification date first, shown beside), the same day (Pagecast keeps the
  page's offset, metascraper writes UTC: either day of Pagecast's agrees);
- language: the same primary language subtag (metascraper gives only ISO 639-1 codes).

A field both leave empty agrees. Beside it, texts compared exactly (whitespace runs aside), as
a strict outside comparison would: metascraper curls straight quotes (and writes 15" as 15″),
Pagecast keeps the page's characters. The title is also scored leniently: metascraper keeps the
site's name that Pagecast trims ("Page | Site"), so a metascraper title whose other parts (split
at the usual separators) are Pagecast's title agrees there.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

from convert.metadata.rules import TITLE_SEPARATOR
from convert.metadata.values import same_names

HERE = Path(__file__).resolve().parent / "metascraper"
READER = HERE / "read.js"
FIELDS = {
    "title": "title",
    "description": "description",
    "image": "image",
    "site_name": "publisher",
    "author": "author",
    "published_at": "datePublished",
    "language": "lang",
    "canonical_url": "url",
}
"""Pagecast's field -> metascraper's."""
TEXT_FIELDS = frozenset({"title", "description", "site_name", "author"})
_WORD = re.compile(r"\w+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_SLASHES = re.compile(r"/{2,}")
_CUT = re.compile(r"(?:\.{3}|\u2026|\[\u2026\]|\[\.\.\.\])\s*$")


def ensure_installed() -> str:
    """metascraper's version, installing node (apt-get) and the packages (npm) when missing."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        print("installing nodejs and npm (apt-get)", file=sys.stderr, flush=True)
        subprocess.run([*sudo, "apt-get", "install", "-y", "nodejs", "npm"], check=True)
    if not (HERE / "node_modules" / "metascraper").is_dir():
        print("installing metascraper (npm ci)", file=sys.stderr, flush=True)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True, stdout=sys.stderr
        )
    package = json.loads((HERE / "node_modules" / "metascraper" / "package.json").read_text())
    return str(package["version"])


def node_version() -> str:
    return subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def metascraper_fields(
    data: Path, pages: list[tuple[str, str]], version: str
) -> dict[str, dict[str, str]]:
    """File id -> metascraper's fields (and ``ms``) for ``pages`` (file id, URL), read from
    the cache when there, the rest by running the reader once over them."""
    reader = hashlib.sha256(READER.read_bytes()).hexdigest()[:8]
    cache = HERE / f"cache-{version}-{reader}-{data.name}.jsonl"
    found: dict[str, dict[str, str]] = {}
    if cache.exists():
        for line in cache.read_text("utf-8").splitlines():
            entry = json.loads(line)
            found[entry.pop("id")] = entry
    missing = [(file_id, url) for file_id, url in pages if file_id not in found]
    if missing:
        print(f"metascraper reads {len(missing)} pages", file=sys.stderr, flush=True)
        lines = "".join(
            json.dumps({"file": str(data / "html" / f"{file_id}.html.gz"), "url": url}) + "\n"
            for file_id, url in missing
        )
        out = subprocess.run(
            ["node", str(READER)], input=lines, capture_output=True, text=True, check=True
        ).stdout
        with cache.open("a", encoding="utf-8") as kept:
            for line in out.splitlines():
                entry = json.loads(line)
                file_id = Path(entry.pop("file")).name.split(".")[0]
                found[file_id] = entry
                kept.write(json.dumps({"id": file_id, **entry}) + "\n")
    return found


def read_page(data: Path, file_id: str) -> str:
    return gzip.decompress((data / "html" / f"{file_id}.html.gz").read_bytes()).decode(
        "utf-8", errors="replace"
    )


# -- comparing ----------------------------------------------------------------------------------


def text_words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", html.unescape(text)).translate(_QUOTES).casefold()
    return _WORD.findall(folded)


def same_text(ours: str, theirs: str) -> bool:
    return text_words(ours) == text_words(theirs)


def same_description(ours: str, theirs: str) -> bool:
    a, b = text_words(ours), text_words(theirs)
    if a == b:
        return True
    for cut, whole in ((ours, b), (theirs, a)):
        shown = text_words(_CUT.sub("", cut))
        if _CUT.search(cut) and shown and whole[: len(shown) - 1] == shown[:-1]:
            return True  # the last word may be cut mid-word
    return False


def same_title_lenient(ours: str, theirs: str) -> bool:
    if same_text(ours, theirs):
        return True
    parts = [part for part in TITLE_SEPARATOR.split(html.unescape(theirs)) if part.strip()]
    wanted = text_words(ours)
    return any(
        text_words(" ".join(parts[start:end])) == wanted
        for start in range(len(parts))
        for end in range(start + 1, len(parts) + 1)
    )


def url_key(url: str) -> str:
    parts = urlsplit(html.unescape(url.strip()))
    host = parts.netloc.lower().removeprefix("www.").removesuffix(":443").removesuffix(":80")
    path = _SLASHES.sub("/", unquote(parts.path)).rstrip("/")
    query = f"?{unquote(parts.query)}" if parts.query else ""
    return f"{host}{path}{query}"


def same_url(ours: str, theirs: str) -> bool:
    return url_key(ours) == url_key(theirs)


def days(value: str) -> set[str]:
    """The days a date names: its own, and in UTC when it has a time and offset."""
    value = value.strip()
    found = {value[:10]}
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return found
    if moment.tzinfo is not None:
        found.add(moment.astimezone(UTC).date().isoformat())
    return found


def same_day(ours: str, theirs: str) -> bool:
    return theirs[:10] in days(ours)


def same_language(ours: str, theirs: str) -> bool:
    return ours.split("-", maxsplit=1)[0].lower() == theirs.split("-", maxsplit=1)[0].lower()


def same_author(ours: str, theirs: str) -> bool:
    return same_text(ours, theirs) or same_names(ours, theirs)


SAME: dict[str, Callable[[str, str], bool]] = {
    "title": same_text,
    "description": same_description,
    "image": same_url,
    "site_name": same_text,
    "author": same_author,
    "published_at": same_day,
    "language": same_language,
    "canonical_url": same_url,
}


def verdict(name: str, ours: str, theirs: str) -> str:
    """``agree``, ``both empty``, ``only pagecast``, ``only metascraper`` or ``differ``."""
    ours, theirs = ours.strip(), theirs.strip()
    if not ours and not theirs:
        return "both empty"
    if not theirs:
        return "only pagecast"
    if not ours:
        return "only metascraper"
    return "agree" if SAME[name](ours, theirs) else "differ"


def exactly(name: str, ours: str, theirs: str) -> bool:
    """Agreement with texts compared as they are, whitespace runs aside (metascraper curls
    straight quotes, Pagecast keeps the page's): what a strict outside comparison sees."""
    if name in TEXT_FIELDS:
        return " ".join(ours.split()) == " ".join(theirs.split())
    return verdict(name, ours, theirs) in ("agree", "both empty")


def agreement_table(pairs: list[tuple[str, dict[str, str], dict[str, str]]]) -> None:
    """Per field: agreement (both empty counts), and how the rest disagree."""
    usable = [(file_id, ours, theirs) for file_id, ours, theirs in pairs if "error" not in theirs]
    failed = len(pairs) - len(usable)
    print(f"\nAgreement with metascraper, {len(usable)} pages ({failed} it failed on left out)\n")
    print(
        "| field | agree | agree, exact text | both empty | differ | only Pagecast "
        "| only metascraper |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, theirs_name in FIELDS.items():
        counts = dict.fromkeys(("agree", "both empty", "differ", "only pagecast"), 0)
        counts["only metascraper"] = 0
        for _, ours, theirs in usable:
            counts[verdict(name, ours[name], theirs.get(theirs_name, ""))] += 1
        agreed = counts["agree"] + counts["both empty"]
        exact = sum(
            exactly(name, ours[name], theirs.get(theirs_name, "")) for _, ours, theirs in usable
        )
        cells = [f"{agreed / len(usable):.3f}", f"{exact / len(usable):.3f}"] + [
            str(counts[key])
            for key in ("both empty", "differ", "only pagecast", "only metascraper")
        ]
        print(f"| {name} | {' | '.join(cells)} |")
    modified = sum(
        verdict("published_at", ours["published_at"], theirs.get("date", ""))
        in ("agree", "both empty")
        for _, ours, theirs in usable
    )
    print(
        f"\npublished_at against metascraper's default date (modified first): "
        f"{modified / len(usable):.3f}"
    )
    lenient = sum(
        same_title_lenient(ours["title"], theirs.get("title", ""))
        or not (ours["title"] or theirs.get("title"))
        for _, ours, theirs in usable
    )
    print(f"\ntitle, a site's name beside metascraper's title aside: {lenient / len(usable):.3f}")


def write_disagreements(
    pairs: list[tuple[str, dict[str, str], dict[str, str]]], path: Path
) -> None:
    """One JSON line per page and field where the two do not agree."""
    with path.open("w", encoding="utf-8") as out:
        for file_id, ours, theirs in pairs:
            for name, theirs_name in FIELDS.items():
                said = verdict(name, ours[name], theirs.get(theirs_name, ""))
                if said not in ("agree", "both empty"):
                    line = {"id": file_id, "field": name, "verdict": said, "pagecast": ours[name]}
                    line["metascraper"] = theirs.get(theirs_name, "")
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")

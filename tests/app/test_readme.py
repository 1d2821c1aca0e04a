"""README.md and the docs pages as a new user follows them: the README fits in a few minutes' read
and opens with the two commands, every link between the pages leads somewhere, the tour's key,
plan and usage match what the run command creates, the troubleshooting names settings and
parameters that exist, and the SQLite backup and restore commands work as written."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest

from app.config import SECTIONS, Settings
from app.effective import known_variables
from handlers.errors import KINDS
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS
from settings.fields import declared_fields
from tests.app.test_server import ROOT, env, run_cli, start_server, stop  # noqa: F401

README = (ROOT / "README.md").read_text()
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
# Fields of the Markdown envelope's debug object the troubleshooting points at.
DEBUG_FIELDS = {"main_content", "auto_render_triggered"}


def section(title: str, page: str = "README.md") -> str:
    """The text of the section with this heading in ``page`` (a path from the repository's
    root), up to the next heading of its level or above (lines inside code blocks are never
    headings)."""
    level, found, kept, fenced = 0, False, [], False
    for line in (ROOT / page).read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"(#+) (.*)", line)
        if heading and found and len(heading.group(1)) <= level:
            break
        if found:
            kept.append(line)
        elif heading and heading.group(2) == title:
            level, found = len(heading.group(1)), True
    assert found, f"{page} has no section {title!r}"
    return "\n".join(kept) + "\n"


README_MOST_LINES = 400
FIRST_SCREEN = 25
"""Lines a terminal or a repository's front page shows before one scrolls."""


def test_readme_reads_in_a_few_minutes() -> None:
    lines = README.splitlines()
    assert len(lines) < README_MOST_LINES, (
        f"README.md has {len(lines)} lines: move reference text to a page under docs/ and link it"
    )


def test_the_two_commands_are_on_the_first_screen() -> None:
    """The run and test commands, each in a shell block of its own, with the run command's note
    that the server holds the terminal, before anything else."""
    screen = "\n".join(README.splitlines()[:FIRST_SCREEN])
    for command in ("bash deploy/bootstrap.sh run", "bash deploy/bootstrap.sh test"):
        assert f"```sh\n{command}\n```" in screen, command
    run_note = screen.split("bash deploy/bootstrap.sh run")[1].split("bash deploy/bootstrap.sh")[0]
    assert "Ctrl-C" in run_note and "terminal" in run_note


def test_the_run_command_hints_at_a_page_it_can_fetch_offline() -> None:
    """What the run command prints before it starts the server: a try-it line on the bundled
    example page served on this machine (no internet needed), that the server keeps the
    terminal, and no word of restarting the server it is about to start."""
    bootstrap = (ROOT / "deploy" / "bootstrap.sh").read_text()
    run = bootstrap.split("\n  run)\n")[1]
    said = "\n".join(re.findall(r'^\s*say "(.*)"$', run, re.M))
    assert "restart" not in said.lower()
    assert "Ctrl-C" in said
    served = re.search(r"\(cd (\S+) && python3 -m http\.server (\d+) --bind 127\.0\.0\.1 &\)", said)
    assert served, "the hint serves a local page"
    folder, port = served.groups()
    assert (ROOT / folder / "index.html").is_file()
    tried = re.search(r"curl -s .*?/api/3\.0/markdown/([^?]+)\?app_id=", said)
    assert tried, "the hint asks for a page's Markdown"
    assert urllib.parse.unquote(tried.group(1)) == f"http://127.0.0.1:{port}/"
    assert "example.com" not in said


def anchor(heading: str) -> str:
    """The fragment a heading gets on the usual Markdown hosts: lower case, punctuation
    dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every fragment a page's headings give (a repeated heading's second is NAME-1, ...)."""
    found: set[str] = set()
    seen: Counter[str] = Counter()
    fenced = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"#+ (.*)", line)
        if heading:
            name = anchor(heading.group(1))
            found.add(f"{name}-{seen[name]}" if seen[name] else name)
            seen[name] += 1
    return found


def local_links(page: Path) -> list[str]:
    """The targets of a page's Markdown links that are not on another site (code blocks and
    code spans left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [target for target in targets if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in local_links(page):
        path, _, fragment = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        missing = not found.exists()
        if missing or (fragment and found.suffix == ".md" and fragment not in anchors(found)):
            broken.append(target)
    assert not broken, f"{page.name} links to what does not exist: {broken}"


def test_the_readme_links_every_docs_page() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve() for target in local_links(ROOT / "README.md")
    }
    unlinked = [page.name for page in PAGES if page.name != "README.md" and page not in linked]
    assert not unlinked, f"README.md's 'Where to read on' does not link {unlinked}"


EXAMPLE_REQUEST = re.compile(r"/api/[0-9.]+/(markdown|screenshot|oembed)(?:/\$URL)?\?([^\"'\s`]+)")
"""A request of the pages' examples on the target ``$URL``: the endpoint and its query."""


def test_every_parameter_an_example_sends_exists() -> None:
    tables = {"markdown": MARKDOWN_PARAMS, "screenshot": SCREENSHOT_PARAMS, "oembed": OEMBED_PARAMS}
    sent = [
        (page.name, endpoint, name)
        for page in PAGES
        for endpoint, query in EXAMPLE_REQUEST.findall(page.read_text())
        for name, _ in urllib.parse.parse_qsl(query, keep_blank_values=True)
    ]
    assert len(sent) > 50, "the examples were found"
    unknown = [one for one in sent if one[2] not in tables[one[1]].known]
    assert not unknown, f"examples send parameters their endpoint does not have: {unknown}"


def test_a_broken_link_is_seen(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A page\n\n## Its `[part]`: one\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#its-part-one) [gone](nowhere.md) [bad](there.md#nothing)\n"
        "[web](https://example.com/x) `[code](in-a-span.md)`\n```\n[block](in-a-block.md)\n```\n"
    )
    assert local_links(page) == [
        "there.md",
        "there.md#its-part-one",
        "nowhere.md",
        "there.md#nothing",
    ]
    assert anchors(tmp_path / "there.md") == {"a-page", "its-part-one"}


def test_tour_matches_what_the_run_command_creates() -> None:
    bootstrap = (ROOT / "deploy" / "bootstrap.sh").read_text()
    created = re.search(r"keys create --org (\S+) --plan (\S+)", bootstrap)
    assert created, "the run command issues a first key"
    org, plan = created.groups()
    tour = section("A short tour")
    assert f"(org {org}, plan {plan})" in tour
    assert f"organization `{org}` on the `{plan}` plan" in tour
    quota = Settings().plans[plan].monthly_credits
    assert f"{quota:,} credits a" in tour
    table = re.search(r"\$ \.venv/bin/python server\.py usage\n(.*?)```", tour, re.S)
    assert table, "the tour shows the usage command"
    lines = table.group(1).splitlines()
    assert re.fullmatch(r"month \d{4}-\d{2}", lines[0]), "usage shows the current month"
    rows = [line.split() for line in lines[2:]]
    assert {row[0] for row in rows} == {org}
    credits = sum(int(row[3]) for row in rows if row[1] != "total")
    assert rows[-1] == [org, "total", str(credits), "of", str(quota)]


def test_troubleshooting_names_what_exists() -> None:
    text = section("Troubleshooting", "docs/troubleshooting.md")
    for topic in (
        "Markdown is empty",
        "refused",
        "slow",
        "429",
        "logs",
        "not HTML",
    ):
        assert re.search(rf"\*\*[^*]*{topic}[^*]*\*\*", text), topic
    settings = Settings()
    declared = {
        f"{cls.SECTION}.{field.name}" for cls in SECTIONS for field, _ in declared_fields(cls)
    }
    parameters = {
        param.name
        for table in (MARKDOWN_PARAMS, SCREENSHOT_PARAMS, OEMBED_PARAMS)
        for param in table.params
    }
    plan_fields = {field.name for field, _ in declared_fields(type(settings.plans["free"]))}
    codes = set(KINDS) | {kind.oembed_code for kind in KINDS.values()}
    for token in re.findall(r"`([^`\s]+)`", text):
        name = token.split("=")[0]  # `full_render=true` names full_render
        if re.fullmatch(r"[a-z]+\.[a-z_]+", name):
            assert name in declared, f"no setting {name}"
        elif re.fullmatch(r"[a-z]+(_[a-z]+)+|[a-z]+[A-Z][A-Za-z]+", name):
            known = parameters | plan_fields | codes | DEBUG_FIELDS
            assert name in known, f"{name} is no parameter, plan setting or error code"
        elif re.fullmatch(r"PAGECAST_[A-Z_]+", name):
            assert name in known_variables(settings), name
    for code in re.findall(r"-\d{4}", text):
        assert int(code) in {kind.markdown_code for kind in KINDS.values()}, code


def documented_commands(title: str, data: Path, backup: Path) -> list[str]:
    """The shell lines of an operations section's code blocks, pointed at a test's folders."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", section(title, "docs/operations.md"), re.S):
        for written in block.strip().splitlines():
            if written.startswith("sudo systemctl"):
                continue  # this test starts and stops the server itself
            line = written.replace(".venv/bin/python", shlex.quote(sys.executable))
            line = line.replace("pagecast-backup.db", str(backup)).replace("data/", f"{data}/")
            lines.append(line)
    return lines


def test_sqlite_backup_and_restore_as_documented(
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    data = Path(env["PAGECAST_STORE_DATA_DIR"])
    backup = tmp_path / "copy" / "pagecast-backup.db"
    backup.parent.mkdir()
    take, *restore = documented_commands("SQLite backup and restore", data, backup)
    kept = run_cli(env, "keys", "create", "--org", "kept").stdout.splitlines()[-1]
    process = start_server(env)
    try:
        # Taken while the server runs, as docs/operations.md says it may be.
        subprocess.run(take, shell=True, check=True, cwd=tmp_path, timeout=30)
    finally:
        stop(process)
    run_cli(env, "keys", "create", "--org", "after-the-backup")
    assert "after-the-backup" in run_cli(env, "keys", "list").stdout
    assert restore, "the restore steps"
    for line in restore:
        subprocess.run(line, shell=True, check=True, cwd=tmp_path, timeout=30)
    listed = run_cli(env, "keys", "list").stdout
    assert kept[:11] in listed and "kept" in listed
    assert "after-the-backup" not in listed

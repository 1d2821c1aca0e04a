"""README.md as a new user follows it: the tour's key, plan and usage match what the run command
creates, the troubleshooting names settings and parameters that exist, and the SQLite backup
and restore commands work as written."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from app.config import SECTIONS, Settings
from app.effective import known_variables
from handlers.errors import KINDS
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS
from settings.fields import declared_fields
from tests.app.test_server import ROOT, env, run_cli, start_server, stop  # noqa: F401

README = (ROOT / "README.md").read_text()
# Fields of the Markdown envelope's debug object the troubleshooting points at.
DEBUG_FIELDS = {"main_content", "auto_render_triggered"}


def section(title: str) -> str:
    """The text of the README section with this heading, up to the next heading of its level
    or above (lines inside code blocks are never headings)."""
    level, found, kept, fenced = 0, False, [], False
    for line in README.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"(#+) (.*)", line)
        if heading and found and len(heading.group(1)) <= level:
            break
        if found:
            kept.append(line)
        elif heading and heading.group(2) == title:
            level, found = len(heading.group(1)), True
    assert found, f"README has no section {title!r}"
    return "\n".join(kept) + "\n"


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
    text = section("Troubleshooting")
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
    """The shell lines of a README section's code blocks, pointed at a test's folders."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", section(title), re.S):
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
        # Taken while the server runs, as the README says it may be.
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

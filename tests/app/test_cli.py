"""The command line as a user types it: the one-shots' help, ``config`` with the source of every
value, ``usage`` for the current month, ``PAGECAST_*`` variables that name no setting, and a
wrong command line refused with what to type instead (status 2, no traceback)."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from app.cli_parser import url_problem
from app.oneshot import own_params
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS
from store.db import close_database, open_database
from store.models import Organization, Usage
from tests.app.test_server import ROOT, env, run_cli  # noqa: F401  (env is a fixture)


def test_one_shot_help_lists_the_endpoint_parameters(env: dict[str, str]) -> None:  # noqa: F811
    for command, table in (
        ("markdown", MARKDOWN_PARAMS),
        ("screenshot", SCREENSHOT_PARAMS),
        ("oembed", OEMBED_PARAMS),
    ):
        done = run_cli(env, command, "--help")
        assert done.returncode == 0, done.stderr
        listed = set(re.findall(r"^  (\w+): ", done.stdout, flags=re.MULTILINE))
        expected = {param.name for param in table.params} - set(own_params(command))
        assert listed == expected, command
        assert "-o FILE" in done.stdout and "--verbose" in done.stdout
        assert f"examples:\n  server.py {command} https://example.com/" in done.stdout
    help_text = run_cli(env, "screenshot", "--help").stdout
    assert "format: one of jpeg, png, webp, pdf, default jpeg" in help_text
    assert ".png png" in help_text, "the extension rule is told"
    assert "response_type:" not in help_text, "the command writes the image itself"
    assert "Viewport: xs 375x812" in help_text, "each parameter's help, from its table"


def test_unknown_option_of_a_one_shot_is_refused(env: dict[str, str]) -> None:  # noqa: F811
    done = run_cli(env, "markdown", "https://example.com/", "--formt", "json")
    assert done.returncode == 2 and "unknown option --formt" in done.stderr
    other = run_cli(env, "keys", "list", "format=json")
    assert other.returncode == 2 and "unrecognized arguments: format=json" in other.stderr


def test_config_shows_each_value_with_its_source(
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    config = tmp_path / "pagecast.toml"
    config.write_text(
        "[fetch]\nconnect_timeout = 7.5\nmax_redirects = 5\n[plans.gold]\nburst = 3\n"
    )
    environ = {
        **env,
        "PAGECAST_CONFIG": str(config),
        "PAGECAST_SERVER_PORT": "9123",
        "PAGECAST_PROXIES_PREMIUM": "http://user:secret-word@proxy.example:8000",
    }
    done = run_cli(environ, "config")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()

    def line(section: str, name: str) -> str:
        start = lines.index(f"[{section}]")
        return next(item for item in lines[start:] if item.startswith(f"{name} = "))

    assert str(config) in lines[0]
    assert re.fullmatch(r"port = 9123 +# environment PAGECAST_SERVER_PORT", line("server", "port"))
    timeout = line("fetch", "connect_timeout")
    assert re.fullmatch(r"connect_timeout = 7\.5 +# pagecast\.toml", timeout)
    assert re.fullmatch(
        r"max_redirects = 5 +# pagecast\.toml \(the default value\)",
        line("fetch", "max_redirects"),
    )
    assert re.fullmatch(r"frame_port = \d+ +# environment .*", line("server", "frame_port"))
    assert re.fullmatch(r"log_format = \"text\" +# default", line("server", "log_format"))
    assert re.fullmatch(r"burst = 3 +# pagecast\.toml", line("plans.gold", "burst"))
    assert re.fullmatch(r"burst = 100 +# default", line("plans.pro", "burst"))
    premium = line("proxies", "premium")
    assert "secret-word" not in done.stdout and "(set, hidden)" in premium
    assert premium.endswith("# environment PAGECAST_PROXIES_PREMIUM")


def test_config_defaults_prints_the_committed_file(env: dict[str, str]) -> None:  # noqa: F811
    printed = run_cli({**env, "PAGECAST_SERVER_PORT": "9123"}, "config", "--defaults")
    assert printed.returncode == 0
    assert printed.stdout == (ROOT / "config.toml").read_text()


def test_unknown_pagecast_variables_are_reported(env: dict[str, str]) -> None:  # noqa: F811
    environ = {**env, "PAGECAST_FETCH_ALOW_HOSTS": "127.0.0.1", "PAGECAST_PLANS_GOLD_BURST": "3"}
    started = run_cli(environ, "keys", "list")
    assert started.returncode == 0
    warnings = [line for line in started.stderr.splitlines() if " WARNING " in line]
    assert len(warnings) == 2, started.stderr
    assert "PAGECAST_FETCH_ALOW_HOSTS names no setting" in warnings[0]
    assert "did you mean PAGECAST_FETCH_ALLOW_HOSTS?" in warnings[0]
    assert "PAGECAST_PLANS_GOLD_BURST" in warnings[1] and "[plans.NAME]" in warnings[1]
    shown = run_cli(environ, "config")
    assert "PAGECAST_FETCH_ALOW_HOSTS names no setting" in shown.stdout
    assert "did you mean PAGECAST_FETCH_ALLOW_HOSTS?" in shown.stdout
    quiet = run_cli(env, "keys", "list")
    assert "WARNING" not in quiet.stderr and "names no setting" not in run_cli(env, "config").stdout


def test_usage_defaults_to_the_current_month(env: dict[str, str]) -> None:  # noqa: F811
    assert run_cli(env, "keys", "create", "--org", "acme", "--plan", "pro").returncode == 0
    db = open_database("", env["PAGECAST_STORE_DATA_DIR"])
    db.connect()
    try:
        org = Organization.select().where(Organization.name == "acme").get(db)
        today = datetime.now(UTC).date()
        for day, credits in ((today, 7), (date(2024, 2, 29), 40)):
            Usage.insert(
                org=org.id, endpoint="markdown", day=day, requests=3, credits=credits
            ).execute(db)
    finally:
        close_database(db)
    current = run_cli(env, "usage")
    assert current.returncode == 0, current.stderr
    assert f"month {today:%Y-%m}" in current.stdout
    assert re.search(r"acme +markdown +3 +7\n", current.stdout)
    assert re.search(r"acme +total +7 of 1000000", current.stdout)
    every = run_cli(env, "usage", "--month", "all")
    assert "month all" in every.stdout and re.search(r"acme +markdown +6 +47\n", every.stdout)
    old = run_cli(env, "usage", "--month", "2024-02")
    assert re.search(r"acme +markdown +3 +40\n", old.stdout)


def refused(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines a refused command line printed: status 2, nothing on stdout, no traceback."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    return done.stderr.splitlines()


def test_a_missing_piece_says_what_to_type(env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    keys = refused(run_cli(env, "keys"))
    assert keys[:2] == [
        "server.py keys: which keys command? create, list, revoke or signing-secret",
        "usage: server.py keys [-h] COMMAND ...",
    ]
    assert keys[2] == "for example:" and "  server.py keys list" in keys
    assert keys[-1] == "(server.py keys --help tells more)"
    for command in ("markdown", "screenshot", "oembed"):
        lines = refused(run_cli(env, command))
        assert lines[:2] == [
            f"server.py {command}: the page's URL is missing",
            f"usage: server.py {command} URL [name=value ...] [-o FILE] [-v]",
        ]
        assert any(line.startswith(f"  server.py {command} https://example.com/") for line in lines)
    # Parameters and options alone are no URL either.
    only_params = refused(run_cli(env, "markdown", "format=json", "-o", "-"))
    assert only_params[0] == "server.py markdown: the page's URL is missing"
    crawl = refused(run_cli(env, "crawl", "--out", str(tmp_path / "site")))
    assert crawl[0] == "server.py crawl: the start page's URL is missing"
    assert "  server.py crawl https://example.com/ --out site" in crawl
    providers = refused(run_cli(env, "providers"))
    assert providers[0] == "server.py providers: which providers command? import"
    revoke = refused(run_cli(env, "keys", "revoke"))
    assert "prefix" in revoke[0] and "  server.py keys revoke pc_AbCd1234" in revoke
    shot = refused(run_cli(env, "screenshot", "https://example.com/"))
    assert (
        shot[0]
        == "server.py screenshot: a screenshot needs -o FILE (-o - writes it to standard output)"
    )
    assert not (tmp_path / "site").exists()


def test_a_near_miss_gets_a_did_you_mean(env: dict[str, str]) -> None:  # noqa: F811
    command = refused(run_cli(env, "markdwn", "https://example.com/"))
    assert command[0] == (
        "server.py: unknown command 'markdwn' (did you mean markdown?); the commands: serve, "
        "config, keys, screenshot, markdown, oembed, crawl, usage, mcp, providers"
    )
    assert command[1].startswith("usage: server.py ")
    keys = refused(run_cli(env, "keys", "lst"))
    assert keys[0] == (
        "server.py keys: unknown command 'lst' (did you mean list?); "
        "the commands: create, list, revoke, signing-secret"
    )
    providers = refused(run_cli(env, "providers", "imprt", "providers.json"))
    assert "(did you mean import?)" in providers[0]
    far = refused(run_cli(env, "zzz"))
    assert far[0].startswith("server.py: unknown command 'zzz'; the commands: serve,")


def test_wrong_values_are_refused_before_any_work(env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    site = str(tmp_path / "site")
    page = "https://example.com/"
    cases = [
        (
            ("crawl", page, "--out", site, "--max-pages", "0"),
            "server.py crawl: argument --max-pages: must be an integer of at least 1, not '0'",
        ),
        (
            ("crawl", page, "--out", site, "--max-depth", "deep"),
            "server.py crawl: argument --max-depth: must be an integer from 0 to 100, not 'deep'",
        ),
        (
            ("crawl", page, "--out", site, "retyr=false", "format=json"),
            "server.py crawl: retyr= is not a Markdown parameter (did you mean retry?); "
            "format= does not apply to a crawl (it shapes one page's answer)",
        ),
        (
            ("markdown", "url=https://example.org/", page),
            "server.py markdown: url= is the command's own: give the page as the URL argument",
        ),
        (
            ("screenshot", page, "-o", str(tmp_path / "shot.png"), "response_type=json"),
            "server.py screenshot: response_type= is the command's own: it writes the image "
            "itself, to -o FILE",
        ),
        (
            ("markdown", page, "https://example.org/"),
            f"server.py markdown: one page at a time: {page} and https://example.org/ are "
            "both URLs",
        ),
        (
            ("markdown", "README.md"),
            "server.py markdown: README.md is a file here, not a URL: Pagecast fetches pages "
            "over http or https",
        ),
        (
            ("markdown", page, "include_metadata"),
            "server.py markdown: parameters look like name=value, not 'include_metadata'",
        ),
        (
            ("markdown", page, "-o", str(tmp_path / "missing" / "page.md")),
            f"server.py markdown: -o {tmp_path / 'missing' / 'page.md'}: there is no folder "
            f"{tmp_path / 'missing'}",
        ),
        (
            ("markdown", page, "-o", str(tmp_path)),
            f"server.py markdown: -o {tmp_path} is a folder; name a file in it",
        ),
    ]
    for argv, first_line in cases:
        assert refused(run_cli(env, *argv))[0] == first_line, argv
    occupied = tmp_path / "occupied"
    occupied.write_text("a file, not a folder")
    out = refused(run_cli(env, "crawl", page, "--out", str(occupied)))
    assert out == [f"cannot make the folder {occupied}: File exists"]
    assert not (tmp_path / "site").exists() and not (tmp_path / "missing").exists()
    assert not (Path(env["PAGECAST_STORE_DATA_DIR"]) / "pagecast.db").exists()


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("https://example.com/a?b=c", None),
        ("HTTP://example.com/", None),
        ("http:/example.com/", None),  # the API mends the slash, and warns
        ("ftp://example.com/", None),  # the API refuses it
        ("mailto:someone@example.com", None),
        ("example.com", "https://example.com"),
        ("www.example.com/page?id=3#top", "https://www.example.com/page?id=3#top"),
        ("example.com:8443/", "https://example.com:8443/"),
        ("//cdn.example.com/a.js", "https://cdn.example.com/a.js"),
        ("localhost:3000/x", "http://localhost:3000/x"),
        ("10.0.0.7/status", "http://10.0.0.7/status"),
        ("[::1]:8080/", "http://[::1]:8080/"),
    ],
)
def test_a_url_without_its_scheme_is_told_the_url_meant(typed: str, meant: str | None) -> None:
    problem = url_problem(typed)
    if meant is None:
        assert problem is None
    else:
        assert problem == f"{typed} is not a URL (no http:// or https://); did you mean {meant}?"
    assert url_problem(" ") == "the page's URL is empty"


def test_a_key_for_a_plan_or_org_that_cannot_be_is_refused(env: dict[str, str]) -> None:  # noqa: F811
    plan = refused(run_cli(env, "keys", "create", "--org", "acme", "--plan", "Pro"))
    assert plan[-1] == "unknown plan 'Pro' (did you mean pro?); configured: free, pro"
    org = refused(run_cli(env, "keys", "create", "--org", " "))
    assert org[-1] == "cannot create the key: organization must not be empty"
    assert "acme" not in run_cli(env, "keys", "list").stdout, "no key was issued"

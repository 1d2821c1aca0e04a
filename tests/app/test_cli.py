"""The command line as a user types it: the one-shots' help, ``config`` with the source of every
value, ``usage`` for the current month, and ``PAGECAST_*`` variables that name no setting."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

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
        expected = {param.name for param in table.params} - {"app_id", "url"}
        assert listed == expected, command
        assert "-o OUTPUT" in done.stdout and "--verbose" in done.stdout
    help_text = run_cli(env, "screenshot", "--help").stdout
    assert "format: one of jpeg, png, webp, pdf, default jpeg" in help_text
    assert ".png png" in help_text, "the extension rule is told"
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

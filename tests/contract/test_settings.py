"""Settings: defaults, the TOML file, environment overrides, validation, and the generated
config.toml that must match the committed one."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app.config import (
    Settings,
    load_settings,
    render_config,
    render_reference,
    splice_reference,
)
from settings.fields import SettingsError

ROOT = Path(__file__).resolve().parent.parent.parent


def test_committed_config_matches_the_declarations() -> None:
    committed = (ROOT / "config.toml").read_text()
    assert committed == render_config(), "config.toml drifted: run `make config`"


def test_settings_page_keeps_the_current_reference() -> None:
    page = (ROOT / "docs" / "settings.md").read_text()
    assert splice_reference(page, render_reference()) == page, (
        "docs/settings.md drifted from the settings declarations: run `make docs` "
        "(or `.venv/bin/python server.py config --markdown --into docs/settings.md`)"
    )


def test_a_drifted_settings_page_is_seen() -> None:
    page = (ROOT / "docs" / "settings.md").read_text()
    drifted = page.replace("| `port` | integer (min 1; max 65535) | `8080` |", "| `port` | x |")
    assert drifted != page
    assert splice_reference(drifted, render_reference()) == page


def test_reference_lists_every_setting_once() -> None:
    reference = render_reference()
    for line in render_config().splitlines():
        if line and not line.startswith(("#", "[")):
            name = line.split(" = ")[0]
            assert f"| `{name}` |" in reference, name


def test_reference_never_shows_a_secret() -> None:
    settings = Settings()
    settings.screenshots.s3_secret_access_key = "hunter2-not-for-docs"
    assert "hunter2-not-for-docs" not in render_reference(settings)


def test_credentials_stay_out_of_the_settings_repr() -> None:
    """Settings can end up in a log line or a traceback: what may carry a password does not."""
    settings = load_settings(
        None,
        environ={
            "PAGECAST_STORE_DATABASE_URL": "postgresql://pagecast:pw-in-url@db/pagecast",
            "PAGECAST_PROXIES_PREMIUM": "http://user:pw-in-proxy@resi.example:8000",
            "PAGECAST_SCREENSHOTS_S3_ACCESS_KEY_ID": "id",
            "PAGECAST_SCREENSHOTS_S3_SECRET_ACCESS_KEY": "pw-in-s3",
        },
    )
    assert settings.store.database_url.endswith("@db/pagecast")
    text = repr(settings)
    for secret in ("pw-in-url", "pw-in-proxy", "pw-in-s3"):
        assert secret not in text


def test_generated_config_loads_back_to_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(render_config())
    assert load_settings(path, environ={}) == Settings()


def test_every_setting_has_help() -> None:
    text = render_config()
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line and not line.startswith(("#", "[")):
            assert lines[index - 1].startswith("# "), f"no help above {line!r}"


def test_operator_interface_names() -> None:
    data = tomllib.loads(render_config())
    assert {"host", "port", "frame_port", "metrics_port", "base_url", "frame_host"} <= set(
        data["server"]
    )
    assert data["server"]["port"] == 8080 and data["server"]["frame_port"] == 8081
    assert data["server"]["metrics_port"] == 9108
    assert {"database_url", "data_dir"} <= set(data["store"])
    assert data["fetch"]["allow_hosts"] == []
    assert data["plans"]["free"]["badge"] is True and data["plans"]["free"]["premium"] is False
    assert data["plans"]["pro"]["badge"] is False and data["plans"]["pro"]["superior"] is True


def test_environment_overrides() -> None:
    settings = load_settings(
        None,
        environ={
            "PAGECAST_SERVER_PORT": "9000",
            "PAGECAST_FETCH_ALLOW_HOSTS": "127.0.0.1, localhost",
            "PAGECAST_STORE_DATABASE_URL": "postgresql://u@h/db",
            "PAGECAST_PLANS_FREE_BURST": "3",
            "PAGECAST_SERVER_XHEADERS": "TRUE",
        },
    )
    assert settings.server.port == 9000
    assert settings.fetch.allow_hosts == ["127.0.0.1", "localhost"]
    assert settings.store.database_url == "postgresql://u@h/db"
    assert settings.plans["free"].burst == 3
    assert settings.server.xheaders is True


def test_file_values_and_extra_plans(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[server]\nport = 7000\n[plans.team]\nburst = 40\npremium = true\n")
    settings = load_settings(path, environ={"PAGECAST_SERVER_PORT": "7001"})
    assert settings.server.port == 7001  # the environment wins over the file
    assert settings.plans["team"].premium is True and settings.plans["team"].burst == 40
    assert settings.plans["team"].badge is True  # declared default
    assert settings.plans["pro"].badge is False  # shipped plan kept


def test_every_problem_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[server]\nport = "x"\nprot = 1\n[fetch]\nmax_redirects = 99\n[nope]\na = 1\n')
    with pytest.raises(SettingsError) as info:
        load_settings(path, environ={"PAGECAST_SERVER_FRAME_PORT": "abc"})
    text = "\n".join(info.value.problems)
    for fragment in (
        "server.port",
        "server.prot: unknown",
        "fetch.max_redirects",
        "nope: unknown",
        "PAGECAST_SERVER_FRAME_PORT",
    ):
        assert fragment in text


def test_a_plan_that_keeps_fewer_jobs_than_it_may_run_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plans.toml"
    path.write_text("[plans.team]\nmax_active_jobs = 20\nmax_kept_jobs = 10\n")
    with pytest.raises(SettingsError) as info:
        load_settings(path, environ={})
    assert info.value.problems == [
        "plans.team.max_kept_jobs (10) is below max_active_jobs (20): room for a new job is made "
        "only from ended jobs, so the active ones would outgrow what is kept"
    ]


def test_broken_toml_is_a_settings_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[server\n")
    with pytest.raises(SettingsError):
        load_settings(path, environ={})


def test_an_unreadable_deny_list_entry_stops_the_start(tmp_path: Path) -> None:
    path = tmp_path / "deny.toml"
    path.write_text('[fetch]\ndeny_networks = ["10.0.0.0/8", "10.0.0.0/40"]\ndeny_ports = ["22"]\n')
    with pytest.raises(SettingsError) as info:
        load_settings(path, environ={"PAGECAST_FETCH_DENY_PORTS": "22,7000-6000"})
    text = "\n".join(info.value.problems)
    assert "'10.0.0.0/40'" in text and "'7000-6000'" in text and len(info.value.problems) == 2
    path.write_text('[fetch]\ndeny_networks = ["10.0.0.0/8", "fd00::/8"]\ndeny_ports = ["22"]\n')
    loaded = load_settings(path, environ={"PAGECAST_FETCH_DENY_PORTS": "22,6000-6063"})
    assert loaded.fetch.deny_ports == ["22", "6000-6063"]
    assert loaded.fetch.deny_list().port_denied(6010)

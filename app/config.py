"""The whole configuration: the server's own sections (listeners, plans, credits) and the sections
each component declares beside its code, loaded together and rendered as the commented
``config.toml``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from browser.farm.settings import FarmSettings
from browser.fetch.client import FetchSettings
from browser.proxies import ProxyPool, ProxySettings
from handlers.settings import ServerSettings
from services.accounts.billing import CreditSettings
from services.accounts.plans import DEFAULT_PLANS, PlanSettings
from services.embeds import OembedSettings
from services.health import ReadinessSettings
from services.jobs.settings import JobSettings
from services.pool import ConvertSettings
from services.screenshots.deferred import AsyncCaptureSettings
from services.site_map import MapSettings
from services.webhooks import WebhookSettings
from settings.fields import (
    SettingsError,
    build_section,
    default_environ,
    env_prefix,
    read_toml,
)
from settings.render import reference_rows, render_section
from store.cache import CacheSettings
from store.db import StoreSettings
from store.screenshots import ScreenshotSettings

SECTIONS: tuple[type, ...] = (
    ServerSettings,
    StoreSettings,
    ScreenshotSettings,
    CacheSettings,
    FetchSettings,
    ProxySettings,
    FarmSettings,
    ConvertSettings,
    OembedSettings,
    MapSettings,
    WebhookSettings,
    AsyncCaptureSettings,
    CreditSettings,
    JobSettings,
    ReadinessSettings,
)


@dataclass
class Settings:
    """Every setting of one Pagecast process."""

    server: ServerSettings = field(default_factory=ServerSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    screenshots: ScreenshotSettings = field(default_factory=ScreenshotSettings)
    cache: CacheSettings = field(default_factory=CacheSettings)
    fetch: FetchSettings = field(default_factory=FetchSettings)
    proxies: ProxySettings = field(default_factory=ProxySettings)
    farm: FarmSettings = field(default_factory=FarmSettings)
    convert: ConvertSettings = field(default_factory=ConvertSettings)
    oembed: OembedSettings = field(default_factory=OembedSettings)
    map: MapSettings = field(default_factory=MapSettings)
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    async_captures: AsyncCaptureSettings = field(default_factory=AsyncCaptureSettings)
    credits: CreditSettings = field(default_factory=CreditSettings)
    jobs: JobSettings = field(default_factory=JobSettings)
    readiness: ReadinessSettings = field(default_factory=ReadinessSettings)
    plans: dict[str, PlanSettings] = field(
        default_factory=lambda: {name: replace(plan) for name, plan in DEFAULT_PLANS.items()}
    )


def load_settings(
    path: Path | None = None,
    environ: Mapping[str, str] | None = None,
    sources: dict[str, dict[str, str]] | None = None,
) -> Settings:
    """Read ``path`` (None: defaults only), apply ``PAGECAST_*`` overrides, and check everything.

    ``sources``, when given, receives per section (``server``, ``plans.free``) where each value
    that is not a default came from (see :func:`settings.fields.build_section`)."""
    env = default_environ() if environ is None else environ
    data = read_toml(path)
    problems: list[str] = []
    sections: dict[str, Any] = {}
    for cls in SECTIONS:
        name = cls.SECTION  # type: ignore[attr-defined]
        table = data.get(name, {})
        if not isinstance(table, dict):
            problems.append(f"{name}: must be a table")
            table = {}
        sections[name] = build_section(
            cls,
            table=table,
            environ=env,
            env_prefix=env_prefix(name),
            label=name,
            problems=problems,
            sources=None if sources is None else sources.setdefault(name, {}),
        )
    plans_table = data.get("plans", {})
    if not isinstance(plans_table, dict):
        problems.append("plans: must be a table of plans")
        plans_table = {}
    plans: dict[str, PlanSettings] = {}
    for plan_name in dict.fromkeys([*DEFAULT_PLANS, *plans_table]):
        table = plans_table.get(plan_name, {})
        if not isinstance(table, dict):
            problems.append(f"plans.{plan_name}: must be a table")
            table = {}
        plans[plan_name] = build_section(
            PlanSettings,
            table=table,
            environ=env,
            env_prefix=env_prefix("plans", plan_name),
            label=f"plans.{plan_name}",
            problems=problems,
            base=DEFAULT_PLANS.get(plan_name),
            sources=None if sources is None else sources.setdefault(f"plans.{plan_name}", {}),
        )
    for key in data:
        if key not in sections and key != "plans":
            problems.append(f"{key}: unknown section")
    if not problems:
        problems += sections["screenshots"].problems()
        problems += sections["farm"].problems()
        problems += sections["fetch"].problems()
        for plan_name, plan in plans.items():
            problems += plan.problems(f"plans.{plan_name}")
        try:
            ProxyPool(sections["proxies"])  # proxy URLs and the domain table, checked at start
        except SettingsError as exc:
            problems += exc.problems
    if problems:
        raise SettingsError(problems)
    return Settings(plans=plans, **sections)


HEADER = """\
# Pagecast configuration. Generated by `python server.py config --defaults` from the settings
# each component declares; every value below is the default. Any setting can be overridden by an
# environment variable PAGECAST_<SECTION>_<NAME> (for a plan: PAGECAST_PLANS_<PLAN>_<NAME>), for
# example PAGECAST_SERVER_PORT=9000 or PAGECAST_FETCH_ALLOW_HOSTS=127.0.0.1,localhost.
"""


def render_config(settings: Settings | None = None) -> str:
    """The commented ``config.toml`` for ``settings`` (the defaults when None)."""
    current = settings or Settings()
    lines = [HEADER]
    for cls in SECTIONS:
        name = cls.SECTION  # type: ignore[attr-defined]
        lines += render_section(cls, name, getattr(current, name))
    for index, (plan_name, plan) in enumerate(current.plans.items()):
        if index == 0:
            lines += [
                "# Plans: one [plans.NAME] table each; keys are issued for a plan with",
                "# `python server.py keys create --org NAME --plan NAME`.",
            ]
        lines += render_section(PlanSettings, f"plans.{plan_name}", plan, with_doc=False)
    return "\n".join(lines).rstrip("\n") + "\n"


REFERENCE_BEGIN = "<!-- settings reference: generated by `python server.py config --markdown` -->"
REFERENCE_END = "<!-- end of settings reference -->"
_TABLE_HEAD = [
    "| setting | type | default | environment variable | meaning |",
    "|---|---|---|---|---|",
]


def render_reference(settings: Settings | None = None) -> str:
    """The configuration reference in Markdown: one table per section, with the same defaults
    and help as ``config.toml``, between the markers that docs/settings.md keeps it in (under
    its "Settings reference" heading, so each section is a third-level heading)."""
    current = settings or Settings()
    lines = [REFERENCE_BEGIN, ""]
    for cls in SECTIONS:
        name = cls.SECTION  # type: ignore[attr-defined]
        lines += [f"### `[{name}]`", "", " ".join((cls.__doc__ or "").split()), ""]
        lines += _TABLE_HEAD + reference_rows(cls, getattr(current, name), env_prefix(name))
        lines.append("")
    lines += [
        "### `[plans.NAME]`",
        "",
        "One table per plan; keys are issued for a plan with "
        "`python server.py keys create --org NAME --plan NAME`. The shipped plans are "
        + ", ".join(f"`{plan}`" for plan in current.plans)
        + "; the defaults of a new plan:",
        "",
        *_TABLE_HEAD,
        *reference_rows(PlanSettings, PlanSettings(), env_prefix("plans", "NAME")),
        "",
        REFERENCE_END,
    ]
    return "\n".join(lines) + "\n"


def splice_reference(document: str, reference: str) -> str:
    """``document`` with the text between the reference markers replaced by ``reference``;
    ValueError when the document does not have the markers."""
    start = document.find(REFERENCE_BEGIN)
    end = document.find(REFERENCE_END, max(start, 0))
    if start < 0 or end < 0:
        raise ValueError("the settings reference markers are missing")
    end += len(REFERENCE_END) + 1
    return document[:start] + reference + document[end:]

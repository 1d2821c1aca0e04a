"""The operations files in deploy/: the Grafana dashboard and the Prometheus alerts name only
metrics Pagecast registers, every job and webhook metric has a panel, the alerts watch jobs that
make no progress and webhooks that fail, and the nginx example proxies the API and the frame
host but never the metrics listener."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY

from app.web import MAX_HEADER_BYTES

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
DASHBOARD = DEPLOY / "grafana-dashboard.json"
ALERTS = DEPLOY / "prometheus-alerts.yml"
NGINX = DEPLOY / "nginx.conf.example"

# Packages whose modules may declare metrics; every module is imported so that none is missed.
METRIC_PACKAGES = ("handlers", "browser", "convert", "store", "services")
# Pagecast's own metrics and the process metrics prometheus_client adds.
METRIC_NAME = re.compile(r"\b(?:pagecast|process)_[a-z0-9_]*[a-z0-9]")
# The series names each metric type exposes in the text format, by suffix.
SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "gaugehistogram": ("_bucket", "_gsum", "_gcount"),
    "summary": ("", "_sum", "_count", "_created"),
    "info": ("_info",),
    "stateset": ("",),
    "unknown": ("",),
}


def _import_metric_modules() -> None:
    for package_name in METRIC_PACKAGES:
        package = importlib.import_module(package_name)
        for module in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            importlib.import_module(module.name)


@pytest.fixture(scope="module")
def exposed_names() -> set[str]:
    """Every series name the registry can expose, also for labelled metrics without samples:
    what a PromQL query may name."""
    _import_metric_modules()
    names: set[str] = set()
    for metric in REGISTRY.collect():
        names.update(metric.name + suffix for suffix in SUFFIXES.get(metric.type, ("",)))
        names.update(sample.name for sample in metric.samples)
    return names


@pytest.fixture(scope="module")
def family_names(exposed_names: set[str]) -> set[str]:
    """Series names plus the metric families' own names, which descriptions may mention."""
    return exposed_names | {metric.name for metric in REGISTRY.collect()}


def _referenced(text: str) -> set[str]:
    return set(METRIC_NAME.findall(text))


def _dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """All panels, those inside collapsed rows included."""
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found.extend(panel.get("panels", []))
    return found


def _dashboard_queries(node: Any) -> list[str]:
    """Every PromQL query of the dashboard: panel targets and template variable queries."""
    if isinstance(node, list):
        return [query for item in node for query in _dashboard_queries(item)]
    if not isinstance(node, dict):
        return []
    queries = []
    for key, value in node.items():
        if key in {"expr", "definition"} or (key == "query" and isinstance(value, str)):
            queries.append(value)
        else:
            queries.extend(_dashboard_queries(value))
    return queries


def _alert_exprs(text: str) -> list[str]:
    """The ``expr:`` of every rule, single-line or a ``|`` / ``>-`` block, without PyYAML."""
    exprs = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"^(\s*)expr:\s*(.*)$", line)
        if not match:
            continue
        indent, value = len(match.group(1)), match.group(2).strip()
        if value and value[0] not in "|>":
            exprs.append(value)
            continue
        block = []
        for following in lines[index + 1 :]:
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            block.append(following.strip())
        exprs.append(" ".join(part for part in block if part))
    return exprs


def test_registry_holds_pagecast_metrics(exposed_names: set[str]) -> None:
    for name in (
        "pagecast_requests_total",
        "pagecast_request_duration_seconds_bucket",
        "pagecast_farm_contexts",
        "pagecast_fetches_total",
    ):
        assert name in exposed_names


def test_dashboard_names_only_registered_metrics(
    exposed_names: set[str], family_names: set[str]
) -> None:
    queries = _dashboard_queries(_dashboard())
    assert len(queries) >= 30
    referenced = _referenced(" ".join(queries))
    assert len(referenced) >= 12, "the dashboard queries few Pagecast metrics"
    assert sorted(referenced - exposed_names) == []
    # Titles and descriptions name metrics too: they must be real ones as well.
    assert sorted(_referenced(DASHBOARD.read_text(encoding="utf-8")) - family_names) == []


def test_dashboard_is_importable() -> None:
    dashboard = _dashboard()
    assert dashboard["schemaVersion"] >= 36
    assert dashboard["uid"] and dashboard["title"]
    assert [item["name"] for item in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    variables = {item["name"]: item for item in dashboard["templating"]["list"]}
    assert variables["DS_PROMETHEUS"]["type"] == "datasource"
    assert variables["DS_PROMETHEUS"]["query"] == "prometheus"

    panels = _panels(dashboard)
    ids = [panel["id"] for panel in panels]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    queried = [panel for panel in panels if panel["type"] != "row"]
    assert len(queried) >= 20
    for panel in panels:
        position = panel["gridPos"]
        assert position["x"] >= 0 and position["x"] + position["w"] <= 24, panel["title"]
    for panel in queried:
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
            assert METRIC_NAME.search(target["expr"]) or "up{" in target["expr"], panel["title"]


def test_alerts_name_only_registered_metrics(
    exposed_names: set[str], family_names: set[str]
) -> None:
    text = ALERTS.read_text(encoding="utf-8")
    exprs = _alert_exprs(text)
    assert len(exprs) >= 8
    assert any(expr.startswith('up{job="pagecast"}') for expr in exprs)
    referenced = _referenced(" ".join(exprs))
    assert referenced
    assert sorted(referenced - exposed_names) == []
    # Descriptions and comments name metrics too: they must be real ones as well.
    assert sorted(_referenced(text) - family_names) == []


def test_alert_rules_are_complete() -> None:
    rules = [
        rule
        for group in yaml.safe_load(ALERTS.read_text(encoding="utf-8"))["groups"]
        for rule in group["rules"]
    ]
    names = [rule["alert"] for rule in rules]
    assert len(names) == len(set(names)), "alert names must be unique"
    assert len(rules) == len(_alert_exprs(ALERTS.read_text(encoding="utf-8")))
    for rule in rules:
        assert rule["expr"].strip(), rule["alert"]
        assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["alert"]
        assert rule["labels"]["severity"] in {"critical", "warning"}, rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]


def _job_metrics() -> set[str]:
    """The families of the job and webhook metrics (:mod:`services.metrics`)."""
    module = importlib.import_module("services.metrics")
    names = set()
    for value in vars(module).values():
        name = getattr(value, "_name", None)
        if isinstance(name, str) and name.startswith(("pagecast_job", "pagecast_webhook")):
            names.add(name)
    return names


def test_every_job_and_webhook_metric_has_a_panel(exposed_names: set[str]) -> None:
    families = _job_metrics()
    assert {
        "pagecast_jobs_active",
        "pagecast_jobs_ended",
        "pagecast_job_pages",
        "pagecast_job_pages_queued",
        "pagecast_job_lease_takeovers",
        "pagecast_webhook_deliveries",
    } <= families
    queried = _referenced(" ".join(_dashboard_queries(_dashboard())))
    for family in families:
        series = {family, f"{family}_total"} & exposed_names
        assert series & queried, f"no panel queries {family}"


def _rule(name: str) -> dict[str, Any]:
    for group in yaml.safe_load(ALERTS.read_text(encoding="utf-8"))["groups"]:
        for rule in group["rules"]:
            if rule["alert"] == name:
                found: dict[str, Any] = rule
                return found
    raise AssertionError(f"no alert {name}")


def test_alerts_watch_stalled_jobs_and_failing_webhooks(exposed_names: set[str]) -> None:
    stalled = _rule("PagecastJobsNoProgress")["expr"]
    assert 'pagecast_jobs_active{job="pagecast", state="running"}' in stalled
    assert "increase(pagecast_job_pages_total" in stalled and "== 0" in stalled
    failing = _rule("PagecastWebhookFailures")["expr"]
    assert 'rate(pagecast_webhook_deliveries_total{job="pagecast", outcome=~"failed|dropped"}' in (
        failing
    )
    # Neither a URL, a job nor an organization is a label of the job and webhook metrics.
    for metric in REGISTRY.collect():
        if metric.name.startswith(("pagecast_job", "pagecast_webhook")):
            for sample in metric.samples:
                assert set(sample.labels) <= {"kind", "status", "outcome", "state", "result"}


def _blocks(text: str, kind: str) -> list[str]:
    """The bodies of the top-level ``kind { ... }`` blocks of an nginx file, comments removed."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    bodies = []
    for match in re.finditer(rf"(?m)^\s*{kind}\b[^{{;]*{{", code):
        depth, start = 1, match.end()
        position = start
        while depth:
            depth += {"{": 1, "}": -1}.get(code[position], 0)
            position += 1
        bodies.append(code[start : position - 1])
    return bodies


def test_nginx_proxies_api_and_frame_host_only() -> None:
    text = NGINX.read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert "9108" not in code, "the metrics listener must not be proxied"
    assert "9108" in text, "the example should say why the metrics port is left out"

    upstreams = {}
    for match in re.finditer(r"(?m)^\s*upstream\s+(\w+)\s*{([^}]*)}", code):
        upstreams[match.group(1)] = match.group(2)
    backends = {}
    for body in _blocks(text, "server"):
        host = re.search(r"server_name\s+([^;]+);", body)
        assert host
        if not re.search(r"listen\s+443\s+ssl", body):
            assert re.search(r"return\s+301\s+https://\$host\$request_uri;", body)
            assert "proxy_pass" not in body
            continue
        upstream = re.search(r"proxy_pass\s+http://(\w+);", body)
        assert upstream
        target = re.search(r"server\s+(127\.0\.0\.1:\d+);", upstreams[upstream.group(1)])
        assert target
        backends[host.group(1).strip()] = (target.group(1), body)
        for header in ("X-Forwarded-For", "X-Real-IP", "X-Forwarded-Proto"):
            assert f"proxy_set_header {header}" in body, header
        assert "Strict-Transport-Security" in body
        read_timeout = re.search(r"proxy_read_timeout\s+(\d+)s;", body)
        assert read_timeout and int(read_timeout.group(1)) > 85
        assert re.search(r"client_max_body_size\s+\d+k;", body)

    # Request heads as long as Pagecast takes reach it (nginx's default gives 414 past 8k).
    buffers = re.search(r"(?m)^large_client_header_buffers\s+(\d+)\s+(\d+)k;", code)
    assert buffers and int(buffers.group(2)) * 1024 >= MAX_HEADER_BYTES

    assert backends["api.example.com"][0] == "127.0.0.1:8080"
    assert backends["frames.example.com"][0] == "127.0.0.1:8081"
    frame_block = backends["frames.example.com"][1]
    assert "X-Frame-Options" not in frame_block and "frame-ancestors" not in frame_block

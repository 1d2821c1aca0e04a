"""The administration commands of ``server.py``: API keys, usage by organization and month, and
the oEmbed provider registry's import. Each works on the store or the data folder directly,
without a running server, and returns the process's exit code."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from app.cli_parser import did_you_mean
from app.config import Settings
from app.providers import registry_path
from convert.embed.providers import RegistryError
from services.embeds.provider_files import load_registry_file
from services.screenshots.signed import key_secret
from store.installation import LINK_SECRET
from store.store import Store


def keys_command(settings: Settings, args: argparse.Namespace) -> int:
    """``keys create --org ORG --plan PLAN | list | revoke PREFIX | signing-secret PREFIX``: API
    keys in the store, and the signing secret of a key's signed links."""
    store = Store(settings.store)
    store.open()
    try:
        if args.keys_command == "create":
            if args.plan not in settings.plans:
                hint = did_you_mean(args.plan, list(settings.plans))
                print(
                    f"unknown plan {args.plan!r}{hint}; configured: {', '.join(settings.plans)}",
                    file=sys.stderr,
                )
                return 2
            try:
                issued = store.create_key(args.org, args.plan)
            except ValueError as exc:  # the organization's name: empty, or too long
                print(f"cannot create the key: {exc}", file=sys.stderr)
                return 2
            secret = _signing_secret(store, issued.prefix)
            print(f"signing secret of {issued.prefix} (signed links): {secret}")
            print(
                f"created key {issued.prefix} for org {issued.org} (plan {issued.plan});"
                " it is shown once:"
            )
            print(issued.key)
        elif args.keys_command == "list":
            print(f"{'prefix':<12} {'org':<24} {'plan':<8} {'created':<20} revoked")
            for row in store.list_keys():
                revoked = row.revoked_at.strftime("%Y-%m-%d %H:%M:%S") if row.revoked_at else "-"
                created = row.created_at.strftime("%Y-%m-%d %H:%M:%S")
                print(f"{row.prefix:<12} {row.org:<24} {row.plan:<8} {created:<20} {revoked}")
        elif args.keys_command == "revoke":
            if not store.revoke_key(args.prefix):
                print(f"no active key with prefix {args.prefix!r}", file=sys.stderr)
                return 1
            print(f"revoked {args.prefix}")
        elif args.keys_command == "signing-secret":
            prefix = args.prefix.strip()
            if not any(
                row.prefix == prefix and row.revoked_at is None for row in store.list_keys()
            ):
                print(f"no active key with prefix {prefix}", file=sys.stderr)
                return 1
            print(_signing_secret(store, prefix))
    finally:
        store.close_sync()
    return 0


def _signing_secret(store: Store, prefix: str) -> str:
    """The signing secret of signed links for the key with ``prefix``."""
    return key_secret(store.installation_secret_sync(LINK_SECRET), prefix)


def usage_command(settings: Settings, args: argparse.Namespace) -> int:
    """``usage [--org NAME] [--month YYYY-MM|all]``: credits and requests by organization and
    endpoint, with each organization's monthly quota; the current month unless told."""
    month = args.month or datetime.now(UTC).strftime("%Y-%m")
    store = Store(settings.store)
    store.open()
    try:
        try:
            rows = store.usage(args.org, None if month == "all" else month)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        plans = {row.org: row.plan for row in store.list_keys()}
    finally:
        store.close_sync()
    totals: dict[tuple[str, str], tuple[int, int]] = {}
    for row in rows:
        requests, credits = totals.get((row.org, row.endpoint), (0, 0))
        totals[(row.org, row.endpoint)] = (requests + row.requests, credits + row.credits)
    print(f"month {month}")
    print(f"{'org':<24} {'endpoint':<14} {'requests':>10} {'credits':>10}")
    for (org, endpoint), (requests, credits) in sorted(totals.items()):
        print(f"{org:<24} {endpoint:<14} {requests:>10} {credits:>10}")
    for org in sorted({org for org, _ in totals}):
        used = sum(credits for (name, _), (_, credits) in totals.items() if name == org)
        plan = settings.plans.get(plans.get(org, ""))
        quota = f"of {plan.monthly_credits}" if plan and plan.monthly_credits else "(no quota)"
        print(f"{org:<24} {'total':<14} {'':>10} {used:>10} {quota}")
    if not totals:
        print("no usage recorded")
    return 0


def providers_command(settings: Settings, args: argparse.Namespace) -> int:
    """``providers import FILE``: validate an oembed.com-format registry and install it where
    the server reads it (on top of the built-in list, from the next start)."""
    try:
        imported, problems = load_registry_file(args.file)
    except RegistryError as exc:
        print(f"cannot import {args.file}: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"skipped: {problem}", file=sys.stderr)
    if not imported:
        print("no usable provider in the file; nothing imported", file=sys.stderr)
        return 1
    target = registry_path(settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_bytes(Path(args.file).read_bytes())
    os.replace(temporary, target)
    print(
        f"imported {len(imported)} providers ({len(problems)} problems skipped) into {target}; "
        "restart the server to use them"
    )
    return 0

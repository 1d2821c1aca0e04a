#!/usr/bin/env bash
# Sets Pagecast up on a Debian or Ubuntu machine, then runs the server or the test suite.
#
#   bash deploy/bootstrap.sh run     set up, make a first API key (printed), run the server
#   bash deploy/bootstrap.sh test    set up (PostgreSQL included), run every test and the linters
#   bash deploy/bootstrap.sh setup   set up only
#
# Idempotent: what is already installed is not installed again.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
case "$mode" in run|test|setup) ;; *) echo "usage: bash deploy/bootstrap.sh run|test|setup" >&2; exit 2 ;; esac

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }

command -v python3 >/dev/null || { echo "python3 is missing: apt-get install python3" >&2; exit 1; }
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Pagecast needs Python 3.11 or newer; this python3 is $(python3 -V 2>&1)" >&2
  exit 1
fi

# System packages: Python with venv, a compiler and headers for psycopg2, Chromium for the farm,
# and for the tests a PostgreSQL server.
missing=()
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v gcc >/dev/null || missing+=(gcc)
[ -e "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ] || missing+=(python3-dev)
command -v pg_config >/dev/null || missing+=(libpq-dev)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ "$mode" = test ] && ! command -v pg_ctlcluster >/dev/null; then missing+=(postgresql); fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing system packages: ${missing[*]}"
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "these packages are missing and there is no sudo: run as root once" >&2
    exit 1
  fi
  sudo_ apt-get update -qq
  sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The virtualenv with the pinned requirements; reinstalled only when a requirements file changes.
reqs=requirements.txt
[ "$mode" = run ] || reqs=tests/requirements.txt
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.pagecast-$(cat requirements.txt tests/requirements.txt | sha256sum | cut -c1-16)-$(basename "$reqs" .txt)-$(dirname "$reqs" | tr / _)
if [ ! -e "$stamp" ]; then
  say "installing Python packages from $reqs"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$reqs"
  touch "$stamp"
fi

# The public oEmbed provider registry (npm package oembed-providers, MIT), pinned, where npm
# exists: the server imports it on top of its built-in list, the tests check the importer on it.
OEMBED_PROVIDERS_VERSION=1.0.20260604
registry=.cache/npm/node_modules/oembed-providers/providers.json
if command -v npm >/dev/null && [ ! -s "$registry" ]; then
  say "installing the public oEmbed provider registry (oembed-providers $OEMBED_PROVIDERS_VERSION)"
  npm install -s --prefix .cache/npm --no-audit --no-fund "oembed-providers@$OEMBED_PROVIDERS_VERSION" \
    >/dev/null || say "npm could not install oembed-providers; the built-in provider list is used"
fi

postgres_up() {
  command -v pg_lsclusters >/dev/null || return 0
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $4}' | grep -q online; then
    say "starting PostgreSQL"
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    sudo_ pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p 5432 && return 0
    sleep 1
  done
  echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2
  return 1
}

case "$mode" in
  setup)
    say "set up done"
    ;;
  test)
    postgres_up
    if ! psql -w -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1; then
      # A fresh Debian PostgreSQL only lets the postgres user in over the local socket; the tests
      # connect over TCP as postgres on 127.0.0.1, so trust that one address.
      hba=$(as_postgres psql -tAc 'show hba_file' 2>/dev/null || true)
      if [ -n "$hba" ]; then
        say "allowing trust auth for postgres on 127.0.0.1 ($hba)"
        sudo_ sed -i '1i host all postgres 127.0.0.1/32 trust' "$hba"
        as_postgres psql -tAc 'select pg_reload_conf()' >/dev/null
      fi
    fi
    say "ruff"
    .venv/bin/ruff check .
    say "mypy"
    .venv/bin/mypy
    say "pytest"
    exec .venv/bin/pytest "${@:2}"
    ;;
  run)
    mkdir -p data
    if [ ! -s data/first-key ]; then
      say "creating the SQLite database and a first API key (org local, plan pro)"
      .venv/bin/python server.py keys create --org local --plan pro | tail -n 1 > data/first-key.tmp
      chmod 600 data/first-key.tmp
      mv data/first-key.tmp data/first-key
    fi
    if [ -s "$registry" ] && [ ! -s data/providers.json ]; then
      # Quietly: the import's own message asks to restart a running server, and the server
      # this command starts next reads the providers anyway.
      if .venv/bin/python server.py providers import "$registry" >/dev/null 2>&1; then
        say "imported the public oEmbed provider registry (oembed-providers $OEMBED_PROVIDERS_VERSION)"
      else
        say "the public oEmbed provider registry could not be imported; the built-in list is used"
      fi
    fi
    # A local trial: let the SSRF guard reach pages served on this machine. Production
    # configurations leave allow_hosts empty.
    export PAGECAST_FETCH_ALLOW_HOSTS=${PAGECAST_FETCH_ALLOW_HOSTS-127.0.0.1,localhost}
    key=$(cat data/first-key)
    port=${PAGECAST_SERVER_PORT:-8080}
    say "API key: $key"
    say "local trial: allow_hosts=$PAGECAST_FETCH_ALLOW_HOSTS (pages on this machine may be fetched)"
    say "the server runs in this terminal until Ctrl-C; try it from another one, on the bundled example page:"
    say "  (cd docs/example && python3 -m http.server 8000 --bind 127.0.0.1 &)"
    say "  curl -s \"http://127.0.0.1:$port/api/3.0/markdown/http%3A%2F%2F127.0.0.1%3A8000%2F?app_id=$key\""
    exec .venv/bin/python server.py "${@:2}"
    ;;
esac

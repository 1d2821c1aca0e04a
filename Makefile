# Everyday verbs. Each one sets up what it needs first (deploy/bootstrap.sh is idempotent).
.PHONY: run test setup lint format config docs client-wheel bench bench-oembed bench-result-cache bench-one-load bench-fetch bench-screenshot bench-readiness bench-markdown bench-extraction bench-metadata bench-metascraper bench-crawl bench-fairness bench-safety load chaos fuzz ssrf hostile clean

run:            ## set up, print an API key, run the server
	bash deploy/bootstrap.sh run

test:           ## set up and run linters and the whole test suite
	bash deploy/bootstrap.sh test

setup:
	bash deploy/bootstrap.sh setup

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy

format:
	.venv/bin/ruff format . && .venv/bin/ruff check --fix .

config:         ## regenerate config.toml and the generated docs pages from the declarations
	.venv/bin/python server.py config --defaults > config.toml.new && mv config.toml.new config.toml
	$(MAKE) docs

docs:           ## regenerate docs/settings.md's reference and docs/parameters.md from the declarations
	.venv/bin/python server.py config --markdown --into docs/settings.md
	.venv/bin/python -m handlers.params.reference > docs/parameters.md.new && mv docs/parameters.md.new docs/parameters.md

client-wheel:   ## the Python client (clients/python) as a wheel in dist/
	.venv/bin/pip wheel -q --no-deps -w dist ./clients/python

bench:          ## HTTP overhead benchmark (needs wrk)
	command -v wrk >/dev/null || $$( [ $$(id -u) = 0 ] || echo sudo ) apt-get install -y wrk
	.venv/bin/python bench/http_overhead.py

bench-oembed:   ## cached oEmbed and frame page throughput against hello-world (needs wrk)
	command -v wrk >/dev/null || $$( [ $$(id -u) = 0 ] || echo sudo ) apt-get install -y wrk
	.venv/bin/python bench/oembed.py

bench-result-cache: ## a repeated Markdown request (its kept answer) against /healthz, requests per second (needs wrk)
	command -v wrk >/dev/null || $$( [ $$(id -u) = 0 ] || echo sudo ) apt-get install -y wrk
	.venv/bin/python bench/result_cache.py

bench-one-load: ## Markdown with screenshot=true (one page load) against a Markdown request then a screenshot request, wall time and origin loads
	.venv/bin/python bench/one_load.py

bench-fetch:    ## fetcher overhead and slow-drip isolation
	.venv/bin/python bench/fetch.py

bench-screenshot: ## screenshots against bare Playwright, memory, chaos (long: about 25 minutes)
	.venv/bin/python bench/screenshot.py

bench-readiness: ## what waiting for script-built pages costs (static page) and gets (app pages), wait off against on
	.venv/bin/python bench/readiness.py

bench-markdown: ## Markdown against trafilatura and readability: speed, F1, HTTP (about 2 minutes)
	.venv/bin/pip install -q -r bench/requirements.txt
	.venv/bin/python bench/markdown.py

bench-extraction: ## main content against trafilatura on WCXB-dev (1,497 pages, per type, Markdown fidelity) and trafilatura-eval (945 pages, segments, comments) (about 10 minutes)
	.venv/bin/pip install -q -r bench/requirements.txt
	.venv/bin/python -m bench.extraction

bench-metadata: ## title, author and date on WCXB-dev's 1,497 pages (trafilatura beside), every field on the fixture set, ms per page (about 2 minutes)
	.venv/bin/pip install -q -r bench/requirements.txt
	.venv/bin/python -m bench.metadata

bench-metascraper: ## bench-metadata plus every field's agreement with metascraper (npm; installs node and it on first use)
	.venv/bin/pip install -q -r bench/requirements.txt
	.venv/bin/python -m bench.metadata --metascraper --disagreements bench/metascraper/disagreements.jsonl

bench-crawl:    ## a 500-page local crawl against the single-page endpoint, another organization's p95 during it (about 1 minute)
	.venv/bin/python bench/crawl.py

bench-fairness: ## one organization's p50/p95 alone and beside another's maps, large pages, batches, hanging webhooks, farm use and result reads; memory peak (about 6 minutes)
	.venv/bin/python bench/fairness.py

bench-safety:   ## prompt-injection scan: hidden instructions per hiding technique, false alarms and scan time on WCXB-dev's 1,497 pages (about 6 to 11 minutes)
	.venv/bin/python -m bench.safety

load:           ## mixed workload for 3 minutes: p50/p95 per endpoint, error rate, memory over time
	bash deploy/bootstrap.sh setup
	.venv/bin/python -m bench.load

chaos:          ## Chromium killed, Postgres stopped, data disk full, under load (restarts Postgres!)
	bash deploy/bootstrap.sh setup
	.venv/bin/python -m bench.chaos

fuzz:           ## schemathesis against /openapi.json, longer and unseeded (the suite runs a short one)
	bash deploy/bootstrap.sh setup
	PAGECAST_FUZZ_EXAMPLES=200 PAGECAST_FUZZ_RANDOM=1 .venv/bin/pytest -q tests/contract/test_fuzz.py

hostile:        ## hostile pages beside ordinary screenshots; server memory over 1,000 oEmbed bombs
	bash deploy/bootstrap.sh setup
	.venv/bin/python -m bench.hostile
	.venv/bin/python bench/hostile_memory.py

ssrf:           ## the SSRF battery alone (150 cases; it also runs in the test suite)
	bash deploy/bootstrap.sh setup
	.venv/bin/pytest -q tests/contract/test_ssrf_battery.py

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache

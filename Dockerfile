# Pagecast in a container: Debian 12, Debian's Chromium, the pinned requirements, a non-root
# user, its data in a volume. The same steps as deploy/bootstrap.sh, split in two stages so
# the compiler and headers stay out of the image.
#
#   docker build -t pagecast .
#   docker run -d --name pagecast -p 8080:8080 -p 8081:8081 --shm-size 1g -v pagecast-data:/var/lib/pagecast pagecast
#   docker exec pagecast python server.py keys create --org me --plan pro
#
# compose.yaml runs it alone on SQLite, or with PostgreSQL and an S3-compatible store.

FROM debian:12-slim AS build
ENV DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# What bootstrap.sh installs to build the requirements: venv, a compiler, Python and libpq headers.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc libpq-dev \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt /opt/pagecast/requirements.txt
RUN python3 -m venv /opt/pagecast/.venv \
    && /opt/pagecast/.venv/bin/pip install -q -r /opt/pagecast/requirements.txt

FROM debian:12-slim
ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 \
    PATH=/opt/pagecast/.venv/bin:$PATH \
    PAGECAST_STORE_DATA_DIR=/var/lib/pagecast \
    PAGECAST_SERVER_HOST=0.0.0.0 \
    PAGECAST_SERVER_METRICS_HOST=0.0.0.0
# Runtime only: Python, libpq, Debian's Chromium (the farm launches /usr/bin/chromium) with
# fonts, libatomic for the Node.js that drives it (Playwright's; gcc brings it on a full
# machine), and tini to reap Chromium's helper processes as PID 1.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 libpq5 libatomic1 chromium \
        fonts-liberation fonts-noto-color-emoji ca-certificates tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --user-group --home-dir /var/lib/pagecast --shell /usr/sbin/nologin pagecast \
    && mkdir -p /var/lib/pagecast && chown pagecast:pagecast /var/lib/pagecast
COPY --from=build /opt/pagecast/.venv /opt/pagecast/.venv
COPY server.py config.toml requirements.txt /opt/pagecast/
COPY app /opt/pagecast/app
COPY browser /opt/pagecast/browser
COPY convert /opt/pagecast/convert
COPY handlers /opt/pagecast/handlers
COPY services /opt/pagecast/services
COPY settings /opt/pagecast/settings
COPY static /opt/pagecast/static
COPY store /opt/pagecast/store
WORKDIR /opt/pagecast
USER pagecast
VOLUME /var/lib/pagecast
# API, frame host, metrics.
EXPOSE 8080 8081 9108
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["python", "server.py"]

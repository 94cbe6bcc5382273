#!/bin/sh
# The OIDC tests drive an independent relying party (Authlib, Python) against the portal:
# tests/oidc_rp.py needs python3 with authlib and requests. Idempotent.
set -eu
if python3 -c "import authlib, requests" 2>/dev/null; then
    exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-authlib python3-requests || true
fi
if ! python3 -c "import authlib, requests" 2>/dev/null; then
    python3 -m pip install --quiet authlib requests 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages authlib requests
fi
python3 -c "import authlib, requests; print('authlib', authlib.__version__)"

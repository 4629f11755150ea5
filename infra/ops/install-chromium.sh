#!/usr/bin/env bash
# Debian's chromium for the browser test (test/browser): installed only when missing, from the
# distribution's packages (no browser download of its own). Needs root, as CI and the dev machines are.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium

#!/usr/bin/env bash
# Installs a headless-capable Chromium for the web front end's browser test
# (examples/web, TestBrowser*). Debian's package; nothing is installed when
# /usr/bin/chromium is already there. Run as root (CI containers are).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
	echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-liberation fonts-dejavu-core
/usr/bin/chromium --version

#!/usr/bin/env bash
# The browser tests drive Debian's Chromium. Install it when this machine can (Debian's package, as root); otherwise
# stop here with one line that says what to install, rather than fail deep inside a browser test.
set -euo pipefail

if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing Debian's chromium for the browser tests"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; then
    exit 0
  fi
fi
echo "error: the browser tests need Chromium: install Debian's package ('sudo apt-get install chromium') or set CHROMIUM=/path/to/chromium." >&2
exit 1

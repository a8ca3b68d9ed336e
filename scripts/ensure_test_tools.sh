#!/usr/bin/env bash
# What the tests drive besides Python: Debian's Chromium (the browser tests), HAProxy (tests/cluster, the two-host
# test) and docker-compose (the compose file's own validation). Install them when this machine can (Debian's packages, as root). Without Chromium stop here with one line
# that says what to install, rather than fail deep inside a browser test; without HAProxy the cluster test skips,
# saying why.
set -euo pipefail

wanted=()
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  wanted+=(chromium)
fi
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || wanted+=(haproxy)
command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || wanted+=(nftables)  # the cluster test cuts a host off
# docker-compose.yml validated as compose reads it (tests/test_project.py), profiles and all
docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1 || wanted+=(docker-compose)
if [ ${#wanted[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing Debian's ${wanted[*]} for the tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null || true
fi
if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
echo "error: the browser tests need Chromium: install Debian's package ('sudo apt-get install chromium') or set CHROMIUM=/path/to/chromium." >&2
exit 1

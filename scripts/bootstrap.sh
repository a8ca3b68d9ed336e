#!/usr/bin/env bash
# Makes .venv with a Python >= 3.12 and the locked dependencies (uv.lock). Safe to run again: it only syncs.
set -euo pipefail
cd "$(dirname "$0")/.."

new_enough() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }

find_python() {
  local candidate
  # A pyenv shim on PATH may exist yet fail when its version is not selected, so each one is run, not just found.
  for candidate in python3.14 python3.13 python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && new_enough "$candidate"; then
      "$candidate" -c 'import sys; print(sys.executable)'; return 0
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for candidate in $(ls -d "$(pyenv root)"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do
      if new_enough "$candidate"; then echo "$candidate"; return 0; fi
    done
  fi
  return 1
}

if [ ! -x .venv/bin/python ] || ! new_enough .venv/bin/python; then
  rm -rf .venv
  python=$(find_python) || {
    echo "error: this project needs Python 3.12 or newer (tried python3.14, python3.13, python3.12, python3 and pyenv)." >&2
    echo "       Install one (e.g. 'apt-get install python3' on Debian 13) and run this again." >&2
    exit 1
  }
  echo "Creating .venv with $python"
  "$python" -m venv .venv
fi

uv_version=$(sed -n '/^name = "uv"$/{n;s/^version = "\(.*\)"$/\1/p}' uv.lock)
if [ ! -x .venv/bin/uv ] || [ "$(.venv/bin/uv --version | cut -d' ' -f2)" != "$uv_version" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$uv_version"
fi
UV_PROJECT_ENVIRONMENT=.venv UV_PYTHON_DOWNLOADS=never .venv/bin/uv sync --frozen --quiet --python .venv/bin/python

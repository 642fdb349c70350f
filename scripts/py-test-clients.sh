#!/usr/bin/env bash
# Install the third-party Python clients the tests drive Steward with (the official `openai`
# SDK, pinned) into a virtual environment at DEST.
#
# Usage: scripts/py-test-clients.sh [DEST]
#   DEST defaults to $STEWARD_TEST_PY_DIR, else target/py-clients under the repository root
#   (where the tests look; see crates/steward/tests/support). CI points it under ~/.cache.
#
# Idempotent and offline-safe: when DEST already holds exactly these versions (recorded in
# DEST/.installed after a successful install), nothing is fetched. Needs python3 (3.9+) with
# the venv module; fails loudly without it, because the tests need it.
set -euo pipefail

# openai and everything it pulls in, pinned (pip freeze of a fresh install).
PACKAGES=(
  "openai==3.57.0"
  "annotated-types==0.8.0"
  "anyio==4.16.0"
  "h11==0.16.0"
  "httpcore2==2.16.2"
  "httpx2==2.16.2"
  "idna==3.20"
  "jiter==0.19.0"
  "pydantic==2.14.4"
  "pydantic_core==2.50.5"
  "sniffio==1.3.1"
  "truststore==0.10.5"
  "typing-inspection==0.4.5"
  "typing_extensions==4.16.0"
)

die() { echo "py-test-clients: error: $*" >&2; exit 1; }
say() { echo "py-test-clients: $*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${STEWARD_TEST_PY_DIR:-$repo_root/target/py-clients}}"
want="$(printf '%s\n' "${PACKAGES[@]}")"

command -v python3 >/dev/null 2>&1 || die "python3 not found; the OpenAI SDK tests need Python 3.9+"

if [[ -f "$dest/.installed" ]] && [[ "$(cat "$dest/.installed")" == "$want" ]] \
  && "$dest/bin/python" -c "import openai" >/dev/null 2>&1; then
  say "already installed in $dest"
  exit 0
fi

rm -rf "$dest"
python3 -m venv "$dest" || die "python3 -m venv failed (install python3-venv)"
say "installing ${PACKAGES[*]} into $dest"
if ! "$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${PACKAGES[@]}" >&2; then
  die "pip install failed (is PyPI reachable?)"
fi
"$dest/bin/python" -c "import openai" || die "openai installed but cannot be imported"
echo "$want" >"$dest/.installed"
say "installed into $dest"
